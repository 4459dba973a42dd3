//! Metric ids: the xxHash64 (seed 0) of the metric name.

/// The id of a metric name, as the reference computes it.
pub fn metric_id(name: &str) -> u64 {
    xxhash_rust::xxh64::xxh64(name.as_bytes(), 0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn known_hashes() {
        // xxHash64 of "" with seed 0 is a published constant.
        assert_eq!(super::metric_id(""), 0xEF46_DB37_51D8_E999);
    }
}
