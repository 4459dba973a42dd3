//! mebo as a DataFusion file format: the schema of the table's kind of
//! blob, each file's exact row count from its index, the scan, and the
//! writer.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use bytes::Bytes;
use datafusion::common::config::ConfigOptions;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::common::{config_datafusion_err, internal_datafusion_err, plan_datafusion_err, GetExt, Result, Statistics};
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::LogicalPlan;
use datafusion::optimizer::AnalyzerRule;
use datafusion::physical_expr::LexRequirement;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_datasource::file::FileSource;
use datafusion_datasource::file_compression_type::FileCompressionType;
use datafusion_datasource::file_format::{file_type_to_format, format_as_file_type, FileFormat, FileFormatFactory};
use datafusion_datasource::file_scan_config::{FileScanConfig, FileScanConfigBuilder};
use datafusion_datasource::file_sink_config::FileSinkConfig;
use datafusion_datasource::sink::DataSinkExec;
use datafusion_datasource::source::DataSourceExec;
use datafusion_datasource::{TableSchema, TableSchemaBuilder};
use datafusion_session::Session;
use mebo::{BlobHead, DecodeLimits};
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use crate::conform::check_partition_names;
use crate::heads::HeadCache;
use crate::options::{is_mebo_key, kind_of, MeboOptions};
use crate::scan::{blob_kind, HEAD_READ};
use crate::sink::MeboSink;
use crate::source::MeboSource;
use crate::store::ensure_store;
use crate::{EXTENSION, STREAM_EXTENSION};

/// Where a stream of blobs' first blob starts: after `MBS1` and its frame's length.
const STREAM_START: u64 = 8;

/// Creates [`MeboFormat`]s for `STORED AS MEBO`, with its options and a
/// statement's on top.
#[derive(Debug, Default)]
pub struct MeboFormatFactory {
    options: MeboOptions,
}

impl MeboFormatFactory {
    /// A factory whose formats start from `options`.
    pub fn new(options: MeboOptions) -> MeboFormatFactory {
        MeboFormatFactory { options }
    }

    /// The options its formats start from.
    pub fn options(&self) -> MeboOptions {
        self.options
    }
}

impl FileFormatFactory for MeboFormatFactory {
    fn create(&self, _state: &dyn Session, options: &HashMap<String, String>) -> Result<Arc<dyn FileFormat>> {
        // `execution.…` options are the statement's, read by DataFusion's planner.
        let ours = options.iter().filter(|(key, _)| !key.starts_with("execution."));
        Ok(Arc::new(MeboFormat::new(self.options.with_pairs(ours)?)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(MeboFormat::new(self.options))
    }
}

impl GetExt for MeboFormatFactory {
    fn get_ext(&self) -> String {
        EXTENSION.to_owned()
    }
}

/// One blob per file, or a stream of blobs (`MBS1` frames) per file.
#[derive(Debug, Default, Clone)]
pub struct MeboFormat {
    options: MeboOptions,
}

impl MeboFormat {
    /// A format reading files with these options.
    pub fn new(options: MeboOptions) -> MeboFormat {
        MeboFormat { options }
    }

    /// The options it reads with.
    pub fn options(&self) -> MeboOptions {
        self.options
    }
}

#[async_trait]
impl FileFormat for MeboFormat {
    fn get_ext(&self) -> String {
        EXTENSION.to_owned()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        match compression.is_compressed() {
            false => Ok(self.get_ext()),
            true => Err(config_datafusion_err!("mebo files are not compressed as a whole (a blob compresses its own columns)")),
        }
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        None
    }

    /// The schema of the table's kind: the option's, else the first file's
    /// whose flag word names a kind (in a stream of blobs, its first blob's;
    /// a stream of no blob names none).
    async fn infer_schema(&self, _state: &dyn Session, store: &Arc<dyn ObjectStore>, objects: &[ObjectMeta]) -> Result<SchemaRef> {
        if let Some(kind) = self.options.kind {
            return Ok(mebo_arrow::schema_of(kind));
        }
        for object in objects {
            // A header's length, not the flag word's two bytes: a foreign
            // file is then told apart from a short one (`BAD_MAGIC`, not
            // `TRUNCATED`), as the scan tells it. In a stream, the first
            // blob's header follows the magic and the frame's length.
            let start = store.get_range(&object.location, 0..object.size.min(STREAM_START + mebo::HEADER_SIZE as u64)).await?;
            let head = match mebo::stream::is_stream(&start) {
                true if start.len() == mebo::stream::MAGIC.len() => continue,
                true => start.slice(STREAM_START as usize..),
                false => start.slice(..start.len().min(mebo::HEADER_SIZE)),
            };
            match blob_kind(&head, None) {
                Ok(kind) => return Ok(mebo_arrow::schema_of(kind)),
                Err(_) if self.options.skip_bad_files => continue,
                Err(e) => return Err(e.at(object.location.as_ref()).into_datafusion()),
            }
        }
        // No file (yet): numeric, the common kind.
        Ok(mebo_arrow::numeric_schema())
    }

    /// Exact row count from the blob's head (its header and index; no
    /// payload decompressed): what lets DataFusion answer `count(*)` without
    /// scanning, as Parquet's footer does. One range read of the file's
    /// first [`HEAD_READ`] bytes, a second only for a head longer than that.
    /// A file whose head does not parse, is of the other kind or claims more
    /// points than a scan decodes has unknown statistics here; the scan
    /// reports it (or skips it). So has a stream of blobs, whose heads are
    /// spread through it: a `.mbs` file is not read here at all. A head that
    /// parses is kept in the session's file metadata cache for the scans.
    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let mut stats = Statistics::new_unknown(&table_schema);
        if object.location.extension() == Some(STREAM_EXTENSION) {
            return Ok(stats);
        }
        let size = object.size;
        let first = store.get_range(&object.location, 0..size.min(HEAD_READ)).await?;
        let Ok(head_len) = BlobHead::len(&first) else { return Ok(stats) };
        let end = size.min(head_len as u64);
        let head = match first.len() as u64 {
            read if read >= end => first,
            read => [first, store.get_range(&object.location, read..end).await?].concat().into(),
        };
        let Ok(blob_len) = usize::try_from(size) else { return Ok(stats) };
        let Ok(parsed) = BlobHead::parse(&head, blob_len) else { return Ok(stats) };
        if let Some(kept) = head.get(..head_len) {
            HeadCache::of(state.runtime_env()).put(store.as_ref(), object, Bytes::copy_from_slice(kept));
        }
        // More points than the scan decodes: left to the scan to refuse.
        if parsed.kind == kind_of(&table_schema) && parsed.total_points <= DecodeLimits::default().max_points {
            stats.num_rows = Precision::Exact(parsed.total_points as usize);
            stats.total_byte_size = Precision::Inexact(blob_len);
        }
        Ok(stats)
    }

    async fn create_physical_plan(&self, state: &dyn Session, conf: FileScanConfig) -> Result<Arc<dyn ExecutionPlan>> {
        let table_schema =
            TableSchemaBuilder::from(conf.file_schema()).with_table_partition_cols(conf.table_partition_cols().clone()).build();
        let mut source: Arc<dyn FileSource> = Arc::new(MeboSource::new(table_schema, self.options).with_runtime(state.runtime_env()));
        if let Some(projection) = conf.file_source.projection() {
            source =
                source.try_pushdown_projection(projection)?.ok_or_else(|| internal_datafusion_err!("mebo source refused a projection"))?;
        }
        Ok(DataSourceExec::from_data_source(FileScanConfigBuilder::from(conf).with_source(source).build()))
    }

    /// `COPY … TO … STORED AS MEBO` and `INSERT INTO` a table of blobs:
    /// rows whose columns cannot be blobs are refused here, before a file
    /// is written.
    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: FileSinkConfig,
        order_requirements: Option<LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if conf.insert_op != InsertOp::Append {
            return Err(plan_datafusion_err!("a table of blobs takes new files, not {}: remove the files to replace", conf.insert_op));
        }
        check_partition_names(conf.table_partition_cols.iter().map(|(name, _)| name.as_str()))?;
        if conf.keep_partition_by_columns && !conf.table_partition_cols.is_empty() {
            return Err(plan_datafusion_err!(
                "a blob keeps no partition column (execution.keep_partition_by_columns): its directory holds the value"
            ));
        }
        ensure_store(state.runtime_env(), &conf.table_paths[0])?;
        let sink = MeboSink::try_new(conf, self.options)?;
        Ok(Arc::new(DataSinkExec::new(input, Arc::new(sink), order_requirements)))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(MeboSource::new(table_schema, self.options))
    }
}

/// Moves the mebo options of a `COPY … STORED AS MEBO` from the statement
/// into its format, where a plan sent to a Ballista cluster carries them
/// (DataFusion's plan codec keeps a `COPY`'s format, not its options).
/// Other options (`execution.…`, `single_file_output`) stay in the statement.
#[derive(Debug)]
pub(crate) struct CopyOptionsIntoFormat;

impl AnalyzerRule for CopyOptionsIntoFormat {
    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up(|node| {
            let LogicalPlan::Copy(copy) = &node else { return Ok(Transformed::no(node)) };
            let Ok(format) = file_type_to_format(&copy.file_type) else { return Ok(Transformed::no(node)) };
            let Some(factory) = format.downcast_ref::<MeboFormatFactory>() else { return Ok(Transformed::no(node)) };
            let (ours, rest): (HashMap<_, _>, HashMap<_, _>) = copy.options.clone().into_iter().partition(|(k, _)| is_mebo_key(k));
            if ours.is_empty() {
                return Ok(Transformed::no(node));
            }
            // A bad option is reported where the format is made, unwrapped.
            let Ok(options) = factory.options().with_pairs(&ours) else { return Ok(Transformed::no(node)) };
            let file_type = format_as_file_type(Arc::new(MeboFormatFactory::new(options)));
            let mut copy = copy.clone();
            copy.file_type = file_type;
            copy.options = rest;
            Ok(Transformed::yes(LogicalPlan::Copy(copy)))
        })
        .map(|t| t.data)
    }

    fn name(&self) -> &str {
        "mebo_copy_options_into_format"
    }
}
