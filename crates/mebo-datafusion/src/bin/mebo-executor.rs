//! `mebo-executor [--bind HOST] [--external-host NAME] [--port PORT] [--grpc-port PORT]
//!  [--scheduler-host HOST] [--scheduler-port PORT] [--work-dir DIR] [--concurrent-tasks N]
//!  [--heartbeat SECONDS] [--memory-pool-size SIZE]`
//!
//! A Ballista executor that runs mebo scans. It listens on 127.0.0.1 unless
//! `--bind` says otherwise, and joins the scheduler at 127.0.0.1:50050 by
//! default. `--memory-pool-size SIZE` (`512m`, `4g`; `0` for none) is what
//! its tasks may hold together, split evenly between them; Ballista's
//! default is 70% of the machine's memory. Tables in `s3://` buckets are
//! read (and written) with the executor's own `AWS_*` variables.

use std::process::ExitCode;
use std::sync::Arc;

use ballista_executor::executor_process::start_executor_process;
use mebo_datafusion::cli::Flags;
use mebo_datafusion::cluster::{executor_config, ExecutorPlace};

const USAGE: &str = "usage: mebo-executor [--bind HOST] [--external-host NAME] [--port PORT] [--grpc-port PORT] \
[--scheduler-host HOST] [--scheduler-port PORT] [--work-dir DIR] [--concurrent-tasks N] [--heartbeat SECONDS] \
[--memory-pool-size SIZE]";

#[tokio::main]
async fn main() -> ExitCode {
    mebo_datafusion::cli::log_to_stderr();
    let names = [
        "--bind",
        "--external-host",
        "--port",
        "--grpc-port",
        "--scheduler-host",
        "--scheduler-port",
        "--work-dir",
        "--concurrent-tasks",
        "--heartbeat",
        "--memory-pool-size",
    ];
    let parsed = (|| {
        let mut flags = Flags::parse(std::env::args().skip(1), &names, &[])?;
        let place = ExecutorPlace {
            bind_host: flags.take("--bind").unwrap_or_else(|| "127.0.0.1".into()),
            external_host: flags.take("--external-host"),
            port: flags.number("--port")?.unwrap_or(50051),
            grpc_port: flags.number("--grpc-port")?.unwrap_or(50052),
            scheduler: (
                flags.take("--scheduler-host").unwrap_or_else(|| "127.0.0.1".into()),
                flags.number("--scheduler-port")?.unwrap_or(50050),
            ),
            work_dir: flags.take("--work-dir").unwrap_or_else(|| std::env::temp_dir().join("mebo-executor").display().to_string()),
            concurrent_tasks: flags
                .number("--concurrent-tasks")?
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
            heartbeat_seconds: flags.number("--heartbeat")?.unwrap_or(60),
            memory_pool_bytes: flags.bytes("--memory-pool-size")?,
        };
        flags.finish()?;
        Ok::<_, String>(place)
    })();
    let place = match parsed {
        Ok(place) => place,
        Err(why) => return Flags::usage_error(&why, USAGE),
    };
    if let Err(e) = std::fs::create_dir_all(&place.work_dir) {
        eprintln!("mebo-executor: {}: {e}", place.work_dir);
        return ExitCode::from(1);
    }
    match start_executor_process(Arc::new(executor_config(place))).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mebo-executor: {e}");
            ExitCode::from(1)
        }
    }
}
