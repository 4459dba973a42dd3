//! Reading a stream of blobs (`MBS1` frames) in a scan: as its bytes
//! arrive, a frame at a time, or a byte range of it, whose first frame is
//! found by reading the frames' lengths from the file's start.

use std::collections::VecDeque;

use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::Result;
use futures::stream::BoxStream;
use futures::StreamExt;
use mebo::stream::StreamReader;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt, OBJECT_STORE_COALESCE_DEFAULT};

use crate::scan::{read, read_failed, BlobError, FileScan};

/// How many bytes of a stream a request reads when its frames' lengths are
/// read to find where a byte range's first frame starts: a frame's length
/// and its next few, when frames are small.
const WALK_READ: u64 = 64 * 1024;

/// The longest such request, where frames are read through on object storage.
const WALK_READ_MAX: u64 = 8 << 20;

/// A frame of a stream of blobs: where its length starts in the file, and
/// its position among the frames.
#[derive(Clone, Copy)]
pub(crate) struct Frame {
    pub(crate) at: u64,
    pub(crate) index: usize,
}

/// The frames a stream's scan reads: from `next` to the last that starts
/// before `end`.
pub(crate) struct Frames {
    pub(crate) next: Frame,
    pub(crate) end: u64,
}

/// A stream file's scan between batches.
struct StreamScan {
    scan: FileScan,
    chunks: BoxStream<'static, Result<Bytes>>,
    reader: StreamReader,
    frames: Frames,
    /// The slices of the last blob's batch not yet handed on.
    pending: VecDeque<RecordBatch>,
    ended: bool,
}

impl FileScan {
    /// The first frame of the stream of blobs `meta` that starts at or
    /// past `from`, found by reading the frames' lengths from the file's
    /// start. A request reads [`WALK_READ`] bytes at a frame's length; on
    /// object storage, where a request costs what about 1 MiB takes to
    /// arrive (object_store's coalescing distance), frames closer than that
    /// are read through in requests twice as long each time, up to
    /// [`WALK_READ_MAX`]. `None` when the file is not a stream, or no frame
    /// starts at or past `from`; also when a frame before `from` is cut or
    /// past the cap: the range it starts in reports it, and the stream ends
    /// there.
    pub(crate) async fn first_frame_from(&self, store: &dyn ObjectStore, meta: &ObjectMeta, from: u64) -> Result<Option<Frame>> {
        let (size, local) = (meta.size, self.name.starts_with("file://"));
        let (mut window, mut window_at, mut want) = (Bytes::new(), 0u64, WALK_READ);
        let mut four = async |at: u64| -> Result<Option<[u8; 4]>> {
            if at + 4 > size {
                return Ok(None);
            }
            let window_end = window_at + window.len() as u64;
            if at < window_at || at + 4 > window_end {
                let near = at.saturating_sub(window_end) < OBJECT_STORE_COALESCE_DEFAULT;
                want = if near && !local && window_end > 0 { (want * 2).min(WALK_READ_MAX) } else { WALK_READ };
                let read = at..size.min(at + want);
                // The window is held in the pool while it is read.
                self.held.try_resize((read.end - read.start) as usize)?;
                window = store.get_range(&meta.location, read).await.map_err(|e| read_failed(e, &self.name))?;
                self.counters.bytes_scanned.add(window.len());
                window_at = at;
            }
            let start = (at - window_at) as usize;
            Ok(window.get(start..start + 4).and_then(|b| b.try_into().ok()))
        };
        if four(0).await? != Some(mebo::stream::MAGIC) {
            return Ok(None);
        }
        let mut frame = Frame { at: mebo::stream::MAGIC.len() as u64, index: 0 };
        while frame.at < from {
            let Some(prefix) = four(frame.at).await? else { return Ok(None) };
            let len = u64::from(u32::from_le_bytes(prefix));
            if len > mebo::stream::DEFAULT_MAX_BLOB_BYTES as u64 {
                return Ok(None);
            }
            frame = Frame { at: frame.at + 4 + len, index: frame.index + 1 };
        }
        Ok((frame.at < size).then_some(frame))
    }

    /// The batches of a stream of blobs, each blob read as its frame
    /// arrives, from the frame `frames.next` (the bytes `reader` is given
    /// start there) to the last that starts before `frames.end`: the file's
    /// bytes are held a frame at a time. Damage to the framing (a frame cut,
    /// or past the cap) ends the file after the blobs before it, as a
    /// stream's reader delivers every whole blob before it; a whole frame
    /// whose blob does not open or decode is that blob's alone. Either is
    /// the query's error, or with `skip_bad_files` skipped: the rest of the
    /// file, or the one frame. So the same frames are read whichever byte
    /// ranges the file is cut in.
    pub(crate) fn stream(
        self,
        chunks: BoxStream<'static, Result<Bytes>>,
        reader: StreamReader,
        frames: Frames,
    ) -> BoxStream<'static, Result<RecordBatch>> {
        let state = StreamScan { scan: self, chunks, reader, frames, pending: VecDeque::new(), ended: false };
        futures::stream::try_unfold(state, |mut state| async move {
            let StreamScan { scan, chunks, reader, frames, pending, ended } = &mut state;
            loop {
                if let Some(batch) = pending.pop_front() {
                    return Ok(Some((batch, state)));
                }
                // The reservation is resized at the next chunk or blob: the
                // last slice handed on took its batch's bytes along. The
                // frames from the range's end on are the next range's.
                if *ended || frames.next.at >= frames.end {
                    return Ok(None);
                }
                let frame = frames.next.index;
                let framing = match reader.next_blob() {
                    Ok(Some(blob)) => {
                        frames.next = Frame { at: frames.next.at + 4 + blob.len() as u64, index: frame + 1 };
                        scan.held.try_resize(reader.held() + blob.len())?;
                        match read(&blob, scan) {
                            Ok(batch) => {
                                scan.held.try_resize(reader.held() + batch.get_array_memory_size())?;
                                pending.extend(scan.slices(batch));
                            }
                            Err(e) => _ = scan.refused::<()>(e.in_frame(frame))?,
                        }
                        continue;
                    }
                    Ok(None) => match chunks.next().await {
                        Some(chunk) => {
                            let chunk = chunk?;
                            scan.held.try_resize(reader.held() + chunk.len())?;
                            reader.push(&chunk);
                            continue;
                        }
                        None => reader.finish(),
                    },
                    Err(e) => Err(e),
                };
                *ended = true;
                if let Err(e) = framing {
                    scan.refused::<()>(BlobError::from(e).in_frame(frame))?;
                }
            }
        })
        .boxed()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, UnboundedMemoryPool};
    use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
    use mebo::BlobKind;
    use object_store::memory::InMemory;
    use object_store::path::Path;

    use super::*;
    use crate::pushdown::ScanFilter;
    use crate::scan::ScanCounters;

    fn scan(name: &str) -> FileScan {
        let pool: Arc<dyn MemoryPool> = Arc::new(UnboundedMemoryPool::default());
        FileScan {
            name: name.to_owned(),
            kind: BlobKind::Numeric,
            projection: Vec::new(),
            filter: ScanFilter::default(),
            skip_bad_files: false,
            batch_size: 8192,
            counters: ScanCounters::new(&ExecutionPlanMetricsSet::new(), 0),
            held: MemoryConsumer::new("walk").register(&pool),
        }
    }

    async fn put(store: &InMemory, bytes: &[u8]) -> ObjectMeta {
        let path = Path::from("s.mbs");
        store.put(&path, Bytes::copy_from_slice(bytes).into()).await.unwrap();
        store.head(&path).await.unwrap()
    }

    /// Where each frame's length starts, read plainly from the front.
    fn starts(stream: &[u8]) -> Vec<u64> {
        let mut at = 4;
        let mut starts = Vec::new();
        while at + 4 <= stream.len() {
            starts.push(at as u64);
            at += 4 + u32::from_le_bytes(stream[at..at + 4].try_into().unwrap()) as usize;
        }
        starts
    }

    #[tokio::test]
    async fn the_walk_finds_the_first_frame_at_or_past_an_offset() {
        // Frames shorter than a read, longer, and past object storage's
        // coalescing distance: both ways of walking meet each kind.
        let lens = [0, 1, 5, 70_000, 3, 2_000_000, 10, 10, 300_000, 7, 40_000, 40_000, 40_000];
        let blobs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0xAB; n]).collect();
        let stream = mebo::stream::write_stream(blobs.iter().map(Vec::as_slice)).unwrap();
        let starts = starts(&stream);
        let size = stream.len() as u64;
        let store = InMemory::new();
        let meta = put(&store, &stream).await;
        let mut offsets: Vec<u64> = starts.iter().flat_map(|&s| s.saturating_sub(2)..=s + 2).collect();
        offsets.extend((0..size).step_by(9_973));
        offsets.push(size - 1);
        for name in ["file:///s.mbs", "s3://bucket/s.mbs"] {
            let scan = scan(name);
            for &from in &offsets {
                let expected = starts.iter().position(|&s| s >= from).map(|index| (starts[index], index));
                let got = scan.first_frame_from(&store, &meta, from).await.unwrap().map(|f| (f.at, f.index));
                assert_eq!(got, expected, "{name}, from {from}");
            }
        }

        // Past a frame cut by the file's end, or declaring more than the cap,
        // or in a file that is not a stream: nothing.
        let cut = &stream[..(starts[5] + 100) as usize];
        let meta = put(&store, cut).await;
        let scan = scan("file:///s.mbs");
        assert_eq!(scan.first_frame_from(&store, &meta, starts[5]).await.unwrap().map(|f| f.index), Some(5));
        assert!(scan.first_frame_from(&store, &meta, starts[5] + 1).await.unwrap().is_none());
        let mut capped = stream.clone();
        let past_cap = (mebo::stream::DEFAULT_MAX_BLOB_BYTES as u32 + 1).to_le_bytes();
        capped[starts[2] as usize..starts[2] as usize + 4].copy_from_slice(&past_cap);
        let meta = put(&store, &capped).await;
        assert_eq!(scan.first_frame_from(&store, &meta, starts[2]).await.unwrap().map(|f| f.index), Some(2));
        assert!(scan.first_frame_from(&store, &meta, starts[2] + 1).await.unwrap().is_none());
        let meta = put(&store, &[&b"PAR1"[..], &stream[4..]].concat()).await;
        assert!(scan.first_frame_from(&store, &meta, 1).await.unwrap().is_none());
    }
}
