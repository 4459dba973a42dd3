//! What a table of blobs is read and written with: its options (`CREATE
//! EXTERNAL TABLE … OPTIONS (…)`, `COPY … TO … OPTIONS (…)`,
//! `register_mebo_with`) and the kind its schema names.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use datafusion::common::{config_datafusion_err, Result};
use mebo::numeric::NumericEncoderOptions;
use mebo::text::TextEncoderOptions;
use mebo::{BlobKind, ByteOrder, ColumnConfig, Compression, Layout, TimestampEncoding};

/// How a table reads its files, and how `COPY … TO` and `INSERT INTO`
/// write new ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeboOptions {
    /// Skip a file that is not a readable blob of the table's kind (and
    /// count it in the scan's `files_skipped` metric) instead of failing the
    /// query. `OPTIONS ('skip_bad_files' 'true')` in SQL.
    pub skip_bad_files: bool,
    /// The kind of blob the table holds; `None` takes the first file's
    /// (writing: the `value` column's type). `OPTIONS ('kind' 'text')` in SQL.
    pub kind: Option<BlobKind>,
    /// How blobs are written.
    pub write: WriteOptions,
}

/// How `COPY … TO` and `INSERT INTO` write blobs: one blob per file, a
/// new file once a blob holds `max_points_per_blob` points (or a metric as
/// many points as its kind allows).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteOptions {
    /// Numeric blobs: the column choices (`'config' 'delta-zstd-gorilla-none'`),
    /// the byte order and the layout (`'layout' 'v2'`). By default the
    /// reference's columns (`delta-none-gorilla-none`) in the v2 layout,
    /// whose sorted index the `metric_id` filter uses and which bounds a
    /// metric's points by u32 rather than v1's 16-bit offsets.
    pub numeric: NumericEncoderOptions,
    /// Text blobs: the timestamp encoding and data codec
    /// (`'config' 'delta-zstd'`, the default) and the byte order.
    pub text: TextEncoderOptions,
    /// Most points one written blob holds (`'max_points_per_blob' '1048576'`,
    /// the default): what the writer buffers, and what a reader decodes at once.
    pub max_points_per_blob: usize,
}

/// The default of [`WriteOptions::max_points_per_blob`].
pub const DEFAULT_MAX_POINTS_PER_BLOB: usize = 1 << 20;

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            numeric: NumericEncoderOptions { layout: Layout::V2, ..NumericEncoderOptions::default() },
            text: TextEncoderOptions::default(),
            max_points_per_blob: DEFAULT_MAX_POINTS_PER_BLOB,
        }
    }
}

/// The option keys, as `unknown option` errors list them.
const KEYS: &str = "kind, skip_bad_files, config, layout, big_endian, max_points_per_blob";

/// Whether `key` is one of the keys above (with or without `format.`).
pub(crate) fn is_mebo_key(key: &str) -> bool {
    KEYS.split(", ").any(|k| k == key.strip_prefix("format.").unwrap_or(key))
}

impl MeboOptions {
    /// Options from `CREATE EXTERNAL TABLE … OPTIONS (…)` or `COPY … TO …
    /// OPTIONS (…)` (keys with or without DataFusion's `format.` prefix).
    pub fn from_map(options: &HashMap<String, String>) -> Result<MeboOptions> {
        MeboOptions::default().with_pairs(options)
    }

    /// These options with key and value pairs applied in order.
    pub fn with_pairs<'a>(self, pairs: impl IntoIterator<Item = (&'a String, &'a String)>) -> Result<MeboOptions> {
        let mut parsed = self;
        let write = &mut parsed.write;
        for (key, value) in pairs {
            let lower = value.to_ascii_lowercase();
            match key.strip_prefix("format.").unwrap_or(key) {
                "skip_bad_files" => parsed.skip_bad_files = boolean("skip_bad_files", value)?,
                "kind" => {
                    parsed.kind = Some(match lower.as_str() {
                        "numeric" => BlobKind::Numeric,
                        "text" => BlobKind::Text,
                        _ => return Err(config_datafusion_err!("kind is numeric or text, not {value:?}")),
                    })
                }
                "config" => match lower.split('-').count() {
                    4 => write.numeric.config = lower.parse::<ColumnConfig>().map_err(|e| config_datafusion_err!("config: {e}"))?,
                    2 => {
                        let (ts, codec) = lower.split_once('-').unwrap_or_default();
                        write.text.timestamp_encoding = match parse::<TimestampEncoding>("config", ts)? {
                            TimestampEncoding::DeltaPacked => {
                                return Err(config_datafusion_err!("config {value:?}: text blobs take raw or delta timestamps"))
                            }
                            encoding => encoding,
                        };
                        write.text.data_compression = parse::<Compression>("config", codec)?;
                    }
                    _ => {
                        return Err(config_datafusion_err!(
                            "config {value:?} is neither a numeric blob's {{tsEnc}}-{{tsCodec}}-{{valEnc}}-{{valCodec}} \
                             (delta-none-gorilla-zstd) nor a text blob's {{tsEnc}}-{{codec}} (delta-zstd)"
                        ))
                    }
                },
                "layout" => write.numeric.layout = parse::<Layout>("layout", &lower)?,
                "big_endian" => {
                    let order = if boolean("big_endian", value)? { ByteOrder::Big } else { ByteOrder::Little };
                    write.numeric.byte_order = order;
                    write.text.byte_order = order;
                }
                "max_points_per_blob" => {
                    write.max_points_per_blob =
                        value.parse::<usize>().ok().filter(|&n| n > 0 && n as u64 <= mebo::DecodeLimits::default().max_points).ok_or_else(
                            || {
                                config_datafusion_err!(
                                    "max_points_per_blob is a count from 1 to {} (what a reader decodes by default), not {value:?}",
                                    mebo::DecodeLimits::default().max_points
                                )
                            },
                        )?
                }
                other => return Err(config_datafusion_err!("unknown mebo option {other:?} ({KEYS})")),
            }
        }
        Ok(parsed)
    }

    /// The options as key and value pairs that [`with_pairs`](Self::with_pairs)
    /// reads back: every key (`config` twice, the numeric and the text
    /// one), so that a plan sent to a cluster carries them whole.
    pub fn to_pairs(&self) -> Vec<(String, String)> {
        let w = &self.write;
        let mut pairs = vec![
            ("skip_bad_files", self.skip_bad_files.to_string()),
            ("config", w.numeric.config.to_string()),
            ("config", format!("{}-{}", w.text.timestamp_encoding, w.text.data_compression)),
            ("layout", w.numeric.layout.to_string()),
            ("big_endian", (w.numeric.byte_order == ByteOrder::Big).to_string()),
            ("max_points_per_blob", w.max_points_per_blob.to_string()),
        ];
        if let Some(kind) = self.kind {
            pairs.push(("kind", kind_name(kind).to_owned()));
        }
        pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    }
}

fn boolean(key: &str, value: &str) -> Result<bool> {
    value.parse().map_err(|_| config_datafusion_err!("{key} is true or false, not {value:?}"))
}

fn parse<T: std::str::FromStr<Err = mebo::Error>>(key: &str, value: &str) -> Result<T> {
    value.parse().map_err(|e| config_datafusion_err!("{key}: {e}"))
}

/// `numeric` or `text`, as the `kind` option spells it.
pub(crate) fn kind_name(kind: BlobKind) -> &'static str {
    match kind {
        BlobKind::Numeric => "numeric",
        BlobKind::Text => "text",
    }
}

/// The kind a table schema is of: its `value` column's type says.
pub(crate) fn kind_of(schema: &SchemaRef) -> BlobKind {
    match schema.field_with_name(mebo_arrow::VALUE).map(|f| f.data_type().clone()) {
        Ok(arrow::datatypes::DataType::Utf8) => BlobKind::Text,
        _ => BlobKind::Numeric,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn options_travel_as_pairs_and_come_back_whole() {
        let given = pairs(&[
            ("format.kind", "TEXT"),
            ("skip_bad_files", "true"),
            ("config", "raw-s2-chimp-lz4"),
            ("config", "raw-lz4"),
            ("layout", "v2-shared"),
            ("big_endian", "true"),
            ("max_points_per_blob", "1000"),
        ]);
        let options = MeboOptions::default().with_pairs(given.iter().map(|(k, v)| (k, v))).unwrap();
        assert_eq!(options.kind, Some(BlobKind::Text));
        assert!(options.skip_bad_files);
        assert_eq!(options.write.numeric.config.to_string(), "raw-s2-chimp-lz4");
        assert_eq!(
            (options.write.text.timestamp_encoding, options.write.text.data_compression),
            (TimestampEncoding::Raw, Compression::Lz4)
        );
        assert_eq!((options.write.numeric.layout, options.write.text.byte_order), (Layout::V2Shared, ByteOrder::Big));
        assert_eq!(options.write.max_points_per_blob, 1000);
        let back = options.to_pairs();
        assert_eq!(MeboOptions::default().with_pairs(back.iter().map(|(k, v)| (k, v))).unwrap(), options);
        let defaults = MeboOptions::default().to_pairs();
        assert_eq!(MeboOptions::default().with_pairs(defaults.iter().map(|(k, v)| (k, v))).unwrap(), MeboOptions::default());
    }

    #[test]
    fn a_bad_option_says_what_it_takes() {
        for (key, value, said) in [
            ("config", "deltapacked-zstd", "raw or delta"),
            ("config", "delta-zstd-gorilla", "neither"),
            ("config", "delta-none-fancy-none", "value encoding"),
            ("layout", "v3", "layout"),
            ("big_endian", "yes", "true or false"),
            ("max_points_per_blob", "0", "from 1"),
            ("max_points_per_blob", "67108865", "from 1"),
            ("compression", "zstd", "unknown mebo option"),
        ] {
            let map = HashMap::from([(key.to_owned(), value.to_owned())]);
            let error = MeboOptions::from_map(&map).unwrap_err().to_string();
            assert!(error.contains(said), "{key}={value}: {error}");
        }
    }
}
