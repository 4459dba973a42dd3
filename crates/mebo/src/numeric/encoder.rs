//! Writing a numeric blob, byte for byte as the reference encoder does.
//!
//! Points are buffered per metric and encoded when the metric ends; the blob
//! is assembled in `finish`: v2 layouts sort metrics by id, the shared-
//! timestamp table deduplicates identical timestamp columns, then each payload
//! is compressed with its codec. Which calls are refused, and how, is the
//! [metric registry](crate::registry)'s, the same as for text blobs.

use std::collections::HashMap;

use crate::compress;
use crate::encoding::{encode_timestamps, encode_values};
use crate::error::{Error, Result};
use crate::format::{Compression, Layout};
use crate::numeric::options::NumericEncoderOptions;
use crate::order;
use crate::registry::MetricRegistry;
use crate::section::flags::HEADER_SIZE;
use crate::section::numeric_header::{IndexKind, NumericHeader};
use crate::section::numeric_index::NumericIndexEntry;
use crate::section::shared_timestamps::{SharedTimestampGroup, SharedTimestampTable};
use crate::section::tags::{TagColumn, MAX_TAG_LEN};

/// A finished metric: its id and the lengths of its encoded columns.
#[derive(Debug, Clone, Copy)]
struct EncodedMetric {
    id: u64,
    count: usize,
    ts_len: usize,
    val_len: usize,
    tag_len: usize,
}

/// Builds one numeric blob. Every refused call leaves the encoder as it was
/// (see [the registry's rules](crate::registry)): a refused `end_metric` leaves
/// the metric open, to be completed or dropped with
/// [`cancel_metric`](Self::cancel_metric).
#[derive(Debug)]
pub struct NumericEncoder {
    options: NumericEncoderOptions,
    start_time: i64,
    pub(crate) registry: MetricRegistry,
    metrics: Vec<EncodedMetric>,
    /// An ended metric has a non-empty tag.
    has_non_empty_tag: bool,
    /// The open metric has a non-empty tag.
    open_has_tag: bool,
    /// The open metric's points, staged until it ends; empty when they came
    /// in one call and were encoded then (`open_encoded`).
    timestamps: Vec<i64>,
    values: Vec<f64>,
    /// The open metric's columns are in `ts_bytes` / `val_bytes` already,
    /// from `open_start` on.
    open_encoded: bool,
    open_start: (usize, usize),
    /// Encoded tags of the open metric.
    open_tags: Vec<u8>,
    ts_bytes: Vec<u8>,
    val_bytes: Vec<u8>,
    tag_bytes: Vec<u8>,
}

impl NumericEncoder {
    /// A new encoder for a blob starting at `start_time`.
    pub fn new(start_time: i64, options: NumericEncoderOptions) -> NumericEncoder {
        NumericEncoder {
            options,
            start_time,
            registry: MetricRegistry::new(options.max_points_per_metric()),
            metrics: Vec::new(),
            has_non_empty_tag: false,
            open_has_tag: false,
            timestamps: Vec::new(),
            values: Vec::new(),
            open_encoded: false,
            open_start: (0, 0),
            open_tags: Vec::new(),
            ts_bytes: Vec::new(),
            val_bytes: Vec::new(),
            tag_bytes: Vec::new(),
        }
    }

    /// The options the encoder was built with.
    pub fn options(&self) -> NumericEncoderOptions {
        self.options
    }

    /// Metrics ended so far.
    pub fn metric_count(&self) -> usize {
        self.registry.len()
    }

    /// True once two different names with the same hash were added. Both are
    /// kept; the blob then carries the names, by which readers tell them apart.
    pub fn has_collision(&self) -> bool {
        self.registry.has_collision()
    }

    /// Start a metric identified by its name (id = xxHash64 of the name) that
    /// will hold `points` points.
    pub fn start_metric_name(&mut self, name: &str, points: usize) -> Result<()> {
        self.registry.start_name(name, points).map(|_| ())
    }

    /// Start a metric identified by a caller-chosen id (non-zero, unique) that
    /// will hold `points` points.
    pub fn start_metric_id(&mut self, id: u64, points: usize) -> Result<()> {
        self.registry.start_id(id, points)
    }

    /// Add one point. `tag` is ignored unless tags are enabled (`None` = empty).
    pub fn add_point(&mut self, timestamp: i64, value: f64, tag: Option<&str>) -> Result<()> {
        self.registry.room_for(1)?;
        if self.options.tags {
            self.push_tags(&[tag.unwrap_or("")])?;
        }
        self.timestamps.push(timestamp);
        self.values.push(value);
        self.registry.add(1);
        Ok(())
    }

    /// Add points from parallel slices; `tags`, when given, has one per point.
    /// Nothing is added unless all are.
    pub fn add_points<S: AsRef<str>>(&mut self, timestamps: &[i64], values: &[f64], tags: Option<&[S]>) -> Result<()> {
        let open = self.registry.room_for_slices(timestamps.len(), values.len(), tags.map(<[S]>::len))?;
        let whole_metric = open.added == 0 && timestamps.len() == open.declared;
        if self.options.tags {
            match tags {
                Some(tags) => self.push_tags(tags)?,
                None => self.push_tags(&vec![""; timestamps.len()])?,
            }
        }
        if whole_metric {
            // Every point of the metric at once, as most callers add them:
            // encoded from the caller's slices, not staged first (a copy of
            // 16 bytes a point). The metric is full, so nothing more comes;
            // `cancel_metric` cuts the columns back to `open_start`.
            self.open_start = (self.ts_bytes.len(), self.val_bytes.len());
            self.encode_columns(timestamps, values);
            self.open_encoded = true;
        } else {
            self.timestamps.extend_from_slice(timestamps);
            self.values.extend_from_slice(values);
        }
        self.registry.add(timestamps.len());
        Ok(())
    }

    fn encode_columns(&mut self, timestamps: &[i64], values: &[f64]) {
        let (config, order) = (self.options.config, self.options.byte_order);
        encode_timestamps(config.timestamp_encoding, timestamps, order, &mut self.ts_bytes);
        encode_values(config.value_encoding, values, order, &mut self.val_bytes);
    }

    fn push_tags<S: AsRef<str>>(&mut self, tags: &[S]) -> Result<()> {
        if let Some(t) = tags.iter().find(|t| t.as_ref().len() > MAX_TAG_LEN) {
            return Err(Error::LimitExceeded { what: "tag bytes", value: t.as_ref().len() as u64, limit: MAX_TAG_LEN as u64 });
        }
        TagColumn::encode(tags, self.options.byte_order, &mut self.open_tags)?;
        self.open_has_tag |= tags.iter().any(|t| !t.as_ref().is_empty());
        Ok(())
    }

    /// End the open metric: its point count must equal the declared one.
    pub fn end_metric(&mut self) -> Result<()> {
        let open = self.registry.check_end()?;
        let (id, count) = (open.id, open.declared);
        // v1 stores the previous metric's column lengths as 16-bit deltas.
        if self.options.layout == Layout::V1 {
            if let Some(prev) = self.metrics.last() {
                let widest = prev.ts_len.max(prev.val_len).max(prev.tag_len);
                if widest > u16::MAX as usize {
                    return Err(Error::LimitExceeded { what: "v1 column bytes", value: widest as u64, limit: u16::MAX as u64 });
                }
            }
        }
        if !self.open_encoded {
            self.open_start = (self.ts_bytes.len(), self.val_bytes.len());
            let (timestamps, values) = (std::mem::take(&mut self.timestamps), std::mem::take(&mut self.values));
            self.encode_columns(&timestamps, &values);
            (self.timestamps, self.values) = (timestamps, values);
        }
        let (ts0, val0) = self.open_start;
        self.tag_bytes.extend_from_slice(&self.open_tags);
        self.metrics.push(EncodedMetric {
            id,
            count,
            ts_len: self.ts_bytes.len() - ts0,
            val_len: self.val_bytes.len() - val0,
            tag_len: self.open_tags.len(),
        });
        self.has_non_empty_tag |= self.open_has_tag;
        self.registry.end();
        self.clear_open();
        Ok(())
    }

    /// Drop the open metric and its points, as if it had never been started.
    pub fn cancel_metric(&mut self) {
        if self.registry.cancel().is_some() {
            if self.open_encoded {
                self.ts_bytes.truncate(self.open_start.0);
                self.val_bytes.truncate(self.open_start.1);
            }
            self.clear_open();
        }
    }

    fn clear_open(&mut self) {
        self.open_encoded = false;
        self.timestamps.clear();
        self.values.clear();
        self.open_tags.clear();
        self.open_has_tag = false;
    }

    /// Assemble the blob into a new buffer.
    pub fn finish(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.finish_into(&mut out)?;
        Ok(out)
    }

    /// Assemble the blob and append it to `out` (whose earlier bytes stay).
    /// The encoder is unchanged: more metrics may follow and the blob be
    /// finished again.
    pub fn finish_into(&self, out: &mut Vec<u8>) -> Result<()> {
        self.registry.check_finish()?;
        let o = self.options;
        let tags = o.tags && self.has_non_empty_tag;

        // Columns in index order: insertion order for v1, by id for v2.
        let order: Vec<usize> =
            if o.layout != Layout::V1 { order::stable_order(self.metrics.iter().map(|m| m.id)) } else { (0..self.metrics.len()).collect() };
        let starts = |len: fn(&EncodedMetric) -> usize| -> Vec<usize> {
            let mut acc = 0;
            self.metrics
                .iter()
                .map(|m| {
                    let s = acc;
                    acc += len(m);
                    s
                })
                .collect()
        };
        let (ts_at, val_at, tag_at) = (starts(|m| m.ts_len), starts(|m| m.val_len), starts(|m| m.tag_len));
        let ts_col = |i: usize| &self.ts_bytes[ts_at[i]..ts_at[i] + self.metrics[i].ts_len];

        let shared = if o.layout == Layout::V2Shared { find_shared_timestamps(&order, ts_col) } else { SharedTimestampTable::default() };
        let mut is_member = vec![false; order.len()];
        for g in &shared.groups {
            for &m in &g.members {
                is_member[m] = true;
            }
        }

        // The payloads before compression: the columns in index order. In
        // insertion order with no shared column (every v1 blob) that is what
        // the buffers hold already, and they are not copied.
        let in_place = shared.groups.is_empty() && order.iter().enumerate().all(|(pos, &i)| pos == i);
        let (mut ts_raw, mut val_raw, mut tag_raw) = (Vec::new(), Vec::new(), Vec::new());
        if !in_place {
            ts_raw.reserve(self.ts_bytes.len());
            val_raw.reserve(self.val_bytes.len());
            tag_raw.reserve(if tags { self.tag_bytes.len() } else { 0 });
        }
        let mut entries = Vec::with_capacity(order.len());
        let mut prev = (0usize, 0usize, 0usize);
        for (pos, &i) in order.iter().enumerate() {
            let m = &self.metrics[i];
            if in_place {
                let start = (ts_at[i], val_at[i], if tags { tag_at[i] } else { 0 });
                entries.push(index_entry(m, prev, start));
                prev = start;
                continue;
            }
            let start = (ts_raw.len(), val_raw.len(), tag_raw.len());
            if !is_member[pos] {
                ts_raw.extend_from_slice(ts_col(i));
            }
            val_raw.extend_from_slice(&self.val_bytes[val_at[i]..val_at[i] + m.val_len]);
            if tags {
                tag_raw.extend_from_slice(&self.tag_bytes[tag_at[i]..tag_at[i] + m.tag_len]);
            }
            entries.push(index_entry(m, prev, start));
            prev = start;
        }
        let (ts_raw, val_raw, tag_raw): (&[u8], &[u8], &[u8]) = if in_place {
            (&self.ts_bytes, &self.val_bytes, if tags { &self.tag_bytes } else { &[] })
        } else {
            (&ts_raw, &val_raw, &tag_raw)
        };

        let index_kind = match o.layout {
            Layout::V1 => IndexKind::V1,
            _ if entries.iter().all(NumericIndexEntry::fits_compact) => IndexKind::V2Compact,
            _ => IndexKind::V2Extended,
        };

        let ts_payload = compress::compress(o.config.timestamp_compression, ts_raw)?;
        let val_payload = compress::compress(o.config.value_compression, val_raw)?;
        let tag_payload = if tags { compress::compress(Compression::Zstd, tag_raw)? } else { Default::default() };

        // The reference writes the names only when two of them collide.
        let mut names_payload = Vec::new();
        if self.registry.has_collision() {
            self.registry.write_names(order.iter().copied(), o.byte_order, &mut names_payload)?;
        }

        let index_offset = HEADER_SIZE + names_payload.len();
        let ts_offset =
            index_offset + entries.len() * index_kind.entry_size() + if shared.groups.is_empty() { 0 } else { shared.byte_len() };
        let val_offset = ts_offset + ts_payload.len();
        let tag_offset = val_offset + val_payload.len();
        let total = tag_offset + tag_payload.len();
        if total > i32::MAX as usize {
            return Err(Error::LimitExceeded { what: "blob bytes", value: total as u64, limit: i32::MAX as u64 });
        }

        let header = NumericHeader {
            index_kind,
            byte_order: o.byte_order,
            tags,
            metric_names: self.registry.has_collision(),
            shared_timestamps: !shared.groups.is_empty(),
            config: o.config,
            start_time: self.start_time,
            metric_count: entries.len() as u32,
            index_offset: index_offset as u32,
            timestamp_offset: ts_offset as u32,
            value_offset: val_offset as u32,
            tag_offset: tag_offset as u32,
        };
        out.reserve(total);
        header.write(out);
        out.extend_from_slice(&names_payload);
        for e in &entries {
            e.write(index_kind, o.byte_order, out);
        }
        if !shared.groups.is_empty() {
            shared.write(o.byte_order, out);
        }
        out.extend_from_slice(&ts_payload);
        out.extend_from_slice(&val_payload);
        out.extend_from_slice(&tag_payload);
        Ok(())
    }
}

/// The index entry of `m`, whose columns start at `start` in their payloads,
/// after a metric whose columns started at `prev`.
fn index_entry(m: &EncodedMetric, prev: (usize, usize, usize), start: (usize, usize, usize)) -> NumericIndexEntry {
    NumericIndexEntry {
        id: m.id,
        count: m.count as u32,
        timestamp_delta: (start.0 - prev.0) as u32,
        value_delta: (start.1 - prev.1) as u32,
        tag_delta: (start.2 - prev.2) as u32,
    }
}

/// Group metrics (by index position) whose encoded timestamp columns are
/// identical; the first of each group keeps the column.
fn find_shared_timestamps<'c>(order: &[usize], column: impl Fn(usize) -> &'c [u8]) -> SharedTimestampTable {
    let mut first_with: HashMap<&[u8], usize> = HashMap::new();
    let mut groups: Vec<SharedTimestampGroup> = Vec::new();
    let mut group_of_canonical: HashMap<usize, usize> = HashMap::new();
    for (pos, &i) in order.iter().enumerate() {
        let col = column(i);
        match first_with.get(col) {
            Some(&canonical) => {
                let g = *group_of_canonical.entry(canonical).or_insert_with(|| {
                    groups.push(SharedTimestampGroup { canonical, members: Vec::new() });
                    groups.len() - 1
                });
                groups[g].members.push(pos);
            }
            None => {
                first_with.insert(col, pos);
            }
        }
    }
    // The reference lists groups in the order of their canonical metrics.
    SharedTimestampTable { groups: order::sorted_by_key(groups, |g| g.canonical as u64) }
}
