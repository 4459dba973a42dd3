//! The one Rust reader of the conformance vectors' input schema
//! (`testdata/vectors/inputs/*.json`, also `testdata/bench/inputs`): the
//! core's tests read it through `tests/common`, and crates/mebo-bench
//! includes this file by path.

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

pub struct Input {
    pub start_time: i64,
    pub by_name: bool,
    pub metrics: Vec<InputMetric>,
}

/// Read an input file of the vectors' schema (also used by testdata/bench).
pub fn read_input_file(path: &std::path::Path) -> Input {
    let text = std::fs::read_to_string(path).expect("input");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
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
