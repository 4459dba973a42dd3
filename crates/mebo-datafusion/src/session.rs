//! A DataFusion context that knows mebo: `STORED AS MEBO`, `mebo_id` and
//! `register_mebo`.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::Result;
use datafusion::execution::context::SessionContext;
use datafusion::execution::session_state::SessionState;
use datafusion::execution::FunctionRegistry;
use datafusion::prelude::SessionConfig;

use crate::format::{CopyOptionsIntoFormat, MeboFormatFactory};
use crate::options::MeboOptions;
use crate::table::{MeboTable, MeboTableFactory};
use crate::udf::mebo_id_udf;

/// A session config for blob tables: every core a partition (DataFusion's
/// default), information schema on.
pub fn mebo_session_config() -> SessionConfig {
    SessionConfig::new().with_information_schema(true)
}

/// Make `STORED AS MEBO` and `mebo_id` known to a session state: what a
/// context, a Ballista scheduler and its executors do to read blobs.
pub fn enable_mebo_on(state: &mut SessionState) -> Result<()> {
    state.register_file_format(Arc::new(MeboFormatFactory::default()), true)?;
    state.add_analyzer_rule(Arc::new(CopyOptionsIntoFormat));
    state.table_factories_mut().insert("MEBO".into(), Arc::new(MeboTableFactory));
    state.register_udf(Arc::new(mebo_id_udf()))?;
    Ok(())
}

/// mebo on a [`SessionContext`].
#[async_trait]
pub trait MeboContextExt {
    /// Make `STORED AS MEBO` and `mebo_id` known to the context.
    fn enable_mebo(&self) -> Result<()>;

    /// Register a table of blobs: `path` is a file, a directory (its
    /// `.mebo` files), a glob, or an `s3://bucket/prefix/` URL (credentials
    /// and endpoint from the `AWS_*` variables).
    async fn register_mebo(&self, name: &str, path: &str) -> Result<()>;

    /// [`register_mebo`](Self::register_mebo) with options.
    async fn register_mebo_with(&self, name: &str, path: &str, options: MeboOptions) -> Result<()>;
}

#[async_trait]
impl MeboContextExt for SessionContext {
    fn enable_mebo(&self) -> Result<()> {
        enable_mebo_on(&mut self.state_ref().write())
    }

    async fn register_mebo(&self, name: &str, path: &str) -> Result<()> {
        self.register_mebo_with(name, path, MeboOptions::default()).await
    }

    async fn register_mebo_with(&self, name: &str, path: &str, options: MeboOptions) -> Result<()> {
        let table = MeboTable::try_new(&self.state(), &[path.to_owned()], options).await?;
        self.register_table(name, Arc::new(table))?;
        Ok(())
    }
}
