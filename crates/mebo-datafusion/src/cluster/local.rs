//! A cluster on this machine: a `mebo-scheduler` and N `mebo-executor`
//! processes on 127.0.0.1, started for a run and stopped with it.

use std::io;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a process may take to open its port.
const STARTUP: Duration = Duration::from_secs(60);

/// A scheduler and its executors as child processes; dropped, they are
/// killed and their working directory removed.
pub struct LocalCluster {
    scheduler: Child,
    executors: Vec<Child>,
    port: u16,
    work_dir: PathBuf,
}

impl LocalCluster {
    /// A scheduler and `executors` executors, from the binaries beside the
    /// running one (`mebo-sql`, or a test's `target` folder).
    pub fn start(executors: usize) -> io::Result<LocalCluster> {
        LocalCluster::start_with(executors, &[])
    }

    /// The same, each executor given `executor_args` besides its places
    /// (`--memory-pool-size 1g`).
    pub fn start_with(executors: usize, executor_args: &[String]) -> io::Result<LocalCluster> {
        let exe = std::env::current_exe()?;
        // A test binary sits one folder deeper (`deps/`) than the binaries.
        let beside = exe.parent().unwrap_or(Path::new("."));
        let dir = if beside.join(binary("mebo-scheduler")).exists() { beside } else { beside.parent().unwrap_or(beside) };
        LocalCluster::start_from(dir, executors, 2, executor_args)
    }

    /// The same, from the binaries in `bin_dir`; `executor_timeout_seconds`
    /// is how long the scheduler waits for a silent executor before it runs
    /// its tasks elsewhere.
    pub fn start_from(
        bin_dir: &Path,
        executors: usize,
        executor_timeout_seconds: u64,
        executor_args: &[String],
    ) -> io::Result<LocalCluster> {
        let port = free_port()?;
        let work_dir = std::env::temp_dir().join(format!("mebo-cluster-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&work_dir)?;
        // One file for stdout and stderr, each its own handle on it.
        let log = |name: &str| -> io::Result<(std::fs::File, std::fs::File)> {
            let file = std::fs::File::create(work_dir.join(format!("{name}.log")))?;
            Ok((file.try_clone()?, file))
        };
        let (out, err) = log("scheduler")?;
        let scheduler = Command::new(bin_dir.join(binary("mebo-scheduler")))
            .args(["--port", &port.to_string(), "--executor-timeout", &executor_timeout_seconds.to_string()])
            .env("MEBO_LOG", std::env::var("MEBO_LOG").unwrap_or_else(|_| "info".into()))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", bin_dir.join("mebo-scheduler").display())))?;
        let mut cluster = LocalCluster { scheduler, executors: Vec::new(), port, work_dir: work_dir.clone() };
        cluster.wait_for(port, "scheduler")?;
        for i in 0..executors {
            let (flight, grpc) = (free_port()?, free_port()?);
            let dir = cluster.work_dir.join(format!("executor-{i}"));
            std::fs::create_dir_all(&dir)?;
            let name = format!("executor-{i}");
            let (out, err) = log(&name)?;
            // Slots beyond the cores: Ballista 55 never returns the slot of a
            // task cancelled when an executor's loss rolls its stage back, so
            // a survivor with only as many slots as cores can stall the
            // re-run stages (docs/SQL.md).
            let child = Command::new(bin_dir.join(binary("mebo-executor")))
                .args(["--scheduler-port", &port.to_string(), "--port", &flight.to_string(), "--grpc-port", &grpc.to_string()])
                .args(["--heartbeat", "1", "--concurrent-tasks", "4"])
                .args(executor_args)
                .env("MEBO_LOG", std::env::var("MEBO_LOG").unwrap_or_else(|_| "info".into()))
                .arg("--work-dir")
                .arg(&dir)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err)
                .spawn()?;
            cluster.executors.push(child);
            cluster.wait_for(flight, &name)?;
        }
        Ok(cluster)
    }

    /// The scheduler's URL for [`remote_context`](super::remote_context).
    pub fn url(&self) -> String {
        format!("df://127.0.0.1:{}", self.port)
    }

    /// What the scheduler and each executor logged so far.
    pub fn logs(&self) -> String {
        let names = std::iter::once("scheduler".to_owned()).chain((0..self.executors.len()).map(|i| format!("executor-{i}")));
        names
            .map(|name| {
                let log = std::fs::read_to_string(self.work_dir.join(format!("{name}.log"))).unwrap_or_default();
                format!("--- {name}\n{log}")
            })
            .collect()
    }

    /// Kill executor `i` (as a machine that fails would stop).
    pub fn kill_executor(&mut self, i: usize) -> io::Result<()> {
        let child = self.executors.get_mut(i).ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("no executor {i}")))?;
        child.kill()?;
        child.wait().map(drop)
    }

    /// Wait until `port` accepts connections; a process that exits first
    /// is an error carrying the end of its log.
    fn wait_for(&mut self, port: u16, name: &str) -> io::Result<()> {
        let deadline = Instant::now() + STARTUP;
        loop {
            if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
                return Ok(());
            }
            let child = if name == "scheduler" { &mut self.scheduler } else { self.executors.last_mut().unwrap_or(&mut self.scheduler) };
            if let Some(status) = child.try_wait()? {
                return Err(self.failed(name, &format!("exited ({status})")));
            }
            if Instant::now() > deadline {
                return Err(self.failed(name, &format!("did not open port {port} in {} s", STARTUP.as_secs())));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn failed(&self, name: &str, what: &str) -> io::Error {
        let log = std::fs::read_to_string(self.work_dir.join(format!("{name}.log"))).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(20).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        io::Error::other(format!("{name} {what}:\n{}", tail.join("\n")))
    }
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for child in self.executors.iter_mut().chain(std::iter::once(&mut self.scheduler)) {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.work_dir);
    }
}

/// A port free on 127.0.0.1 now.
fn free_port() -> io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

fn binary(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}
