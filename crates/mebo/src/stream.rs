//! A stream of blobs: this project's framing for many blobs in one
//! connection or one file (`docs/FORMAT.md`, "Stream of blobs"). The four
//! bytes `MBS1`, then a frame per blob: its length as a u32 little endian,
//! then its bytes. A blob does not state its own length, so the frames do.
//!
//! ```
//! use mebo::stream::{write_stream, Frames};
//!
//! let blobs: [&[u8]; 2] = [b"first blob", b"second"];
//! let stream = write_stream(blobs)?;
//! let read: Vec<&[u8]> = Frames::new(&stream)?.collect::<mebo::Result<_>>()?;
//! assert_eq!(read, blobs);
//! # Ok::<(), mebo::Error>(())
//! ```

use crate::error::{Error, Result};

/// The first four bytes of a stream of blobs.
pub const MAGIC: [u8; 4] = *b"MBS1";

/// The largest blob a reader takes by default (the TypeScript SDK's default
/// too): a frame declaring more is `SIZE_CAP`.
pub const DEFAULT_MAX_BLOB_BYTES: usize = 256 << 20;

/// Whether `bytes` start as a stream of blobs does (a blob never does: its
/// first two bytes are a flag word).
pub fn is_stream(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// The four bytes that frame a blob of `len` bytes: its length, u32 little
/// endian. `LIMIT_EXCEEDED` past 4 GiB − 1.
pub fn frame_prefix(len: usize) -> Result<[u8; 4]> {
    u32::try_from(len).map(u32::to_le_bytes).map_err(|_| Error::LimitExceeded {
        what: "blob in a stream",
        value: len as u64,
        limit: u64::from(u32::MAX),
    })
}

/// `blobs` as one stream of blobs, in order.
pub fn write_stream<'b>(blobs: impl IntoIterator<Item = &'b [u8]>) -> Result<Vec<u8>> {
    let mut stream = MAGIC.to_vec();
    for blob in blobs {
        stream.extend_from_slice(&frame_prefix(blob.len())?);
        stream.extend_from_slice(blob);
    }
    Ok(stream)
}

/// The blobs of a stream held in memory, in order, each its frame's bytes
/// (not opened: a blob's own errors come when it is). After the last
/// complete frame, bytes that stop inside a frame are one `TRUNCATED`; a
/// frame declaring more than the cap is one `SIZE_CAP`; either ends the
/// iteration.
#[derive(Debug, Clone)]
pub struct Frames<'a> {
    rest: &'a [u8],
    index: usize,
    max_blob_bytes: usize,
    ended: bool,
}

impl<'a> Frames<'a> {
    /// The frames of `stream`, which must start with [`MAGIC`]
    /// (`INVALID_HEADER` if not; `TRUNCATED` if it is shorter), with a cap
    /// of [`DEFAULT_MAX_BLOB_BYTES`] a blob.
    pub fn new(stream: &'a [u8]) -> Result<Frames<'a>> {
        if stream.len() < MAGIC.len() && MAGIC.starts_with(stream) {
            return Err(Error::Truncated { what: "stream header", needed: MAGIC.len(), available: stream.len() });
        }
        if !is_stream(stream) {
            let found: Vec<String> = stream.iter().take(4).map(|b| format!("{b:02X}")).collect();
            return Err(Error::InvalidHeader {
                detail: format!("not a stream of blobs: it starts with {}, not \"MBS1\"", found.join(" ")),
            });
        }
        Ok(Frames { rest: &stream[MAGIC.len()..], index: 0, max_blob_bytes: DEFAULT_MAX_BLOB_BYTES, ended: false })
    }

    /// The same with another cap on a frame's declared length.
    pub fn with_max_blob_bytes(mut self, max_blob_bytes: usize) -> Frames<'a> {
        self.max_blob_bytes = max_blob_bytes;
        self
    }

    /// The frame `next` gives next: its position among the frames.
    pub fn index(&self) -> usize {
        self.index
    }

    fn frame(&mut self) -> Result<&'a [u8]> {
        let Some((prefix, after)) = self.rest.split_first_chunk::<4>() else {
            return Err(Error::Truncated { what: "stream frame length", needed: 4, available: self.rest.len() });
        };
        let len = u32::from_le_bytes(*prefix) as usize;
        if len > self.max_blob_bytes {
            return Err(Error::SizeCap { what: "stream frame", size: len as u64, cap: self.max_blob_bytes as u64 });
        }
        let blob = after.get(..len).ok_or(Error::Truncated { what: "stream frame", needed: len, available: after.len() })?;
        self.rest = &after[len..];
        self.index += 1;
        Ok(blob)
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.ended || self.rest.is_empty() {
            return None;
        }
        let frame = self.frame();
        self.ended = frame.is_err();
        Some(frame)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The framing written out by hand, as docs/FORMAT.md gives it.
    fn by_hand(blobs: &[&[u8]]) -> Vec<u8> {
        let mut out = b"MBS1".to_vec();
        for blob in blobs {
            out.extend_from_slice(&(blob.len() as u32).to_le_bytes());
            out.extend_from_slice(blob);
        }
        out
    }

    #[test]
    fn writes_the_framing_and_reads_it_back() {
        let blobs: [&[u8]; 4] = [b"a", b"", &[7u8; 300], b"last"];
        let stream = write_stream(blobs).unwrap();
        assert_eq!(stream, by_hand(&blobs));
        assert!(is_stream(&stream));
        let read: Vec<&[u8]> = Frames::new(&stream).unwrap().collect::<Result<_>>().unwrap();
        assert_eq!(read, blobs);
        assert_eq!(write_stream([]).unwrap(), b"MBS1");
        assert_eq!(Frames::new(b"MBS1").unwrap().count(), 0);
    }

    #[test]
    fn every_cut_is_truncated_after_the_whole_frames() {
        let blobs: [&[u8]; 3] = [b"one", b"two blob", b"3"];
        let stream = by_hand(&blobs);
        for cut in 0..stream.len() {
            let bytes = &stream[..cut];
            let Ok(frames) = Frames::new(bytes) else {
                assert!(cut < 4);
                assert_eq!(Frames::new(bytes).unwrap_err().code(), "TRUNCATED");
                continue;
            };
            let read: Vec<Result<&[u8]>> = frames.collect();
            // The frames wholly before the cut, then one error if the cut is inside a frame.
            let mut end = 4;
            let whole = blobs.iter().take_while(|b| {
                end += 4 + b.len();
                end <= cut
            });
            let whole: Vec<&[u8]> = whole.copied().collect();
            let at_boundary = 4 + whole.iter().map(|b| 4 + b.len()).sum::<usize>() == cut;
            assert_eq!(read.len(), whole.len() + usize::from(!at_boundary), "cut {cut}");
            for (got, want) in read.iter().zip(&whole) {
                assert_eq!(got.as_ref().unwrap(), want);
            }
            if !at_boundary {
                assert_eq!(read.last().unwrap().as_ref().unwrap_err().code(), "TRUNCATED", "cut {cut}");
            }
        }
    }

    #[test]
    fn a_length_past_the_cap_is_refused_before_its_bytes() {
        let stream = [&b"MBS1"[..], &u32::MAX.to_le_bytes()].concat();
        let err = Frames::new(&stream).unwrap().next().unwrap().unwrap_err();
        assert_eq!(err, Error::SizeCap { what: "stream frame", size: u64::from(u32::MAX), cap: DEFAULT_MAX_BLOB_BYTES as u64 });
        let two = by_hand(&[b"12345", b"123456"]);
        let mut frames = Frames::new(&two).unwrap().with_max_blob_bytes(5);
        assert_eq!(frames.next().unwrap().unwrap(), b"12345");
        assert_eq!(frames.index(), 1);
        assert_eq!(frames.next().unwrap().unwrap_err().code(), "SIZE_CAP");
        assert!(frames.next().is_none());
    }

    #[test]
    fn bytes_of_another_kind_are_no_stream() {
        for bytes in [&b"MBS2...."[..], b"\xEA\x10xxxxxxxx", b"PAR1", b"M"] {
            let err = Frames::new(bytes).unwrap_err();
            let code = if bytes.len() < 4 && b"MBS1".starts_with(bytes) { "TRUNCATED" } else { "INVALID_HEADER" };
            assert_eq!(err.code(), code, "{bytes:?}");
            assert!(!is_stream(bytes));
        }
        assert!(Frames::new(b"PAR1").unwrap_err().to_string().contains("50 41 52 31"));
    }
}
