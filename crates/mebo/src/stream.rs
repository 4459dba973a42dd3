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
        check_magic(stream)?.ok_or(Error::Truncated { what: "stream header", needed: MAGIC.len(), available: stream.len() })?;
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
        let len = frame_blob_len(self.rest.first_chunk().copied(), self.rest.len() as u64, self.max_blob_bytes)?;
        let (blob, rest) = self.rest[4..].split_at(len);
        self.rest = rest;
        self.index += 1;
        Ok(blob)
    }
}

/// Whether `bytes` start with [`MAGIC`]: `None` while they are a shorter
/// part of it.
fn check_magic(bytes: &[u8]) -> Result<Option<()>> {
    if bytes.len() < MAGIC.len() && MAGIC.starts_with(bytes) {
        return Ok(None);
    }
    if !is_stream(bytes) {
        let found: Vec<String> = bytes.iter().take(4).map(|b| format!("{b:02X}")).collect();
        return Err(Error::InvalidHeader { detail: format!("not a stream of blobs: it starts with {}, not \"MBS1\"", found.join(" ")) });
    }
    Ok(Some(()))
}

/// The length of the blob a frame holds, from the four bytes that start
/// the frame (`None` where the stream has fewer) and `left`, the stream's
/// bytes from the frame's start on: `TRUNCATED` when the stream ends inside
/// the frame, `SIZE_CAP` when it declares more than `max_blob_bytes`
/// (before its bytes are read). For a reader that holds a stream a part at
/// a time, as [`Frames`] and [`StreamReader`] frame it.
pub fn frame_blob_len(prefix: Option<[u8; 4]>, left: u64, max_blob_bytes: usize) -> Result<usize> {
    let Some(prefix) = prefix else { return Err(cut_length(left)) };
    let len = checked_len(prefix, max_blob_bytes)?;
    let after = left.saturating_sub(4);
    if len as u64 > after {
        return Err(cut_frame(len, after));
    }
    Ok(len)
}

/// The length a frame's first four bytes declare, checked against the cap.
fn checked_len(prefix: [u8; 4], max_blob_bytes: usize) -> Result<usize> {
    let len = u32::from_le_bytes(prefix) as usize;
    if len > max_blob_bytes {
        return Err(Error::SizeCap { what: "stream frame", size: len as u64, cap: max_blob_bytes as u64 });
    }
    Ok(len)
}

fn cut_length(left: u64) -> Error {
    Error::Truncated { what: "stream frame length", needed: 4, available: left as usize }
}

fn cut_frame(len: usize, after: u64) -> Error {
    Error::Truncated { what: "stream frame", needed: len, available: after as usize }
}

/// A stream of blobs read as its bytes arrive (a socket, an HTTP body, an
/// object store's chunks): [`push`](Self::push) each chunk, take each whole
/// blob with [`next_blob`](Self::next_blob) until it gives `None`, and
/// [`finish`](Self::finish) at the end. It holds the bytes not yet taken:
/// at most one frame and the chunk after it, as a frame declaring more than
/// the cap is `SIZE_CAP` as soon as its length is in.
#[derive(Debug, Clone)]
pub struct StreamReader {
    buffer: Vec<u8>,
    /// Where the bytes not yet taken start in `buffer`.
    start: usize,
    magic_read: bool,
    index: usize,
    max_blob_bytes: usize,
}

impl Default for StreamReader {
    fn default() -> StreamReader {
        StreamReader { buffer: Vec::new(), start: 0, magic_read: false, index: 0, max_blob_bytes: DEFAULT_MAX_BLOB_BYTES }
    }
}

impl StreamReader {
    /// A reader with a cap of [`DEFAULT_MAX_BLOB_BYTES`] a blob.
    pub fn new() -> StreamReader {
        StreamReader::default()
    }

    /// The same with another cap on a frame's declared length.
    pub fn with_max_blob_bytes(mut self, max_blob_bytes: usize) -> StreamReader {
        self.max_blob_bytes = max_blob_bytes;
        self
    }

    /// The frame `next_blob` gives next: its position among the frames.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The bytes it holds: the frame in progress, and the frames already
    /// taken from the last chunk (dropped at the next push).
    pub fn held(&self) -> usize {
        self.buffer.len()
    }

    /// The stream's next bytes.
    pub fn push(&mut self, chunk: &[u8]) {
        // What was taken is dropped before the buffer grows.
        if self.start > 0 {
            self.buffer.drain(..self.start);
            self.start = 0;
        }
        self.buffer.extend_from_slice(chunk);
    }

    /// The next whole blob, or `None` until more bytes are pushed. Errors:
    /// `INVALID_HEADER` (no `MBS1`), `SIZE_CAP` (a frame past the cap).
    pub fn next_blob(&mut self) -> Result<Option<Vec<u8>>> {
        let rest = &self.buffer[self.start..];
        if !self.magic_read {
            if check_magic(rest)?.is_none() {
                return Ok(None);
            }
            self.magic_read = true;
            self.start += MAGIC.len();
            return self.next_blob();
        }
        let Some((prefix, after)) = rest.split_first_chunk::<4>() else { return Ok(None) };
        let len = checked_len(*prefix, self.max_blob_bytes)?;
        let Some(blob) = after.get(..len) else { return Ok(None) };
        let blob = blob.to_vec();
        self.start += 4 + len;
        self.index += 1;
        Ok(Some(blob))
    }

    /// The stream has ended: `TRUNCATED` if it stopped inside its magic or a
    /// frame (after every whole blob was taken).
    pub fn finish(&self) -> Result<()> {
        let rest = &self.buffer[self.start..];
        if !self.magic_read {
            return Err(Error::Truncated { what: "stream header", needed: MAGIC.len(), available: rest.len() });
        }
        if rest.is_empty() {
            return Ok(());
        }
        // Less than a frame is left once every whole blob was taken.
        let len = frame_blob_len(rest.first_chunk().copied(), rest.len() as u64, self.max_blob_bytes)?;
        Err(cut_frame(len, rest.len() as u64 - 4))
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

    /// The stream pushed `step` bytes at a time: the blobs taken, then what `finish` says.
    fn pushed(stream: &[u8], step: usize, max: usize) -> (Vec<Vec<u8>>, Result<()>) {
        let mut reader = StreamReader::new().with_max_blob_bytes(max);
        let mut blobs = Vec::new();
        for chunk in stream.chunks(step) {
            reader.push(chunk);
            loop {
                match reader.next_blob() {
                    Ok(Some(blob)) => blobs.push(blob),
                    Ok(None) => break,
                    Err(e) => return (blobs, Err(e)),
                }
            }
            // Never more than a frame and a chunk held.
            assert!(reader.held() <= 4 + max + step, "{} held", reader.held());
        }
        let end = reader.finish();
        (blobs, end)
    }

    #[test]
    fn read_as_it_arrives_it_gives_what_frames_gives() {
        let blobs: [&[u8]; 4] = [b"a", b"", &[7u8; 300], b"last"];
        let stream = by_hand(&blobs);
        for step in [1, 2, 3, 5, 8, 64, 1000] {
            for cut in 0..=stream.len() {
                let bytes = &stream[..cut];
                let (got, end) = pushed(bytes, step, 1000);
                let expected: Vec<Result<&[u8]>> = match Frames::new(bytes) {
                    Ok(frames) => frames.collect(),
                    Err(e) => vec![Err(e)],
                };
                let whole: Vec<&[u8]> = expected.iter().filter_map(|f| f.as_ref().ok().copied()).collect();
                assert_eq!(got, whole, "step {step} cut {cut}");
                let failed = expected.last().is_some_and(Result::is_err);
                assert_eq!(end.is_err(), failed, "step {step} cut {cut}: {end:?}");
                if let (Err(e), Some(Err(want))) = (&end, expected.last()) {
                    assert_eq!(e.code(), want.code());
                }
            }
        }
    }

    #[test]
    fn as_it_arrives_a_length_past_the_cap_is_refused_before_its_bytes() {
        let stream = [&by_hand(&[b"12345"])[..], &u32::MAX.to_le_bytes()].concat();
        let (got, end) = pushed(&stream, 3, 5);
        assert_eq!(got, [b"12345"]);
        assert_eq!(end.unwrap_err().code(), "SIZE_CAP");
        let (got, end) = pushed(b"PAR1xxxx", 2, 5);
        assert!(got.is_empty());
        assert_eq!(end.unwrap_err().code(), "INVALID_HEADER");
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
    fn a_frame_is_judged_by_its_length_and_what_is_left() {
        let five = Some(5u32.to_le_bytes());
        assert_eq!(frame_blob_len(five, 9, 5), Ok(5));
        assert_eq!(frame_blob_len(five, 100, 5), Ok(5));
        assert_eq!(frame_blob_len(five, 8, 5), Err(Error::Truncated { what: "stream frame", needed: 5, available: 4 }));
        assert_eq!(frame_blob_len(None, 3, 5), Err(Error::Truncated { what: "stream frame length", needed: 4, available: 3 }));
        assert_eq!(frame_blob_len(Some(0u32.to_le_bytes()), 4, 0), Ok(0));
        // The cap is judged before the bytes are looked for.
        assert_eq!(frame_blob_len(five, 8, 4), Err(Error::SizeCap { what: "stream frame", size: 5, cap: 4 }));
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
