//! Text columns as dictionaries, the way Arrow's dictionary vectors hold
//! strings: each distinct string once, in order of first appearance, and per
//! point the index (code) of its string.
//!
//! Text columns are mostly statuses that repeat, so a reader that makes one
//! string object per distinct value instead of one per point (JavaScript,
//! Arrow) saves nearly all of its work. [`TextBlob::decode_dictionary`] builds
//! the dictionaries straight from the rows: strings borrow the blob's data,
//! nothing is copied, and a string is checked for UTF-8 once, when it first
//! appears (equal bytes are equally valid).
//!
//! [`TextBlob::decode_dictionary`]: super::TextBlob::decode_dictionary

use std::collections::HashMap;

use super::string_column::StringColumn;
use crate::error::{Error, Result};
use crate::limits;

/// A string column as a dictionary: `strings[codes[i]]` is point `i`'s string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Dictionary<'a> {
    /// Each distinct string once, in order of first appearance.
    pub strings: Vec<&'a str>,
    /// Per point, the index of its string in `strings`.
    pub codes: Vec<u32>,
}

impl<'a> Dictionary<'a> {
    /// The dictionary of a decoded column; `OutOfMemory` when its codes or
    /// strings cannot be allocated.
    pub fn of(column: &'a StringColumn) -> Result<Dictionary<'a>> {
        let mut builder = DictionaryBuilder::new(column.len(), "dictionary codes")?;
        for (i, s) in column.iter().enumerate() {
            builder.push(s.as_bytes()).map_err(|refused| refused.into_error("string", i))?;
        }
        Ok(builder.finish())
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// True when there is no point.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Point `i`'s string, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<&'a str> {
        self.strings.get(*self.codes.get(i)? as usize).copied()
    }
}

/// Every metric of a text blob with values (and tags) as dictionaries; ids,
/// offsets and timestamps as in [`TextColumns`](super::TextColumns).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DictionaryColumns<'a> {
    /// Metric ids in index order.
    pub ids: Vec<u64>,
    /// `ids.len() + 1` point offsets: metric `m` owns points `offsets[m]..offsets[m + 1]`.
    pub offsets: Vec<u32>,
    /// Every point's timestamp.
    pub timestamps: Vec<i64>,
    /// Every point's value.
    pub values: Dictionary<'a>,
    /// `None` when the blob has no tags.
    pub tags: Option<Dictionary<'a>>,
}

/// Distinct strings looked up by a linear scan before a hash map is built:
/// most text columns hold a handful of statuses, and comparing a few short
/// strings is cheaper than hashing one.
const LINEAR_LOOKUP: usize = 16;

/// Builds a [`Dictionary`] point by point.
pub(crate) struct DictionaryBuilder<'a> {
    strings: Vec<&'a str>,
    /// The strings' fingerprints, while there are at most [`LINEAR_LOOKUP`].
    fingerprints: Vec<u64>,
    /// Filled once there are more than [`LINEAR_LOOKUP`] distinct strings.
    /// std's SipHash, not a faster unkeyed hash: a blob is hostile input, and
    /// colliding strings must not make this quadratic.
    index: HashMap<&'a [u8], u32>,
    codes: Vec<u32>,
    /// A direct-mapped cache in front of both lookups: by a few bits of the
    /// fingerprint, the code last seen there plus one (0: empty). A hit is
    /// checked by bytes; a miss or a clash just takes the full lookup.
    recent: [u32; RECENT_SLOTS],
}

/// Slots of [`DictionaryBuilder::recent`]: a power of two.
const RECENT_SLOTS: usize = 64;

/// Why [`DictionaryBuilder::push`] did not add a point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The point's string is new and not UTF-8.
    NotUtf8,
    /// Room for the point or its new string was refused.
    OutOfMemory { what: &'static str, bytes: usize },
}

impl Refused {
    /// The error for point `index` of the column `what` ("text value", …).
    pub fn into_error(self, what: &'static str, index: usize) -> Error {
        match self {
            Refused::NotUtf8 => Error::InvalidUtf8 { what, index },
            Refused::OutOfMemory { what, bytes } => Error::OutOfMemory { what, bytes },
        }
    }
}

/// [`limits::room_for_one`], refused as the builder reports it.
#[inline]
fn room_for_one<T>(v: &mut Vec<T>, what: &'static str) -> Result<(), Refused> {
    limits::room_for_one(v, what).map_err(|_| Refused::OutOfMemory { what, bytes: v.len().saturating_mul(std::mem::size_of::<T>()) })
}

impl<'a> DictionaryBuilder<'a> {
    /// A builder with room for the codes of `points` points, reserved
    /// fallibly (they are sized by the blob); `what` names them in the error.
    pub fn new(points: usize, what: &'static str) -> Result<Self> {
        let codes = limits::with_capacity(points, what)?;
        Ok(DictionaryBuilder { strings: Vec::new(), fingerprints: Vec::new(), index: HashMap::new(), codes, recent: [0; RECENT_SLOTS] })
    }

    /// Append one point's string. `Err` when it is new and not UTF-8, or
    /// when memory for it is refused (the point is then not added).
    #[inline]
    pub fn push(&mut self, bytes: &'a [u8]) -> Result<(), Refused> {
        let print = fingerprint(bytes);
        // The top bits of a multiplicative mix of the fingerprint.
        let slot = (print.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 58) as usize % RECENT_SLOTS;
        let cached = self.recent[slot].wrapping_sub(1) as usize;
        let code = match self.strings.get(cached) {
            Some(s) if same(s.as_bytes(), bytes) => cached as u32,
            _ => {
                let code = self.lookup(bytes, print)?;
                self.recent[slot] = code + 1;
                code
            }
        };
        // Reserved for every point up front: this only grows past that.
        room_for_one(&mut self.codes, "dictionary codes")?;
        self.codes.push(code);
        Ok(())
    }

    /// The code of `bytes`, added when new.
    fn lookup(&mut self, bytes: &'a [u8], print: u64) -> Result<u32, Refused> {
        let known = if self.index.is_empty() {
            self.fingerprints.iter().zip(&self.strings).position(|(&p, s)| p == print && same(s.as_bytes(), bytes)).map(|k| k as u32)
        } else {
            self.index.get(bytes).copied()
        };
        match known {
            Some(code) => Ok(code),
            None => self.add(bytes, print),
        }
    }

    /// A new distinct string: checked, given the next code. Every table
    /// grows fallibly: distinct strings are as many as the blob's points.
    #[cold]
    fn add(&mut self, bytes: &'a [u8], print: u64) -> Result<u32, Refused> {
        let s = std::str::from_utf8(bytes).map_err(|_| Refused::NotUtf8)?;
        // Codes fit u32: points are bounded by the u32 data size of a blob.
        let code = self.strings.len() as u32;
        room_for_one(&mut self.strings, "dictionary strings")?;
        let lookup_room = |map: &mut HashMap<&'a [u8], u32>, more: usize| {
            let bytes = map.len().saturating_add(more).saturating_mul(std::mem::size_of::<(&[u8], u32)>());
            map.try_reserve(more).map_err(|_| Refused::OutOfMemory { what: "dictionary lookup", bytes })
        };
        if self.index.is_empty() {
            if self.strings.len() + 1 > LINEAR_LOOKUP {
                lookup_room(&mut self.index, self.strings.len() + 1)?;
                self.strings.push(s);
                self.index.extend(self.strings.iter().enumerate().map(|(k, d)| (d.as_bytes(), k as u32)));
                self.fingerprints = Vec::new();
            } else {
                room_for_one(&mut self.fingerprints, "dictionary fingerprints")?;
                self.strings.push(s);
                self.fingerprints.push(print);
            }
        } else {
            lookup_room(&mut self.index, 1)?;
            self.strings.push(s);
            self.index.insert(bytes, code);
        }
        Ok(code)
    }

    pub fn finish(self) -> Dictionary<'a> {
        Dictionary { strings: self.strings, codes: self.codes }
    }
}

/// The little-endian word of 8 bytes.
#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(w)
}

/// A cheap fingerprint of a string, compared before its bytes: the length
/// and the first and last 8 bytes, no loop. Only a filter (strings that
/// differ only in the middle share it); the bytes still decide.
#[inline(always)]
fn fingerprint(s: &[u8]) -> u64 {
    let n = s.len();
    if n >= 8 {
        word(s) ^ word(&s[n - 8..]).rotate_left(29) ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    } else {
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(s);
        u64::from_le_bytes(w) ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

/// Byte equality, word by word and inlined: slice `==` calls `memcmp`,
/// which in wasm is a byte loop behind a call.
#[inline(always)]
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (mut wa, mut wb) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut wa).zip(&mut wb) {
        if word(x) != word(y) {
            return false;
        }
    }
    wa.remainder() == wb.remainder()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `same` and `fingerprint` agree with plain equality on strings of every
    /// length around the 8-byte words, equal and differing at every position.
    #[test]
    fn same_and_fingerprint_agree_with_equality() {
        let base: String = "ok-dégradé-€-status-0123456789".into();
        for len in 0..base.len() {
            let a = &base.as_bytes()[..len];
            let copy = a.to_vec(); // the same bytes elsewhere in memory
            assert!(same(a, &copy) && fingerprint(a) == fingerprint(&copy));
            for other in [&base[..], "", "x", "ok-dégradé", "ok-dégradé-€-status-0123456788"] {
                assert_eq!(same(a, other.as_bytes()), a == other.as_bytes(), "{a:?} vs {other:?}");
            }
            for at in 0..len {
                let mut changed = a.to_vec();
                changed[at] ^= 1;
                assert!(!same(a, &changed), "{a:?} vs {changed:?}");
            }
        }
    }

    fn column(words: &[&str]) -> StringColumn {
        let mut column = StringColumn::default();
        for w in words {
            column.push(w);
        }
        column
    }

    #[test]
    fn dictionary_of_a_column() {
        let words = ["up", "down", "up", "up", "", "down", "ünïcode"];
        let c = column(&words);
        let d = Dictionary::of(&c).unwrap();
        assert_eq!(d.strings, vec!["up", "down", "", "ünïcode"]);
        assert_eq!(d.codes, vec![0, 1, 0, 0, 2, 1, 3]);
        assert!(words.iter().enumerate().all(|(i, w)| d.get(i) == Some(*w)));
        assert_eq!(d.get(words.len()), None);
    }

    /// Past the linear scan the hash map takes over with the same codes, and
    /// strings that share a fingerprint (same length, first and last 8 bytes)
    /// stay apart: a plain map from string to first position is the expectation.
    #[test]
    fn many_strings_and_shared_fingerprints() {
        let names: Vec<String> = (0..400).map(|i| format!("status-{:02}-middle-{}-suffix!!", i % 37, i % 3)).collect();
        let words: Vec<&str> = names.iter().map(String::as_str).collect();
        let c = column(&words);
        let d = Dictionary::of(&c).unwrap();
        let mut expected: Vec<&str> = Vec::new();
        for w in &words {
            if !expected.contains(w) {
                expected.push(w);
            }
        }
        assert_eq!(d.strings, expected);
        assert!(words.iter().enumerate().all(|(i, w)| d.get(i) == Some(*w)));
    }

    #[test]
    fn invalid_utf8_is_refused_once_new() {
        let mut b = DictionaryBuilder::new(3, "codes").unwrap();
        assert!(b.push(b"ok").is_ok());
        assert_eq!(b.push(&[0xff, 0xfe]), Err(Refused::NotUtf8));
        assert!(b.push(b"ok").is_ok());
        let d = b.finish();
        assert_eq!((d.strings, d.codes), (vec!["ok"], vec![0, 0]));
        assert_eq!(Refused::NotUtf8.into_error("text tag", 4).code(), "INVALID_UTF8");
    }

    /// Codes sized by a crafted point count are refused, not aborted on.
    #[test]
    fn codes_for_a_crafted_point_count_are_out_of_memory() {
        let err = DictionaryBuilder::new(usize::MAX / 2, "value codes").err().expect("refused");
        assert!(matches!(err, Error::OutOfMemory { what: "value codes", .. }), "{err}");
        // Past the reserved room the codes still grow (fallibly).
        let mut b = DictionaryBuilder::new(0, "codes").unwrap();
        let words: Vec<String> = (0..40).map(|i| format!("w{}", i % 20)).collect();
        for w in &words {
            b.push(w.as_bytes()).unwrap();
        }
        let d = b.finish();
        assert_eq!(d.strings.len(), 20);
        assert!(words.iter().enumerate().all(|(i, w)| d.get(i) == Some(w.as_str())));
    }
}
