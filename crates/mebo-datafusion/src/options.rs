//! What a table of blobs is read with: its options (`CREATE EXTERNAL TABLE
//! … OPTIONS (…)`, `register_mebo_with`) and the kind its schema names.

use std::collections::HashMap;

use arrow::datatypes::SchemaRef;
use datafusion::common::{config_datafusion_err, Result};
use mebo::BlobKind;

/// How a table reads its files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MeboOptions {
    /// Skip a file that is not a readable blob of the table's kind (and
    /// count it in the scan's `files_skipped` metric) instead of failing the
    /// query. `OPTIONS ('skip_bad_files' 'true')` in SQL.
    pub skip_bad_files: bool,
    /// The kind of blob the table holds; `None` takes the first file's.
    /// `OPTIONS ('kind' 'text')` in SQL.
    pub kind: Option<BlobKind>,
}

impl MeboOptions {
    /// Options from `CREATE EXTERNAL TABLE … OPTIONS (…)` (keys with or
    /// without DataFusion's `format.` prefix).
    pub fn from_map(options: &HashMap<String, String>) -> Result<MeboOptions> {
        let mut parsed = MeboOptions::default();
        for (key, value) in options {
            match key.strip_prefix("format.").unwrap_or(key) {
                "skip_bad_files" => {
                    parsed.skip_bad_files =
                        value.parse().map_err(|_| config_datafusion_err!("skip_bad_files is true or false, not {value:?}"))?
                }
                "kind" => {
                    parsed.kind = Some(match value.to_ascii_lowercase().as_str() {
                        "numeric" => BlobKind::Numeric,
                        "text" => BlobKind::Text,
                        _ => return Err(config_datafusion_err!("kind is numeric or text, not {value:?}")),
                    })
                }
                other => return Err(config_datafusion_err!("unknown mebo table option {other:?} (skip_bad_files, kind)")),
            }
        }
        Ok(parsed)
    }
}

/// The kind a table schema is of: its `value` column's type says.
pub(crate) fn kind_of(schema: &SchemaRef) -> BlobKind {
    match schema.field_with_name(mebo_arrow::VALUE).map(|f| f.data_type().clone()) {
        Ok(arrow::datatypes::DataType::Utf8) => BlobKind::Text,
        _ => BlobKind::Numeric,
    }
}
