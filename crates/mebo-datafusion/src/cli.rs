//! The command lines of `mebo-sql`, `mebo-scheduler` and `mebo-executor`:
//! `--name value` options, `--name` switches and positional words.

use std::process::ExitCode;
use std::str::FromStr;

/// A parsed command line; each binary takes what it knows, then
/// [`finish`](Flags::finish) refuses what is left.
#[derive(Debug, Default)]
pub struct Flags {
    values: Vec<(String, String)>,
    switches: Vec<String>,
    positional: Vec<String>,
}

impl Flags {
    /// Split `args`: names in `with_value` take the next word, names in
    /// `switches` stand alone, any other `--word` is an error, the rest is
    /// positional. `-h`/`--help` is an error with no text (print the usage).
    pub fn parse(args: impl IntoIterator<Item = String>, with_value: &[&str], switches: &[&str]) -> Result<Flags, String> {
        let mut flags = Flags::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "-h" | "--help" => return Err(String::new()),
                name if with_value.contains(&name) => {
                    let value = args.next().ok_or_else(|| format!("{name} needs a value"))?;
                    flags.values.push((arg, value));
                }
                name if switches.contains(&name) => flags.switches.push(arg),
                name if name.starts_with("--") => return Err(format!("unknown option {name}")),
                _ => flags.positional.push(arg),
            }
        }
        Ok(flags)
    }

    /// Every value given to `name`, in order.
    pub fn take_all(&mut self, name: &str) -> Vec<String> {
        let (taken, kept) = std::mem::take(&mut self.values).into_iter().partition(|(n, _)| n == name);
        self.values = kept;
        taken.into_iter().map(|(_, v)| v).collect()
    }

    /// The last value given to `name`.
    pub fn take(&mut self, name: &str) -> Option<String> {
        self.take_all(name).pop()
    }

    /// The last value given to `name`, as a number.
    pub fn number<T: FromStr>(&mut self, name: &str) -> Result<Option<T>, String> {
        self.take(name).map(|v| v.parse().map_err(|_| format!("{name} takes a number, not {v:?}"))).transpose()
    }

    /// The last value given to `name`, as a size in bytes: a whole number,
    /// alone or with `k`, `m`, `g` or `t` (1024-based; `kb`, `KiB` alike).
    pub fn bytes(&mut self, name: &str) -> Result<Option<u64>, String> {
        self.take(name).map(|v| size_in_bytes(&v).ok_or_else(|| format!("{name} takes a size such as 512m or 4g, not {v:?}"))).transpose()
    }

    /// Whether switch `name` was given.
    pub fn switch(&mut self, name: &str) -> bool {
        let before = self.switches.len();
        self.switches.retain(|s| s != name);
        self.switches.len() != before
    }

    /// The positional words.
    pub fn positional(&mut self) -> Vec<String> {
        std::mem::take(&mut self.positional)
    }

    /// Refuse what no one took.
    pub fn finish(self) -> Result<(), String> {
        match self.positional.first() {
            Some(word) => Err(format!("unexpected argument {word:?}")),
            None => Ok(()),
        }
    }

    /// Print why (when there is a reason) and the usage; exit status 2.
    pub fn usage_error(why: &str, usage: &str) -> ExitCode {
        if !why.is_empty() {
            eprintln!("{why}");
        }
        eprintln!("{usage}");
        ExitCode::from(2)
    }
}

/// `512`, `64k`, `512MB`, `4GiB`: bytes, 1024-based units.
fn size_in_bytes(text: &str) -> Option<u64> {
    let text = text.trim().to_ascii_lowercase();
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len()));
    let shift = match unit.trim_end_matches("ib").trim_end_matches('b') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// Ballista's log lines to stderr, at `MEBO_LOG` (`error`, `warn`, `info`,
/// `debug`; `warn` when unset): what a scheduler and an executor say about
/// lost executors and failed tasks.
pub fn log_to_stderr() {
    let level = std::env::var("MEBO_LOG").ok().and_then(|l| l.parse().ok()).unwrap_or(log::LevelFilter::Warn);
    if log::set_logger(&STDERR).is_ok() {
        log::set_max_level(level);
    }
}

struct Stderr;

static STDERR: Stderr = Stderr;

impl log::Log for Stderr {
    fn enabled(&self, metadata: &log::Metadata) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &log::Record) {
        if self.enabled(record.metadata()) {
            let at = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
            eprintln!("{}.{:03} {} {}: {}", at.as_secs(), at.subsec_millis(), record.level(), record.target(), record.args());
        }
    }

    fn flush(&self) {}
}

#[cfg(test)]
mod tests {
    use super::size_in_bytes;

    #[test]
    fn sizes_in_bytes() {
        for (text, bytes) in
            [("512", 512), ("0", 0), ("64k", 64 << 10), ("64KB", 64 << 10), ("3MiB", 3 << 20), ("2g", 2 << 30), ("1t", 1 << 40)]
        {
            assert_eq!(size_in_bytes(text), Some(bytes), "{text}");
        }
        for text in ["", "k", "1.5g", "-1", "12x", "4 gb b", "99999999999999999999", "20000000t"] {
            assert_eq!(size_in_bytes(text), None, "{text}");
        }
    }
}
