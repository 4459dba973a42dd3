//! Why a payload did not decode: what every part of the decoder returns,
//! and what the exports turn into the core's error codes.

/// Why a payload did not decode; the SDK sends each as the core's error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// `SIZE_CAP`: the output would reach this many bytes, more than the cap.
    SizeCap(u64),
    /// `OUT_OF_MEMORY`: this many bytes could not be allocated.
    OutOfMemory(usize),
    /// `DECOMPRESS`: the frames are not valid zstd: which check failed, and
    /// where the frame, block or section it checked starts (or the read that
    /// failed). Each function counts that byte from the start of the bytes
    /// it was given, and [`Failure::after`] moves it when the caller gave a
    /// part of its own: from `frames::decompress` it counts from the
    /// payload's first byte.
    Corrupt(&'static [u8], usize),
}

impl Failure {
    /// The failure of a read of bytes that start `start` bytes into the
    /// caller's.
    #[inline]
    pub fn after(self, start: usize) -> Failure {
        match self {
            Failure::Corrupt(what, at) => Failure::Corrupt(what, at.saturating_add(start)),
            other => other,
        }
    }
}

/// Room for a message: a check's name (the longest has 66 bytes; a test
/// holds every name to this room), " at byte " and a 20-digit offset.
pub const MESSAGE: usize = 128;

impl Failure {
    /// A `Corrupt` failure's message written into `into`, e.g. "truncated
    /// RLE block at byte 1234" (without `core::fmt`, which the part does not
    /// carry); its length (0 for the other failures, which are numbers).
    pub fn message(self, into: &mut [u8; MESSAGE]) -> usize {
        let Failure::Corrupt(what, at) = self else { return 0 };
        let mut digits = [0u8; 20];
        let mut count = 0;
        let mut rest = at;
        for digit in digits.iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
            count += 1;
            if rest == 0 {
                break;
            }
        }
        let digits = digits.get(digits.len() - count..).unwrap_or_default();
        let parts = what.iter().chain(b" at byte ").chain(digits);
        let mut len = 0;
        for (slot, &byte) in into.iter_mut().zip(parts) {
            *slot = byte;
            len += 1;
        }
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(what: &'static [u8], at: usize) -> alloc::string::String {
        let mut into = [0; MESSAGE];
        let len = Failure::Corrupt(what, at).message(&mut into);
        alloc::string::String::from_utf8(into[..len].to_vec()).unwrap()
    }

    #[test]
    fn messages_name_the_check_and_the_byte() {
        assert_eq!(text(b"truncated RLE block", 1234), "truncated RLE block at byte 1234");
        assert_eq!(text(b"checksum mismatch", 0), "checksum mismatch at byte 0");
        assert_eq!(text(b"x", usize::MAX), alloc::format!("x at byte {}", usize::MAX));
        let longest = b"the frame declares more content than its compressed bytes can hold";
        assert_eq!(text(longest, u64::MAX as usize), alloc::format!("{} at byte {}", core::str::from_utf8(longest).unwrap(), u64::MAX));
        assert_eq!(Failure::SizeCap(5).message(&mut [0; MESSAGE]), 0);
    }

    /// Every check the decoder names fits the message with the longest offset.
    #[test]
    fn every_check_name_fits() {
        let sources = [
            include_str!("bits.rs"),
            include_str!("frame.rs"),
            include_str!("frames.rs"),
            include_str!("fse.rs"),
            include_str!("huffman.rs"),
            include_str!("literals.rs"),
            include_str!("sequences.rs"),
        ];
        let mut names = 0;
        for source in sources {
            for piece in source.split("Corrupt(b\"").skip(1) {
                let name = piece.split('"').next().unwrap();
                assert!(name.len() + " at byte ".len() + 20 <= MESSAGE, "{name}");
                names += 1;
            }
        }
        assert!(names > 50, "{names}");
    }

    #[test]
    fn offsets_move_by_where_the_part_read_starts() {
        assert_eq!(Failure::Corrupt(b"x", 3).after(10), Failure::Corrupt(b"x", 13));
        assert_eq!(Failure::Corrupt(b"x", usize::MAX).after(10), Failure::Corrupt(b"x", usize::MAX));
        assert_eq!(Failure::SizeCap(5).after(10), Failure::SizeCap(5));
        assert_eq!(Failure::OutOfMemory(5).after(10), Failure::OutOfMemory(5));
    }
}
