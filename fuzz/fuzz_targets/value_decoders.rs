//! One value column decoder over arbitrary bytes.
//!
//! Input: selector byte (encoding = low bits mod 4, bit 7 = big endian), point
//! count as u16 little endian, then the column. A column that decodes must
//! survive a re-encode/decode cycle bit for bit, and decoding it beside a second
//! column (`decode_values_two`) or three more (`decode_values_four`) must give
//! what decoding each alone gives; natively also with the XOR decoders' BMI2
//! build turned off (the plain build must agree). Selector bits 2-6 cut that
//! many times 4 bytes off the column's end: decoded as a payload's column
//! followed by others (`decode_values_within`), the column must give what it
//! gives alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::{ByteOrder, ValueEncoding};

fuzz_target!(|data: &[u8]| {
    let [selector, c0, c1, col @ ..] = data else { return };
    let enc = ValueEncoding::ALL[usize::from(selector & 0x7f) % ValueEncoding::ALL.len()];
    let order = if selector & 0x80 != 0 { ByteOrder::Big } else { ByteOrder::Little };
    let count = usize::from(u16::from_le_bytes([*c0, *c1]));
    let mut out = vec![0f64; count];
    let decoded = mebo::internals::decode_values(enc, col, order, &mut out);
    let len = col.len().saturating_sub(usize::from(selector >> 2 & 0x1f) * 4);
    let as_bits = |r: mebo::Result<()>, v: Vec<f64>| r.map(|()| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()).map_err(|e| e.to_string());
    let (mut a, mut b) = (vec![0f64; count], vec![0f64; count]);
    let within = mebo::internals::decode_values_within(enc, col, len, order, &mut a);
    let alone = mebo::internals::decode_values(enc, &col[..len], order, &mut b);
    assert_eq!(as_bits(within, a), as_bits(alone, b), "{enc:?} within a payload vs the column alone");
    // Beside a second column (its own tail, half the points), decoded in one
    // call: the same results as each alone.
    let tail = &col[count % (col.len() + 1)..];
    let mut tail_out = vec![0f64; count / 2];
    let tail_decoded = mebo::internals::decode_values(enc, tail, order, &mut tail_out);
    let (mut pair_a, mut pair_b) = (vec![0f64; count], vec![0f64; count / 2]);
    let pair = mebo::internals::decode_values_two(enc, (col, &mut pair_a), (tail, &mut pair_b), order);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(pair.is_ok(), decoded.is_ok() && tail_decoded.is_ok(), "{enc:?} pair vs single");
    if pair.is_ok() {
        assert_eq!((bits(&pair_a), bits(&pair_b)), (bits(&out), bits(&tail_out)), "{enc:?} pair vs single");
    }
    // Four columns side by side: this one, its tail, and both again.
    let mut four: Vec<Vec<f64>> = vec![vec![0f64; count], vec![0f64; count / 2], vec![0f64; count / 2], vec![0f64; count]];
    let [a, b, c, d] = &mut four[..] else { unreachable!() };
    let quad = mebo::internals::decode_values_four(enc, (col, a), (tail, b), (tail, c), (col, d), order);
    assert_eq!(quad.is_ok(), decoded.is_ok() && tail_decoded.is_ok(), "{enc:?} four vs single");
    if quad.is_ok() {
        let expected = [bits(&out), bits(&tail_out), bits(&tail_out), bits(&out)];
        assert_eq!(four.iter().map(|v| bits(v)).collect::<Vec<_>>(), expected, "{enc:?} four vs single");
    }
    // The plain build of the XOR decoders agrees with the one that ran.
    let before = mebo::internals::allow_xor_bmi2(false);
    let mut plain = vec![0f64; count];
    let plain_decoded = mebo::internals::decode_values(enc, col, order, &mut plain);
    mebo::internals::allow_xor_bmi2(before);
    assert_eq!(plain_decoded.is_ok(), decoded.is_ok(), "{enc:?} plain vs BMI2 build");
    if decoded.is_err() {
        return;
    }
    assert_eq!(bits(&plain), bits(&out), "{enc:?} plain vs BMI2 build");
    let mut again = Vec::new();
    mebo::internals::encode_values(enc, &out, order, &mut again);
    let mut back = vec![0f64; count];
    mebo::internals::decode_values(enc, &again, order, &mut back).expect("re-encoded column decodes");
    assert_eq!(bits(&back), bits(&out), "{enc:?} round trip of a decoded column");
});
