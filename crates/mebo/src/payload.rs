//! Where an opened blob's payload bytes live.

use std::borrow::Cow;
use std::ops::{Deref, Range};
use std::sync::Arc;

/// A payload's bytes: a slice of the input the blob borrows, a buffer of its
/// own (decompressed, or copied by `into_owned`), or a range of an input the
/// blob holds. The last is what `open_owned` gives a payload stored without a
/// codec: the blob keeps the input instead of copying the payload out of it.
#[derive(Debug, Clone)]
pub(crate) enum Payload<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
    InInput(Arc<Vec<u8>>, Range<usize>),
}

impl<'a> From<Cow<'a, [u8]>> for Payload<'a> {
    fn from(bytes: Cow<'a, [u8]>) -> Self {
        match bytes {
            Cow::Borrowed(slice) => Payload::Borrowed(slice),
            Cow::Owned(vec) => Payload::Owned(vec),
        }
    }
}

impl Deref for Payload<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Payload::Borrowed(slice) => slice,
            Payload::Owned(vec) => vec,
            // The range was taken from this input, so it is in bounds.
            Payload::InInput(input, range) => input.get(range.clone()).unwrap_or_default(),
        }
    }
}

impl Payload<'_> {
    /// The payload with no borrow left: borrowed bytes are copied.
    pub(crate) fn into_owned(self) -> Payload<'static> {
        match self {
            Payload::Borrowed(slice) => Payload::Owned(slice.to_vec()),
            Payload::Owned(vec) => Payload::Owned(vec),
            Payload::InInput(input, range) => Payload::InInput(input, range),
        }
    }

    /// The payload with no borrow left, for a blob opened from `input`:
    /// bytes borrowed from `input` become a range of it, without a copy. An
    /// empty payload does not keep the input alive.
    pub(crate) fn anchored_in(self, input: &Arc<Vec<u8>>) -> Payload<'static> {
        match self {
            Payload::Borrowed([]) => Payload::Owned(Vec::new()),
            Payload::Borrowed(slice) => match range_within(input, slice) {
                Some(range) => Payload::InInput(Arc::clone(input), range),
                None => Payload::Owned(slice.to_vec()),
            },
            other => other.into_owned(),
        }
    }
}

/// Where `part` lies in `whole`, when it is a subslice of it.
fn range_within(whole: &[u8], part: &[u8]) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(whole.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= whole.len()).then_some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchoring_keeps_the_bytes_and_shares_the_input() {
        let input = Arc::new((0u8..100).collect::<Vec<u8>>());
        let anchored = Payload::Borrowed(&input[10..30]).anchored_in(&input);
        assert!(matches!(&anchored, Payload::InInput(_, range) if *range == (10..30)));
        assert_eq!(&*anchored, &input[10..30]);
        assert_eq!(Arc::strong_count(&input), 2);
        // Empty payloads, at either end, hold no reference to the input.
        for empty in [Payload::Borrowed(&input[..0]), Payload::Borrowed(&input[100..])] {
            let anchored = empty.anchored_in(&input);
            assert!(matches!(&anchored, Payload::Owned(v) if v.is_empty()));
        }
        assert_eq!(Arc::strong_count(&input), 2);
        // Bytes from elsewhere are copied.
        let other = vec![7u8; 4];
        let copied = Payload::Borrowed(&other).anchored_in(&input);
        assert!(matches!(&copied, Payload::Owned(v) if v == &other));
        // Owned bytes stay as they are; into_owned copies a borrow.
        assert!(matches!(Payload::Owned(vec![1]).anchored_in(&input), Payload::Owned(v) if v == [1]));
        assert!(matches!(Payload::Borrowed(&input[..2]).into_owned(), Payload::Owned(v) if v == [0, 1]));
    }
}
