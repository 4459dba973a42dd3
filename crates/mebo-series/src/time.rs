//! Time as a chart reads it.

/// Epoch microseconds as fractional milliseconds, as `timestampsMs` gives them.
pub fn micros_to_millis(t: i64) -> f64 {
    t as f64 / 1000.0
}
