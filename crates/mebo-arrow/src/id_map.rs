//! Maps keyed by metric id. An id is already the xxHash64 of a name, so a
//! map of them needs one multiply to spread it, not SipHash: gathering
//! rows by metric looks one up a row when metrics interleave.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A `HashMap` keyed by metric id.
pub type IdMap<V> = HashMap<u64, V, BuildHasherDefault<IdHasher>>;

/// The hasher of [`IdMap`]: an id's halves folded, then multiplied by a
/// 64-bit odd constant (as FxHash), so ids that are not hashes (1, 2, 3…)
/// spread too.
#[derive(Debug, Default, Clone, Copy)]
pub struct IdHasher(u64);

const SPREAD: u64 = 0x9e37_79b9_7f4a_7c15;

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(SPREAD);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = (self.0.rotate_left(5) ^ id ^ (id >> 32)).wrapping_mul(SPREAD);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_small_and_hashed_land_in_different_buckets() {
        let mut map = IdMap::default();
        for id in (0..10_000u64).chain((0..10_000).map(|i| mebo::metric_id(&format!("m{i}")))) {
            *map.entry(id).or_insert(0) += 1;
        }
        assert_eq!(map.len(), 20_000);
        assert_eq!(map[&7], 1);
        // The low bits a table indexes by differ between neighbours.
        let low = |id: u64| {
            let mut h = IdHasher::default();
            h.write_u64(id);
            h.finish() & 0xff
        };
        let distinct: std::collections::HashSet<u64> = (0..256).map(low).collect();
        assert!(distinct.len() > 150, "{}", distinct.len());
    }
}
