//! One timestamp column decoder over arbitrary bytes.
//!
//! Input: selector byte (encoding = low bits mod 3, bit 7 = big endian), point
//! count as u16 little endian, then the column. A column that decodes must
//! survive a re-encode/decode cycle unchanged. Delta columns are also decoded
//! by every delta-of-delta kernel (varint loop, stop bits, shuffle), which
//! must give the same timestamps or the same error; deltapacked columns by
//! both of its kernels (table, shuffle), likewise. Selector bits 2-6 cut
//! that many times 4 bytes off the column's end: decoded as a payload's
//! column followed by others (`decode_timestamps_within`), the column must
//! give what it gives alone.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mebo::{ByteOrder, TimestampEncoding};

fuzz_target!(|data: &[u8]| {
    let [selector, c0, c1, col @ ..] = data else { return };
    let enc = TimestampEncoding::ALL[usize::from(selector & 0x7f) % TimestampEncoding::ALL.len()];
    let order = if selector & 0x80 != 0 { ByteOrder::Big } else { ByteOrder::Little };
    let count = usize::from(u16::from_le_bytes([*c0, *c1]));
    let mut out = vec![0i64; count];
    let decoded = mebo::internals::decode_timestamps(enc, col, order, &mut out);
    let len = col.len().saturating_sub(usize::from(selector >> 2 & 0x1f) * 4);
    let alone = |out: &mut [i64]| mebo::internals::decode_timestamps(enc, &col[..len], order, out).map_err(|e| e.to_string());
    let within = |out: &mut [i64]| mebo::internals::decode_timestamps_within(enc, col, len, order, out).map_err(|e| e.to_string());
    let (mut a, mut b) = (vec![0i64; count], vec![0i64; count]);
    assert_eq!(within(&mut a).map(|()| a), alone(&mut b).map(|()| b), "{enc:?} within a payload vs the column alone");
    if enc == TimestampEncoding::Delta {
        use mebo::internals::{DeltaKernel, DeltaTimestamps};
        let by = |kernel| {
            let mut out = vec![0i64; count];
            DeltaTimestamps::decode_with(kernel, col, &mut out).map(|()| out).map_err(|e| e.to_string())
        };
        let reference = by(DeltaKernel::Varint);
        for kernel in DeltaKernel::ALL {
            assert_eq!(by(kernel), reference, "{kernel:?} vs the varint loop");
        }
    }
    if enc == TimestampEncoding::DeltaPacked {
        use mebo::internals::{DeltaPackedTimestamps, PackedKernel};
        let by = |kernel| {
            let mut out = vec![0i64; count];
            DeltaPackedTimestamps::decode_with(kernel, col, &mut out).map(|()| out).map_err(|e| e.to_string())
        };
        assert_eq!(by(PackedKernel::Shuffle), by(PackedKernel::Table), "deltapacked shuffle vs the table kernel");
    }
    if decoded.is_err() {
        return;
    }
    let mut again = Vec::new();
    mebo::internals::encode_timestamps(enc, &out, order, &mut again);
    let mut back = vec![0i64; count];
    mebo::internals::decode_timestamps(enc, &again, order, &mut back).expect("re-encoded column decodes");
    assert_eq!(back, out, "{enc:?} round trip of a decoded column");
});
