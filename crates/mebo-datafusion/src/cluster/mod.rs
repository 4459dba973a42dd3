//! Past one machine: Ballista. A scheduler and executors that know mebo
//! (the `mebo-scheduler` and `mebo-executor` binaries), a client context
//! that sends mebo scans to them, and a cluster of local processes for
//! `mebo-sql --cluster N`.

mod codec;
mod local;

use std::sync::Arc;

use ballista::extension::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use datafusion::common::Result;
use datafusion::execution::object_store::ObjectStoreRegistry;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};

pub use codec::{MeboLogicalCodec, MeboPhysicalCodec};
pub use local::LocalCluster;

use crate::session::{enable_mebo_on, MeboContextExt};
use crate::store::StoresFromEnv;

/// A Ballista session config carrying the mebo codecs.
pub fn ballista_config() -> SessionConfig {
    SessionConfig::new_with_ballista()
        .with_information_schema(true)
        .with_ballista_logical_extension_codec(Arc::new(MeboLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(MeboPhysicalCodec::default()))
}

/// A context whose queries run on the cluster whose scheduler is at `url`
/// (`df://host:port`); tables are registered on it as on any context.
pub async fn remote_context(url: &str) -> Result<SessionContext> {
    let state = SessionStateBuilder::new().with_default_features().with_config(ballista_config()).build();
    // Ballista rebuilds the state it is given: mebo joins the result.
    let ctx = SessionContext::remote_with_state(url, state).await?;
    ctx.enable_mebo()?;
    Ok(ctx)
}

/// The scheduler's session: Ballista's, with mebo known to it.
fn scheduler_session(config: SessionConfig) -> Result<SessionState> {
    let mut state = default_session_builder(config)?;
    enable_mebo_on(&mut state)?;
    Ok(state)
}

/// A scheduler on `host:port` that plans mebo scans and sends them to
/// executors. `executor_timeout` is how long a silent executor is kept
/// before its tasks are run elsewhere.
pub fn scheduler_config(host: &str, port: u16, executor_timeout_seconds: u64) -> SchedulerConfig {
    SchedulerConfig {
        bind_host: host.to_owned(),
        external_host: host.to_owned(),
        bind_port: port,
        executor_timeout_seconds,
        expire_dead_executor_interval_seconds: (executor_timeout_seconds / 3).clamp(1, 15),
        override_config_producer: Some(Arc::new(ballista_config)),
        override_session_builder: Some(Arc::new(scheduler_session)),
        override_logical_codec: Some(Arc::new(MeboLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(MeboPhysicalCodec::default())),
        ..SchedulerConfig::default()
    }
}

/// Where an executor listens, which scheduler it joins, where it keeps its
/// shuffle files.
#[derive(Debug, Clone)]
pub struct ExecutorPlace {
    /// The address it binds (`127.0.0.1` unless it serves other machines).
    pub bind_host: String,
    /// The name other machines reach it by (`bind_host` when `None`).
    pub external_host: Option<String>,
    /// Arrow Flight port (shuffle data).
    pub port: u16,
    /// gRPC port (tasks).
    pub grpc_port: u16,
    /// The scheduler's host and port.
    pub scheduler: (String, u16),
    /// Its working directory.
    pub work_dir: String,
    /// Tasks it runs at once.
    pub concurrent_tasks: usize,
    /// Seconds between heartbeats to the scheduler.
    pub heartbeat_seconds: u64,
    /// What its tasks may hold together (`Some(0)`: unbounded); `None`
    /// takes Ballista's share of the machine's memory.
    pub memory_pool_bytes: Option<u64>,
}

/// An executor that runs mebo scans.
pub fn executor_config(place: ExecutorPlace) -> ExecutorProcessConfig {
    // Ballista's own runtime (spill files in the work directory), with the
    // stores of the buckets its plans name made from its `AWS_*` variables.
    let stores: Arc<StoresFromEnv> = Arc::default();
    let spill_dir = place.work_dir.clone();
    let runtime = move |_: &SessionConfig| {
        let registry: Arc<dyn ObjectStoreRegistry> = stores.clone();
        let env = RuntimeEnvBuilder::new().with_temp_file_path(spill_dir.clone()).with_object_store_registry(registry).build()?;
        Ok(Arc::new(env))
    };
    ExecutorProcessConfig {
        override_runtime_producer: Some(Arc::new(runtime)),
        bind_host: place.bind_host,
        external_host: place.external_host,
        port: place.port,
        grpc_port: place.grpc_port,
        scheduler_host: place.scheduler.0,
        scheduler_port: place.scheduler.1,
        work_dir: Some(place.work_dir),
        vcores: place.concurrent_tasks.max(1),
        executor_heartbeat_interval_seconds: place.heartbeat_seconds.max(1),
        memory_pool_size: place.memory_pool_bytes,
        print_thread_info: false,
        override_config_producer: Some(Arc::new(ballista_config)),
        override_logical_codec: Some(Arc::new(MeboLogicalCodec::default())),
        override_physical_codec: Some(Arc::new(MeboPhysicalCodec::default())),
        ..ExecutorProcessConfig::default()
    }
}
