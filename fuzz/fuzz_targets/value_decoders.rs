//! One value column decoder over arbitrary bytes.
//!
//! Input: selector byte (encoding = low bits mod 4, bit 7 = big endian), point
//! count as u16 little endian, then the column. A column that decodes must
//! survive a re-encode/decode cycle bit for bit.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::{ByteOrder, ValueEncoding};

fuzz_target!(|data: &[u8]| {
    let [selector, c0, c1, col @ ..] = data else { return };
    let enc = ValueEncoding::ALL[usize::from(selector & 0x7f) % ValueEncoding::ALL.len()];
    let order = if selector & 0x80 != 0 { ByteOrder::Big } else { ByteOrder::Little };
    let count = usize::from(u16::from_le_bytes([*c0, *c1]));
    let mut out = vec![0f64; count];
    if mebo::encoding::decode_values(enc, col, order, &mut out).is_err() {
        return;
    }
    let mut again = Vec::new();
    mebo::encoding::encode_values(enc, &out, order, &mut again);
    let mut back = vec![0f64; count];
    mebo::encoding::decode_values(enc, &again, order, &mut back).expect("re-encoded column decodes");
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&back), bits(&out), "{enc:?} round trip of a decoded column");
});
