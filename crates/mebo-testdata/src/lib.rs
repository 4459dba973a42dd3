//! The repository's test data (`testdata/`, see its README) for the core's
//! tests and the native bench: where each set lives, its manifest, and the one
//! Rust reader of the vectors' input schema (`testdata/vectors/README.md`).

use std::path::{Path, PathBuf};

/// `testdata/` at the repository root.
pub fn testdata_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

/// The conformance vectors written by the reference.
pub fn vectors_dir() -> PathBuf {
    testdata_dir().join("vectors")
}

/// The benchmark dataset, in the vectors' manifest and input schema.
pub fn bench_dir() -> PathBuf {
    testdata_dir().join("bench")
}

/// The recorded reference figures.
pub fn reference_dir() -> PathBuf {
    testdata_dir().join("reference")
}

/// The cases of `dir/manifest.json` (the vectors' or the bench's).
pub fn manifest(dir: &Path) -> Vec<serde_json::Value> {
    read_json(&dir.join("manifest.json"))["cases"].as_array().expect("manifest cases").clone()
}

/// A manifest case's options (`testdata/vectors/README.md`), as written: the
/// one reader of them. Each encoding and codec is its name, which the `mebo`
/// crate's types parse (`"delta".parse::<TimestampEncoding>()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseOptions {
    pub timestamp_encoding: String,
    pub timestamp_compression: String,
    pub value_encoding: String,
    pub value_compression: String,
    pub data_compression: String,
    pub tags: bool,
    pub big_endian: bool,
    /// `v1`, `v2` or `v2-shared` (a text case has none: `v1`).
    pub layout: String,
}

impl CaseOptions {
    /// The options of a manifest case.
    pub fn of(case: &serde_json::Value) -> CaseOptions {
        let o = &case["options"];
        let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
        CaseOptions {
            timestamp_encoding: s("timestampEncoding"),
            timestamp_compression: s("timestampCompression"),
            value_encoding: s("valueEncoding"),
            value_compression: s("valueCompression"),
            data_compression: s("dataCompression"),
            tags: o["tags"].as_bool().expect("manifest options: tags"),
            big_endian: o["bigEndian"].as_bool().expect("manifest options: bigEndian"),
            layout: o["layout"].as_str().unwrap_or("v1").to_string(),
        }
    }

    /// A numeric case's four column choices as a config string,
    /// `delta-none-gorilla-none`, which `mebo::ColumnConfig` parses.
    pub fn column_config(&self) -> String {
        format!("{}-{}-{}-{}", self.timestamp_encoding, self.timestamp_compression, self.value_encoding, self.value_compression)
    }

    /// A case's name in the bench's tables: the column config (with the layout
    /// past v1, so the v2-shared case stays unique), or `text-<ts>-<codec>`.
    pub fn config_name(&self, kind: &str) -> String {
        match (kind, self.layout.as_str()) {
            ("text", _) => format!("text-{}-{}", self.timestamp_encoding, self.data_compression),
            (_, "v1") => self.column_config(),
            (_, layout) => format!("{}-{layout}", self.column_config()),
        }
    }
}

/// A JSON file of the test data.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One metric of an input file, decoded from its JSON strings.
#[derive(Debug, Clone)]
pub struct InputMetric {
    pub id: u64,
    pub name: Option<String>,
    pub timestamps: Vec<i64>,
    pub values: Vec<f64>,
    pub texts: Vec<String>,
    pub tags: Option<Vec<String>>,
}

/// An input file: what was encoded into a blob.
pub struct Input {
    pub start_time: i64,
    pub by_name: bool,
    pub metrics: Vec<InputMetric>,
}

/// Read an input file of the vectors' schema.
pub fn read_input_file(path: &Path) -> Input {
    let v = read_json(path);
    let strs = |m: &serde_json::Value, k: &str| -> Option<Vec<String>> {
        m.get(k).map(|a| a.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect())
    };
    Input {
        start_time: v["startTimeMicros"].as_str().unwrap().parse().unwrap(),
        by_name: v["identifier"].as_str() == Some("name"),
        metrics: v["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| InputMetric {
                id: u64::from_str_radix(m["id"].as_str().unwrap(), 16).unwrap(),
                name: m.get("name").map(|n| n.as_str().unwrap().to_string()),
                timestamps: strs(m, "timestamps").unwrap().iter().map(|s| s.parse().unwrap()).collect(),
                values: strs(m, "values").unwrap_or_default().iter().map(|s| f64::from_bits(u64::from_str_radix(s, 16).unwrap())).collect(),
                texts: strs(m, "texts").unwrap_or_default(),
                tags: strs(m, "tags"),
            })
            .collect(),
    }
}
