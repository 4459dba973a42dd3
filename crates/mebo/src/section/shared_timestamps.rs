//! The shared-timestamp table (v2 only, flag bit 3): metrics whose timestamp
//! columns are byte-identical store the column once.
//!
//! It sits between the index and the timestamp payload:
//! `group count u16`, then per group `canonical index u16`, `member count u16`,
//! `member index u16 × count`. Indexes are positions in the (sorted) index. A
//! member's own timestamp offset delta is written as if its column were empty;
//! its column is the canonical metric's.

use crate::byte_order::ByteOrder;
use crate::error::{Error, Result};
use crate::limits;

/// One canonical metric and the metrics that reuse its timestamp column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedTimestampGroup {
    pub canonical: usize,
    pub members: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SharedTimestampTable {
    pub groups: Vec<SharedTimestampGroup>,
}

fn invalid(detail: String) -> Error {
    Error::SharedTimestampTable { detail }
}

impl SharedTimestampTable {
    /// Parse and validate the table: every index in range, no metric in two
    /// roles, no trailing bytes.
    pub fn parse(data: &[u8], order: ByteOrder, metric_count: usize) -> Result<SharedTimestampTable> {
        let mut pos = 0usize;
        let mut next = |what: &'static str| -> Result<usize> {
            let v = order.read_u16(data, pos, what).map_err(|_| invalid(format!("{what} at byte {pos} is past the end")))?;
            pos += 2;
            Ok(v as usize)
        };
        let group_count = next("group count")?;
        if group_count == 0 {
            return Err(invalid("the table has no groups".into()));
        }
        // 0 = unused, 1 = canonical, 2 = member
        let mut role = limits::filled(metric_count, 0u8, "shared-timestamp roles")?;
        let mut groups = limits::with_capacity(group_count.min(data.len() / 4), "shared-timestamp groups")?;
        for g in 0..group_count {
            let canonical = next("canonical index")?;
            let member_count = next("member count")?;
            if canonical >= metric_count {
                return Err(invalid(format!("group {g}: canonical index {canonical} >= metric count {metric_count}")));
            }
            if role[canonical] != 0 {
                return Err(invalid(format!("group {g}: metric {canonical} already has a role")));
            }
            role[canonical] = 1;
            let mut members = limits::with_capacity(member_count.min(data.len() / 2), "shared-timestamp members")?;
            for _ in 0..member_count {
                let m = next("member index")?;
                if m >= metric_count {
                    return Err(invalid(format!("group {g}: member index {m} >= metric count {metric_count}")));
                }
                if role[m] != 0 {
                    return Err(invalid(format!("group {g}: metric {m} is canonical or shared already")));
                }
                role[m] = 2;
                members.push(m);
            }
            groups.push(SharedTimestampGroup { canonical, members });
        }
        if pos != data.len() {
            return Err(invalid(format!("{} trailing bytes", data.len() - pos)));
        }
        Ok(SharedTimestampTable { groups })
    }

    pub fn byte_len(&self) -> usize {
        2 + self.groups.iter().map(|g| 4 + 2 * g.members.len()).sum::<usize>()
    }

    /// Append the table. Indexes are below 65,536 (the metric count limit).
    pub fn write(&self, order: ByteOrder, out: &mut Vec<u8>) {
        out.extend_from_slice(&order.u16_bytes(self.groups.len() as u16));
        for g in &self.groups {
            out.extend_from_slice(&order.u16_bytes(g.canonical as u16));
            out.extend_from_slice(&order.u16_bytes(g.members.len() as u16));
            for &m in &g.members {
                out.extend_from_slice(&order.u16_bytes(m as u16));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> SharedTimestampTable {
        SharedTimestampTable {
            groups: vec![
                SharedTimestampGroup { canonical: 0, members: vec![2, 3] },
                SharedTimestampGroup { canonical: 1, members: vec![4] },
            ],
        }
    }

    #[test]
    fn round_trips() {
        for order in [ByteOrder::Little, ByteOrder::Big] {
            let mut out = Vec::new();
            table().write(order, &mut out);
            assert_eq!(out.len(), table().byte_len());
            assert_eq!(SharedTimestampTable::parse(&out, order, 5).unwrap(), table());
        }
    }

    #[test]
    fn rejects_bad_tables() {
        let mut out = Vec::new();
        table().write(ByteOrder::Little, &mut out);
        // member index past the metric count
        assert!(SharedTimestampTable::parse(&out, ByteOrder::Little, 4).is_err());
        // truncated, and trailing bytes
        assert!(SharedTimestampTable::parse(&out[..out.len() - 1], ByteOrder::Little, 5).is_err());
        let mut longer = out.clone();
        longer.push(0);
        assert!(SharedTimestampTable::parse(&longer, ByteOrder::Little, 5).is_err());
        // a metric that references itself, and one in two groups
        let selfref = SharedTimestampTable { groups: vec![SharedTimestampGroup { canonical: 1, members: vec![1] }] };
        let mut b = Vec::new();
        selfref.write(ByteOrder::Little, &mut b);
        assert!(SharedTimestampTable::parse(&b, ByteOrder::Little, 5).is_err());
        assert!(SharedTimestampTable::parse(&[0, 0], ByteOrder::Little, 5).is_err());
        // A metric count no memory holds roles for: refused, not aborted on.
        let err = SharedTimestampTable::parse(&out, ByteOrder::Little, usize::MAX / 2).unwrap_err();
        assert!(matches!(err, Error::OutOfMemory { what: "shared-timestamp roles", .. }), "{err}");
    }
}
