//! The object store a location needs, where the runtime has none yet.

use datafusion::common::{plan_datafusion_err, Result};
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::execution::object_store::{DefaultObjectStoreRegistry, ObjectStoreRegistry};
use datafusion::execution::runtime_env::RuntimeEnv;
use object_store::aws::AmazonS3Builder;
use object_store::ObjectStore;
use std::sync::Arc;
use url::Url;

/// Register the object store an `s3://bucket/…` URL needs, configured from
/// the environment (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
/// `AWS_REGION`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, …).
pub fn register_s3_store(runtime: &RuntimeEnv, location: &str) -> Result<()> {
    let url = Url::parse(location).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    let bucket = url.host_str().ok_or_else(|| plan_datafusion_err!("{location}: no bucket"))?;
    let base = Url::parse(&format!("s3://{bucket}")).map_err(|e| plan_datafusion_err!("{location}: {e}"))?;
    runtime.register_object_store(&base, s3_store(bucket)?);
    Ok(())
}

/// The store of an S3 bucket, configured from the environment.
fn s3_store(bucket: &str) -> Result<Arc<dyn ObjectStore>> {
    Ok(Arc::new(AmazonS3Builder::from_env().with_bucket_name(bucket).build()?))
}

/// Register the store `url` needs when it is an `s3://` URL the runtime
/// has no store for.
pub(crate) fn ensure_store(runtime: &RuntimeEnv, url: &ListingTableUrl) -> Result<()> {
    if url.scheme() == "s3" && runtime.object_store(url.object_store()).is_err() {
        register_s3_store(runtime, url.as_str())?;
    }
    Ok(())
}

/// An object store registry that makes an `s3://bucket` store from the
/// `AWS_*` variables the first time a URL names a bucket it has no store
/// for: a Ballista executor's, whose plans name the buckets the client
/// registered from its own variables (`--cluster N` passes them on).
#[derive(Debug, Default)]
pub struct StoresFromEnv {
    stores: DefaultObjectStoreRegistry,
}

impl ObjectStoreRegistry for StoresFromEnv {
    fn register_store(&self, url: &Url, store: Arc<dyn ObjectStore>) -> Option<Arc<dyn ObjectStore>> {
        self.stores.register_store(url, store)
    }

    fn deregister_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        self.stores.deregister_store(url)
    }

    fn get_store(&self, url: &Url) -> Result<Arc<dyn ObjectStore>> {
        let unknown = match self.stores.get_store(url) {
            Ok(store) => return Ok(store),
            Err(e) => e,
        };
        let Some(bucket) = url.host_str().filter(|_| url.scheme() == "s3") else { return Err(unknown) };
        let store = s3_store(bucket)?;
        self.stores.register_store(url, Arc::clone(&store));
        Ok(store)
    }
}
