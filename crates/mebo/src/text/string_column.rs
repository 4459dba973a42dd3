//! Many strings in one buffer plus offsets: how text columns hold their
//! values and tags (`columns`), and what a dictionary is built from
//! (`dictionary`).

use crate::error::{Error, Result};
use crate::limits;

/// Many strings in one buffer: string `i` is `bytes[offsets[i]..offsets[i + 1]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringColumn {
    /// Every string's bytes, concatenated.
    pub bytes: String,
    /// Start of each string in `bytes`, plus the end of the last: one more
    /// entry than there are strings.
    pub offsets: Vec<u32>,
}

impl Default for StringColumn {
    fn default() -> Self {
        StringColumn { bytes: String::new(), offsets: vec![0] }
    }
}

impl StringColumn {
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.offsets.clear();
        self.offsets.push(0);
    }

    /// Room for `strings` more strings of `bytes` in all, reserved fallibly.
    pub(super) fn reserve(&mut self, strings: usize, bytes: usize) -> Result<()> {
        limits::reserve(&mut self.offsets, strings, "string offsets")?;
        self.bytes.try_reserve_exact(bytes).map_err(|_| Error::OutOfMemory { what: "strings", bytes })
    }

    /// Append one string, its bytes and offset grown fallibly (amortized):
    /// the tag column reserves no bytes up front, as tags share the data
    /// payload with values and timestamps.
    pub(super) fn try_push(&mut self, s: &str) -> Result<()> {
        limits::reserve_str(&mut self.bytes, s.len(), "strings")?;
        limits::room_for_one(&mut self.offsets, "string offsets")?;
        self.push(s);
        Ok(())
    }

    /// Append one string.
    pub fn push(&mut self, s: &str) {
        self.bytes.push_str(s);
        // Fits: bounded by the u32 data size of the blob.
        self.offsets.push(self.bytes.len() as u32);
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    /// True when there is no string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// String `i`, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<&str> {
        let start = *self.offsets.get(i)? as usize;
        let end = *self.offsets.get(i.checked_add(1)?)? as usize;
        self.bytes.get(start..end)
    }

    /// The strings in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}
