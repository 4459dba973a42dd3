//! The object store a location needs, where the runtime has none yet.

use datafusion::common::{plan_datafusion_err, Result};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use object_store::aws::AmazonS3Builder;
use std::sync::Arc;
use url::Url;

/// Register the object store an `s3://bucket/…` URL needs, configured from
/// the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, …).
pub fn register_s3_store(runtime: &RuntimeEnv, location: &str) -> Result<()> {
    let url = Url::parse(location).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    let bucket = url.host_str().ok_or_else(|| plan_datafusion_err!("{location}: no bucket"))?;
    let store = AmazonS3Builder::from_env().with_bucket_name(bucket).build()?;
    let base = Url::parse(&format!("s3://{bucket}")).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    runtime.register_object_store(&base, Arc::new(store));
    Ok(())
}

/// Register the store `url` needs when it is an `s3://` URL the runtime
/// has no store for.
pub(crate) fn ensure_store(runtime: &RuntimeEnv, url: &ListingTableUrl) -> Result<()> {
    if url.scheme() == "s3" && runtime.object_store(url.object_store()).is_err() {
        register_s3_store(runtime, url.as_str())?;
    }
    Ok(())
}
