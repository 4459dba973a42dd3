//! Writing a text blob.
//!
//! Metrics are started either all by name or all by id, filled point by point
//! (or a slice at a time) and ended; [`TextEncoder::finish`] assembles header,
//! metric names (name mode only), index and the compressed data payload.
//!
//! Every error leaves the encoder as it was before the failing call, so the
//! caller can correct and go on: a refused point is not written, a refused
//! `end_metric` leaves the metric open (add the missing points, or drop it with
//! [`TextEncoder::cancel_metric`]), a refused `finish` changes nothing. Which
//! calls are refused, and how, is the [metric registry](crate::registry)'s,
//! the same as for numeric blobs.

use crate::byte_order::ByteOrder;
use crate::compress::compress;
use crate::error::{Error, Result};
use crate::format::{Compression, TimestampEncoding};
use crate::registry::MetricRegistry;
use crate::section::flags::HEADER_SIZE;
use crate::section::text_header::{TextHeader, TextOptions};
use crate::section::text_index::{TextIndexEntry, ENTRY_SIZE};

use super::rows::{RowLayout, MAX_TEXT_LEN};

/// Most points one metric can hold: the index stores the count as a u16.
pub const MAX_POINTS_PER_METRIC: usize = u16::MAX as usize;

/// Options of a text blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextEncoderOptions {
    /// `Raw` or `Delta`; `DeltaPacked` is refused.
    pub timestamp_encoding: TimestampEncoding,
    /// Codec of the data payload as a whole.
    pub data_compression: Compression,
    /// Store a tag string with every point.
    pub tags: bool,
    /// Byte order of every field after the flag word.
    pub byte_order: ByteOrder,
}

impl TextEncoderOptions {
    /// Most points one metric may hold: the index stores the count as a u16
    /// ([`MAX_POINTS_PER_METRIC`] whatever the options).
    pub fn max_points_per_metric(&self) -> usize {
        MAX_POINTS_PER_METRIC
    }
}

impl Default for TextEncoderOptions {
    /// The reference's documented defaults: delta timestamps, zstd. (Its
    /// encoder code starts from raw timestamps when no option is given; every
    /// option is explicit in what we write, so either reads back the same.)
    fn default() -> Self {
        TextEncoderOptions {
            timestamp_encoding: TimestampEncoding::Delta,
            data_compression: Compression::Zstd,
            tags: false,
            byte_order: ByteOrder::Little,
        }
    }
}

/// Builds one text blob.
#[derive(Debug)]
pub struct TextEncoder {
    start_time: i64,
    options: TextEncoderOptions,
    layout: RowLayout,
    pub(crate) registry: MetricRegistry,
    entries: Vec<TextIndexEntry>,
    /// Where the open metric's rows start in `data`.
    open_start: usize,
    /// The open metric's last timestamp (the start time before its first point).
    last_ts: i64,
    data: Vec<u8>,
}

impl TextEncoder {
    /// A new encoder for a blob starting at `start_time` (the base of every
    /// metric's first timestamp delta).
    pub fn new(start_time: i64, options: TextEncoderOptions) -> Result<TextEncoder> {
        if options.timestamp_encoding == TimestampEncoding::DeltaPacked {
            return Err(Error::InvalidOptions { detail: "text blobs store raw or delta timestamps, not deltapacked".into() });
        }
        Ok(TextEncoder {
            start_time,
            options,
            layout: RowLayout::new(options.timestamp_encoding, options.tags, options.byte_order, start_time),
            registry: MetricRegistry::new(options.max_points_per_metric()),
            entries: Vec::new(),
            open_start: 0,
            last_ts: start_time,
            data: Vec::new(),
        })
    }

    /// The options the encoder was built with.
    pub fn options(&self) -> TextEncoderOptions {
        self.options
    }

    /// Metrics ended so far.
    pub fn metric_count(&self) -> usize {
        self.registry.len()
    }

    /// True once two different names with the same hash were added. Both are
    /// kept; readers tell them apart by the names payload.
    pub fn has_collision(&self) -> bool {
        self.registry.has_collision()
    }

    /// Start a metric identified by `name` (its id is the name's hash) that
    /// will hold `count` points. The name must be non-empty and new to the blob.
    pub fn start_metric_name(&mut self, name: &str, count: usize) -> Result<()> {
        self.registry.start_name(name, count)?;
        self.open_rows();
        Ok(())
    }

    /// Start a metric identified by `id` (non-zero, new to the blob) that will
    /// hold `count` points.
    pub fn start_metric_id(&mut self, id: u64, count: usize) -> Result<()> {
        self.registry.start_id(id, count)?;
        self.open_rows();
        Ok(())
    }

    fn open_rows(&mut self) {
        self.open_start = self.data.len();
        self.last_ts = self.start_time;
    }

    fn check_text(&self, what: &'static str, s: &str) -> Result<()> {
        if s.len() > MAX_TEXT_LEN {
            return Err(Error::LimitExceeded { what, value: s.len() as u64, limit: MAX_TEXT_LEN as u64 });
        }
        Ok(())
    }

    /// Offsets in the index are u32: the uncompressed payload must stay below 4 GiB.
    fn check_data_size(&self, extra: usize) -> Result<()> {
        let size = self.data.len() as u64 + extra as u64;
        if size > u64::from(u32::MAX) {
            return Err(Error::LimitExceeded { what: "text data payload bytes", value: size, limit: u32::MAX.into() });
        }
        Ok(())
    }

    /// Add one point to the started metric. `tag` is stored only when the
    /// blob has tags (`None` stores an empty tag) and ignored otherwise, as
    /// the reference does. Values and tags are at most 255 bytes.
    pub fn add_point(&mut self, timestamp: i64, value: &str, tag: Option<&str>) -> Result<()> {
        self.registry.room_for(1)?;
        let tag = if self.options.tags { tag.unwrap_or("") } else { "" };
        self.check_text("text value length", value)?;
        self.check_text("text tag length", tag)?;
        let prev = self.last_ts;
        self.check_data_size(self.layout.row_len(prev, timestamp, value.as_bytes(), tag.as_bytes()))?;
        self.layout.encode_row(prev, timestamp, value.as_bytes(), tag.as_bytes(), &mut self.data);
        self.registry.add(1);
        self.last_ts = timestamp;
        Ok(())
    }

    /// Add many points at once: `timestamps` and `values` (and `tags` when
    /// given) have one entry per point. Nothing is written unless all fit.
    pub fn add_points<S: AsRef<str>>(&mut self, timestamps: &[i64], values: &[S], tags: Option<&[S]>) -> Result<()> {
        self.registry.room_for_slices(timestamps.len(), values.len(), tags.map(<[S]>::len))?;
        let tag_of = |i: usize| match tags {
            Some(tags) if self.options.tags => tags[i].as_ref(),
            _ => "",
        };
        let mut prev = self.last_ts;
        let mut size = 0usize;
        for (i, (&ts, value)) in timestamps.iter().zip(values).enumerate() {
            self.check_text("text value length", value.as_ref())?;
            self.check_text("text tag length", tag_of(i))?;
            size = size.saturating_add(self.layout.row_len(prev, ts, value.as_ref().as_bytes(), tag_of(i).as_bytes()));
            prev = ts;
        }
        self.check_data_size(size)?;
        let mut prev = self.last_ts;
        self.data.reserve(size);
        for (i, (&ts, value)) in timestamps.iter().zip(values).enumerate() {
            self.layout.encode_row(prev, ts, value.as_ref().as_bytes(), tag_of(i).as_bytes(), &mut self.data);
            prev = ts;
        }
        self.registry.add(timestamps.len());
        self.last_ts = prev;
        Ok(())
    }

    /// End the started metric; it must hold exactly the count it was started with.
    pub fn end_metric(&mut self) -> Result<()> {
        let open = self.registry.check_end()?;
        // Fits: data stays below u32::MAX bytes and counts at most u16::MAX.
        self.entries.push(TextIndexEntry { id: open.id, count: open.declared as u16, offset: self.open_start as u32 });
        self.registry.end();
        Ok(())
    }

    /// Drop the started metric and its points, as if it had never been started.
    pub fn cancel_metric(&mut self) {
        if self.registry.cancel().is_some() {
            self.data.truncate(self.open_start);
        }
    }

    /// The finished blob.
    pub fn finish(&self) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.finish_into(&mut out)?;
        Ok(out)
    }

    /// Append the finished blob to `out` (left as it was on error). The
    /// encoder is not consumed: more metrics may be added and the blob
    /// finished again.
    pub fn finish_into(&self, out: &mut Vec<u8>) -> Result<()> {
        self.registry.check_finish()?;
        let payload = compress(self.options.data_compression, &self.data)?;
        // Name mode always writes the names (the reference does too, so a
        // name lookup works and collisions stay distinguishable).
        let by_name = self.registry.by_name();
        let mut names = Vec::new();
        if by_name {
            self.registry.write_names(0..self.entries.len(), self.options.byte_order, &mut names)?;
        }
        let index_offset = HEADER_SIZE + names.len();
        let data_offset = index_offset + self.entries.len() * ENTRY_SIZE;
        let too_big = |what: &'static str, value: usize| Error::LimitExceeded { what, value: value as u64, limit: u32::MAX.into() };
        let header = TextHeader {
            options: TextOptions {
                timestamp_encoding: self.options.timestamp_encoding,
                data_compression: self.options.data_compression,
                tags: self.options.tags,
                byte_order: self.options.byte_order,
                metric_names: by_name,
            },
            start_time: self.start_time,
            metric_count: self.entries.len() as u32,
            index_offset: u32::try_from(index_offset).map_err(|_| too_big("text index offset", index_offset))?,
            data_offset: u32::try_from(data_offset).map_err(|_| too_big("text data offset", data_offset))?,
            data_size: u32::try_from(self.data.len()).map_err(|_| too_big("text data bytes", self.data.len()))?,
        };
        out.reserve(data_offset + payload.len());
        header.write(out);
        out.extend_from_slice(&names);
        for entry in &self.entries {
            entry.write(self.options.byte_order, out);
        }
        out.extend_from_slice(&payload);
        Ok(())
    }
}
