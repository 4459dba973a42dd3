//! A table of blobs: DataFusion's listing table over the mebo format,
//! behind a provider of its own so that a plan holding it can be written
//! down (by its paths and options) and sent to a Ballista cluster.

use std::sync::Arc;

use arrow::datatypes::{DataType, SchemaRef};
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{plan_datafusion_err, Constraints, Result, Statistics};
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::datasource::TableType;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{CreateExternalTable, Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::conform::check_partition_names;
use crate::format::MeboFormat;
use crate::options::{kind_of, MeboOptions};
use crate::store::ensure_store;
use crate::EXTENSION;

/// Files of blobs as one table: one or more locations (a file, a directory
/// of `.mebo` files, a glob, an `s3://bucket/prefix/` URL), read with
/// [`MeboOptions`]. Directories named `column=value` under a location
/// (`day=2026-11-28/`) are partition columns after the blob's: a filter on
/// one lists only the directories it names.
#[derive(Debug)]
pub struct MeboTable {
    paths: Vec<String>,
    options: MeboOptions,
    listing: ListingTable,
}

/// The type of a partition column no statement declares. Utf8, not
/// DataFusion's `Dictionary(UInt16, Utf8)`: Ballista 55 hands a dictionary
/// on between stages as Utf8, and the next stage fails.
fn partition_type() -> DataType {
    DataType::Utf8
}

impl MeboTable {
    /// A table over `paths` whose partition columns are the `column=value`
    /// directories found under the first location, as `CREATE EXTERNAL
    /// TABLE` finds them (unless `datafusion.execution.
    /// listing_table_factory_infer_partitions` is off). Its schema is the
    /// options' kind's (the locations may then be empty, to be written) or
    /// the first file's.
    pub async fn try_new(state: &dyn Session, paths: &[String], options: MeboOptions) -> Result<MeboTable> {
        let (urls, listing) = listing_of(state.runtime_env(), paths, options, Vec::new())?;
        let first = urls.first().ok_or_else(|| plan_datafusion_err!("a mebo table needs a location"))?;
        let names = match state.config_options().execution.listing_table_factory_infer_partitions && first.is_collection() {
            true => listing.infer_partitions(state, first).await?,
            false => Vec::new(),
        };
        let partition_cols = names.into_iter().map(|name| (name, partition_type())).collect();
        MeboTable::try_new_partitioned(state, paths, options, partition_cols).await
    }

    /// A table over `paths` with these partition columns, in the order of
    /// the directories (`day=…/host=…/`); checked against the directories
    /// found.
    pub async fn try_new_partitioned(
        state: &dyn Session,
        paths: &[String],
        options: MeboOptions,
        partition_cols: Vec<(String, DataType)>,
    ) -> Result<MeboTable> {
        let (urls, listing) = listing_of(state.runtime_env(), paths, options, partition_cols)?;
        for url in &urls {
            listing.validate_partitions(state, url).await?;
        }
        let file_schema = match options.kind {
            Some(kind) => mebo_arrow::schema_of(kind),
            None => {
                let first = urls.first().ok_or_else(|| plan_datafusion_err!("a mebo table needs a location"))?;
                listing.infer_schema(state, first).await?
            }
        };
        MeboTable::with_listing(state.runtime_env(), paths, options, urls, listing, file_schema)
    }

    /// A table over `paths` whose schema is known (a plan read back on a
    /// scheduler carries it): the blob's columns, then its partition
    /// columns.
    pub fn with_schema(runtime: &Arc<RuntimeEnv>, paths: &[String], options: MeboOptions, schema: SchemaRef) -> Result<MeboTable> {
        let file_schema = mebo_arrow::schema_of(kind_of(&schema));
        let blob_columns = file_schema.fields().len();
        if schema.fields().len() < blob_columns || schema.fields()[..blob_columns] != file_schema.fields()[..] {
            return Err(plan_datafusion_err!("the schema of a mebo table starts with a blob's columns, not {schema}"));
        }
        let partition_cols = schema.fields()[blob_columns..].iter().map(|f| (f.name().clone(), f.data_type().clone())).collect();
        let (urls, listing) = listing_of(runtime, paths, options, partition_cols)?;
        MeboTable::with_listing(runtime, paths, options, urls, listing, file_schema)
    }

    fn with_listing(
        runtime: &Arc<RuntimeEnv>,
        paths: &[String],
        options: MeboOptions,
        urls: Vec<ListingTableUrl>,
        listing: ListingOptions,
        file_schema: SchemaRef,
    ) -> Result<MeboTable> {
        let config = ListingTableConfig::new_with_multi_paths(urls).with_listing_options(listing).with_schema(file_schema);
        let listing = ListingTable::try_new(config)?.with_cache(runtime.cache_manager.get_file_statistic_cache());
        Ok(MeboTable { paths: paths.to_vec(), options, listing })
    }

    /// The locations it reads.
    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// How it reads them.
    pub fn options(&self) -> MeboOptions {
        self.options
    }

    /// Its partition columns, after the blob's.
    pub fn partition_cols(&self) -> &[(String, DataType)] {
        &self.listing.options().table_partition_cols
    }
}

/// The URLs of `paths` and the listing options of the format; registers
/// the object store an `s3://` path needs when the runtime has none yet.
fn listing_of(
    runtime: &Arc<RuntimeEnv>,
    paths: &[String],
    options: MeboOptions,
    partition_cols: Vec<(String, DataType)>,
) -> Result<(Vec<ListingTableUrl>, ListingOptions)> {
    check_partition_names(partition_cols.iter().map(|(name, _)| name.as_str()))?;
    let urls = paths.iter().map(ListingTableUrl::parse).collect::<Result<Vec<_>>>()?;
    for url in &urls {
        ensure_store(runtime, url)?;
    }
    // A directory lists its `.mebo` files; a file or a glob (`*.mbs`) names its own.
    let directory = |url: &ListingTableUrl| url.is_collection() && url.get_glob().is_none();
    let extension = if urls.iter().all(directory) { format!(".{EXTENSION}") } else { String::new() };
    let listing =
        ListingOptions::new(Arc::new(MeboFormat::new(options))).with_file_extension(extension).with_table_partition_cols(partition_cols);
    Ok((urls, listing))
}

#[async_trait]
impl TableProvider for MeboTable {
    fn schema(&self) -> SchemaRef {
        self.listing.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        self.listing.table_type()
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    fn supports_filters_pushdown(&self, filters: &[&Expr]) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }

    /// New blob files in the table's first location (a directory).
    async fn insert_into(&self, state: &dyn Session, input: Arc<dyn ExecutionPlan>, op: InsertOp) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.insert_into(state, input, op).await
    }
}

/// `CREATE EXTERNAL TABLE … STORED AS MEBO LOCATION '…' [OPTIONS (…)]`.
#[derive(Debug, Default)]
pub struct MeboTableFactory;

#[async_trait]
impl TableProviderFactory for MeboTableFactory {
    async fn create(&self, state: &dyn Session, cmd: &CreateExternalTable) -> Result<Arc<dyn TableProvider>> {
        let options = MeboOptions::from_map(&cmd.options)?;
        if cmd.table_partition_cols.is_empty() {
            return Ok(Arc::new(MeboTable::try_new(state, &cmd.locations, options).await?));
        }
        // `PARTITIONED BY (day)`: typed as declared (`… (day DATE) …`), else as DataFusion types them.
        let declared = cmd.schema.inner();
        let partition_cols = cmd
            .table_partition_cols
            .iter()
            .map(|name| {
                let data_type = declared.field_with_name(name).map_or_else(|_| partition_type(), |f| f.data_type().clone());
                (name.clone(), data_type)
            })
            .collect();
        Ok(Arc::new(MeboTable::try_new_partitioned(state, &cmd.locations, options, partition_cols).await?))
    }
}
