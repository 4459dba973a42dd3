//! `mebo-scheduler [--bind HOST] [--port PORT] [--executor-timeout SECONDS]`
//!
//! A Ballista scheduler that plans mebo scans (Ballista's own, with the mebo
//! codecs and `STORED AS MEBO` known to it). It listens on 127.0.0.1:50050
//! unless told otherwise; `--bind 0.0.0.0` serves executors and clients on
//! other machines.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;

use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::scheduler_process::start_server;
use mebo_datafusion::cli::Flags;
use mebo_datafusion::cluster::scheduler_config;

const USAGE: &str = "usage: mebo-scheduler [--bind HOST] [--port PORT] [--executor-timeout SECONDS]";

#[tokio::main]
async fn main() -> ExitCode {
    mebo_datafusion::cli::log_to_stderr();
    let parsed = (|| {
        let mut flags = Flags::parse(std::env::args().skip(1), &["--bind", "--port", "--executor-timeout"], &[])?;
        let host = flags.take("--bind").unwrap_or_else(|| "127.0.0.1".into());
        let port: u16 = flags.number("--port")?.unwrap_or(50050);
        let timeout: u64 = flags.number("--executor-timeout")?.unwrap_or(180);
        flags.finish()?;
        Ok::<_, String>((host, port, timeout))
    })();
    let (host, port, timeout) = match parsed {
        Ok(parsed) => parsed,
        Err(why) => return Flags::usage_error(&why, USAGE),
    };
    let run = async {
        let addr: SocketAddr = format!("{host}:{port}").parse().map_err(|e| format!("{host}:{port}: {e}"))?;
        let config = scheduler_config(&host, port, timeout);
        let cluster = BallistaCluster::new_from_config(&config).await.map_err(|e| e.to_string())?;
        start_server(cluster, addr, Arc::new(config)).await.map_err(|e| e.to_string())
    };
    match run.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mebo-scheduler: {e}");
            ExitCode::from(1)
        }
    }
}
