//! The scan's `FileSource`: which columns, which metrics, which time range,
//! and files spread over the partitions (a stream of blobs in byte ranges).

use std::fmt;
use std::sync::Arc;

use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result;
use datafusion::execution::memory_pool::{MemoryPool, UnboundedMemoryPool};
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::physical_expr::{LexOrdering, PhysicalExpr};
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::DisplayFormatType;
use datafusion_datasource::file::FileSource;
use datafusion_datasource::file_groups::FileGroup;
use datafusion_datasource::file_scan_config::FileScanConfig;
use datafusion_datasource::file_stream::FileOpener;
use datafusion_datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion_datasource::{PartitionedFile, TableSchema};
use object_store::ObjectStore;

use crate::heads::HeadCache;
use crate::opener::MeboOpener;
use crate::options::{kind_of, MeboOptions};
use crate::pushdown::ScanFilter;
use crate::scan::{Reads, ScanCounters};
use crate::STREAM_EXTENSION;

/// The scan's metrics (`EXPLAIN ANALYZE` shows them; tests read them):
/// blobs opened, files skipped as unreadable, files not read past a head
/// that lists none of the filter's metrics, bytes taken from the store,
/// bytes of blobs left unread where the filter's metrics' columns were read
/// alone, metrics whose columns were decoded, metrics left undecoded by the
/// `ts` range, and rows counted from the index alone (no column projected).
pub const SCAN_METRICS: [&str; 8] = [
    "blobs_opened",
    "files_skipped",
    "files_pruned",
    "bytes_scanned",
    "bytes_skipped",
    "metrics_decoded",
    "metrics_pruned",
    "rows_from_index",
];

/// Reads mebo files for one table.
#[derive(Clone)]
pub struct MeboSource {
    table_schema: TableSchema,
    options: MeboOptions,
    projection: SplitProjection,
    filter: ScanFilter,
    predicates: Vec<Arc<dyn PhysicalExpr>>,
    batch_size: usize,
    metrics: ExecutionPlanMetricsSet,
    /// Where the scan reserves the bytes it holds: the session's pool, or
    /// an executor's.
    memory_pool: Arc<dyn MemoryPool>,
    /// Where blob heads read once are kept: the session's or the executor's
    /// file metadata cache.
    heads: HeadCache,
}

impl MeboSource {
    /// A source reading every column of every metric.
    pub fn new(table_schema: TableSchema, options: MeboOptions) -> MeboSource {
        MeboSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            options,
            filter: ScanFilter::default(),
            predicates: Vec::new(),
            batch_size: 8192,
            metrics: ExecutionPlanMetricsSet::new(),
            memory_pool: Arc::new(UnboundedMemoryPool::default()),
            heads: HeadCache::default(),
        }
    }

    /// The same source reading within `runtime`: it reserves what it holds
    /// in the runtime's memory pool, and keeps blob heads in its file
    /// metadata cache. A source made without one reserves in an unbounded
    /// pool of its own and keeps no head.
    pub fn with_runtime(self, runtime: &RuntimeEnv) -> MeboSource {
        MeboSource { memory_pool: Arc::clone(&runtime.memory_pool), heads: HeadCache::of(runtime), ..self }
    }

    /// The same source narrowed by `filter` (a scan read back on an executor).
    pub(crate) fn with_scan_filter(self, filter: ScanFilter) -> MeboSource {
        MeboSource { filter, ..self }
    }

    /// The narrowing taken from the query's filters.
    pub fn scan_filter(&self) -> &ScanFilter {
        &self.filter
    }

    /// The table's options.
    pub fn options(&self) -> MeboOptions {
        self.options
    }
}

impl fmt::Debug for MeboSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MeboSource").field("options", &self.options).field("filter", &self.filter).finish()
    }
}

impl FileSource for MeboSource {
    fn create_file_opener(&self, store: Arc<dyn ObjectStore>, config: &FileScanConfig, partition: usize) -> Result<Arc<dyn FileOpener>> {
        let opener = MeboOpener {
            store,
            store_url: config.object_store_url.as_str().to_owned(),
            reads: Reads {
                kind: kind_of(self.table_schema.file_schema()),
                projection: self.projection.file_indices.clone(),
                filter: self.filter.clone(),
                skip_bad_files: self.options.skip_bad_files,
                batch_size: self.batch_size.max(1),
                counters: ScanCounters::new(&self.metrics, partition),
            },
            memory_pool: Arc::clone(&self.memory_pool),
            heads: self.heads.clone(),
        };
        ProjectionOpener::try_new(self.projection.clone(), Arc::new(opener), self.table_schema.file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(MeboSource { batch_size, ..self.clone() })
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "mebo"
    }

    fn fmt_extra(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        if let Some(ids) = &self.filter.metrics {
            write!(f, ", metric_ids=[{}]", ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))?;
        }
        if self.filter.ts_min.is_some() || self.filter.ts_max.is_some() {
            let end = |v: Option<i64>| v.map_or_else(|| "..".to_owned(), |v| v.to_string());
            write!(f, ", ts=[{}, {}]", end(self.filter.ts_min), end(self.filter.ts_max))?;
        }
        Ok(())
    }

    /// A blob cannot be read from a byte range: blob files are spread whole.
    /// A stream of blobs (`.mbs`) larger than a partition's share and than
    /// `min_size` (`datafusion.optimizer.repartition_file_min_size`) is cut
    /// into byte ranges, each reading the frames that start in it. Largest
    /// first onto the lightest partition: near-equal bytes per partition.
    fn repartitioned(
        &self,
        target_partitions: usize,
        min_size: usize,
        _ordering: Option<LexOrdering>,
        config: &FileScanConfig,
    ) -> Result<Option<FileScanConfig>> {
        let files: Vec<PartitionedFile> = config.file_groups.iter().flat_map(|g| g.files().iter().cloned()).collect();
        let total: u64 = files.iter().map(PartitionedFile::effective_size).sum();
        let share = total.div_ceil(target_partitions.max(1) as u64).max(1);
        let mut pieces = Vec::with_capacity(files.len());
        let mut cut = false;
        for file in files {
            let (start, end) = file.range();
            let len = end - start;
            if file.object_meta.location.extension() != Some(STREAM_EXTENSION) || len < min_size as u64 || len <= share {
                pieces.push(file);
                continue;
            }
            let count = len.div_ceil(share);
            let at = |i: u64| (start + (u128::from(len) * u128::from(i) / u128::from(count)) as u64) as i64;
            pieces.extend((0..count).map(|i| PartitionedFile { statistics: None, ..file.clone() }.with_range(at(i), at(i + 1))));
            cut = true;
        }
        let groups = target_partitions.min(pieces.len()).max(1);
        if groups <= config.file_groups.len() && !cut {
            return Ok(None);
        }
        let mut spread: Vec<Vec<_>> = vec![Vec::new(); groups];
        pieces.sort_by_key(|f| std::cmp::Reverse(f.effective_size()));
        let mut load = vec![0u64; groups];
        for piece in pieces {
            let lightest = (0..groups).min_by_key(|&g| load[g]).unwrap_or(0);
            load[lightest] += piece.effective_size();
            spread[lightest].push(piece);
        }
        let mut repartitioned = config.clone();
        repartitioned.file_groups = spread.into_iter().map(FileGroup::new).collect();
        Ok(Some(repartitioned))
    }

    /// Keeps what the filters say about metric ids and `ts` to decode less;
    /// DataFusion still applies each filter (they are not marked pushed).
    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        let unchanged = vec![PushedDown::No; filters.len()];
        let mut predicates = self.predicates.clone();
        predicates.extend(filters);
        let filter = ScanFilter::from_filters(&predicates);
        if filter == self.filter {
            return Ok(FilterPushdownPropagation::with_parent_pushdown_result(unchanged));
        }
        let source: Arc<dyn FileSource> = Arc::new(MeboSource { filter, predicates, ..self.clone() });
        Ok(FilterPushdownPropagation::with_parent_pushdown_result(unchanged).with_updated_node(source))
    }

    fn try_pushdown_projection(&self, projection: &ProjectionExprs) -> Result<Option<Arc<dyn FileSource>>> {
        let merged = self.projection.source.try_merge(projection)?;
        let projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(MeboSource { projection, ..self.clone() })))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn apply_expressions(&self, f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }
}
