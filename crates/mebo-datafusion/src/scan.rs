//! One file's scan: what it reads and holds, where it reports, and a
//! blob's selected points as a batch. The opener reads blob files with it,
//! `stream_scan` streams of blobs.

use std::ops::Range;

use arrow::record_batch::RecordBatch;
use bytes::Bytes;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::memory_pool::MemoryReservation;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use futures::stream::BoxStream;
use futures::StreamExt;
use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{BlobHead, BlobKind, DecodeLimits};
use mebo_arrow::{Columns, Selection};
use object_store::path::Path;
use object_store::{GetResult, GetResultPayload, ObjectStore, OBJECT_STORE_COALESCE_DEFAULT};

use crate::error::FileError;
use crate::pushdown::ScanFilter;

/// The scan's counters for one partition (see `SCAN_METRICS`).
#[derive(Clone)]
pub(crate) struct ScanCounters {
    pub(crate) blobs_opened: Count,
    pub(crate) files_skipped: Count,
    pub(crate) files_pruned: Count,
    pub(crate) bytes_scanned: Count,
    pub(crate) bytes_skipped: Count,
    pub(crate) metrics_decoded: Count,
    pub(crate) metrics_pruned: Count,
    pub(crate) rows_from_index: Count,
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

/// How many bytes of a blob's start are read at once for its head: the
/// head of a blob of a few hundred metrics. On object storage a request's
/// latency costs more than these bytes, and a longer head takes one more.
pub(crate) const HEAD_READ: u64 = 16 * 1024;

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

    pub(crate) fn in_frame(self, frame: usize) -> BlobError {
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

/// What a partition's scan reads of each file, and where it reports.
#[derive(Clone)]
pub(crate) struct Reads {
    pub(crate) kind: BlobKind,
    /// Columns of the file schema to read, in output order.
    pub(crate) projection: Vec<usize>,
    pub(crate) filter: ScanFilter,
    pub(crate) skip_bad_files: bool,
    pub(crate) batch_size: usize,
    pub(crate) counters: ScanCounters,
}

/// One file's scan: what it reads, and where it reports.
pub(crate) struct FileScan {
    /// The file as errors and logs name it: store URL and location.
    pub(crate) name: String,
    pub(crate) reads: Reads,
    /// What the file's scan holds, in the pool: a blob file's bytes, a
    /// stream's bytes in progress, and the decoded batch until its last
    /// slice is handed on. A pool too small ends the query with
    /// `Resources exhausted … MeboScan[file]` before the bytes are read.
    pub(crate) held: MemoryReservation,
}

/// A store's error reading the file `name`, naming it (the store's own
/// words may not: "Requested range was invalid").
pub(crate) fn read_failed(e: object_store::Error, name: &str) -> DataFusionError {
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
    let read = move |(file, at, end): (std::fs::File, u64, u64)| {
        let path = path.clone();
        async move {
            if at >= end {
                return Ok(None);
            }
            let (file, chunk) = read_local(file, path, at, (end - at).min(LOCAL_CHUNK) as usize).await?;
            let next = at + chunk.len() as u64;
            Ok(Some((Bytes::from(chunk), (file, next, end))))
        }
    };
    futures::stream::try_unfold((file, result.range.start, result.range.end), read).boxed()
}

/// The `len` bytes at `at` of a local file, read in a blocking task; the
/// file given back with them.
pub(crate) async fn read_local(
    mut file: std::fs::File,
    path: std::path::PathBuf,
    at: u64,
    len: usize,
) -> object_store::Result<(std::fs::File, Vec<u8>)> {
    let failed = |e: Box<dyn std::error::Error + Send + Sync>| object_store::Error::Generic { store: "LocalFileSystem", source: e };
    let read = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Seek, SeekFrom};
        let mut bytes = vec![0; len];
        let read = file.seek(SeekFrom::Start(at)).and_then(|_| file.read_exact(&mut bytes));
        read.map(|()| (file, bytes)).map_err(|e| format!("{}: {e}", path.display()))
    });
    read.await.map_err(|e| failed(e.into()))?.map_err(|e| failed(e.into()))
}

impl FileScan {
    /// The bytes of a store's response as they arrive, counted in
    /// `bytes_scanned` as they are taken; its errors name the file.
    pub(crate) fn chunks(&self, response: object_store::Result<GetResult>) -> Result<BoxStream<'static, Result<Bytes>>> {
        let (name, scanned) = (self.name.clone(), self.reads.counters.bytes_scanned.clone());
        let chunks = chunks_of(response.map_err(|e| read_failed(e, &name))?);
        Ok(chunks.map(move |chunk| chunk.inspect(|c| scanned.add(c.len())).map_err(|e| read_failed(e, &name))).boxed())
    }

    /// Whether the index alone answers the scan: no column but `metric_id`
    /// projected, and no `ts` range to judge each metric by.
    pub(crate) fn index_answers(&self) -> bool {
        let wants = Columns::of(&self.reads.projection);
        !(wants.metric || wants.ts || wants.value || wants.tag) && self.reads.filter.ts_min.is_none() && self.reads.filter.ts_max.is_none()
    }

    /// Each metric's id and points, when `head` is the head of a blob of
    /// the table's kind in a file of `size` bytes. A head that does not
    /// parse is left to the whole read, which reports it as the scan
    /// reports any file.
    pub(crate) fn index_of(&self, head: &[u8], size: usize) -> Option<Vec<(u64, u32)>> {
        (BlobKind::of(head) == Some(self.reads.kind)).then(|| BlobHead::metrics(head, size).ok()).flatten()
    }

    /// The byte ranges past `bytes` (the file's start, its head whole) of a
    /// blob of `size` bytes that hold the filter's metrics' columns and
    /// each compressed payload, when what they leave unread is worth
    /// another request: at least what the store reads through rather than
    /// split a request (object_store's coalescing distance, 1 MiB).
    pub(crate) fn ranges_to_read(&self, bytes: &[u8], size: usize) -> Option<Vec<Range<u64>>> {
        let wanted = self.reads.filter.metrics.as_ref()?;
        if (size.saturating_sub(bytes.len()) as u64) < OBJECT_STORE_COALESCE_DEFAULT {
            return None;
        }
        let head = bytes.get(..BlobHead::len(bytes).ok()?)?;
        if BlobKind::of(head) != Some(self.reads.kind) {
            return None;
        }
        let have = bytes.len();
        let ranges = BlobHead::ranges(head, size, |id| wanted.contains(&id)).ok()?;
        let ranges: Vec<Range<u64>> = ranges.into_iter().filter(|r| r.end > have).map(|r| r.start.max(have) as u64..r.end as u64).collect();
        let taken: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        let unread = (size.saturating_sub(have) as u64).saturating_sub(taken);
        (unread >= OBJECT_STORE_COALESCE_DEFAULT).then_some(ranges)
    }

    /// The blob of `size` bytes at `offset` in the file whose start is
    /// `bytes`, with `ranges` (of the blob) read from the store and zeros
    /// elsewhere: a blob that opens as the file does and decodes the
    /// filter's metrics as it would (`mebo::BlobHead::ranges`). The zeros
    /// are allocated, not written.
    pub(crate) async fn read_ranges(
        &self,
        store: &dyn ObjectStore,
        location: &Path,
        offset: u64,
        bytes: Vec<u8>,
        size: usize,
        ranges: &[Range<u64>],
    ) -> Result<Vec<u8>> {
        let taken: u64 = ranges.iter().map(|r| r.end - r.start).sum();
        self.held.try_resize(size.saturating_add(taken as usize))?;
        let in_file: Vec<Range<u64>> = ranges.iter().map(|r| r.start + offset..r.end + offset).collect();
        let parts = store.get_ranges(location, &in_file).await.map_err(|e| read_failed(e, &self.name))?;
        self.reads.counters.bytes_scanned.add(parts.iter().map(Bytes::len).sum());
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
        self.reads.counters.bytes_skipped.add(size - bytes.len() - taken as usize);
        Ok(blob)
    }

    /// Whether a blob's head is read before the rest: the scan names
    /// metrics, or the index answers it.
    pub(crate) fn head_first(&self) -> bool {
        self.reads.filter.metrics.is_some() || self.index_answers()
    }

    /// What a blob's index (`metrics`, each id and its points) decides
    /// alone: `None` when its columns are needed; no batch when it lists
    /// none of the filter's metrics (counted in `files_pruned`); the batch
    /// when the index answers the scan (counted in `rows_from_index`).
    pub(crate) fn decided_by_index(&self, metrics: &[(u64, u32)]) -> Option<std::result::Result<Option<RecordBatch>, BlobError>> {
        if self.reads.filter.metrics.as_ref().is_some_and(|wanted| !metrics.iter().any(|(id, _)| wanted.contains(id))) {
            self.reads.counters.files_pruned.add(1);
            return Some(Ok(None));
        }
        if !self.index_answers() {
            return None;
        }
        let batch = mebo_arrow::index_batch(self.reads.kind, metrics, &self.selection()).map_err(BlobError::from);
        self.reads.counters.rows_from_index.add(batch.as_ref().map_or(0, RecordBatch::num_rows));
        Some(batch.map(Some))
    }

    /// The projection of the metrics the filter names (all without one).
    pub(crate) fn selection(&self) -> Selection {
        let metrics = self.reads.filter.metrics.as_ref().map(|ids| ids.iter().copied().collect());
        Selection { metrics, projection: Some(self.reads.projection.clone()) }
    }

    /// `batch` handed on in slices of the session's size, its bytes held in
    /// the pool until the file's stream ends after its last slice.
    pub(crate) fn hand_on(self, batch: Option<RecordBatch>) -> Result<BoxStream<'static, Result<RecordBatch>>> {
        self.held.try_resize(batch.as_ref().map_or(0, RecordBatch::get_array_memory_size))?;
        let slices: Vec<Result<RecordBatch>> = batch.into_iter().flat_map(|b| self.slices(b)).map(Ok).collect();
        let held = self.held;
        Ok(futures::stream::iter(slices).inspect(move |_| _ = &held).boxed())
    }

    /// `batch` in batches of the session's size.
    pub(crate) fn slices(&self, batch: RecordBatch) -> impl Iterator<Item = RecordBatch> {
        let (rows, size) = (batch.num_rows(), self.reads.batch_size);
        (0..rows).step_by(size).map(move |at| batch.slice(at, size.min(rows - at)))
    }

    /// A file that is not what the table reads: the query's error, or with
    /// `skip_bad_files` nothing (more) from it. Named where the process
    /// logs (mebo-sql's stderr, an executor's log): the count alone does
    /// not say which to mend.
    pub(crate) fn refused<T>(&self, e: BlobError) -> Result<Option<T>> {
        if !self.reads.skip_bad_files {
            return Err(e.at(&self.name).into_datafusion());
        }
        log::warn!("skipped {}", e.at(&self.name));
        self.reads.counters.files_skipped.add(1);
        Ok(None)
    }
}

/// The selected points of one blob as one batch of the projected columns.
pub(crate) fn read(bytes: &[u8], scan: &FileScan) -> std::result::Result<RecordBatch, BlobError> {
    let Reads { kind, filter, counters, .. } = &scan.reads;
    let projection = scan.reads.projection.clone();
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
