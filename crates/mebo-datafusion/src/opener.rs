//! Opening one file: fetch it, open the blob (or each blob of a stream of
//! blobs), pick the metrics the filters allow, decode the projected columns
//! of those into a batch.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryPool, MemoryReservation};
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use datafusion_datasource::file_stream::{FileOpenFuture, FileOpener};
use datafusion_datasource::PartitionedFile;
use futures::stream::BoxStream;
use futures::StreamExt;
use mebo::numeric::NumericBlob;
use mebo::stream::StreamReader;
use mebo::text::TextBlob;
use mebo::{BlobHead, BlobKind, DecodeLimits};
use mebo_arrow::{Columns, Selection};
use object_store::path::Path;
use object_store::{GetOptions, GetResult, GetResultPayload, ObjectMeta, ObjectStore, ObjectStoreExt, OBJECT_STORE_COALESCE_DEFAULT};

use crate::error::FileError;
use crate::heads::HeadCache;
use crate::pushdown::ScanFilter;

/// The scan's counters for one partition (see `SCAN_METRICS`).
#[derive(Clone)]
pub(crate) struct ScanCounters {
    blobs_opened: Count,
    files_skipped: Count,
    files_pruned: Count,
    bytes_scanned: Count,
    bytes_skipped: Count,
    metrics_decoded: Count,
    metrics_pruned: Count,
    rows_from_index: Count,
}

impl ScanCounters {
    pub(crate) fn new(metrics: &ExecutionPlanMetricsSet, partition: usize) -> ScanCounters {
        let counter = |name: &'static str| MetricBuilder::new(metrics).counter(name, partition);
        ScanCounters {
            blobs_opened: counter("blobs_opened"),
            files_skipped: counter("files_skipped"),
            files_pruned: counter("files_pruned"),
            bytes_scanned: counter("bytes_scanned"),
            bytes_skipped: counter("bytes_skipped"),
            metrics_decoded: counter("metrics_decoded"),
            metrics_pruned: counter("metrics_pruned"),
            rows_from_index: counter("rows_from_index"),
        }
    }
}

/// Why bytes are not a readable blob of the table's kind.
#[derive(Debug)]
pub(crate) struct BlobError {
    code: &'static str,
    message: String,
    /// In a stream of blobs, the frame (the CLI's `file#frame`).
    frame: Option<usize>,
}

impl BlobError {
    /// The error, naming the file (and the frame, in a stream).
    pub(crate) fn at(self, path: &str) -> FileError {
        let path = match self.frame {
            Some(frame) => format!("{path}#{frame}"),
            None => path.to_owned(),
        };
        FileError { path, code: self.code, message: self.message }
    }

    fn in_frame(self, frame: usize) -> BlobError {
        BlobError { frame: Some(frame), ..self }
    }
}

impl From<mebo_arrow::Error> for BlobError {
    fn from(e: mebo_arrow::Error) -> Self {
        // The code is its own field: the message is the reader's words alone.
        let message = match &e {
            mebo_arrow::Error::Mebo(inner) => inner.to_string(),
            mebo_arrow::Error::Arrow(inner) => inner.to_string(),
            mebo_arrow::Error::Schema(what) => what.clone(),
        };
        BlobError { code: e.code(), message, frame: None }
    }
}

impl From<mebo::Error> for BlobError {
    fn from(e: mebo::Error) -> Self {
        mebo_arrow::Error::Mebo(e).into()
    }
}

/// The kind the bytes' flag word names, which must be `expected` when given.
pub(crate) fn blob_kind(bytes: &[u8], expected: Option<BlobKind>) -> std::result::Result<BlobKind, BlobError> {
    let Some(kind) = BlobKind::of(bytes) else {
        // Not a blob: the core says why (too short, or a foreign magic).
        let refused = NumericBlob::open(bytes).err().unwrap_or(mebo::Error::BadMagic { found: 0 });
        return Err(refused.into());
    };
    match expected {
        Some(want) if want != kind => Err(BlobError {
            code: "WRONG_KIND",
            message: format!("a {kind:?} blob in a table of {want:?} blobs").to_lowercase(),
            frame: None,
        }),
        _ => Ok(kind),
    }
}

/// A blob of either kind, opened with the default limits.
pub(crate) enum OpenedBlob<'a> {
    Numeric(NumericBlob<'a>),
    Text(TextBlob<'a>),
}

impl<'a> OpenedBlob<'a> {
    pub(crate) fn open(bytes: &'a [u8], kind: BlobKind) -> std::result::Result<OpenedBlob<'a>, BlobError> {
        let limits = DecodeLimits::default();
        Ok(match blob_kind(bytes, Some(kind))? {
            BlobKind::Numeric => OpenedBlob::Numeric(NumericBlob::open_with_limits(bytes, &limits)?),
            BlobKind::Text => OpenedBlob::Text(TextBlob::open_with_limits(bytes, &limits)?),
        })
    }

    fn ids(&self) -> &[u64] {
        match self {
            OpenedBlob::Numeric(b) => b.metric_ids(),
            OpenedBlob::Text(b) => b.metric_ids(),
        }
    }

    fn position(&self, id: u64) -> Option<usize> {
        match self {
            OpenedBlob::Numeric(b) => b.position(id),
            OpenedBlob::Text(b) => b.position(id),
        }
    }

    fn timestamps(&self, position: usize) -> mebo::Result<Vec<i64>> {
        match self {
            OpenedBlob::Numeric(b) => b.metric_at(position)?.timestamps(),
            OpenedBlob::Text(b) => b.metric_at(position)?.timestamps(),
        }
    }

    fn batch(&self, selection: &Selection) -> mebo_arrow::Result<RecordBatch> {
        match self {
            OpenedBlob::Numeric(b) => mebo_arrow::numeric_batch(b, selection),
            OpenedBlob::Text(b) => mebo_arrow::text_batch(b, selection),
        }
    }
}

/// Opens the files of one partition.
pub(crate) struct MeboOpener {
    pub(crate) store: Arc<dyn ObjectStore>,
    /// The store's URL (`file:///`, `s3://bucket/`): errors name a file by
    /// this and its location.
    pub(crate) store_url: String,
    pub(crate) kind: BlobKind,
    /// Columns of the file schema to read, in output order.
    pub(crate) projection: Vec<usize>,
    pub(crate) filter: ScanFilter,
    pub(crate) skip_bad_files: bool,
    pub(crate) batch_size: usize,
    pub(crate) counters: ScanCounters,
    pub(crate) memory_pool: Arc<dyn MemoryPool>,
    pub(crate) heads: HeadCache,
}

/// What one file's scan reads, and where it reports.
struct FileScan {
    /// The file as errors and logs name it: store URL and location.
    name: String,
    kind: BlobKind,
    projection: Vec<usize>,
    filter: ScanFilter,
    skip_bad_files: bool,
    batch_size: usize,
    counters: ScanCounters,
    /// What the file's scan holds, in the pool: a blob file's bytes, a
    /// stream's bytes in progress, and the decoded batch until its last
    /// slice is handed on. A pool too small ends the query with
    /// `Resources exhausted … MeboScan[file]` before the bytes are read.
    held: MemoryReservation,
}

impl FileOpener for MeboOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let name = format!("{}{}", self.store_url, file.object_meta.location);
        let scan = FileScan {
            held: MemoryConsumer::new(format!("MeboScan[{name}]")).register(&self.memory_pool),
            name,
            kind: self.kind,
            projection: self.projection.clone(),
            filter: self.filter.clone(),
            skip_bad_files: self.skip_bad_files,
            batch_size: self.batch_size.max(1),
            counters: self.counters.clone(),
        };
        let heads = self.heads.clone();
        Ok(Box::pin(async move {
            let (meta, size) = (&file.object_meta, usize::try_from(file.object_meta.size).unwrap_or(usize::MAX));
            // A byte range of a stream of blobs (`MeboSource::repartitioned`):
            // the frames that start in it. The range at the file's start reads
            // on as a whole file does, and stops there too.
            let (from, to) = file.range();
            if from > 0 {
                let Some(first) = scan.first_frame_from(&*store, meta, from).await? else {
                    return Ok(futures::stream::empty().boxed());
                };
                let rest = GetOptions { range: Some((first.at..meta.size).into()), ..GetOptions::default() };
                let chunks = scan.chunks(store.get_opts(&meta.location, rest).await)?;
                let mut reader = StreamReader::new();
                reader.push(&mebo::stream::MAGIC);
                return Ok(scan.stream(chunks, reader, Frames { next: first, end: to }));
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
            if scan.filter.metrics.is_some() || scan.index_answers() {
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
                    if scan.filter.metrics.as_ref().is_some_and(|wanted| !metrics.iter().any(|(id, _)| wanted.contains(id))) {
                        scan.counters.files_pruned.add(1);
                        return Ok(futures::stream::empty().boxed());
                    }
                    if scan.index_answers() {
                        let batch = match mebo_arrow::index_batch(scan.kind, &metrics, &scan.selection()) {
                            Ok(batch) => Some(batch),
                            Err(e) => scan.refused(e.into())?,
                        };
                        scan.counters.rows_from_index.add(batch.as_ref().map_or(0, RecordBatch::num_rows));
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
                bytes = scan.read_ranges(&*store, &meta.location, bytes, size, &ranges).await?;
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

/// A store's error reading the file `name`, naming it (the store's own
/// words may not: "Requested range was invalid").
fn read_failed(e: object_store::Error, name: &str) -> DataFusionError {
    DataFusionError::from(e).context(format!("reading {name}"))
}

/// A file's bytes as they arrive: the store's stream, or a local file read
/// a MiB at a time (object_store's own stream of a local file reads 8 KiB a
/// blocking task).
fn chunks_of(result: GetResult) -> BoxStream<'static, object_store::Result<Bytes>> {
    const LOCAL_CHUNK: u64 = 1 << 20;
    let (file, path) = match result.payload {
        GetResultPayload::File(file, path) => (file, path),
        GetResultPayload::Stream(chunks) => return chunks,
    };
    let failed = |e: Box<dyn std::error::Error + Send + Sync>| object_store::Error::Generic { store: "LocalFileSystem", source: e };
    let read = move |(mut file, at, end): (std::fs::File, u64, u64)| {
        let path = path.clone();
        async move {
            if at >= end {
                return Ok(None);
            }
            let read = tokio::task::spawn_blocking(move || {
                use std::io::{Read, Seek, SeekFrom};
                let mut chunk = vec![0; (end - at).min(LOCAL_CHUNK) as usize];
                file.seek(SeekFrom::Start(at)).and_then(|_| file.read_exact(&mut chunk)).map(|()| (file, chunk))
            });
            let (file, chunk) = read.await.map_err(|e| failed(e.into()))?.map_err(|e| failed(format!("{}: {e}", path.display()).into()))?;
            let next = at + chunk.len() as u64;
            Ok(Some((Bytes::from(chunk), (file, next, end))))
        }
    };
    futures::stream::try_unfold((file, result.range.start, result.range.end), read).boxed()
}

impl FileScan {
    /// The bytes of a store's response as they arrive, counted in
    /// `bytes_scanned` as they are taken; its errors name the file.
    fn chunks(&self, response: object_store::Result<GetResult>) -> Result<BoxStream<'static, Result<Bytes>>> {
        let (name, scanned) = (self.name.clone(), self.counters.bytes_scanned.clone());
        let chunks = chunks_of(response.map_err(|e| read_failed(e, &name))?);
        Ok(chunks.map(move |chunk| chunk.inspect(|c| scanned.add(c.len())).map_err(|e| read_failed(e, &name))).boxed())
    }

    /// Whether the index alone answers the scan: no column but `metric_id`
    /// projected, and no `ts` range to judge each metric by.
    fn index_answers(&self) -> bool {
        let wants = Columns::of(&self.projection);
        !(wants.metric || wants.ts || wants.value || wants.tag) && self.filter.ts_min.is_none() && self.filter.ts_max.is_none()
    }

    /// Each metric's id and points, when `head` is the head of a blob of
    /// the table's kind in a file of `size` bytes. A head that does not
    /// parse is left to the whole read, which reports it as the scan
    /// reports any file.
    fn index_of(&self, head: &[u8], size: usize) -> Option<Vec<(u64, u32)>> {
        (BlobKind::of(head) == Some(self.kind)).then(|| BlobHead::metrics(head, size).ok()).flatten()
    }

    /// The byte ranges past `bytes` (the file's start, its head whole) of a
    /// blob of `size` bytes that hold the filter's metrics' columns and
    /// each compressed payload, when what they leave unread is worth
    /// another request: at least what the store reads through rather than
    /// split a request (object_store's coalescing distance, 1 MiB).
    fn ranges_to_read(&self, bytes: &[u8], size: usize) -> Option<Vec<Range<u64>>> {
        let wanted = self.filter.metrics.as_ref()?;
        let head = bytes.get(..BlobHead::len(bytes).ok()?)?;
        if BlobKind::of(head) != Some(self.kind) {
            return None;
        }
        let have = bytes.len();
        let ranges = BlobHead::ranges(head, size, |id| wanted.contains(&id)).ok()?;
        let ranges: Vec<Range<u64>> = ranges.into_iter().filter(|r| r.end > have).map(|r| r.start.max(have) as u64..r.end as u64).collect();
        let taken: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        let unread = (size.saturating_sub(have) as u64).saturating_sub(taken);
        (unread >= OBJECT_STORE_COALESCE_DEFAULT).then_some(ranges)
    }

    /// The blob of `size` bytes whose start is `bytes`, with `ranges` read
    /// from the store and zeros elsewhere: a blob that opens as the file
    /// does and decodes the filter's metrics as it would
    /// (`mebo::BlobHead::ranges`). The zeros are allocated, not written.
    async fn read_ranges(
        &self,
        store: &dyn ObjectStore,
        location: &Path,
        bytes: Vec<u8>,
        size: usize,
        ranges: &[Range<u64>],
    ) -> Result<Vec<u8>> {
        let taken: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        self.held.try_resize(size.saturating_add(taken as usize))?;
        let parts = store.get_ranges(location, ranges).await.map_err(|e| read_failed(e, &self.name))?;
        self.counters.bytes_scanned.add(parts.iter().map(Bytes::len).sum());
        let mut blob = vec![0; size];
        blob[..bytes.len()].copy_from_slice(&bytes);
        for (i, range) in ranges.iter().enumerate() {
            let (start, end) = (range.start as usize, range.end as usize);
            // A store that answers short (a file cut since it was listed).
            let part = parts.get(i).filter(|part| part.len() == end - start).ok_or_else(|| {
                let available = start + parts.get(i).map_or(0, Bytes::len);
                let short = mebo::Error::Truncated { what: "file range", needed: end, available };
                BlobError::from(short).at(&self.name).into_datafusion()
            })?;
            blob[start..end].copy_from_slice(part);
        }
        drop(parts);
        self.held.try_resize(size)?;
        self.counters.bytes_skipped.add(size - bytes.len() - taken as usize);
        Ok(blob)
    }

    /// The projection of the metrics the filter names (all without one).
    fn selection(&self) -> Selection {
        let metrics = self.filter.metrics.as_ref().map(|ids| ids.iter().copied().collect());
        Selection { metrics, projection: Some(self.projection.clone()) }
    }

    /// `batch` handed on in slices of the session's size, its bytes held in
    /// the pool until the file's stream ends after its last slice.
    fn hand_on(self, batch: Option<RecordBatch>) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        self.held.try_resize(batch.as_ref().map_or(0, RecordBatch::get_array_memory_size))?;
        let slices: Vec<Result<RecordBatch>> = batch.into_iter().flat_map(|b| self.slices(b)).map(Ok).collect();
        let held = self.held;
        Ok(futures::stream::iter(slices).inspect(move |_| _ = &held).boxed())
    }

    /// `batch` in batches of the session's size.
    fn slices(&self, batch: RecordBatch) -> impl Iterator<Item = RecordBatch> {
        let (rows, size) = (batch.num_rows(), self.batch_size);
        (0..rows).step_by(size).map(move |at| batch.slice(at, size.min(rows - at)))
    }

    /// A file that is not what the table reads: the query's error, or with
    /// `skip_bad_files` nothing (more) from it. Named where the process
    /// logs (mebo-sql's stderr, an executor's log): the count alone does
    /// not say which to mend.
    fn refused<T>(&self, e: BlobError) -> Result<Option<T>> {
        if !self.skip_bad_files {
            return Err(e.at(&self.name).into_datafusion());
        }
        log::warn!("skipped {}", e.at(&self.name));
        self.counters.files_skipped.add(1);
        Ok(None)
    }

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
    async fn first_frame_from(&self, store: &dyn ObjectStore, meta: &ObjectMeta, from: u64) -> Result<Option<Frame>> {
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
    fn stream(
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

/// How many bytes of a stream a request reads when its frames' lengths are
/// read to find where a byte range's first frame starts: a frame's length
/// and its next few, when frames are small.
const WALK_READ: u64 = 64 * 1024;

/// The longest such request, where frames are read through on object storage.
const WALK_READ_MAX: u64 = 8 << 20;

/// A frame of a stream of blobs: where its length starts in the file, and
/// its position among the frames.
#[derive(Clone, Copy)]
struct Frame {
    at: u64,
    index: usize,
}

/// The frames a stream's scan reads: from `next` to the last that starts
/// before `end`.
struct Frames {
    next: Frame,
    end: u64,
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

/// The selected points of one blob as one batch of the projected columns.
fn read(bytes: &[u8], scan: &FileScan) -> std::result::Result<RecordBatch, BlobError> {
    let FileScan { kind, filter, counters, .. } = scan;
    let projection = scan.projection.clone();
    let blob = OpenedBlob::open(bytes, *kind)?;
    counters.blobs_opened.add(1);
    let mut positions: Vec<usize> = match &filter.metrics {
        Some(ids) => ids.iter().filter_map(|&id| blob.position(id)).collect(),
        None => (0..blob.ids().len()).collect(),
    };
    if filter.ts_min.is_some() || filter.ts_max.is_some() {
        // Timestamps are not sorted by the format: a metric is kept when any
        // of its points is in the range, judged by its first and last extremes.
        let before = positions.len();
        let mut kept = Vec::with_capacity(before);
        for p in positions {
            let ts = blob.timestamps(p)?;
            let (first, last) = ts.iter().fold((i64::MAX, i64::MIN), |(lo, hi), &t| (lo.min(t), hi.max(t)));
            if !ts.is_empty() && filter.may_hold(first, last) {
                kept.push(p);
            }
        }
        counters.metrics_pruned.add(before - kept.len());
        positions = kept;
    }
    let decodes = Columns::of(&projection);
    let selection = Selection {
        metrics: (positions.len() != blob.ids().len()).then(|| positions.iter().map(|&p| blob.ids()[p]).collect()),
        projection: Some(projection),
    };
    let batch = blob.batch(&selection)?;
    if decodes.ts || decodes.value || decodes.tag {
        counters.metrics_decoded.add(positions.len());
    } else {
        counters.rows_from_index.add(batch.num_rows());
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::execution::memory_pool::UnboundedMemoryPool;
    use object_store::memory::InMemory;

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
