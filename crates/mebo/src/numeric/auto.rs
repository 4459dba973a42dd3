//! The `auto` configuration: a numeric blob whose four column choices are
//! picked for its data.
//!
//! [`AutoEncoder`] takes the same calls as [`NumericEncoder`] (checked by an
//! inner encoder with the default columns, so a refused call is refused the
//! same way and leaves both as they were) and keeps the points. At `finish` it
//! encodes a sample of the metrics' columns ([`SAMPLE_POINTS`]) with each timestamp and value
//! encoding, compresses each with every codec, and picks the pair of
//! (encoding, codec) choices with the fewest bytes among those whose modelled
//! decode cost is within the bound [`Prefer`] sets. The blob is an ordinary
//! one: any reader, the reference's included, decodes it.
//!
//! The decode cost is a model, not a timing (a timing would make the choice,
//! and so the bytes, depend on the machine's load): nanoseconds per point of
//! each column decoder plus nanoseconds per decompressed byte of each codec,
//! rounded from `npm run bench`'s native decode of the bench blobs (see
//! docs/PERFORMANCE.md, "auto").

use std::str::FromStr;

use crate::compress;
use crate::encoding::{encode_timestamps, encode_values};
use crate::error::{Error, Result};
use crate::format::{ColumnConfig, Compression, TimestampEncoding, ValueEncoding};
use crate::numeric::{NumericEncoder, NumericEncoderOptions};

/// Which bound on the modelled decode cost the smallest configuration must meet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Prefer {
    /// The fewest bytes, whatever the decode cost.
    Size,
    /// The fewest bytes among configurations modelled no slower to decode
    /// than the default one (`delta-none-gorilla-none`); never more bytes than
    /// the default.
    #[default]
    Balanced,
    /// The fewest bytes among configurations modelled at most half the
    /// default's decode cost. May be larger than the default.
    Speed,
}

impl Prefer {
    /// Every choice, in documentation order.
    pub const ALL: [Prefer; 3] = [Prefer::Size, Prefer::Balanced, Prefer::Speed];

    /// The name `FromStr` reads.
    pub fn name(self) -> &'static str {
        match self {
            Prefer::Size => "size",
            Prefer::Balanced => "balanced",
            Prefer::Speed => "speed",
        }
    }

    /// The most modelled decode cost (ns per point) allowed, given the default's.
    fn bound(self, default_cost: f64) -> f64 {
        match self {
            Prefer::Size => f64::INFINITY,
            Prefer::Balanced => default_cost,
            Prefer::Speed => default_cost / 2.0,
        }
    }
}

impl FromStr for Prefer {
    type Err = Error;
    fn from_str(s: &str) -> Result<Prefer> {
        Prefer::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::InvalidOptions { detail: format!("prefer {s:?} is not size, speed or balanced") })
    }
}

/// Modelled decode cost of a timestamp column, ns per point.
fn timestamp_cost(e: TimestampEncoding) -> f64 {
    match e {
        TimestampEncoding::Raw => 0.4,
        TimestampEncoding::DeltaPacked => 1.5,
        TimestampEncoding::Delta => 3.5,
    }
}

/// Modelled decode cost of a value column, ns per point.
fn value_cost(e: ValueEncoding) -> f64 {
    match e {
        ValueEncoding::Raw => 0.4,
        ValueEncoding::Alp => 1.5,
        ValueEncoding::Gorilla => 4.0,
        ValueEncoding::Chimp => 5.0,
    }
}

/// Modelled decompression cost, ns per decompressed byte.
fn codec_cost(c: Compression) -> f64 {
    match c {
        Compression::None => 0.0,
        Compression::Lz4 => 0.3,
        Compression::S2 => 0.4,
        Compression::Zstd => 1.0,
    }
}

/// Points of the sample `choose` encodes: blobs up to this size are measured whole.
///
/// An ALP column's parameter search costs about as much for 40 points as for
/// 250 (it searches a 32-value sample of each column), so a larger input is
/// sampled by whole metrics, not by points of every metric: the cost of the
/// candidates follows the sample, the choice stays that of the whole input
/// (the test `auto_sizes_hold_on_the_bench_input` holds the bench input's).
pub const SAMPLE_POINTS: usize = 1 << 13;

/// One (encoding, codec) choice of one column kind over the sample.
#[derive(Debug, Clone, Copy)]
struct ColumnChoice<E> {
    encoding: E,
    codec: Compression,
    /// Compressed bytes of the sample's columns.
    bytes: usize,
    /// Modelled decode cost of the sample's columns, ns.
    cost: f64,
}

/// A candidate configuration with its estimate over the sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate {
    /// The four column choices.
    pub config: ColumnConfig,
    /// Timestamp and value payload bytes of the sample.
    pub bytes: usize,
    /// Modelled decode cost, ns per point.
    pub cost_per_point: f64,
}

/// What `choose` decided and why.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoChoice {
    /// The configuration picked.
    pub config: ColumnConfig,
    /// Points in the sample the candidates were measured on.
    pub sample_points: usize,
    /// Every candidate (all 192), timestamp choices outermost.
    pub candidates: Vec<Candidate>,
}

/// The columns of the sample: every metric whole when they hold at most
/// `budget` points; otherwise `k` metrics spread evenly over the input (`k`
/// the budget over the mean metric length), each cut to `budget / k` points
/// (at least 16).
fn sample<'a>(metrics: impl Iterator<Item = (&'a [i64], &'a [f64])> + Clone, budget: usize) -> Vec<(&'a [i64], &'a [f64])> {
    let (count, total) = metrics.clone().fold((0usize, 0usize), |(n, p), (t, _)| (n + 1, p + t.len()));
    if total <= budget {
        return metrics.collect();
    }
    let keep = (budget as u128 * count as u128 / total as u128).clamp(1, count as u128) as usize;
    let cap = budget.div_ceil(keep).max(16);
    // Metric `i` is taken when it is the first of its share `j = i·keep/count`.
    metrics
        .enumerate()
        .filter(|&(i, _)| i == 0 || (i * keep) / count != ((i - 1) * keep) / count)
        .map(|(_, (t, v))| {
            let n = t.len().min(cap);
            (&t[..n], &v[..n])
        })
        .collect()
}

/// Every candidate's estimate over one sample of the columns: what [`choose`]
/// picks from, under any [`Prefer`]. One sampling pass serves all three choices.
#[derive(Debug, Clone, PartialEq)]
pub struct AutoCandidates {
    /// Points in the sample the candidates were measured on.
    pub sample_points: usize,
    /// Every candidate (all 192), timestamp choices outermost.
    pub candidates: Vec<Candidate>,
}

impl AutoCandidates {
    /// The configuration `prefer` picks: the fewest bytes within its bound on
    /// the modelled decode cost, on a tie the cheaper decode; the default when
    /// no candidate is within it.
    pub fn pick(&self, prefer: Prefer) -> ColumnConfig {
        let default = ColumnConfig::default();
        let default_cost = self.candidates.iter().find(|c| c.config == default).map_or(0.0, |c| c.cost_per_point);
        let bound = prefer.bound(default_cost);
        // A scan, not a sort: a sort instance of its own would cost the wasm build kilobytes
        // (see crates/mebo/src/order.rs).
        self.candidates
            .iter()
            .filter(|c| c.cost_per_point <= bound)
            .min_by(|a, b| a.bytes.cmp(&b.bytes).then(a.cost_per_point.total_cmp(&b.cost_per_point)))
            .map_or(default, |c| c.config)
    }

    /// What `prefer` picks, with the candidates it picked from.
    pub fn choice(self, prefer: Prefer) -> AutoChoice {
        AutoChoice { config: self.pick(prefer), sample_points: self.sample_points, candidates: self.candidates }
    }
}

/// Encode a sample of these metrics' columns (timestamps and values of each
/// metric, in any order) with every timestamp and value encoding, compress
/// each with every codec, and estimate the 192 candidate configurations, with
/// `options`' byte order.
pub fn candidates<'a>(
    metrics: impl Iterator<Item = (&'a [i64], &'a [f64])> + Clone,
    options: NumericEncoderOptions,
) -> Result<AutoCandidates> {
    let columns = sample(metrics, SAMPLE_POINTS);
    let points: usize = columns.iter().map(|(t, _)| t.len()).sum();
    let order = options.byte_order;
    let mut raw = Vec::new();
    let mut timestamps = Vec::with_capacity(12);
    for encoding in TimestampEncoding::ALL {
        raw.clear();
        for (t, _) in &columns {
            encode_timestamps(encoding, t, order, &mut raw);
        }
        for codec in Compression::ALL {
            let bytes = compress::compress(codec, &raw)?.len();
            let cost = timestamp_cost(encoding) * points as f64 + codec_cost(codec) * raw.len() as f64;
            timestamps.push(ColumnChoice { encoding, codec, bytes, cost });
        }
    }
    let mut values = Vec::with_capacity(16);
    for encoding in ValueEncoding::ALL {
        raw.clear();
        for (_, v) in &columns {
            encode_values(encoding, v, order, &mut raw);
        }
        for codec in Compression::ALL {
            let bytes = compress::compress(codec, &raw)?.len();
            let cost = value_cost(encoding) * points as f64 + codec_cost(codec) * raw.len() as f64;
            values.push(ColumnChoice { encoding, codec, bytes, cost });
        }
    }
    let per_point = |cost: f64| if points == 0 { 0.0 } else { cost / points as f64 };
    let candidates: Vec<Candidate> = timestamps
        .iter()
        .flat_map(|t| {
            values.iter().map(move |v| Candidate {
                config: ColumnConfig {
                    timestamp_encoding: t.encoding,
                    timestamp_compression: t.codec,
                    value_encoding: v.encoding,
                    value_compression: v.codec,
                },
                bytes: t.bytes + v.bytes,
                cost_per_point: per_point(t.cost + v.cost),
            })
        })
        .collect();
    Ok(AutoCandidates { sample_points: points, candidates })
}

/// Pick the configuration for these metrics' columns (timestamps and values
/// of each metric, in any order) under `prefer`, with `options`' byte order:
/// [`candidates`], then [`AutoCandidates::pick`].
pub fn choose<'a>(
    metrics: impl Iterator<Item = (&'a [i64], &'a [f64])> + Clone,
    options: NumericEncoderOptions,
    prefer: Prefer,
) -> Result<AutoChoice> {
    Ok(candidates(metrics, options)?.choice(prefer))
}

/// The inner encoder accepted a point with no metric open here: a defect, reported as the state error.
fn no_open_metric() -> Error {
    Error::EncoderState { detail: "auto encoder: no metric is open".into() }
}

/// How a buffered metric was started.
#[derive(Debug, Clone)]
enum MetricKey {
    Name(String),
    Id(u64),
}

/// A metric's points as given, to encode again with the chosen configuration.
#[derive(Debug, Clone)]
struct BufferedMetric {
    key: MetricKey,
    declared: usize,
    timestamps: Vec<i64>,
    values: Vec<f64>,
    /// One per point when the blob has tags.
    tags: Vec<String>,
}

/// Builds one numeric blob in the configuration `choose` picks for its data.
/// The layout, tags and byte order are the options'; their column choices are
/// ignored. Calls are checked, and refused, as [`NumericEncoder`]'s.
#[derive(Debug)]
pub struct AutoEncoder {
    options: NumericEncoderOptions,
    prefer: Prefer,
    start_time: i64,
    /// The same calls with the default columns: checks them, and is the blob
    /// `finish` falls back to when the chosen one is not smaller.
    checked: NumericEncoder,
    ended: Vec<BufferedMetric>,
    open: Option<BufferedMetric>,
}

impl AutoEncoder {
    /// A new encoder for a blob starting at `start_time`.
    pub fn new(start_time: i64, options: NumericEncoderOptions, prefer: Prefer) -> AutoEncoder {
        let options = options.with_config(ColumnConfig::default());
        AutoEncoder { options, prefer, start_time, checked: NumericEncoder::new(start_time, options), ended: Vec::new(), open: None }
    }

    /// The bound the configuration is chosen under.
    pub fn prefer(&self) -> Prefer {
        self.prefer
    }

    /// Metrics ended so far.
    pub fn metric_count(&self) -> usize {
        self.checked.metric_count()
    }

    fn start(&mut self, key: MetricKey, points: usize) {
        let tags = if self.options.tags { Vec::with_capacity(points) } else { Vec::new() };
        self.open = Some(BufferedMetric {
            key,
            declared: points,
            timestamps: Vec::with_capacity(points),
            values: Vec::with_capacity(points),
            tags,
        });
    }

    /// See [`NumericEncoder::start_metric_name`].
    pub fn start_metric_name(&mut self, name: &str, points: usize) -> Result<()> {
        self.checked.start_metric_name(name, points)?;
        self.start(MetricKey::Name(name.to_owned()), points);
        Ok(())
    }

    /// See [`NumericEncoder::start_metric_id`].
    pub fn start_metric_id(&mut self, id: u64, points: usize) -> Result<()> {
        self.checked.start_metric_id(id, points)?;
        self.start(MetricKey::Id(id), points);
        Ok(())
    }

    /// See [`NumericEncoder::add_point`].
    pub fn add_point(&mut self, timestamp: i64, value: f64, tag: Option<&str>) -> Result<()> {
        self.checked.add_point(timestamp, value, tag)?;
        let tags = self.options.tags;
        let open = self.open.as_mut().ok_or_else(no_open_metric)?;
        open.timestamps.push(timestamp);
        open.values.push(value);
        if tags {
            open.tags.push(tag.unwrap_or("").to_owned());
        }
        Ok(())
    }

    /// See [`NumericEncoder::add_points`].
    pub fn add_points<S: AsRef<str>>(&mut self, timestamps: &[i64], values: &[f64], tags: Option<&[S]>) -> Result<()> {
        self.checked.add_points(timestamps, values, tags)?;
        let with_tags = self.options.tags;
        let open = self.open.as_mut().ok_or_else(no_open_metric)?;
        open.timestamps.extend_from_slice(timestamps);
        open.values.extend_from_slice(values);
        if with_tags {
            match tags {
                Some(tags) => open.tags.extend(tags.iter().map(|t| t.as_ref().to_owned())),
                None => open.tags.resize(open.timestamps.len(), String::new()),
            }
        }
        Ok(())
    }

    /// See [`NumericEncoder::end_metric`].
    pub fn end_metric(&mut self) -> Result<()> {
        self.checked.end_metric()?;
        if let Some(open) = self.open.take() {
            self.ended.push(open);
        }
        Ok(())
    }

    /// See [`NumericEncoder::cancel_metric`].
    pub fn cancel_metric(&mut self) {
        self.checked.cancel_metric();
        self.open = None;
    }

    /// The configuration `finish` would try for the metrics ended so far.
    pub fn choice(&self) -> Result<AutoChoice> {
        Ok(self.candidates()?.choice(self.prefer))
    }

    /// The candidates' estimates for the metrics ended so far: one sampling
    /// pass, from which each `prefer`'s choice follows.
    pub fn candidates(&self) -> Result<AutoCandidates> {
        candidates(self.ended.iter().map(|m| (&m.timestamps[..], &m.values[..])), self.options)
    }

    /// The metrics ended so far, encoded with `config`.
    fn encode_with(&self, config: ColumnConfig) -> Result<Vec<u8>> {
        let mut enc = NumericEncoder::new(self.start_time, self.options.with_config(config));
        for m in &self.ended {
            match &m.key {
                MetricKey::Name(name) => enc.start_metric_name(name, m.declared)?,
                MetricKey::Id(id) => enc.start_metric_id(*id, m.declared)?,
            }
            let tags = if self.options.tags { Some(&m.tags[..]) } else { None };
            enc.add_points(&m.timestamps, &m.values, tags)?;
            enc.end_metric()?;
        }
        enc.finish()
    }

    /// The blob and the configuration it was written with: the chosen one,
    /// or the default when that is not larger (under `Balanced` and `Size`)
    /// or when the chosen one cannot hold the data (a v1 column past 64 KiB).
    /// The encoder is unchanged: more metrics may follow.
    pub fn finish_with_config(&self) -> Result<(Vec<u8>, ColumnConfig)> {
        let default_blob = self.checked.finish()?;
        let chosen = self.choice()?.config;
        self.finish_chosen(self.prefer, chosen, default_blob)
    }

    /// What `finish_with_config` would give under each of [`Prefer::ALL`],
    /// from one sampling pass, the default blob encoded once and each
    /// distinct choice once: the blobs are the same bytes as three encoders'
    /// (one per `prefer`) would write. For a report of what `auto` gains.
    pub fn finish_each(&self) -> Result<Vec<(Prefer, Vec<u8>, ColumnConfig)>> {
        let default_blob = self.checked.finish()?;
        let candidates = self.candidates()?;
        let mut out: Vec<(Prefer, Vec<u8>, ColumnConfig)> = Vec::with_capacity(Prefer::ALL.len());
        for prefer in Prefer::ALL {
            let chosen = candidates.pick(prefer);
            // `Speed` keeps its choice even when larger; the others fall back to a smaller default.
            let same = out.iter().find(|(p, _, c)| *c == chosen && (*p == Prefer::Speed) == (prefer == Prefer::Speed));
            let (blob, config) = match same {
                Some((_, blob, config)) => (blob.clone(), *config),
                None => self.finish_chosen(prefer, chosen, default_blob.clone())?,
            };
            out.push((prefer, blob, config));
        }
        Ok(out)
    }

    /// The blob of `chosen` under `prefer`'s fallback rule, given the default configuration's.
    fn finish_chosen(&self, prefer: Prefer, chosen: ColumnConfig, default_blob: Vec<u8>) -> Result<(Vec<u8>, ColumnConfig)> {
        if chosen == ColumnConfig::default() {
            return Ok((default_blob, chosen));
        }
        match self.encode_with(chosen) {
            Ok(blob) if prefer == Prefer::Speed || blob.len() < default_blob.len() => Ok((blob, chosen)),
            Ok(_) | Err(Error::LimitExceeded { .. }) => Ok((default_blob, ColumnConfig::default())),
            Err(e) => Err(e),
        }
    }

    /// The blob; see [`finish_with_config`](Self::finish_with_config).
    pub fn finish(&self) -> Result<Vec<u8>> {
        self.finish_with_config().map(|(blob, _)| blob)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefer_parses_its_names_only() {
        for p in Prefer::ALL {
            assert_eq!(p.name().parse::<Prefer>().unwrap(), p);
        }
        assert_eq!("SIZE".parse::<Prefer>().unwrap(), Prefer::Size);
        assert_eq!("fast".parse::<Prefer>().unwrap_err().code(), "INVALID_OPTIONS");
    }

    #[test]
    fn sample_keeps_small_inputs_whole_and_takes_whole_metrics_of_large_ones() {
        let t: Vec<i64> = (0..1000).collect();
        let v: Vec<f64> = (0..1000).map(f64::from).collect();
        let lens = |s: &[(&[i64], &[f64])]| s.iter().map(|(t, _)| t.len()).collect::<Vec<_>>();
        let whole = sample([(&t[..], &v[..]), (&t[..10], &v[..10])].into_iter(), 2000);
        assert_eq!(lens(&whole), [1000, 10]);
        // One long metric: its first `budget` points.
        assert_eq!(lens(&sample([(&t[..], &v[..])].into_iter(), 101)), [101]);
        // 40 metrics of 100 points, a budget of 1000: 40 · 1000 / 4000 = 10 metrics, every fourth, whole.
        let many: Vec<(&[i64], &[f64])> = (0..40).map(|i| (&t[i..i + 100], &v[i..i + 100])).collect();
        let part = sample(many.iter().copied(), 1000);
        assert_eq!(lens(&part), [100; 10]);
        assert_eq!(part.iter().map(|(t, _)| t[0]).collect::<Vec<_>>(), [0, 4, 8, 12, 16, 20, 24, 28, 32, 36]);
    }

    #[test]
    fn decimal_values_on_a_regular_clock_choose_alp_and_deltapacked_for_size() {
        let t: Vec<i64> = (0..4000).map(|i| 1_700_000_000_000_000 + i * 15_000_000).collect();
        // A random walk in tenths (xorshift steps of -5..=5 tenths): no repeats for a codec to find.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut tenths = 2000i64;
        let v: Vec<f64> = (0..4000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                tenths += (x % 11) as i64 - 5;
                tenths as f64 / 10.0
            })
            .collect();
        let choice = choose([(&t[..], &v[..])].into_iter(), NumericEncoderOptions::default(), Prefer::Size).unwrap();
        assert_eq!(choice.candidates.len(), 192);
        assert_eq!(choice.config.value_encoding, ValueEncoding::Alp);
        assert_ne!(choice.config.timestamp_encoding, TimestampEncoding::Raw);
        // The pick is the smallest candidate.
        let pick = choice.candidates.iter().find(|c| c.config == choice.config).unwrap();
        assert_eq!(Some(pick.bytes), choice.candidates.iter().map(|c| c.bytes).min());
    }

    #[test]
    fn one_sampling_pass_gives_each_prefers_choice() {
        let t: Vec<i64> = (0..2500).map(|i| i * 60_000_000 + (i * 7919) % 1000).collect();
        let v: Vec<f64> = (0..2500).map(|i| ((i % 97) as f64) / 4.0).collect();
        let all = candidates([(&t[..], &v[..])].into_iter(), NumericEncoderOptions::default()).unwrap();
        assert_eq!(all.sample_points, 2500);
        for prefer in Prefer::ALL {
            let alone = choose([(&t[..], &v[..])].into_iter(), NumericEncoderOptions::default(), prefer).unwrap();
            assert_eq!(all.pick(prefer), alone.config, "{prefer:?}");
            assert_eq!(all.candidates, alone.candidates);
        }
        // Independently: `size` is the fewest bytes of all 192, `speed` within half the default's cost.
        let smallest = all.candidates.iter().map(|c| c.bytes).min().unwrap();
        assert_eq!(all.candidates.iter().find(|c| c.config == all.pick(Prefer::Size)).unwrap().bytes, smallest);
        let default_cost = all.candidates.iter().find(|c| c.config == ColumnConfig::default()).unwrap().cost_per_point;
        assert!(all.candidates.iter().find(|c| c.config == all.pick(Prefer::Speed)).unwrap().cost_per_point <= default_cost / 2.0);
    }

    #[test]
    fn speed_never_picks_a_candidate_above_its_bound() {
        let t: Vec<i64> = (0..3000).map(|i| i * 1_000_003 + (i * i) % 977).collect();
        let v: Vec<f64> = (0..3000).map(|i| (i as f64 * 0.37).sin()).collect();
        let speed = choose([(&t[..], &v[..])].into_iter(), NumericEncoderOptions::default(), Prefer::Speed).unwrap();
        let pick = speed.candidates.iter().find(|c| c.config == speed.config).unwrap();
        let default = speed.candidates.iter().find(|c| c.config == ColumnConfig::default()).unwrap();
        assert!(pick.cost_per_point <= default.cost_per_point / 2.0, "{pick:?} vs {default:?}");
        // And it is the smallest such one.
        let smallest = speed.candidates.iter().filter(|c| c.cost_per_point <= default.cost_per_point / 2.0).map(|c| c.bytes).min();
        assert_eq!(Some(pick.bytes), smallest);
    }

    #[test]
    fn refused_calls_are_refused_as_by_the_plain_encoder() {
        let mut auto = AutoEncoder::new(0, NumericEncoderOptions::default(), Prefer::Balanced);
        let mut plain = NumericEncoder::new(0, NumericEncoderOptions::default());
        assert_eq!(auto.add_point(1, 1.0, None).unwrap_err(), plain.add_point(1, 1.0, None).unwrap_err());
        auto.start_metric_name("a", 2).unwrap();
        plain.start_metric_name("a", 2).unwrap();
        auto.add_point(1, 1.0, None).unwrap();
        plain.add_point(1, 1.0, None).unwrap();
        assert_eq!(auto.end_metric().unwrap_err(), plain.end_metric().unwrap_err());
        // Still open after the refusal: completing it works.
        auto.add_point(2, 2.0, None).unwrap();
        auto.end_metric().unwrap();
        assert_eq!(auto.metric_count(), 1);
        assert_eq!(auto.start_metric_name("a", 1).unwrap_err().code(), "DUPLICATE_METRIC");
        auto.start_metric_name("b", 1).unwrap();
        auto.cancel_metric();
        assert_eq!(auto.metric_count(), 1);
        assert_eq!(auto.ended.len(), 1);
    }
}
