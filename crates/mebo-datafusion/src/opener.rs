//! Opening one file: a blob file read whole, or its head first when the
//! scan names metrics or counts, then only what it needs; a stream of
//! blobs handed to `stream_scan`.

use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::Result;
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool};
use datafusion_datasource::file_stream::{FileOpenFuture, FileOpener};
use datafusion_datasource::PartitionedFile;
use futures::StreamExt;
use mebo::stream::StreamReader;
use mebo::BlobHead;
use object_store::{GetOptions, ObjectStore, ObjectStoreExt};

use crate::heads::HeadCache;
use crate::scan::{read, FileScan, Reads};
use crate::stream_scan::{Cursor, Frame, Frames};
use crate::STREAM_EXTENSION;

/// Opens the files of one partition.
pub(crate) struct MeboOpener {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// The store's URL (`file:///`, `s3://bucket/`): errors name a file by
    /// this and its location.
    pub(crate) store_url: String,
    pub(crate) reads: Reads,
    pub(crate) memory_pool: Arc<dyn MemoryPool>,
    pub(crate) heads: HeadCache,
}

impl FileOpener for MeboOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let name = format!("{}{}", self.store_url, file.object_meta.location);
        let scan = FileScan {
            held: MemoryConsumer::new(format!("MeboScan[{name}]")).register(&self.memory_pool),
            name,
            reads: self.reads.clone(),
        };
        let heads = self.heads.clone();
        Ok(Box::pin(async move {
            let (meta, size) = (&file.object_meta, usize::try_from(file.object_meta.size).unwrap_or(usize::MAX));
            // A stream of blobs read frame by frame from each blob's head
            // when the scan names metrics or counts, as a blob file is; and
            // a byte range of one (`MeboSource::repartitioned`): the frames
            // that start in it. A range at the file's start read as it
            // arrives reads on as a whole file does, and stops there too.
            let (from, to) = file.range();
            let by_heads = scan.head_first();
            if from > 0 || (by_heads && meta.location.extension() == Some(STREAM_EXTENSION)) {
                let mut cursor = Cursor::new(Arc::clone(&store), meta.clone(), &scan);
                let first = match from {
                    0 => cursor.is_stream(&scan).await?.then_some(Frame { at: mebo::stream::MAGIC.len() as u64, index: 0 }),
                    from => scan.first_frame_from(&mut cursor, from).await?,
                };
                match first {
                    Some(first) if by_heads => return Ok(scan.stream_by_heads(cursor, Frames { next: first, end: to })),
                    Some(first) => {
                        let rest = GetOptions { range: Some((first.at..meta.size).into()), ..GetOptions::default() };
                        let chunks = scan.chunks(store.get_opts(&meta.location, rest).await)?;
                        let mut reader = StreamReader::new();
                        reader.push(&mebo::stream::MAGIC);
                        return Ok(scan.stream(chunks, reader, Frames { next: first, end: to }));
                    }
                    // A later range of a file that is not a stream: the first
                    // range reads (or refuses) it.
                    None if from > 0 => return Ok(futures::stream::empty().boxed()),
                    None => {}
                }
            }
            // A blob's head kept from an earlier read (the statistics', or a
            // scan's) stands for the file's start: no request until the
            // scan needs more than the head.
            let kept = heads.get(&*store, meta);
            let (mut bytes, mut chunks) = match &kept {
                Some(head) => (head.to_vec(), None),
                None => {
                    let mut chunks = scan.chunks(store.get(&meta.location).await)?;
                    let mut bytes = Vec::new();
                    // The first four bytes tell a stream of blobs from a blob.
                    while bytes.len() < mebo::stream::MAGIC.len() {
                        let Some(chunk) = chunks.next().await else { break };
                        bytes.extend_from_slice(&chunk?);
                    }
                    if mebo::stream::is_stream(&bytes) {
                        scan.held.try_resize(bytes.len())?;
                        let mut reader = StreamReader::new();
                        reader.push(&bytes);
                        let first = Frame { at: mebo::stream::MAGIC.len() as u64, index: 0 };
                        return Ok(scan.stream(chunks, reader, Frames { next: first, end: to }));
                    }
                    (bytes, Some(chunks))
                }
            };
            scan.held.try_resize(bytes.len())?;
            // Its head (header, names and index) says which metrics it holds
            // and their points: read that far first, and the rest of the
            // response is left untaken when the blob holds none of the
            // filter's metrics, or when the index answers the scan.
            if scan.head_first() {
                let head_len = |bytes: &[u8]| BlobHead::len(bytes).unwrap_or(mebo::HEADER_SIZE);
                while let Some(chunks) = chunks.as_mut().filter(|_| bytes.len() < head_len(&bytes).min(size)) {
                    let Some(chunk) = chunks.next().await else { break };
                    let chunk = chunk?;
                    scan.held.try_resize(bytes.len() + chunk.len())?;
                    bytes.extend_from_slice(&chunk);
                }
                let head = &bytes[..head_len(&bytes).min(bytes.len())];
                if let Some(metrics) = scan.index_of(head, size) {
                    if kept.is_none() {
                        heads.put(&*store, meta, Bytes::copy_from_slice(head));
                    }
                    if let Some(decided) = scan.decided_by_index(&metrics) {
                        let batch = match decided {
                            Ok(batch) => batch,
                            Err(e) => scan.refused(e)?,
                        };
                        return scan.hand_on(batch);
                    }
                }
            }
            // The rest of a blob: the filter's metrics' columns alone when
            // they leave enough of it unread, else read whole. Its bytes are
            // reserved before they are read.
            scan.held.try_resize(size.max(bytes.len()))?;
            if let Some(ranges) = scan.ranges_to_read(&bytes, size) {
                drop(chunks);
                bytes = scan.read_ranges(&*store, &meta.location, 0, bytes, size, &ranges).await?;
            } else if chunks.is_some() || bytes.len() < size {
                let mut chunks = match chunks {
                    Some(chunks) => chunks,
                    // The file past its kept head.
                    None => {
                        let rest = GetOptions { range: Some((bytes.len() as u64..meta.size).into()), ..GetOptions::default() };
                        scan.chunks(store.get_opts(&meta.location, rest).await)?
                    }
                };
                bytes.reserve(size.saturating_sub(bytes.len()));
                while let Some(chunk) = chunks.next().await {
                    bytes.extend_from_slice(&chunk?);
                }
            }
            let batch = match read(&bytes, &scan) {
                Ok(batch) => Some(batch),
                Err(e) => scan.refused(e)?,
            };
            // The batch is reserved beside the bytes it came from.
            scan.held.try_grow(batch.as_ref().map_or(0, RecordBatch::get_array_memory_size))?;
            drop(bytes);
            scan.hand_on(batch)
        }))
    }
}
