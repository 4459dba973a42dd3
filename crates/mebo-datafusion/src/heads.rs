//! Blob heads kept between reads in DataFusion's file metadata cache, as
//! Parquet keeps its footers there: the statistics read each file's head
//! when a table is first planned, and a scan then prunes the file, counts
//! it, or finds its metrics' byte ranges with no request for the head.

use std::any::Any;
use std::sync::Arc;

use bytes::Bytes;
use datafusion::common::HashMap;
use datafusion::execution::cache::cache_manager::{CachedFileMetadataEntry, FileMetadata, FileMetadataCache};
use datafusion::execution::runtime_env::RuntimeEnv;
use object_store::{ObjectMeta, ObjectStore};

/// A blob file's head (`mebo::BlobHead::len` bytes from its start), and the
/// store it was read from: the cache is keyed by path alone.
struct CachedHead {
    store: String,
    head: Bytes,
}

impl FileMetadata for CachedHead {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn memory_size(&self) -> usize {
        std::mem::size_of::<CachedHead>() + self.store.len() + self.head.len()
    }

    fn extra_info(&self) -> HashMap<String, String> {
        HashMap::from_iter([("mebo_head_bytes".to_owned(), self.head.len().to_string())])
    }
}

/// The session's (or an executor's) file metadata cache, as far as it
/// holds blob heads; none for a source made without a runtime.
#[derive(Clone, Default)]
pub(crate) struct HeadCache(Option<Arc<FileMetadataCache>>);

impl HeadCache {
    pub(crate) fn of(runtime: &RuntimeEnv) -> HeadCache {
        HeadCache(Some(runtime.cache_manager.get_file_metadata_cache()))
    }

    /// The head kept for this file of `store`, when the file is the one it
    /// was read from: the same size, modification time and entity tag.
    pub(crate) fn get(&self, store: &dyn ObjectStore, meta: &ObjectMeta) -> Option<Bytes> {
        let entry = self.0.as_ref()?.get(&meta.location)?;
        let same_etag = entry.meta.e_tag.is_none() || entry.meta.e_tag == meta.e_tag;
        if !entry.is_valid_for(meta) || !same_etag {
            return None;
        }
        let kept = entry.file_metadata.as_any().downcast_ref::<CachedHead>()?;
        (kept.store == store.to_string()).then(|| kept.head.clone())
    }

    /// Keep `head`, a blob's head as [`mebo::BlobHead::len`] measures it,
    /// read from this file of `store`.
    pub(crate) fn put(&self, store: &dyn ObjectStore, meta: &ObjectMeta, head: Bytes) {
        if let Some(cache) = &self.0 {
            let kept = CachedHead { store: store.to_string(), head };
            cache.put(&meta.location, CachedFileMetadataEntry::new(meta.clone(), Arc::new(kept)));
        }
    }
}
