//! mebo as a DataFusion file format: the schema of the table's kind of
//! blob, each file's exact row count from its index, and the scan.

use std::collections::HashMap;
use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::common::stats::Precision;
use datafusion::common::{config_datafusion_err, internal_datafusion_err, GetExt, Result, Statistics};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_datasource::file::FileSource;
use datafusion_datasource::file_compression_type::FileCompressionType;
use datafusion_datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion_datasource::file_scan_config::{FileScanConfig, FileScanConfigBuilder};
use datafusion_datasource::source::DataSourceExec;
use datafusion_datasource::{TableSchema, TableSchemaBuilder};
use datafusion_session::Session;
use mebo::BlobKind;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use crate::opener::{blob_kind, OpenedBlob};
use crate::source::MeboSource;

/// The extension of a blob file.
pub const EXTENSION: &str = "mebo";

/// How a table reads its files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeboOptions {
    /// Skip a file that is not a readable blob of the table's kind (and
    /// count it in the scan's `files_skipped` metric) instead of failing the
    /// query. `OPTIONS ('skip_bad_files' 'true')` in SQL.
    pub skip_bad_files: bool,
    /// The kind of blob the table holds; `None` takes the first file's.
    /// `OPTIONS ('kind' 'text')` in SQL.
    pub kind: Option<BlobKind>,
}

impl MeboOptions {
    /// Options from `CREATE EXTERNAL TABLE … OPTIONS (…)` (keys with or
    /// without DataFusion's `format.` prefix).
    pub fn from_map(options: &HashMap<String, String>) -> Result<MeboOptions> {
        let mut parsed = MeboOptions::default();
        for (key, value) in options {
            match key.strip_prefix("format.").unwrap_or(key) {
                "skip_bad_files" => {
                    parsed.skip_bad_files =
                        value.parse().map_err(|_| config_datafusion_err!("skip_bad_files is true or false, not {value:?}"))?
                }
                "kind" => {
                    parsed.kind = Some(match value.to_ascii_lowercase().as_str() {
                        "numeric" => BlobKind::Numeric,
                        "text" => BlobKind::Text,
                        _ => return Err(config_datafusion_err!("kind is numeric or text, not {value:?}")),
                    })
                }
                other => return Err(config_datafusion_err!("unknown mebo table option {other:?} (skip_bad_files, kind)")),
            }
        }
        Ok(parsed)
    }
}

/// Creates [`MeboFormat`]s for `STORED AS MEBO`.
#[derive(Debug, Default)]
pub struct MeboFormatFactory;

impl FileFormatFactory for MeboFormatFactory {
    fn create(&self, _state: &dyn Session, options: &HashMap<String, String>) -> Result<Arc<dyn FileFormat>> {
        Ok(Arc::new(MeboFormat::new(MeboOptions::from_map(options)?)))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(MeboFormat::default())
    }
}

impl GetExt for MeboFormatFactory {
    fn get_ext(&self) -> String {
        EXTENSION.to_owned()
    }
}

/// One blob per file.
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
    /// whose flag word names a kind.
    async fn infer_schema(&self, _state: &dyn Session, store: &Arc<dyn ObjectStore>, objects: &[ObjectMeta]) -> Result<SchemaRef> {
        if let Some(kind) = self.options.kind {
            return Ok(mebo_arrow::schema_of(kind));
        }
        for object in objects {
            let head = store.get_range(&object.location, 0..object.size.min(2)).await?;
            match blob_kind(&head, None) {
                Ok(kind) => return Ok(mebo_arrow::schema_of(kind)),
                Err(_) if self.options.skip_bad_files => continue,
                Err(e) => return Err(e.at(object.location.as_ref())),
            }
        }
        // No file (yet): numeric, the common kind.
        Ok(mebo_arrow::numeric_schema())
    }

    /// Exact row count from the blob's index (no column decoded): what lets
    /// DataFusion answer `count(*)` without scanning. A file that does not
    /// open has unknown statistics here; the scan reports it (or skips it).
    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let mut stats = Statistics::new_unknown(&table_schema);
        let bytes = store.get(&object.location).await?.bytes().await?;
        if let Ok(blob) = OpenedBlob::open(&bytes, kind_of(&table_schema)) {
            stats.num_rows = Precision::Exact(match &blob {
                OpenedBlob::Numeric(b) => b.total_points(),
                OpenedBlob::Text(b) => b.total_points(),
            });
            stats.total_byte_size = Precision::Inexact(bytes.len());
        }
        Ok(stats)
    }

    async fn create_physical_plan(&self, _state: &dyn Session, conf: FileScanConfig) -> Result<Arc<dyn ExecutionPlan>> {
        let table_schema =
            TableSchemaBuilder::from(conf.file_schema()).with_table_partition_cols(conf.table_partition_cols().clone()).build();
        let mut source: Arc<dyn FileSource> = Arc::new(MeboSource::new(table_schema, self.options));
        if let Some(projection) = conf.file_source.projection() {
            source =
                source.try_pushdown_projection(projection)?.ok_or_else(|| internal_datafusion_err!("mebo source refused a projection"))?;
        }
        Ok(DataSourceExec::from_data_source(FileScanConfigBuilder::from(conf).with_source(source).build()))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(MeboSource::new(table_schema, self.options))
    }
}

/// The kind a table schema is of: its `value` column's type says.
pub(crate) fn kind_of(schema: &SchemaRef) -> BlobKind {
    match schema.field_with_name(mebo_arrow::VALUE).map(|f| f.data_type().clone()) {
        Ok(arrow::datatypes::DataType::Utf8) => BlobKind::Text,
        _ => BlobKind::Numeric,
    }
}
