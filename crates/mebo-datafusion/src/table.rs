//! A table of blobs: DataFusion's listing table over the mebo format,
//! behind a provider of its own so that a plan holding it can be written
//! down (by its paths and options) and sent to a Ballista cluster.

use std::sync::Arc;

use arrow::datatypes::SchemaRef;
use async_trait::async_trait;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{plan_datafusion_err, Constraints, Result, Statistics};
use datafusion::datasource::listing::{ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::datasource::TableType;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{CreateExternalTable, Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::format::{MeboFormat, EXTENSION};
use crate::options::MeboOptions;
use crate::store::ensure_store;

/// Files of blobs as one table: one or more locations (a file, a directory
/// of `.mebo` files, a glob, an `s3://bucket/prefix/` URL), read with
/// [`MeboOptions`].
#[derive(Debug)]
pub struct MeboTable {
    paths: Vec<String>,
    options: MeboOptions,
    listing: ListingTable,
}

impl MeboTable {
    /// A table over `paths`, its schema taken from the options' kind (the
    /// locations may then be empty, to be written) or the first file's.
    pub async fn try_new(state: &dyn Session, paths: &[String], options: MeboOptions) -> Result<MeboTable> {
        let schema = match options.kind {
            Some(kind) => mebo_arrow::schema_of(kind),
            None => {
                let (urls, listing) = listing_of(state.runtime_env(), paths, options)?;
                let first = urls.first().ok_or_else(|| plan_datafusion_err!("a mebo table needs a location"))?;
                listing.infer_schema(state, first).await?
            }
        };
        MeboTable::with_schema(state.runtime_env(), paths, options, schema)
    }

    /// A table over `paths` whose schema is known (a plan read back on a
    /// scheduler carries it).
    pub fn with_schema(runtime: &Arc<RuntimeEnv>, paths: &[String], options: MeboOptions, schema: SchemaRef) -> Result<MeboTable> {
        let (urls, listing) = listing_of(runtime, paths, options)?;
        let config = ListingTableConfig::new_with_multi_paths(urls).with_listing_options(listing).with_schema(schema);
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
}

/// The URLs of `paths` and the listing options of the format; registers
/// the object store an `s3://` path needs when the runtime has none yet.
fn listing_of(runtime: &Arc<RuntimeEnv>, paths: &[String], options: MeboOptions) -> Result<(Vec<ListingTableUrl>, ListingOptions)> {
    let urls = paths.iter().map(ListingTableUrl::parse).collect::<Result<Vec<_>>>()?;
    for url in &urls {
        ensure_store(runtime, url)?;
    }
    // A directory lists its `.mebo` files; a file or a glob names its own.
    let extension = if urls.iter().all(ListingTableUrl::is_collection) { format!(".{EXTENSION}") } else { String::new() };
    Ok((urls, ListingOptions::new(Arc::new(MeboFormat::new(options))).with_file_extension(extension)))
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
        if !cmd.table_partition_cols.is_empty() {
            return Err(plan_datafusion_err!("mebo tables have no partition columns (the blob's metric and time are columns)"));
        }
        let options = MeboOptions::from_map(&cmd.options)?;
        Ok(Arc::new(MeboTable::try_new(state, &cmd.locations, options).await?))
    }
}
