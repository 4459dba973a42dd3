//! `COPY … TO … STORED AS MEBO` and `INSERT INTO` a table of blobs: each
//! file DataFusion's demultiplexer opens becomes one or more blobs, one per
//! file; a statement naming one `.mbs` file writes its blobs into it as a
//! stream of blobs. A blob is written once it holds `max_points_per_blob`
//! points (or a metric as many as its kind allows, or as many metrics as a
//! blob names), so the writer buffers one blob's rows at most, under the
//! session's memory pool. A statement that fails removes the blobs it
//! wrote.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use arrow::array::{Array, RecordBatch};
use arrow::compute::{filter_record_batch, is_not_null, not};
use arrow::datatypes::{Schema, SchemaRef};
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::common::runtime::SpawnedTask;
use datafusion::common::{exec_datafusion_err, DataFusionError, Result};
use datafusion::execution::memory_pool::{MemoryConsumer, MemoryReservation};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use datafusion_datasource::file_sink_config::{FileSink, FileSinkConfig};
use datafusion_datasource::sink::DataSink;
use datafusion_datasource::write::demux::DemuxedStreamReceiver;
use mebo::BlobKind;
use mebo_arrow::IdMap;
use object_store::buffered::BufWriter;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
use tokio::io::AsyncWriteExt;
use tokio::task::JoinSet;

use crate::conform::{self, Conform};
use crate::options::{kind_name, MeboOptions};
use crate::STREAM_EXTENSION;

/// Writes the rows it is given as blob files.
pub(crate) struct MeboSink {
    config: FileSinkConfig,
    options: MeboOptions,
    conform: Conform,
}

impl MeboSink {
    /// A sink for rows of `config`'s output schema, refused here (when the
    /// statement is planned) if they cannot be blobs. Partition columns are
    /// not among them: the demultiplexer takes them out into the path.
    pub(crate) fn try_new(config: FileSinkConfig, options: MeboOptions) -> Result<MeboSink> {
        let partitions: Vec<&str> = config.table_partition_cols.iter().map(|(name, _)| name.as_str()).collect();
        let rows = config.output_schema().fields().iter().filter(|f| !partitions.contains(&f.name().as_str())).cloned();
        let conform = Conform::new(&Schema::new(rows.collect::<Vec<_>>()), options.kind)?;
        Ok(MeboSink { config, options, conform })
    }

    /// The options it writes with.
    pub(crate) fn options(&self) -> MeboOptions {
        self.options
    }
}

impl fmt::Debug for MeboSink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MeboSink").field("url", &self.config.original_url).field("kind", &self.conform.kind()).finish()
    }
}

impl DisplayAs for MeboSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::TreeRender => write!(f, "format: mebo ({})", kind_name(self.conform.kind())),
            _ => write!(f, "MeboSink({} blobs)", kind_name(self.conform.kind())),
        }
    }
}

#[async_trait]
impl DataSink for MeboSink {
    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(&self, data: SendableRecordBatchStream, context: &Arc<TaskContext>) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}

#[async_trait]
impl FileSink for MeboSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        mut file_stream_rx: DemuxedStreamReceiver,
        store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        let single = self.config.file_output_mode.single_file_output(&self.config.table_paths[0]);
        let written = Written::default();
        let mut tasks: JoinSet<Result<u64>> = JoinSet::new();
        while let Some((path, mut rx)) = file_stream_rx.recv().await {
            let reservation = MemoryConsumer::new(format!("MeboSink[{path}]")).register(context.memory_pool());
            let stream = (single && path.extension() == Some(STREAM_EXTENSION)).then(|| BufWriter::new(Arc::clone(&store), path.clone()));
            let mut file = BlobFile {
                path,
                store_url: self.config.object_store_url.as_str().to_owned(),
                single: single && stream.is_none(),
                stream,
                options: self.options,
                conform: self.conform.clone(),
                store: Arc::clone(&store),
                reservation,
                pending: Pending::default(),
                blobs: 0,
                rows: 0,
                written: written.clone(),
            };
            tasks.spawn(async move {
                let mut written = async {
                    while let Some(batch) = rx.recv().await {
                        file.push(batch).await?;
                    }
                    file.flush().await
                }
                .await;
                if let Some(stream) = file.stream.as_mut() {
                    written = match written {
                        // A stream's upload completes at its end, or is dropped.
                        Ok(rows) => match stream.shutdown().await {
                            Ok(()) => file.written.add(file.path.clone()).map(|()| rows),
                            Err(e) => Err(DataFusionError::from(e)),
                        },
                        Err(e) => {
                            let _ = stream.abort().await;
                            Err(e)
                        }
                    };
                }
                if written.is_err() {
                    file.written.fail();
                }
                written
            });
        }
        // Every writer is let finish its put before the blobs are removed.
        let (mut rows, mut failure) = (0, None);
        while let Some(done) = tasks.join_next().await {
            let done = match done {
                Ok(done) => done,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => Err(DataFusionError::ExecutionJoin(Box::new(e))),
            };
            match done {
                Ok(written) => rows += written,
                Err(e) => {
                    written.fail();
                    failure = failure.or(Some(e));
                }
            }
        }
        let demux = demux_task.join_unwind().await.map_err(|e| DataFusionError::ExecutionJoin(Box::new(e))).and_then(|r| r);
        match failure.or(demux.err()) {
            None => Ok(rows),
            Some(e) => Err(written.remove(store.as_ref(), self.config.object_store_url.as_ref(), e).await),
        }
    }
}

/// The files a statement has written, removed if it fails; and whether it
/// has, so that its other writers stop before their next blob.
#[derive(Clone, Default)]
struct Written {
    paths: Arc<Mutex<Vec<Path>>>,
    failed: Arc<AtomicBool>,
}

impl Written {
    /// A file written, unless the statement failed meanwhile.
    fn add(&self, path: Path) -> Result<()> {
        self.paths.lock().map_err(|_| exec_datafusion_err!("a writer of the statement panicked"))?.push(path);
        self.stopped()
    }

    fn fail(&self) {
        self.failed.store(true, Ordering::Release);
    }

    /// Whether to stop before writing another blob.
    fn stopped(&self) -> Result<()> {
        match self.failed.load(Ordering::Acquire) {
            false => Ok(()),
            true => Err(exec_datafusion_err!("stopped: another file of the statement failed")),
        }
    }

    /// Remove what was written, and give the statement's error `e` (with
    /// the files that could not be removed, if any).
    async fn remove(&self, store: &dyn ObjectStore, store_url: &str, e: DataFusionError) -> DataFusionError {
        let paths = match self.paths.lock() {
            Ok(mut paths) => std::mem::take(&mut *paths),
            Err(_) => return e,
        };
        let mut kept = Vec::new();
        for path in paths {
            if let Err(failed) = store.delete(&path).await {
                kept.push(format!("{store_url}{path} ({failed})"));
            }
        }
        match kept.is_empty() {
            true => e,
            false => e.context(format!("the statement failed; blobs it wrote and could not remove: {}", kept.join(", "))),
        }
    }
}

/// The blobs of one file the demultiplexer opened: the first at its path,
/// the next beside it (`name-1.mebo`, `name-2.mebo`, …), or all of them in
/// a stream of blobs at its path.
struct BlobFile {
    path: Path,
    /// The store's URL, which with a path names a file in errors.
    store_url: String,
    /// The statement named one blob file: more than one blob is an error.
    single: bool,
    /// The statement named one `.mbs` file: the blobs go into it as frames,
    /// uploaded as they are written.
    stream: Option<BufWriter>,
    options: MeboOptions,
    conform: Conform,
    store: Arc<dyn ObjectStore>,
    reservation: MemoryReservation,
    pending: Pending,
    /// Blobs written so far.
    blobs: usize,
    /// Rows written so far.
    rows: u64,
    /// The statement's files written so far, and whether it failed.
    written: Written,
}

/// The rows of the next blob, conformed.
#[derive(Default)]
struct Pending {
    batches: Vec<RecordBatch>,
    /// Points per metric.
    points: IdMap<usize>,
    rows: usize,
}

impl BlobFile {
    /// Most points one metric may hold in a blob of these options.
    fn metric_cap(&self) -> usize {
        match self.conform.kind() {
            BlobKind::Numeric => self.options.write.numeric.max_points_per_metric(),
            BlobKind::Text => self.options.write.text.max_points_per_metric(),
        }
    }

    /// Take `batch`'s rows, writing a blob each time one is full. Rows
    /// come in runs of one metric (a scan's, a sorted query's), taken a
    /// run at a time.
    async fn push(&mut self, batch: RecordBatch) -> Result<()> {
        let batch = self.conform.batch(&batch)?;
        let (metric_cap, blob_cap) = (self.metric_cap(), self.options.write.max_points_per_blob);
        let ids = conform::ids(&batch).values().clone();
        let (mut from, mut row) = (0, 0);
        while row < ids.len() {
            let id = ids[row];
            let held = self.pending.points.get(&id).copied();
            let room = match held {
                None if self.pending.points.len() == mebo::registry::MAX_NAMES => 0,
                _ => (metric_cap - held.unwrap_or(0)).min(blob_cap - self.pending.rows),
            };
            if room == 0 {
                if self.single {
                    return Err(self.one_file_error());
                }
                self.hold(batch.slice(from, row - from))?;
                from = row;
                self.write_blob().await?;
                continue;
            }
            // The run counted no further than there is room: each row is
            // looked at once, however small the blobs.
            let take = ids[row..].iter().take(room).take_while(|&&other| other == id).count();
            *self.pending.points.entry(id).or_default() += take;
            self.pending.rows += take;
            row += take;
        }
        self.hold(batch.slice(from, ids.len() - from))
    }

    /// Keep rows for the next blob, their memory reserved.
    fn hold(&mut self, rows: RecordBatch) -> Result<()> {
        if rows.num_rows() > 0 {
            self.reservation.try_grow(rows.get_array_memory_size())?;
            self.pending.batches.push(rows);
        }
        Ok(())
    }

    /// The pending rows as blobs: one of the metrics with names, one of
    /// those without (a blob names all its metrics or none).
    async fn write_blob(&mut self) -> Result<()> {
        let batches = std::mem::take(&mut self.pending.batches);
        let (named, unnamed) = split_by_name(&batches)?;
        drop(batches);
        if self.single && !named.is_empty() && !unnamed.is_empty() {
            return Err(exec_datafusion_err!(
                "{}: some rows name their metric and some do not, which takes two blobs (a blob names all its metrics or none): \
                 write to a directory (a location ending in '/') or a stream of blobs (a file ending in .mbs)",
                self.location(&self.path)
            ));
        }
        // Encoding gathers the points once more.
        self.reservation.try_grow(self.pending.rows.saturating_mul(24))?;
        for group in [named, unnamed].into_iter().filter(|g| !g.is_empty()) {
            self.written.stopped()?;
            let path = self.blob_path();
            let bytes = self.encode(&group).map_err(|e| e.at(&self.location(&path)).into_datafusion())?;
            match self.stream.as_mut() {
                Some(stream) => {
                    if self.blobs == 0 {
                        stream.put(Bytes::from_static(&mebo::stream::MAGIC)).await?;
                    }
                    let prefix = mebo::stream::frame_prefix(bytes.len()).map_err(|e| exec_datafusion_err!("{e}"))?;
                    stream.put(Bytes::copy_from_slice(&prefix)).await?;
                    stream.put(Bytes::from(bytes)).await?;
                }
                None => {
                    self.store.put(&path, PutPayload::from(bytes)).await?;
                    self.written.add(path)?;
                }
            }
            self.blobs += 1;
        }
        self.rows += self.pending.rows as u64;
        self.pending = Pending::default();
        self.reservation.free();
        Ok(())
    }

    fn one_file_error(&self) -> DataFusionError {
        let (blob_cap, metric_cap) = (self.options.write.max_points_per_blob, self.metric_cap());
        let caps = if metric_cap < blob_cap {
            format!("{blob_cap} points a blob, {metric_cap} a metric")
        } else {
            format!("{blob_cap} points a blob")
        };
        exec_datafusion_err!(
            "{}: the rows take more than one blob ({caps}): write to a directory (a location ending in '/'), \
             one blob a file, or raise the option max_points_per_blob",
            self.location(&self.path)
        )
    }

    /// A file as errors name it: its URL.
    fn location(&self, path: &Path) -> String {
        format!("{}{path}", self.store_url)
    }

    /// Where the next blob goes (a stream's: the stream).
    fn blob_path(&self) -> Path {
        if self.blobs == 0 || self.stream.is_some() {
            return self.path.clone();
        }
        let name = self.path.filename().unwrap_or_default();
        let (stem, extension) = name.rsplit_once('.').map_or((name, String::new()), |(s, e)| (s, format!(".{e}")));
        let parent: Path = self.path.parts().take(self.path.parts().count().saturating_sub(1)).collect();
        parent.join(format!("{stem}-{}{extension}", self.blobs))
    }

    fn encode(&self, rows: &[RecordBatch]) -> std::result::Result<Vec<u8>, crate::scan::BlobError> {
        let write = &self.options.write;
        Ok(match self.conform.kind() {
            BlobKind::Numeric => mebo_arrow::batch_to_numeric(rows, write.numeric, None)?,
            BlobKind::Text => mebo_arrow::batch_to_text(rows, write.text, None)?,
        })
    }

    /// Write what is pending; the rows written.
    async fn flush(&mut self) -> Result<u64> {
        if self.pending.rows > 0 {
            self.write_blob().await?;
        }
        Ok(self.rows)
    }
}

/// Rows whose metric has a name, and rows whose metric has none.
fn split_by_name(batches: &[RecordBatch]) -> Result<(Vec<RecordBatch>, Vec<RecordBatch>)> {
    let (mut named, mut unnamed) = (Vec::new(), Vec::new());
    for batch in batches {
        let names = conform::names(batch);
        match names.null_count() {
            0 => named.push(batch.clone()),
            n if n == batch.num_rows() => unnamed.push(batch.clone()),
            _ => {
                let has_name = is_not_null(names)?;
                named.push(filter_record_batch(batch, &has_name)?);
                unnamed.push(filter_record_batch(batch, &not(&has_name)?)?);
            }
        }
    }
    Ok((named, unnamed))
}
