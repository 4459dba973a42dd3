//! A DataFusion context that knows mebo: `STORED AS MEBO`, `mebo_id`,
//! `register_mebo`, and S3 buckets from the usual `AWS_*` variables.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::{plan_datafusion_err, Result};
use datafusion::datasource::listing::{ListingOptions, ListingTableUrl};
use datafusion::datasource::provider::DefaultTableFactory;
use datafusion::execution::context::SessionContext;
use datafusion::prelude::SessionConfig;
use object_store::aws::AmazonS3Builder;
use url::Url;

use crate::format::{MeboFormat, MeboFormatFactory, MeboOptions};
use crate::udf::mebo_id_udf;

/// A session config for blob tables: every core a partition (DataFusion's
/// default), information schema on.
pub fn mebo_session_config() -> SessionConfig {
    SessionConfig::new().with_information_schema(true)
}

/// mebo on a [`SessionContext`].
#[async_trait]
pub trait MeboContextExt {
    /// Make `STORED AS MEBO` and `mebo_id` known to the context.
    fn enable_mebo(&self) -> Result<()>;

    /// Register a table of blobs: `path` is a file, a directory (its
    /// `.mebo` files), a glob, or an `s3://bucket/prefix/` URL.
    async fn register_mebo(&self, name: &str, path: &str) -> Result<()>;

    /// [`register_mebo`](Self::register_mebo) with options.
    async fn register_mebo_with(&self, name: &str, path: &str, options: MeboOptions) -> Result<()>;
}

#[async_trait]
impl MeboContextExt for SessionContext {
    fn enable_mebo(&self) -> Result<()> {
        {
            let state = self.state_ref();
            let mut state = state.write();
            state.register_file_format(Arc::new(MeboFormatFactory), true)?;
            state.table_factories_mut().insert("MEBO".into(), Arc::new(DefaultTableFactory::new()));
        }
        self.register_udf(mebo_id_udf());
        Ok(())
    }

    async fn register_mebo(&self, name: &str, path: &str) -> Result<()> {
        self.register_mebo_with(name, path, MeboOptions::default()).await
    }

    async fn register_mebo_with(&self, name: &str, path: &str, options: MeboOptions) -> Result<()> {
        let url = ListingTableUrl::parse(path)?;
        if url.scheme() == "s3" && self.runtime_env().object_store(url.object_store()).is_err() {
            register_object_store_for(self, url.as_str())?;
        }
        let extension = if url.is_collection() { ".mebo" } else { "" };
        let listing = ListingOptions::new(Arc::new(MeboFormat::new(options))).with_file_extension(extension);
        self.register_listing_table(name, path, listing, None, None).await
    }
}

/// Register the object store an `s3://bucket/…` URL needs, configured from
/// the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, …). Other schemes need
/// nothing (`file://` is built in).
pub fn register_object_store_for(ctx: &SessionContext, location: &str) -> Result<()> {
    let url = Url::parse(location).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    if url.scheme() != "s3" {
        return Ok(());
    }
    let bucket = url.host_str().ok_or_else(|| plan_datafusion_err!("{location}: no bucket"))?;
    let store = AmazonS3Builder::from_env().with_bucket_name(bucket).build()?;
    let base = Url::parse(&format!("s3://{bucket}")).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    ctx.register_object_store(&base, Arc::new(store));
    Ok(())
}
