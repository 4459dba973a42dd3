//! `mebo-sql [--table NAME=PATH]... [--skip-bad-files] [--format table|csv|json] "SQL; SQL"`
//!
//! Runs the statements in order over tables of blobs and prints each
//! result. PATH is a file, a directory (its `.mebo` files), a glob or an
//! `s3://bucket/prefix/` URL (credentials and endpoint from the `AWS_*`
//! variables). Exit status 1 on an error, 2 on a bad command line.

use std::process::ExitCode;

use mebo_datafusion::{mebo_session_config, run_statements, MeboContextExt, MeboOptions, OutputFormat};

const USAGE: &str = "usage: mebo-sql [--table NAME=PATH]... [--skip-bad-files] [--format table|csv|json] \"SQL; SQL\"";

struct Args {
    tables: Vec<(String, String)>,
    format: OutputFormat,
    skip_bad_files: bool,
    sql: String,
}

fn parse(args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut parsed = Args { tables: Vec::new(), format: OutputFormat::Table, skip_bad_files: false, sql: String::new() };
    let mut sql = Vec::new();
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--table" => {
                let spec = value("--table")?;
                let (name, path) = spec.split_once('=').ok_or_else(|| format!("--table takes NAME=PATH, not {spec:?}"))?;
                parsed.tables.push((name.to_owned(), path.to_owned()));
            }
            "--format" => parsed.format = value("--format")?.parse()?,
            "--skip-bad-files" => parsed.skip_bad_files = true,
            "-h" | "--help" => return Err(String::new()),
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => sql.push(arg),
        }
    }
    if sql.is_empty() {
        return Err("no SQL given".into());
    }
    parsed.sql = sql.join(" ");
    Ok(parsed)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(why) => {
            if !why.is_empty() {
                eprintln!("mebo-sql: {why}");
            }
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    let ctx = datafusion::prelude::SessionContext::new_with_config(mebo_session_config());
    let run = async {
        ctx.enable_mebo()?;
        let options = MeboOptions { skip_bad_files: args.skip_bad_files, kind: None };
        for (name, path) in &args.tables {
            ctx.register_mebo_with(name, path, options).await?;
        }
        let mut out = std::io::stdout().lock();
        run_statements(&ctx, &args.sql, args.format, &mut out).await
    };
    match run.await {
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
