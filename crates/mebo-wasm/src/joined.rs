//! Strings from JavaScript to the encoders as decode hands them out: one JS
//! string and the UTF-16 end of each (`JoinedStrings`), so a metric's strings
//! cross the boundary in one conversion instead of one per string; and, for
//! the one-call encoders' values and tags, coded (`CodedStrings`): the
//! distinct strings joined, and a code a string. Time series repeat their
//! strings, and joining them all cost more than the encode: the join of the
//! text bench input's 10,005 values (300,093 UTF-16 units, most of them
//! Latin-1 strings widened into a two-byte result) took 0.42 ms in Node and
//! its UTF-8 conversion 0.17 ms, then the split here walked it character by
//! character; its 15 distinct values cost next to nothing (the whole
//! `encodeText` 1.7 -> 0.55 ms). The SDK joins strings that mostly differ
//! whole instead, each its own code.

use std::borrow::Cow;

use js_sys::{Reflect, Uint32Array};
use mebo::Error;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::js::{self, check, JoinedStrings, JsResult};

#[wasm_bindgen(typescript_custom_section)]
const TS_CODED: &str = r#"
/** Strings as the one-call encoders send them: the distinct ones joined (`text`, `ends`), and for each string the index of its distinct one (`codes`). */
export interface CodedStrings extends JoinedStrings {
  codes: Uint32Array;
}
"#;

#[wasm_bindgen]
extern "C" {
    /// `{ text, ends, codes }`: see [`Coded`].
    #[wasm_bindgen(typescript_type = "CodedStrings")]
    pub type CodedStrings;
}

/// A `CodedStrings` from the caller, copied into wasm memory.
pub struct Coded {
    distinct: Joined,
    codes: Vec<u32>,
}

impl Coded {
    /// As [`Joined::read`], and `coded.codes` must be a `Uint32Array` (ENCODER_STATE otherwise).
    pub fn read(coded: &CodedStrings, what: &'static str) -> JsResult<Coded> {
        let distinct = Joined::read(coded.unchecked_ref::<JoinedStrings>(), what)?;
        match Reflect::get(coded, &"codes".into()).ok().and_then(|c| c.dyn_into::<Uint32Array>().ok()) {
            Some(codes) => Ok(Coded { distinct, codes: codes.to_vec() }),
            None => Err(js::error(bad(what, "must be { text: string, ends: Uint32Array, codes: Uint32Array }".into()))),
        }
    }

    /// The distinct strings (see [`split`]), for [`expand`](Self::expand).
    pub fn distinct(&self) -> JsResult<Vec<Cow<'_, str>>> {
        self.distinct.split()
    }

    /// Each string, its code's distinct string (borrowed: as `Cow`s, the
    /// form the per-metric calls' strings take, so the core's encoders are
    /// not built a second time for another string type).
    pub fn expand<'d>(&self, distinct: &'d [Cow<'_, str>]) -> JsResult<Vec<Cow<'d, str>>> {
        check(expand(distinct, &self.codes, self.distinct.what))
    }
}

/// `codes` as the strings of `distinct` they index; a code past them is ENCODER_STATE.
pub fn expand<'d>(distinct: &'d [Cow<'_, str>], codes: &[u32], what: &'static str) -> mebo::Result<Vec<Cow<'d, str>>> {
    codes
        .iter()
        .enumerate()
        .map(|(i, &code)| match distinct.get(code as usize) {
            Some(s) => Ok(Cow::Borrowed(&**s)),
            None => Err(bad(what, format!("code {code} of string {i} past the {} distinct strings", distinct.len()))),
        })
        .collect()
}

/// A `JoinedStrings` from the caller, copied into wasm memory.
pub struct Joined {
    text: String,
    ends: Vec<u32>,
    what: &'static str,
}

impl Joined {
    /// `joined.text` must be a string and `joined.ends` a `Uint32Array` (an
    /// ENCODER_STATE error otherwise). The glue converts `text` as it
    /// converts any string argument, lone surrogates to U+FFFD (see [`split`]
    /// for the pairs the join formed).
    pub fn read(joined: &JoinedStrings, what: &'static str) -> JsResult<Joined> {
        let field = |key: &str| Reflect::get(joined, &key.into()).unwrap_or(JsValue::UNDEFINED);
        let text = field("text").as_string();
        let ends = field("ends").dyn_into::<Uint32Array>().ok();
        match (text, ends) {
            (Some(text), Some(ends)) => Ok(Joined { text, ends: ends.to_vec(), what }),
            _ => Err(js::error(bad(what, "must be { text: string, ends: Uint32Array }".into()))),
        }
    }

    /// The strings (see [`split`]).
    pub fn split(&self) -> JsResult<Vec<Cow<'_, str>>> {
        check(split(&self.text, &self.ends, self.what))
    }
}

/// `text` split at `ends`, the UTF-16 end offset of each string: ends must
/// not descend and the last must be the text's length (no ends: empty text).
///
/// Joining can pair a lone high surrogate ending one string with a lone low
/// surrogate starting the next, which the conversion to UTF-8 then keeps as
/// one character. An end inside a character is that case: each half becomes
/// U+FFFD, what converting each string alone gives.
pub fn split<'t>(text: &'t str, ends: &[u32], what: &'static str) -> mebo::Result<Vec<Cow<'t, str>>> {
    if text.is_ascii() {
        return split_ascii(text, ends, what);
    }
    let mut out = Vec::with_capacity(ends.len());
    let mut chars = text.chars();
    // The cursor: bytes and UTF-16 units consumed, and whether the last
    // character consumed was a pair whose low half belongs to the next string.
    let (mut byte, mut units, mut low_half_next) = (0usize, 0usize, false);
    let mut previous = 0usize;
    for (i, &end) in ends.iter().enumerate() {
        let end = end as usize;
        if end < previous {
            return Err(bad(what, format!("ends descend at string {i}")));
        }
        if end == previous {
            out.push(Cow::Borrowed(""));
            continue;
        }
        let lead = std::mem::take(&mut low_half_next);
        let start = byte;
        let mut body_end = None;
        while units < end {
            let Some(c) = chars.next() else {
                return Err(bad(what, format!("end {end} of string {i} past the text's {units} UTF-16 units")));
            };
            if units + c.len_utf16() > end {
                body_end = Some(byte);
                low_half_next = true;
            }
            units += c.len_utf16();
            byte += c.len_utf8();
        }
        let body = &text[start..body_end.unwrap_or(byte)];
        out.push(if lead || low_half_next {
            let mut s = String::with_capacity(body.len() + 6);
            if lead {
                s.push(char::REPLACEMENT_CHARACTER);
            }
            s.push_str(body);
            if low_half_next {
                s.push(char::REPLACEMENT_CHARACTER);
            }
            Cow::Owned(s)
        } else {
            Cow::Borrowed(body)
        });
        previous = end;
    }
    if byte != text.len() || low_half_next {
        return Err(bad(what, format!("the last end is {previous}, not the text's length")));
    }
    Ok(out)
}

/// [`split`] of ASCII text, where UTF-16 units are bytes.
fn split_ascii<'t>(text: &'t str, ends: &[u32], what: &'static str) -> mebo::Result<Vec<Cow<'t, str>>> {
    let mut out = Vec::with_capacity(ends.len());
    let mut previous = 0usize;
    for (i, &end) in ends.iter().enumerate() {
        let end = end as usize;
        if end < previous {
            return Err(bad(what, format!("ends descend at string {i}")));
        }
        let Some(s) = text.get(previous..end) else {
            return Err(bad(what, format!("end {end} of string {i} past the text's {} UTF-16 units", text.len())));
        };
        out.push(Cow::Borrowed(s));
        previous = end;
    }
    if previous != text.len() {
        return Err(bad(what, format!("the last end is {previous}, not the text's length")));
    }
    Ok(out)
}

fn bad(what: &str, detail: String) -> Error {
    Error::EncoderState { detail: format!("joined {what}: {detail}") }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::{expand, split};

    #[test]
    fn codes_expand_to_their_distinct_strings() {
        let distinct: Vec<Cow<'_, str>> = vec!["up".into(), "".into(), "温度".into()];
        assert_eq!(expand(&distinct, &[0, 0, 2, 1, 0], "values").unwrap(), ["up", "up", "温度", "", "up"]);
        assert!(expand(&distinct, &[], "values").unwrap().is_empty());
        let err = expand(&distinct, &[0, 3], "values").unwrap_err();
        assert_eq!(err.code(), "ENCODER_STATE");
        assert!(err.to_string().contains("code 3 of string 1 past the 3 distinct strings"), "{err}");
    }

    fn parts(text: &str, ends: &[u32]) -> Vec<String> {
        split(text, ends, "values").unwrap().into_iter().map(|s| s.into_owned()).collect()
    }

    fn refused(text: &str, ends: &[u32]) -> String {
        let err = split(text, ends, "values").unwrap_err();
        assert_eq!(err.code(), "ENCODER_STATE");
        err.to_string()
    }

    /// The UTF-16 ends of `strings`, counted independently of the module.
    fn ends_of(strings: &[&str]) -> Vec<u32> {
        let mut total = 0;
        strings
            .iter()
            .map(|s| {
                total += s.encode_utf16().count() as u32;
                total
            })
            .collect()
    }

    #[test]
    fn splits_at_utf16_ends() {
        for strings in [&["cpu", "", "mem", "disk0"][..], &["温度", "", "é😀x", "😀", "a"][..], &["", ""][..], &["😀😀", "naïve"][..]]
        {
            assert_eq!(parts(&strings.concat(), &ends_of(strings)), strings);
        }
        assert_eq!(parts("", &[]), Vec::<String>::new());
    }

    #[test]
    fn a_pair_the_join_formed_splits_into_two_replacements() {
        // "a\u{D83D}" + "\u{DE00}b": the join reads as "a😀b".
        assert_eq!(parts("a😀b", &[2, 4]), ["a\u{FFFD}", "\u{FFFD}b"]);
        // The low half alone, after an empty string.
        assert_eq!(parts("😀", &[1, 1, 2]), ["\u{FFFD}", "", "\u{FFFD}"]);
        // Split pairs back to back: "\u{D83D}" + "\u{DE00}\u{D83D}" + "\u{DE00}".
        assert_eq!(parts("😀😀", &[1, 3, 4]), ["\u{FFFD}", "\u{FFFD}\u{FFFD}", "\u{FFFD}"]);
    }

    #[test]
    fn refuses_ends_that_do_not_fit_the_text() {
        for text in ["abcd", "ab😀"] {
            assert!(refused(text, &[3, 2, 4]).contains("descend at string 1"), "{text}");
            assert!(refused(text, &[2, 5]).contains("past the text"), "{text}");
            assert!(refused(text, &[1, 3]).contains("not the text's length"), "{text}");
            assert!(refused(text, &[]).contains("not the text's length"), "{text}");
            assert!(refused(text, &[u32::MAX]).contains("past the text"), "{text}");
        }
        // Ending inside the text's last pair leaves its low half to no string.
        assert!(refused("ab😀", &[3]).contains("not the text's length"));
    }
}
