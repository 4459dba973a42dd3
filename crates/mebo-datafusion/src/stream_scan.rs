//! Reading a stream of blobs (`MBS1` frames) in a scan: as its bytes
//! arrive, a frame at a time; or frame by frame from each blob's head, when
//! the scan names metrics or counts, as a blob file is read. A byte range
//! of a stream finds its first frame by reading the frames' lengths from
//! the file's start.

use std::collections::VecDeque;
use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::Result;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use mebo::stream::{StreamReader, DEFAULT_MAX_BLOB_BYTES};
use mebo::BlobHead;
use object_store::{GetOptions, GetResultPayload, ObjectMeta, ObjectStore, ObjectStoreExt, OBJECT_STORE_COALESCE_DEFAULT};

use crate::scan::{read, read_failed, read_local, BlobError, FileScan, HEAD_READ};

/// How many bytes a request reads at a frame's length: the length, the
/// blob's head, and the next frames when they are small.
const WINDOW: u64 = 64 * 1024;

/// The longest such request where frames are read through, on object storage.
const WINDOW_MAX: u64 = 8 << 20;

/// The same on local disk, where a longer read saves little and costs page
/// faults (the bench's 400-frame stream: 1.31x the time at 8 MiB, 1.02x here).
const LOCAL_WINDOW_MAX: u64 = 1 << 20;

/// A stream file read at the places a scan asks for, through a window of
/// what its last request read. A request at a frame reads [`WINDOW`] bytes.
/// Frames shorter than 1 MiB are read through in requests twice as long
/// each time: on object storage, where a request costs what about 1 MiB
/// takes to arrive (object_store's coalescing distance), up to
/// [`WINDOW_MAX`]; on local disk only after a frame read whole (a request
/// there costs little, bytes not needed more), up to [`LOCAL_WINDOW_MAX`]. A read past the window (a blob
/// read whole) takes the window's length more: the next frame's length and
/// head.
pub(crate) struct Cursor {
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
    local: bool,
    /// A local file, held open from the first read: object_store's
    /// `get_range` opens it for each (a request a frame where a range walks
    /// to its first).
    file: Option<(std::fs::File, std::path::PathBuf)>,
    /// The store streams its local files (a wrapper): no file to hold.
    streamed: bool,
    window: Bytes,
    window_at: u64,
    want: u64,
    /// Where the last frame asked for starts.
    last_frame: Option<u64>,
    /// Whether the last frame's blob was read whole.
    last_whole: bool,
}

impl Cursor {
    pub(crate) fn new(store: Arc<dyn ObjectStore>, meta: ObjectMeta, scan: &FileScan) -> Cursor {
        let local = scan.name.starts_with("file://");
        Cursor {
            store,
            meta,
            local,
            file: None,
            streamed: false,
            window: Bytes::new(),
            window_at: 0,
            want: WINDOW,
            last_frame: None,
            last_whole: false,
        }
    }

    /// The length of the blob framed at `at`, or why the stream ends there
    /// (`mebo::stream::frame_blob_len`: a cut, or a length past the cap).
    async fn frame(&mut self, scan: &FileScan, at: u64) -> Result<mebo::Result<u64>> {
        let small = self.last_frame.is_some_and(|last| at.saturating_sub(last) < OBJECT_STORE_COALESCE_DEFAULT);
        let through = small && (!self.local || self.last_whole);
        let most = if self.local { LOCAL_WINDOW_MAX } else { WINDOW_MAX };
        self.want = if through { (self.want * 2).min(most) } else { WINDOW };
        (self.last_frame, self.last_whole) = (Some(at), false);
        let prefix = self.bytes(scan, at, 4).await?.map(|b| [b[0], b[1], b[2], b[3]]);
        let left = self.meta.size.saturating_sub(at);
        Ok(mebo::stream::frame_blob_len(prefix, left, DEFAULT_MAX_BLOB_BYTES).map(|len| len as u64))
    }

    /// The `len` bytes at `at`, `None` past the file's end: from the window
    /// when it holds them, else read (the window then), held in the scan's
    /// reservation.
    async fn bytes(&mut self, scan: &FileScan, at: u64, len: u64) -> Result<Option<Bytes>> {
        let size = self.meta.size;
        if at.saturating_add(len) > size {
            return Ok(None);
        }
        if at < self.window_at || at + len > self.window_at + self.window.len() as u64 {
            let read = at..size.min(at + len + self.want);
            self.window = Bytes::new();
            scan.held.try_resize((read.end - read.start) as usize)?;
            self.window = self.read(read).await.map_err(|e| read_failed(e, &scan.name))?;
            scan.reads.counters.bytes_scanned.add(self.window.len());
            self.window_at = at;
        }
        let start = (at - self.window_at) as usize;
        Ok(Some(self.window.slice(start..start + len as usize)))
    }

    /// The bytes of `range`: from the local file, held open once the
    /// store has handed it over, or from the store.
    async fn read(&mut self, range: std::ops::Range<u64>) -> object_store::Result<Bytes> {
        let len = (range.end - range.start) as usize;
        let (file, path) = match self.file.take() {
            Some(open) => open,
            None if !self.local || self.streamed => return self.store.get_range(&self.meta.location, range).await,
            None => {
                let options = GetOptions { range: Some(range.clone().into()), ..GetOptions::default() };
                let got = self.store.get_opts(&self.meta.location, options).await?;
                match got.payload {
                    GetResultPayload::File(file, path) => (file, path),
                    // A store of local files that streams them (a wrapper).
                    GetResultPayload::Stream(chunks) => {
                        self.streamed = true;
                        let chunks: Vec<Bytes> = chunks.try_collect().await?;
                        return Ok(chunks.concat().into());
                    }
                }
            }
        };
        let (file, bytes) = read_local(file, path.clone(), range.start, len).await?;
        self.file = Some((file, path));
        Ok(Bytes::from(bytes))
    }

    /// The blob of `len` bytes at `start`, read whole.
    async fn blob(&mut self, scan: &FileScan, start: u64, len: u64) -> Result<Option<Bytes>> {
        self.last_whole = true;
        self.bytes(scan, start, len).await
    }

    /// Whether the file starts as a stream of blobs does.
    pub(crate) async fn is_stream(&mut self, scan: &FileScan) -> Result<bool> {
        Ok(self.bytes(scan, 0, 4).await?.is_some_and(|start| mebo::stream::is_stream(&start)))
    }

    /// What the window holds, for the scan's reservation.
    fn held(&self) -> usize {
        self.window.len()
    }
}

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

/// A stream file's scan frame by frame, between batches.
struct HeadsScan {
    scan: FileScan,
    cursor: Cursor,
    frames: Frames,
    pending: VecDeque<RecordBatch>,
    ended: bool,
}

/// A stream file's scan as its bytes arrive, between batches.
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
    /// The first frame of the stream that starts at or past `from`, found
    /// by reading the frames' lengths from the file's start. `None` when
    /// the file is not a stream, or no frame starts at or past `from`; also
    /// when a frame before `from` is cut or past the cap: the range it
    /// starts in reports it, and the stream ends there.
    pub(crate) async fn first_frame_from(&self, cursor: &mut Cursor, from: u64) -> Result<Option<Frame>> {
        if !cursor.is_stream(self).await? {
            return Ok(None);
        }
        let mut frame = Frame { at: mebo::stream::MAGIC.len() as u64, index: 0 };
        while frame.at < from {
            match cursor.frame(self, frame.at).await? {
                Ok(len) => frame = Frame { at: frame.at + 4 + len, index: frame.index + 1 },
                Err(_) => return Ok(None),
            }
        }
        Ok((frame.at < cursor.meta.size).then_some(frame))
    }

    /// The batches of a stream's frames from `frames.next` to the last that
    /// starts before `frames.end`, each frame read from its blob's head as
    /// a blob file is: a blob whose index lists none of the filter's
    /// metrics is not read further (`files_pruned`), one the index answers
    /// is counted from it, and any other is read whole. Errors as
    /// [`FileScan::stream`] gives them, at the same frames.
    pub(crate) fn stream_by_heads(self, cursor: Cursor, frames: Frames) -> BoxStream<'static, Result<RecordBatch>> {
        let state = HeadsScan { scan: self, cursor, frames, pending: VecDeque::new(), ended: false };
        futures::stream::try_unfold(state, |mut state| async move {
            let HeadsScan { scan, cursor, frames, pending, ended } = &mut state;
            loop {
                if let Some(batch) = pending.pop_front() {
                    return Ok(Some((batch, state)));
                }
                let Frame { at, index } = frames.next;
                let size = cursor.meta.size;
                if *ended || at >= frames.end || at >= size {
                    return Ok(None);
                }
                let len = match cursor.frame(scan, at).await? {
                    Ok(len) => len,
                    Err(framing) => {
                        *ended = true;
                        scan.refused::<()>(BlobError::from(framing).in_frame(index))?;
                        continue;
                    }
                };
                frames.next = Frame { at: at + 4 + len, index: index + 1 };
                let batch = match scan.frame_by_head(cursor, at + 4, len).await? {
                    Ok(batch) => batch,
                    Err(e) => scan.refused(e.in_frame(index))?,
                };
                let batch_bytes = batch.as_ref().map_or(0, RecordBatch::get_array_memory_size);
                scan.held.try_resize(cursor.held() + batch_bytes)?;
                pending.extend(batch.into_iter().flat_map(|b| scan.slices(b)));
            }
        })
        .boxed()
    }

    /// The batch of the blob of `len` bytes at `start`, read from its head:
    /// `None` when its index lists none of the filter's metrics.
    async fn frame_by_head(
        &self,
        cursor: &mut Cursor,
        start: u64,
        len: u64,
    ) -> Result<std::result::Result<Option<RecordBatch>, BlobError>> {
        let first = cursor.bytes(self, start, len.min(HEAD_READ)).await?.unwrap_or_default();
        let head = match BlobHead::len(&first).map(|n| (n as u64).min(len)) {
            Ok(n) if n > first.len() as u64 => cursor.bytes(self, start, n).await?.unwrap_or_default(),
            Ok(n) => first.slice(..n as usize),
            Err(_) => first,
        };
        if let Some(decided) = self.index_of(&head, len as usize).and_then(|metrics| self.decided_by_index(&metrics)) {
            return Ok(decided);
        }
        // A large blob's columns of the filter's metrics, as a blob file's.
        if let Some(ranges) = self.ranges_to_read(&head, len as usize) {
            let (store, location) = (Arc::clone(&cursor.store), cursor.meta.location.clone());
            let blob = self.read_ranges(store.as_ref(), &location, start, head.to_vec(), len as usize, &ranges).await?;
            return Ok(read(&blob, self).map(Some));
        }
        drop(head);
        let blob = cursor.blob(self, start, len).await?.unwrap_or_default();
        Ok(read(&blob, self).map(Some))
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
    use crate::scan::{Reads, ScanCounters};

    fn scan(name: &str) -> FileScan {
        let pool: Arc<dyn MemoryPool> = Arc::new(UnboundedMemoryPool::default());
        let reads = Reads {
            kind: BlobKind::Numeric,
            projection: Vec::new(),
            filter: ScanFilter::default(),
            skip_bad_files: false,
            batch_size: 8192,
            counters: ScanCounters::new(&ExecutionPlanMetricsSet::new(), 0),
        };
        FileScan { name: name.to_owned(), reads, held: MemoryConsumer::new("walk").register(&pool) }
    }

    async fn put(store: &dyn ObjectStore, bytes: &[u8]) -> ObjectMeta {
        let path = Path::from("s.mbs");
        store.put(&path, Bytes::copy_from_slice(bytes).into()).await.unwrap();
        store.head(&path).await.unwrap()
    }

    /// Where each frame's length starts, read plainly from the front, up
    /// to the first frame that is cut or declares more than the cap.
    fn starts(stream: &[u8]) -> Vec<u64> {
        let mut at = 4;
        let mut starts = Vec::new();
        while at < stream.len() {
            starts.push(at as u64);
            let Some(prefix) = stream.get(at..at + 4) else { break };
            let len = u32::from_le_bytes(prefix.try_into().unwrap()) as usize;
            if len > mebo::stream::DEFAULT_MAX_BLOB_BYTES || at + 4 + len > stream.len() {
                break;
            }
            at += 4 + len;
        }
        starts
    }

    /// The first frame at or past `from`, by [`starts`].
    fn expected(starts: &[u64], from: u64) -> Option<(u64, usize)> {
        starts.iter().position(|&s| s >= from).map(|index| (starts[index], index))
    }

    /// `first_frame_from` with a cursor of its own.
    async fn first(scan: &FileScan, store: &Arc<dyn ObjectStore>, meta: &ObjectMeta, from: u64) -> Option<Frame> {
        let mut cursor = Cursor::new(Arc::clone(store), meta.clone(), scan);
        scan.first_frame_from(&mut cursor, from).await.unwrap()
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
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        let meta = put(store.as_ref(), &stream).await;
        let mut offsets: Vec<u64> = starts.iter().flat_map(|&s| s.saturating_sub(2)..=s + 2).collect();
        offsets.extend((0..size).step_by(9_973));
        offsets.push(size - 1);
        for name in ["file:///s.mbs", "s3://bucket/s.mbs"] {
            let scan = scan(name);
            for &from in &offsets {
                let got = first(&scan, &store, &meta, from).await.map(|f| (f.at, f.index));
                assert_eq!(got, expected(&starts, from), "{name}, from {from}");
            }
        }

        // Past a frame cut by the file's end, or declaring more than the cap,
        // or in a file that is not a stream: nothing.
        let cut = &stream[..(starts[5] + 100) as usize];
        let meta = put(store.as_ref(), cut).await;
        let scan = scan("file:///s.mbs");
        assert_eq!(first(&scan, &store, &meta, starts[5]).await.map(|f| f.index), Some(5));
        assert!(first(&scan, &store, &meta, starts[5] + 1).await.is_none());
        let mut capped = stream.clone();
        let past_cap = (mebo::stream::DEFAULT_MAX_BLOB_BYTES as u32 + 1).to_le_bytes();
        capped[starts[2] as usize..starts[2] as usize + 4].copy_from_slice(&past_cap);
        let meta = put(store.as_ref(), &capped).await;
        assert_eq!(first(&scan, &store, &meta, starts[2]).await.map(|f| f.index), Some(2));
        assert!(first(&scan, &store, &meta, starts[2] + 1).await.is_none());
        let meta = put(store.as_ref(), &[&b"PAR1"[..], &stream[4..]].concat()).await;
        assert!(first(&scan, &store, &meta, 1).await.is_none());
    }

    #[tokio::test]
    async fn the_walk_over_random_streams_cut_and_spoiled() {
        // xorshift64: the same streams every run.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
        for round in 0..150 {
            // Frame lengths around each window and coalescing length.
            let lens: Vec<usize> = (0..next(24))
                .map(|_| match next(8) {
                    0 => next(1_500_000) as usize,
                    1 | 2 => 60_000 + next(10_000) as usize,
                    _ => next(300) as usize,
                })
                .collect();
            let blobs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0x5A; n]).collect();
            let mut stream = mebo::stream::write_stream(blobs.iter().map(Vec::as_slice)).unwrap();
            if next(3) == 0 {
                stream.truncate(4 + next(stream.len() as u64 - 3) as usize);
            }
            if next(4) == 0 && stream.len() >= 8 {
                // Any four bytes read as a frame's length: a start, or within a blob.
                let at = 4 + next(stream.len() as u64 - 7) as usize;
                let len = [next(300) as u32, next(u64::from(u32::MAX)) as u32][next(2) as usize];
                stream[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
            let starts = starts(&stream);
            let meta = put(store.as_ref(), &stream).await;
            let size = stream.len() as u64;
            let name = ["file:///s.mbs", "s3://bucket/s.mbs"][round % 2];
            let scan = scan(name);
            let mut offsets: Vec<u64> = (0..12).map(|_| next(size + 1)).collect();
            offsets.extend(starts.iter().flat_map(|&s| [s, s + 1]));
            for from in offsets {
                let got = first(&scan, &store, &meta, from).await.map(|f| (f.at, f.index));
                assert_eq!(got, expected(&starts, from), "round {round}, {name}, from {from} of {size}");
            }
        }
    }
}
