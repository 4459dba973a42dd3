//! The one error type of the crate.
//!
//! Every variant says where the problem is. Decoding never panics: a malformed
//! blob always ends in one of these.

use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong while reading or writing a mebo blob.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A section or field ends before its declared length.
    Truncated {
        /// What was being read or written.
        what: &'static str,
        /// Bytes it needs.
        needed: usize,
        /// Bytes there are.
        available: usize,
    },
    /// The first two bytes are not a known blob magic.
    BadMagic {
        /// The magic found (the flag word without its low four bits).
        found: u16,
    },
    /// An encoding nibble in the header has no meaning.
    UnknownEncoding {
        /// The column or payload whose nibble it is.
        column: &'static str,
        /// The code found.
        code: u8,
    },
    /// A compression nibble in the header has no meaning.
    UnknownCompression {
        /// The column or payload whose nibble it is.
        column: &'static str,
        /// The code found.
        code: u8,
    },
    /// A header field holds a value the format forbids (reserved bits, ...).
    InvalidHeader {
        /// What is wrong, for people.
        detail: String,
    },
    /// An offset points outside its section, or offsets run backwards.
    OffsetOutOfRange {
        /// What was being read or written.
        what: &'static str,
        /// The offset.
        offset: usize,
        /// The most it may be.
        limit: usize,
    },
    /// A column stream is malformed (ends early, impossible field value, ...).
    CorruptColumn {
        /// What was being read or written.
        what: &'static str,
        /// Index position of the metric (`usize::MAX` when not known).
        metric: usize,
        /// What is wrong, for people.
        detail: String,
    },
    /// A compressed payload could not be decompressed.
    Decompress {
        /// The codec.
        codec: &'static str,
        /// What was being read or written.
        what: &'static str,
        /// What is wrong, for people.
        detail: String,
    },
    /// A decompressed payload or a count would exceed its cap.
    SizeCap {
        /// What was being read or written.
        what: &'static str,
        /// The size or count it would have.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// A metric name in the names payload does not hash to its index entry's id.
    NameHashMismatch {
        /// Index position of the metric.
        index: usize,
        /// The name.
        name: String,
        /// The id in the index entry.
        expected: u64,
        /// The name's hash.
        actual: u64,
    },
    /// Two counts that must agree do not.
    CountMismatch {
        /// What was being read or written.
        what: &'static str,
        /// The count expected.
        expected: usize,
        /// The count found.
        actual: usize,
    },
    /// A string in the blob is not valid UTF-8.
    InvalidUtf8 {
        /// What was being read or written.
        what: &'static str,
        /// Position of the string among its kind (point or name).
        index: usize,
    },
    /// The shared-timestamp table is malformed.
    SharedTimestampTable {
        /// What is wrong, for people.
        detail: String,
    },
    /// The metric-names payload is malformed.
    MetricNames {
        /// What is wrong, for people.
        detail: String,
    },
    /// A blob set is malformed or its blobs disagree.
    BlobSet {
        /// What is wrong, for people.
        detail: String,
    },
    /// No metric with this id or name in the blob.
    MetricNotFound {
        /// The id or name looked for.
        key: String,
    },
    /// A point index past the metric's point count.
    IndexOutOfRange {
        /// The point index asked for.
        index: usize,
        /// The point count.
        len: usize,
    },
    /// A caller-supplied buffer has the wrong length.
    BufferSize {
        /// What was being read or written.
        what: &'static str,
        /// Slots it needs (the point count).
        expected: usize,
        /// Slots it has.
        actual: usize,
    },
    /// A payload uses a codec this build leaves out (its Cargo feature is off).
    UnsupportedCompression {
        /// The codec's name.
        codec: &'static str,
        /// The payload.
        what: &'static str,
    },
    /// Encoder: the options are invalid or inconsistent.
    InvalidOptions {
        /// What is wrong, for people.
        detail: String,
    },
    /// Encoder: a call in the wrong order or with bad arguments.
    EncoderState {
        /// What is wrong, for people.
        detail: String,
    },
    /// Encoder: a limit of the format would be exceeded.
    LimitExceeded {
        /// What was being read or written.
        what: &'static str,
        /// The value asked for.
        value: u64,
        /// The most it may be.
        limit: u64,
    },
    /// Encoder: a metric id or name was used twice.
    DuplicateMetric {
        /// The metric id.
        id: u64,
    },
    /// An allocation sized by the input was refused: by the memory budget of
    /// the wasm module, or by the allocator (memory could not grow).
    OutOfMemory {
        /// What was being allocated.
        what: &'static str,
        /// Bytes asked for.
        bytes: usize,
    },
}

/// A metric name in a message: between double quotes as it is, not `{:?}`.
/// `str`'s `Debug` escaping brings Unicode's printable tables and `char`'s
/// escapes into every wasm build that can fail on a name: 4.3 kB of the light
/// core's 97.7 gzipped. Written straight into the formatter, not allocated.
struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{}\"", self.0)
    }
}

impl Error {
    /// Every [`code`](Self::code), one per variant, in declaration order: the
    /// list the bindings export (`errorCodes()`), which the SDK's
    /// `CORE_ERROR_CODES` is tested against.
    pub const CODES: [&'static str; 24] = [
        "TRUNCATED",
        "BAD_MAGIC",
        "UNKNOWN_ENCODING",
        "UNKNOWN_COMPRESSION",
        "INVALID_HEADER",
        "OFFSET_OUT_OF_RANGE",
        "CORRUPT_COLUMN",
        "DECOMPRESS",
        "SIZE_CAP",
        "NAME_HASH_MISMATCH",
        "COUNT_MISMATCH",
        "INVALID_UTF8",
        "SHARED_TIMESTAMP_TABLE",
        "METRIC_NAMES",
        "BLOB_SET",
        "METRIC_NOT_FOUND",
        "INDEX_OUT_OF_RANGE",
        "BUFFER_SIZE",
        "UNSUPPORTED_COMPRESSION",
        "INVALID_OPTIONS",
        "ENCODER_STATE",
        "LIMIT_EXCEEDED",
        "DUPLICATE_METRIC",
        "OUT_OF_MEMORY",
    ];

    /// METRIC_NOT_FOUND for a metric looked up by name.
    pub(crate) fn name_not_found(name: &str) -> Error {
        Error::MetricNotFound { key: format!("name {}", Quoted(name)) }
    }

    /// A short stable code for each variant (used by the wasm bindings and the CLI).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Truncated { .. } => "TRUNCATED",
            Error::BadMagic { .. } => "BAD_MAGIC",
            Error::UnknownEncoding { .. } => "UNKNOWN_ENCODING",
            Error::UnknownCompression { .. } => "UNKNOWN_COMPRESSION",
            Error::InvalidHeader { .. } => "INVALID_HEADER",
            Error::OffsetOutOfRange { .. } => "OFFSET_OUT_OF_RANGE",
            Error::CorruptColumn { .. } => "CORRUPT_COLUMN",
            Error::Decompress { .. } => "DECOMPRESS",
            Error::SizeCap { .. } => "SIZE_CAP",
            Error::NameHashMismatch { .. } => "NAME_HASH_MISMATCH",
            Error::CountMismatch { .. } => "COUNT_MISMATCH",
            Error::InvalidUtf8 { .. } => "INVALID_UTF8",
            Error::SharedTimestampTable { .. } => "SHARED_TIMESTAMP_TABLE",
            Error::MetricNames { .. } => "METRIC_NAMES",
            Error::BlobSet { .. } => "BLOB_SET",
            Error::MetricNotFound { .. } => "METRIC_NOT_FOUND",
            Error::IndexOutOfRange { .. } => "INDEX_OUT_OF_RANGE",
            Error::BufferSize { .. } => "BUFFER_SIZE",
            Error::UnsupportedCompression { .. } => "UNSUPPORTED_COMPRESSION",
            Error::InvalidOptions { .. } => "INVALID_OPTIONS",
            Error::EncoderState { .. } => "ENCODER_STATE",
            Error::LimitExceeded { .. } => "LIMIT_EXCEEDED",
            Error::DuplicateMetric { .. } => "DUPLICATE_METRIC",
            Error::OutOfMemory { .. } => "OUT_OF_MEMORY",
        }
    }

    /// Shorthand used by the column codecs for a malformed stream.
    pub(crate) fn corrupt(what: &'static str, detail: impl Into<String>) -> Error {
        Error::CorruptColumn { what, metric: usize::MAX, detail: detail.into() }
    }

    /// Attach the metric's index position to a column error raised by a codec.
    pub(crate) fn in_metric(self, index: usize) -> Error {
        match self {
            Error::CorruptColumn { what, detail, .. } => Error::CorruptColumn { what, metric: index, detail },
            other => other,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated { what, needed, available } => {
                write!(f, "{what} is truncated: needs {needed} bytes, {available} available")
            }
            Error::BadMagic { found } => write!(f, "not a mebo blob: magic 0x{found:04X} is unknown"),
            Error::UnknownEncoding { column, code } => write!(f, "unknown {column} encoding 0x{code:X}"),
            Error::UnknownCompression { column, code } => write!(f, "unknown {column} compression 0x{code:X}"),
            Error::InvalidHeader { detail } => write!(f, "invalid header: {detail}"),
            Error::OffsetOutOfRange { what, offset, limit } => {
                write!(f, "{what} offset {offset} is out of range (limit {limit})")
            }
            Error::CorruptColumn { what, metric, detail } => {
                if *metric == usize::MAX {
                    write!(f, "corrupt {what} column: {detail}")
                } else {
                    write!(f, "corrupt {what} column of metric #{metric}: {detail}")
                }
            }
            Error::Decompress { codec, what, detail } => write!(f, "{codec} decompression of {what} failed: {detail}"),
            Error::SizeCap { what, size, cap } => write!(f, "{what} of {size} exceeds the cap of {cap}"),
            Error::NameHashMismatch { index, name, expected, actual } => {
                write!(f, "metric name #{index} {} hashes to {actual:016x}, index entry says {expected:016x}", Quoted(name))
            }
            Error::CountMismatch { what, expected, actual } => {
                write!(f, "{what}: expected {expected}, found {actual}")
            }
            Error::InvalidUtf8 { what, index } => write!(f, "{what} #{index} is not valid UTF-8"),
            Error::SharedTimestampTable { detail } => write!(f, "invalid shared-timestamp table: {detail}"),
            Error::MetricNames { detail } => write!(f, "invalid metric-names payload: {detail}"),
            Error::BlobSet { detail } => write!(f, "invalid blob set: {detail}"),
            Error::MetricNotFound { key } => write!(f, "no metric {key} in the blob"),
            Error::IndexOutOfRange { index, len } => write!(f, "point index {index} out of range (count {len})"),
            Error::BufferSize { what, expected, actual } => {
                write!(f, "{what} buffer has {actual} slots, needs {expected}")
            }
            Error::UnsupportedCompression { codec, what } => {
                write!(f, "{what} is {codec}-compressed, and this build leaves {codec} out (Cargo feature `{codec}`)")
            }
            Error::InvalidOptions { detail } => write!(f, "invalid options: {detail}"),
            Error::EncoderState { detail } => write!(f, "encoder misuse: {detail}"),
            Error::LimitExceeded { what, value, limit } => write!(f, "{what} {value} exceeds the limit {limit}"),
            Error::DuplicateMetric { id } => write!(f, "metric id {id:016x} is already in the blob"),
            Error::OutOfMemory { what, bytes } => write!(f, "out of memory: {bytes} bytes for {what} were refused"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::Error;

    /// One value of every variant, in declaration order. The match has no
    /// wildcard: a new variant does not compile until it is added here (and
    /// then its code must be in `CODES` for the test to pass).
    fn every_variant() -> Vec<Error> {
        let all = vec![
            Error::Truncated { what: "x", needed: 1, available: 0 },
            Error::BadMagic { found: 0 },
            Error::UnknownEncoding { column: "x", code: 0 },
            Error::UnknownCompression { column: "x", code: 0 },
            Error::InvalidHeader { detail: String::new() },
            Error::OffsetOutOfRange { what: "x", offset: 1, limit: 0 },
            Error::CorruptColumn { what: "x", metric: 0, detail: String::new() },
            Error::Decompress { codec: "x", what: "x", detail: String::new() },
            Error::SizeCap { what: "x", size: 1, cap: 0 },
            Error::NameHashMismatch { index: 0, name: String::new(), expected: 0, actual: 1 },
            Error::CountMismatch { what: "x", expected: 0, actual: 1 },
            Error::InvalidUtf8 { what: "x", index: 0 },
            Error::SharedTimestampTable { detail: String::new() },
            Error::MetricNames { detail: String::new() },
            Error::BlobSet { detail: String::new() },
            Error::MetricNotFound { key: String::new() },
            Error::IndexOutOfRange { index: 1, len: 0 },
            Error::BufferSize { what: "x", expected: 0, actual: 1 },
            Error::UnsupportedCompression { codec: "x", what: "x" },
            Error::InvalidOptions { detail: String::new() },
            Error::EncoderState { detail: String::new() },
            Error::LimitExceeded { what: "x", value: 1, limit: 0 },
            Error::DuplicateMetric { id: 0 },
            Error::OutOfMemory { what: "x", bytes: 1 },
        ];
        for e in &all {
            match e {
                Error::Truncated { .. }
                | Error::BadMagic { .. }
                | Error::UnknownEncoding { .. }
                | Error::UnknownCompression { .. }
                | Error::InvalidHeader { .. }
                | Error::OffsetOutOfRange { .. }
                | Error::CorruptColumn { .. }
                | Error::Decompress { .. }
                | Error::SizeCap { .. }
                | Error::NameHashMismatch { .. }
                | Error::CountMismatch { .. }
                | Error::InvalidUtf8 { .. }
                | Error::SharedTimestampTable { .. }
                | Error::MetricNames { .. }
                | Error::BlobSet { .. }
                | Error::MetricNotFound { .. }
                | Error::IndexOutOfRange { .. }
                | Error::BufferSize { .. }
                | Error::UnsupportedCompression { .. }
                | Error::InvalidOptions { .. }
                | Error::EncoderState { .. }
                | Error::LimitExceeded { .. }
                | Error::DuplicateMetric { .. }
                | Error::OutOfMemory { .. } => {}
            }
        }
        all
    }

    #[test]
    fn names_are_quoted_as_they_are() {
        assert_eq!(Error::name_not_found("cpu \"a\"").to_string(), "no metric name \"cpu \"a\"\" in the blob");
        let mismatch = Error::NameHashMismatch { index: 2, name: "ünï".into(), expected: 1, actual: 0xab };
        assert_eq!(mismatch.to_string(), "metric name #2 \"ünï\" hashes to 00000000000000ab, index entry says 0000000000000001");
    }

    #[test]
    fn codes_lists_every_variant_code_once() {
        let codes: Vec<&str> = every_variant().iter().map(Error::code).collect();
        // Every variant's code is listed, in order, and nothing else is.
        assert_eq!(codes, Error::CODES);
        let mut unique = Error::CODES.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), Error::CODES.len(), "a code is listed twice");
    }
}
