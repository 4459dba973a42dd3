//! What a scan can take from a query's filters: the metric ids it may need
//! and a timestamp range. Both only narrow what is decoded; DataFusion still
//! applies every filter to the rows, so a filter read too loosely here costs
//! time, never a wrong answer.

use std::collections::BTreeSet;
use std::sync::Arc;

use datafusion::common::ScalarValue;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{BinaryExpr, CastExpr, Column, InListExpr, Literal, TryCastExpr};
use datafusion::physical_expr::PhysicalExpr;
use mebo_arrow::{METRIC_ID, TS};

/// The narrowing a scan applies: only these metrics, only metrics with a
/// point in `[ts_min, ts_max]` (microseconds, both ends inclusive).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanFilter {
    /// Metric ids the query can match; `None` for any.
    pub metrics: Option<BTreeSet<u64>>,
    /// Smallest timestamp the query can match.
    pub ts_min: Option<i64>,
    /// Largest timestamp the query can match.
    pub ts_max: Option<i64>,
}

impl ScanFilter {
    /// The narrowing implied by filters that all hold (a conjunction).
    pub fn from_filters(filters: &[Arc<dyn PhysicalExpr>]) -> ScanFilter {
        let mut scan = ScanFilter::default();
        for filter in filters {
            scan.and(filter.as_ref());
        }
        scan
    }

    /// True when nothing is narrowed.
    pub fn is_empty(&self) -> bool {
        self.metrics.is_none() && self.ts_min.is_none() && self.ts_max.is_none()
    }

    fn and(&mut self, expr: &dyn PhysicalExpr) {
        if let Some(b) = expr.downcast_ref::<BinaryExpr>() {
            if *b.op() == Operator::And {
                self.and(b.left().as_ref());
                self.and(b.right().as_ref());
                return;
            }
        }
        if let Some(ids) = metric_ids(expr) {
            self.metrics = Some(match self.metrics.take() {
                Some(known) => known.intersection(&ids).copied().collect(),
                None => ids,
            });
            return;
        }
        if let Some((min, max)) = ts_bounds(expr) {
            if let Some(min) = min {
                self.ts_min = Some(self.ts_min.map_or(min, |m| m.max(min)));
            }
            if let Some(max) = max {
                self.ts_max = Some(self.ts_max.map_or(max, |m| m.min(max)));
            }
        }
    }

    /// True when a metric whose timestamps span `[first, last]` may match.
    pub fn may_hold(&self, first: i64, last: i64) -> bool {
        self.ts_min.is_none_or(|min| last >= min) && self.ts_max.is_none_or(|max| first <= max)
    }
}

fn column_named(expr: &dyn PhysicalExpr, name: &str) -> bool {
    expr.downcast_ref::<Column>().is_some_and(|c| c.name() == name)
}

fn literal(expr: &dyn PhysicalExpr) -> Option<&ScalarValue> {
    expr.downcast_ref::<Literal>().map(|l| l.value())
}

/// The ids a metric condition allows: `metric_id = v`, `metric_id IN (…)`,
/// and `OR`s of those.
fn metric_ids(expr: &dyn PhysicalExpr) -> Option<BTreeSet<u64>> {
    if let Some(b) = expr.downcast_ref::<BinaryExpr>() {
        return match b.op() {
            Operator::Eq => {
                let (l, r) = (b.left().as_ref(), b.right().as_ref());
                let value = if column_named(l, METRIC_ID) {
                    literal(r)
                } else if column_named(r, METRIC_ID) {
                    literal(l)
                } else {
                    None
                };
                as_id(value?).map(|id| BTreeSet::from([id]))
            }
            Operator::Or => {
                let mut ids = metric_ids(b.left().as_ref())?;
                ids.extend(metric_ids(b.right().as_ref())?);
                Some(ids)
            }
            _ => None,
        };
    }
    let list = expr.downcast_ref::<InListExpr>()?;
    if list.negated() || !column_named(list.expr().as_ref(), METRIC_ID) {
        return None;
    }
    list.list().iter().map(|item| literal(item.as_ref()).and_then(as_id)).collect()
}

/// A literal as a metric id. A null or a value no u64 equals matches no
/// metric; it is left to DataFusion (None here means "not understood").
fn as_id(value: &ScalarValue) -> Option<u64> {
    match value {
        ScalarValue::UInt64(Some(v)) => Some(*v),
        _ => None,
    }
}

/// Bounds on `ts` from `ts <op> literal` (either side, the column possibly
/// cast to another timestamp unit): `(min, max)` in microseconds.
fn ts_bounds(expr: &dyn PhysicalExpr) -> Option<(Option<i64>, Option<i64>)> {
    let b = expr.downcast_ref::<BinaryExpr>()?;
    let (l, r) = (b.left().as_ref(), b.right().as_ref());
    let (op, value) = if is_ts(l) {
        (*b.op(), literal(r)?)
    } else if is_ts(r) {
        (b.op().swap()?, literal(l)?)
    } else {
        return None;
    };
    // Rounded outwards: the bound can only be looser than the filter.
    let (floor, ceil) = micros(value)?;
    match op {
        Operator::Eq => Some((Some(floor), Some(ceil))),
        Operator::Gt | Operator::GtEq => Some((Some(floor), None)),
        Operator::Lt | Operator::LtEq => Some((None, Some(ceil))),
        _ => None,
    }
}

fn is_ts(expr: &dyn PhysicalExpr) -> bool {
    if column_named(expr, TS) {
        return true;
    }
    if let Some(cast) = expr.downcast_ref::<CastExpr>() {
        return matches!(cast.cast_type(), arrow::datatypes::DataType::Timestamp(..)) && column_named(cast.expr().as_ref(), TS);
    }
    if let Some(cast) = expr.downcast_ref::<TryCastExpr>() {
        return matches!(cast.cast_type(), arrow::datatypes::DataType::Timestamp(..)) && column_named(cast.expr().as_ref(), TS);
    }
    false
}

/// A timestamp literal in microseconds, rounded down and up.
fn micros(value: &ScalarValue) -> Option<(i64, i64)> {
    let (v, per_micro_num, per_micro_den): (i64, i64, i64) = match value {
        ScalarValue::TimestampSecond(Some(v), _) => (*v, 1_000_000, 1),
        ScalarValue::TimestampMillisecond(Some(v), _) => (*v, 1_000, 1),
        ScalarValue::TimestampMicrosecond(Some(v), _) => (*v, 1, 1),
        ScalarValue::TimestampNanosecond(Some(v), _) => (*v, 1, 1_000),
        _ => return None,
    };
    if per_micro_den > 1 {
        return Some((v.div_euclid(per_micro_den), v.div_euclid(per_micro_den) + i64::from(v.rem_euclid(per_micro_den) != 0)));
    }
    // Saturating: a bound past the i64 microsecond range bounds nothing more.
    let scaled = v.saturating_mul(per_micro_num);
    Some((scaled, scaled))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow::datatypes::DataType;

    fn col(name: &str, index: usize) -> Arc<dyn PhysicalExpr> {
        Arc::new(Column::new(name, index))
    }
    fn lit(v: ScalarValue) -> Arc<dyn PhysicalExpr> {
        Arc::new(Literal::new(v))
    }
    fn bin(l: Arc<dyn PhysicalExpr>, op: Operator, r: Arc<dyn PhysicalExpr>) -> Arc<dyn PhysicalExpr> {
        Arc::new(BinaryExpr::new(l, op, r))
    }

    #[test]
    fn ids_and_ranges_are_read_from_conjunctions() {
        let id = |v| lit(ScalarValue::UInt64(Some(v)));
        let eq = |v| bin(col(METRIC_ID, 0), Operator::Eq, id(v));
        let either = bin(eq(1), Operator::Or, bin(id(2), Operator::Eq, col(METRIC_ID, 0)));
        let ts = |op, v| bin(col(TS, 2), op, lit(ScalarValue::TimestampMicrosecond(Some(v), Some("UTC".into()))));
        let f = ScanFilter::from_filters(&[bin(either, Operator::And, ts(Operator::GtEq, 10)), ts(Operator::Lt, 20), ts(Operator::Lt, 30)]);
        assert_eq!(f, ScanFilter { metrics: Some(BTreeSet::from([1, 2])), ts_min: Some(10), ts_max: Some(20) });
        assert!(f.may_hold(0, 10) && f.may_hold(20, 40) && !f.may_hold(0, 9) && !f.may_hold(21, 40));

        // Two conditions on ids: only the ids both allow.
        let f = ScanFilter::from_filters(&[eq(1), eq(2)]);
        assert_eq!(f.metrics, Some(BTreeSet::new()));
        // A condition not understood narrows nothing.
        let other = bin(col("value", 3), Operator::Gt, lit(ScalarValue::Float64(Some(1.0))));
        assert!(ScanFilter::from_filters(&[other.clone(), bin(eq(1), Operator::Or, other)]).is_empty());

        // ts cast to nanoseconds against a nanosecond literal: rounded outwards.
        let cast: Arc<dyn PhysicalExpr> =
            Arc::new(CastExpr::new(col(TS, 2), DataType::Timestamp(arrow::datatypes::TimeUnit::Nanosecond, None), None));
        let ns = |v| lit(ScalarValue::TimestampNanosecond(Some(v), None));
        let f = ScanFilter::from_filters(&[bin(cast.clone(), Operator::Gt, ns(-1500)), bin(ns(2500), Operator::GtEq, cast)]);
        assert_eq!((f.ts_min, f.ts_max), (Some(-2), Some(3)));
    }
}
