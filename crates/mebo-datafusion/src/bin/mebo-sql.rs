//! `mebo-sql [--table NAME=PATH]... [--skip-bad-files] [--format table|csv|json]
//!  [--memory-limit SIZE] [--cluster N | --scheduler URL] [--timeout SECONDS]
//!  ("SQL; SQL" | -f FILE | -)`
//!
//! Runs the statements in order over tables of blobs and prints each
//! result. The statements are the words given, or a file's (`-f FILE`,
//! `--file FILE`), or standard input's (`-`). PATH is a file, a directory (its `.mebo` files), a glob or an
//! `s3://bucket/prefix/` URL (credentials and endpoint from the `AWS_*`
//! variables). `--cluster N` starts a Ballista scheduler and N executors on
//! 127.0.0.1 for the run (`mebo-scheduler` and `mebo-executor`, beside this
//! binary) and stops them after; `--scheduler df://HOST:PORT` runs on a
//! cluster already running. `--timeout SECONDS` bounds the whole run (a
//! cluster that lost an executor can stall a job: Ballista 55 does not
//! always re-run the stages it rolls back). `--skip-bad-files` reads past a
//! file that is not a blob of the table's kind, naming it and why on stderr
//! (`MEBO_LOG=error` silences that). `--memory-limit SIZE` (`512m`, `4g`)
//! bounds what the statements hold at once, scans and writers included: a
//! statement past it fails with `Resources exhausted`; with `--cluster N`
//! it is each executor's pool, shared by its tasks. Exit status 1 on an error, 2 on a bad
//! command line. `COPY (…) TO 'dir/' STORED AS MEBO` and `INSERT INTO` a
//! table write blobs (the count of rows written is the statement's result).

use std::process::ExitCode;
use std::time::Duration;

use datafusion::error::DataFusionError;
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::SessionContext;
use mebo_datafusion::cli::Flags;
use mebo_datafusion::cluster::{remote_context, LocalCluster};
use mebo_datafusion::{mebo_session_config, run_statements, MeboContextExt, MeboOptions, OutputFormat};

const USAGE: &str = "usage: mebo-sql [--table NAME=PATH]... [--skip-bad-files] [--format table|csv|json] \
[--memory-limit SIZE] [--cluster N | --scheduler URL] [--timeout SECONDS] (\"SQL; SQL\" | -f FILE | -)";

/// Where the statements run.
enum Engine {
    Local,
    Cluster(usize),
    Scheduler(String),
}

struct Args {
    tables: Vec<(String, String)>,
    format: OutputFormat,
    skip_bad_files: bool,
    memory_limit: Option<u64>,
    engine: Engine,
    timeout: Option<Duration>,
    sql: Statements,
}

/// Where the statements come from.
enum Statements {
    Given(String),
    File(String),
    Stdin,
}

impl Statements {
    /// The statements' text; a file that cannot be read is an error (exit 1).
    fn read(&self) -> Result<String, String> {
        let text = match self {
            Statements::Given(sql) => sql.clone(),
            Statements::File(file) => std::fs::read_to_string(file).map_err(|e| format!("reading {file}: {e}"))?,
            Statements::Stdin => std::io::read_to_string(std::io::stdin()).map_err(|e| format!("reading standard input: {e}"))?,
        };
        match text.trim().is_empty() {
            true => Err("no SQL given".into()),
            false => Ok(text),
        }
    }
}

fn parse(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut flags = Flags::parse(
        args,
        &["--table", "--format", "--memory-limit", "--cluster", "--scheduler", "--timeout", "-f", "--file"],
        &["--skip-bad-files"],
    )?;
    let mut tables = Vec::new();
    for spec in flags.take_all("--table") {
        let (name, path) = spec.split_once('=').ok_or_else(|| format!("--table takes NAME=PATH, not {spec:?}"))?;
        tables.push((name.to_owned(), path.to_owned()));
    }
    let format = flags.take("--format").map_or(Ok(OutputFormat::Table), |f| f.parse())?;
    let engine = match (flags.number::<usize>("--cluster")?, flags.take("--scheduler")) {
        (Some(_), Some(_)) => return Err("--cluster and --scheduler exclude each other".into()),
        (Some(0), None) => return Err("--cluster needs at least one executor".into()),
        (Some(n), None) => Engine::Cluster(n),
        (None, Some(url)) => Engine::Scheduler(url),
        (None, None) => Engine::Local,
    };
    let memory_limit = flags.bytes("--memory-limit")?;
    if memory_limit.is_some() && matches!(engine, Engine::Scheduler(_)) {
        return Err("--memory-limit bounds the engines mebo-sql starts: a running cluster's executors take --memory-pool-size".into());
    }
    let timeout = flags
        .number::<f64>("--timeout")?
        .map(|s| Duration::try_from_secs_f64(s).map_err(|_| format!("--timeout {s} is not a duration")))
        .transpose()?;
    let skip_bad_files = flags.switch("--skip-bad-files");
    let files = [flags.take_all("-f"), flags.take_all("--file")].concat();
    let words = flags.positional();
    flags.finish()?;
    let sql = match (files.as_slice(), words.as_slice()) {
        ([], [dash]) if dash == "-" => Statements::Stdin,
        ([], []) => return Err("no SQL given".into()),
        ([], words) => Statements::Given(words.join(" ")),
        ([file], []) => Statements::File(file.clone()),
        ([_], _) => return Err("the statements come from -f FILE or from the command line, not both".into()),
        _ => return Err("one -f FILE".into()),
    };
    Ok(Args { tables, format, skip_bad_files, memory_limit, engine, timeout, sql })
}

/// What each executor of `--cluster N` is given besides its places.
fn executor_args(memory_limit: Option<u64>) -> Vec<String> {
    memory_limit.map(|bytes| vec!["--memory-pool-size".to_owned(), bytes.to_string()]).unwrap_or_default()
}

async fn run(args: &Args, sql: &str, ctx: &SessionContext) -> datafusion::common::Result<usize> {
    let options = MeboOptions { skip_bad_files: args.skip_bad_files, ..MeboOptions::default() };
    for (name, path) in &args.tables {
        ctx.register_mebo_with(name, path, options).await?;
    }
    let mut out = std::io::stdout().lock();
    run_statements(ctx, sql, args.format, &mut out).await
}

#[tokio::main]
async fn main() -> ExitCode {
    mebo_datafusion::cli::log_to_stderr();
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(why) => return Flags::usage_error(&why.is_empty().then(String::new).unwrap_or(format!("mebo-sql: {why}")), USAGE),
    };
    let sql = match args.sql.read() {
        Ok(sql) => sql,
        Err(why) => {
            eprintln!("mebo-sql: {why}");
            return ExitCode::from(1);
        }
    };
    // Kept until the statements are done: dropping it stops the processes.
    let mut cluster = None;
    let ctx = match &args.engine {
        Engine::Local => {
            let runtime = match args.memory_limit {
                Some(limit) => RuntimeEnvBuilder::new().with_memory_limit(usize::try_from(limit).unwrap_or(usize::MAX), 1.0),
                None => RuntimeEnvBuilder::new(),
            };
            runtime.build_arc().and_then(|runtime| {
                let ctx = SessionContext::new_with_config_rt(mebo_session_config(), runtime);
                ctx.enable_mebo().map(|()| ctx)
            })
        }
        Engine::Cluster(n) => match LocalCluster::start_with(*n, &executor_args(args.memory_limit)) {
            Ok(started) => remote_context(&cluster.insert(started).url()).await,
            Err(e) => {
                eprintln!("mebo-sql: starting the cluster: {e}");
                return ExitCode::from(1);
            }
        },
        Engine::Scheduler(url) => remote_context(url).await,
    };
    let result = match (ctx, args.timeout) {
        (Ok(ctx), None) => run(&args, &sql, &ctx).await,
        (Ok(ctx), Some(limit)) => tokio::time::timeout(limit, run(&args, &sql, &ctx))
            .await
            .unwrap_or_else(|_| Err(DataFusionError::Execution(format!("no answer in {} s (--timeout)", limit.as_secs_f64())))),
        (Err(e), _) => Err(e),
    };
    drop(cluster);
    match result {
        Ok(skipped) => {
            if skipped > 0 {
                eprintln!("mebo-sql: skipped {skipped} unreadable file(s)");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("mebo-sql: {e}");
            ExitCode::from(1)
        }
    }
}
