//! The option values a blob header can hold, with their wire codes and names.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// How a metric's timestamps are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimestampEncoding {
    /// 8 bytes per timestamp, in the blob's byte order.
    Raw,
    /// First value, then delta, then zigzag delta-of-deltas, as varints.
    #[default]
    Delta,
    /// Delta-of-deltas packed four at a time behind a control byte (group varint).
    DeltaPacked,
}

/// How a metric's values are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ValueEncoding {
    /// 8 bytes per value, in the blob's byte order.
    Raw,
    /// Facebook Gorilla XOR encoding.
    #[default]
    Gorilla,
    /// Chimp XOR encoding.
    Chimp,
    /// Adaptive Lossless floating-Point (with its ALP-RD fallback).
    Alp,
}

/// Codec applied to a whole column payload (all metrics' columns concatenated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compression {
    /// Stored as is (the default).
    #[default]
    None,
    /// Zstandard frames.
    Zstd,
    /// S2 blocks (klauspost's Snappy extension).
    S2,
    /// LZ4 blocks.
    Lz4,
}

/// Index layout of a numeric blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// Magic 0xEA10: index entries in insertion order, 16-bit offset deltas.
    #[default]
    V1,
    /// Magic 0xEA20 / 0xEA30: index sorted by metric id, compact or extended entries.
    V2,
    /// V2 plus the shared-timestamp table (identical timestamp columns stored once).
    V2Shared,
}

impl TimestampEncoding {
    /// Every timestamp encoding.
    pub const ALL: [TimestampEncoding; 3] = [Self::Raw, Self::Delta, Self::DeltaPacked];
    /// The header nibble's code.
    pub fn code(self) -> u8 {
        match self {
            Self::Raw => 0x1,
            Self::Delta => 0x2,
            Self::DeltaPacked => 0x5,
        }
    }
    /// The encoding of a header nibble (`UnknownEncoding` otherwise).
    pub fn from_code(code: u8) -> Result<Self, Error> {
        match code {
            0x1 => Ok(Self::Raw),
            0x2 => Ok(Self::Delta),
            0x5 => Ok(Self::DeltaPacked),
            _ => Err(Error::UnknownEncoding { column: "timestamp", code }),
        }
    }
    /// The name in configs and options, e.g. `deltapacked`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Raw => "raw",
            Self::Delta => "delta",
            Self::DeltaPacked => "deltapacked",
        }
    }
}

impl ValueEncoding {
    /// Every value encoding.
    pub const ALL: [ValueEncoding; 4] = [Self::Raw, Self::Gorilla, Self::Chimp, Self::Alp];

    /// Gorilla and Chimp: XOR bit streams, which decode several columns side by side.
    pub(crate) fn is_xor(self) -> bool {
        matches!(self, Self::Gorilla | Self::Chimp)
    }
    /// The header nibble's code.
    pub fn code(self) -> u8 {
        match self {
            Self::Raw => 0x1,
            Self::Gorilla => 0x3,
            Self::Chimp => 0x4,
            Self::Alp => 0x6,
        }
    }
    /// The encoding of a header nibble (`UnknownEncoding` otherwise).
    pub fn from_code(code: u8) -> Result<Self, Error> {
        match code {
            0x1 => Ok(Self::Raw),
            0x3 => Ok(Self::Gorilla),
            0x4 => Ok(Self::Chimp),
            0x6 => Ok(Self::Alp),
            _ => Err(Error::UnknownEncoding { column: "value", code }),
        }
    }
    /// The name in configs and options, e.g. `gorilla`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Raw => "raw",
            Self::Gorilla => "gorilla",
            Self::Chimp => "chimp",
            Self::Alp => "alp",
        }
    }
}

impl Compression {
    /// Every codec.
    pub const ALL: [Compression; 4] = [Self::None, Self::Zstd, Self::S2, Self::Lz4];
    /// The header nibble's code.
    pub fn code(self) -> u8 {
        match self {
            Self::None => 0x1,
            Self::Zstd => 0x2,
            Self::S2 => 0x3,
            Self::Lz4 => 0x4,
        }
    }
    /// The codec of a header nibble (`UnknownCompression` naming `column` otherwise).
    pub fn from_code(code: u8, column: &'static str) -> Result<Self, Error> {
        match code {
            0x1 => Ok(Self::None),
            0x2 => Ok(Self::Zstd),
            0x3 => Ok(Self::S2),
            0x4 => Ok(Self::Lz4),
            _ => Err(Error::UnknownCompression { column, code }),
        }
    }
    /// Whether this build reads and writes the codec: its Cargo feature
    /// (`zstd`, `s2`, `lz4`) is on. A payload of a codec left out is
    /// [`Error::UnsupportedCompression`].
    pub fn is_built(self) -> bool {
        match self {
            Self::None => true,
            Self::Zstd => cfg!(feature = "zstd"),
            Self::S2 => cfg!(feature = "s2"),
            Self::Lz4 => cfg!(feature = "lz4"),
        }
    }
    /// The name in configs and options, e.g. `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Zstd => "zstd",
            Self::S2 => "s2",
            Self::Lz4 => "lz4",
        }
    }
}

impl Layout {
    /// The name in options, e.g. `v2-shared`.
    pub fn name(self) -> &'static str {
        match self {
            Self::V1 => "v1",
            Self::V2 => "v2",
            Self::V2Shared => "v2-shared",
        }
    }
}

macro_rules! name_parsing {
    ($ty:ty, $what:literal, [$($variant:expr),*]) => {
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                let lower = s.to_ascii_lowercase();
                [$($variant),*]
                    .into_iter()
                    .find(|v| v.name() == lower)
                    .ok_or_else(|| Error::InvalidOptions { detail: format!("unknown {} {s:?}", $what) })
            }
        }
    };
}

name_parsing!(TimestampEncoding, "timestamp encoding", [Self::Raw, Self::Delta, Self::DeltaPacked]);
name_parsing!(ValueEncoding, "value encoding", [Self::Raw, Self::Gorilla, Self::Chimp, Self::Alp]);
name_parsing!(Compression, "compression", [Self::None, Self::Zstd, Self::S2, Self::Lz4]);
name_parsing!(Layout, "layout", [Self::V1, Self::V2, Self::V2Shared]);

/// The four column choices of a numeric blob, as in the documented benchmark
/// names: `{timestamp encoding}-{timestamp codec}-{value encoding}-{value codec}`,
/// e.g. `delta-zstd-gorilla-zstd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ColumnConfig {
    /// How timestamps are encoded.
    pub timestamp_encoding: TimestampEncoding,
    /// Codec of the timestamp payload.
    pub timestamp_compression: Compression,
    /// How values are encoded.
    pub value_encoding: ValueEncoding,
    /// Codec of the value payload.
    pub value_compression: Compression,
}

impl fmt::Display for ColumnConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}-{}-{}", self.timestamp_encoding, self.timestamp_compression, self.value_encoding, self.value_compression)
    }
}

impl FromStr for ColumnConfig {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let parts: Vec<&str> = s.split('-').collect();
        let [ts, tc, ve, vc] = parts.as_slice() else {
            return Err(Error::InvalidOptions { detail: format!("config {s:?} is not {{tsEnc}}-{{tsCodec}}-{{valEnc}}-{{valCodec}}") });
        };
        Ok(ColumnConfig {
            timestamp_encoding: ts.parse()?,
            timestamp_compression: tc.parse()?,
            value_encoding: ve.parse()?,
            value_compression: vc.parse()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_string_round_trip() {
        let c: ColumnConfig = "delta-zstd-gorilla-s2".parse().unwrap();
        assert_eq!(c.timestamp_encoding, TimestampEncoding::Delta);
        assert_eq!(c.timestamp_compression, Compression::Zstd);
        assert_eq!(c.value_encoding, ValueEncoding::Gorilla);
        assert_eq!(c.value_compression, Compression::S2);
        assert_eq!(c.to_string(), "delta-zstd-gorilla-s2");
        assert_eq!("DeltaPacked-none-ALP-lz4".parse::<ColumnConfig>().unwrap().to_string(), "deltapacked-none-alp-lz4");
        assert!("delta-zstd-gorilla".parse::<ColumnConfig>().is_err());
        assert!("delta-brotli-gorilla-none".parse::<ColumnConfig>().is_err());
    }

    #[test]
    fn wire_codes_round_trip() {
        for e in TimestampEncoding::ALL {
            assert_eq!(TimestampEncoding::from_code(e.code()).unwrap(), e);
        }
        for e in ValueEncoding::ALL {
            assert_eq!(ValueEncoding::from_code(e.code()).unwrap(), e);
        }
        for c in Compression::ALL {
            assert_eq!(Compression::from_code(c.code(), "x").unwrap(), c);
        }
        assert!(TimestampEncoding::from_code(0x3).is_err());
        assert!(ValueEncoding::from_code(0x2).is_err());
        assert!(Compression::from_code(0x0, "x").is_err());
    }
}
