//! Opening one file: fetch it, open the blob (or each blob of a stream of
//! blobs), pick the metrics the filters allow, decode the projected columns
//! of those into a batch.

use std::sync::Arc;

use arrow::record_batch::RecordBatch;
use datafusion::common::Result;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use datafusion_datasource::file_stream::{FileOpenFuture, FileOpener};
use datafusion_datasource::PartitionedFile;
use futures::StreamExt;
use mebo::numeric::NumericBlob;
use mebo::text::TextBlob;
use mebo::{BlobKind, DecodeLimits};
use mebo_arrow::{Columns, Selection};
use object_store::{ObjectStore, ObjectStoreExt};

use crate::error::FileError;
use crate::pushdown::ScanFilter;

/// The scan's counters for one partition (see `SCAN_METRICS`).
#[derive(Clone)]
pub(crate) struct ScanCounters {
    blobs_opened: Count,
    files_skipped: Count,
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
}

impl FileOpener for MeboOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let store_url = self.store_url.clone();
        let (kind, projection, filter) = (self.kind, self.projection.clone(), self.filter.clone());
        let (skip, batch_size, counters) = (self.skip_bad_files, self.batch_size.max(1), self.counters.clone());
        Ok(Box::pin(async move {
            let location = file.object_meta.location;
            let bytes = store.get(&location).await?.bytes().await?;
            match read_file(&bytes, kind, projection, &filter, &counters) {
                Ok(batches) => {
                    let slices: Vec<Result<RecordBatch>> = batches
                        .into_iter()
                        .flat_map(|batch| {
                            let rows = batch.num_rows();
                            (0..rows).step_by(batch_size).map(move |at| Ok(batch.slice(at, batch_size.min(rows - at))))
                        })
                        .collect();
                    Ok(futures::stream::iter(slices).boxed())
                }
                // Named where the process logs (mebo-sql's stderr, an
                // executor's log): the count alone does not say which to mend.
                Err(e) if skip => {
                    log::warn!("skipped {}", e.at(&format!("{store_url}{location}")));
                    counters.files_skipped.add(1);
                    Ok(futures::stream::empty().boxed())
                }
                Err(e) => Err(e.at(&format!("{store_url}{location}")).into_datafusion()),
            }
        }))
    }
}

/// The selected points of a file: one batch of the projected columns for a
/// blob, one a blob for a stream of blobs (all or none: a bad frame fails
/// the file, as a bad blob does).
fn read_file(
    bytes: &[u8],
    kind: BlobKind,
    projection: Vec<usize>,
    filter: &ScanFilter,
    counters: &ScanCounters,
) -> std::result::Result<Vec<RecordBatch>, BlobError> {
    if !mebo::stream::is_stream(bytes) {
        return Ok(vec![read(bytes, kind, projection, filter, counters)?]);
    }
    let mut batches = Vec::new();
    let mut frames = mebo::stream::Frames::new(bytes)?;
    loop {
        let frame = frames.index();
        let Some(blob) = frames.next() else { return Ok(batches) };
        let batch = blob.map_err(BlobError::from).and_then(|blob| read(blob, kind, projection.clone(), filter, counters));
        batches.push(batch.map_err(|e| e.in_frame(frame))?);
    }
}

/// The selected points of one blob as one batch of the projected columns.
fn read(
    bytes: &[u8],
    kind: BlobKind,
    projection: Vec<usize>,
    filter: &ScanFilter,
    counters: &ScanCounters,
) -> std::result::Result<RecordBatch, BlobError> {
    let blob = OpenedBlob::open(bytes, kind)?;
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
