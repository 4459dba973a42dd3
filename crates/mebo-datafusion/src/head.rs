//! A blob file's head read on its own (the header, names and index before
//! the first payload): the statistics' row count, and whether a scan
//! filtered by metric needs the rest of the file.

use bytes::Bytes;
use datafusion::common::Result;
use mebo::BlobHead;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

/// How many bytes of a file's start are read at once: the head of a blob
/// of a few hundred metrics. On object storage a request's latency costs
/// more than these bytes, and a longer head takes one more.
pub(crate) const HEAD_READ: u64 = 16 * 1024;

/// The start of a file of `size` bytes.
pub(crate) struct FileStart {
    /// Its first [`HEAD_READ`] bytes, or as many as its head takes.
    pub(crate) bytes: Bytes,
    /// Whether `bytes` begins with a blob's header, and so holds its head
    /// whole (or the whole file, for a head claiming more).
    pub(crate) blob: bool,
}

/// Read the start of the file at `location`: one request, and one more
/// only for a head longer than [`HEAD_READ`].
pub(crate) async fn read_start(store: &dyn ObjectStore, location: &Path, size: u64) -> Result<FileStart> {
    let first = store.get_range(location, 0..size.min(HEAD_READ)).await?;
    let Ok(head_len) = BlobHead::len(&first) else { return Ok(FileStart { bytes: first, blob: false }) };
    let end = size.min(head_len as u64);
    let bytes = match first.len() as u64 {
        read if read >= end => first,
        read => [first, store.get_range(location, read..end).await?].concat().into(),
    };
    Ok(FileStart { bytes, blob: true })
}
