//! The Rust API of leveldb's filter blocks (`table/filter_block.cc`, leveldb 1.23): the block a
//! table stores with one filter per 2 KB of data-block offsets. [`FilterBlockBuilder`] writes
//! leveldb's bytes for the same calls, [`FilterBlockReader`] answers as leveldb's reader for any
//! bytes; both take a [`FilterPolicy`] that builds and tests each filter.

use std::fmt;

use crate::bulk;
use crate::dispatch::Isa;
use crate::policy::{BloomPolicy, check_one_result_per_key};

/// Why a [`FilterBlockBuilder`] call failed; the builder is as it was before the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterBlockError {
    /// [`FilterBlockBuilder::start_block`] with an offset in an earlier 2 KB range than the
    /// previous call's (leveldb asserts).
    OffsetBackwards {
        /// The offset refused.
        block_offset: u64,
    },
    /// [`FilterBlockBuilder::start_block`] with an offset past 2^63 - 1, the largest file
    /// offset, where no table has a data block: refused before anything is allocated for the
    /// filters up to it.
    OffsetTooLarge {
        /// The offset given.
        block_offset: u64,
    },
    /// Memory ran out.
    OutOfMemory,
    /// More keys for one filter than a C `int` counts (leveldb passes the count as one).
    TooManyKeys,
    /// The policy could not build a filter (a custom C policy's `create_filter` returned NULL).
    PolicyFailed,
}

/// The largest block offset [`FilterBlockBuilder::start_block`] takes: the largest file offset
/// (`off_t`, to which leveldb's reads pass offsets), 2^63 - 1. A data block cannot start past it,
/// and the filters up to such an offset would take 4 bytes per 2 KB skipped, 2^54 bytes or more.
const MAX_BLOCK_OFFSET: u64 = i64::MAX as u64;

impl fmt::Display for FilterBlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterBlockError::OffsetBackwards { block_offset } => write!(
                f,
                "block offset {block_offset} is in an earlier 2 KB range than the previous block's"
            ),
            FilterBlockError::OffsetTooLarge { block_offset } => write!(
                f,
                "block offset {block_offset} is past the largest file offset, {MAX_BLOCK_OFFSET}"
            ),
            FilterBlockError::OutOfMemory => f.write_str("out of memory"),
            FilterBlockError::TooManyKeys => f.write_str("more than INT_MAX keys for one filter"),
            FilterBlockError::PolicyFailed => f.write_str("the policy built no filter"),
        }
    }
}

impl std::error::Error for FilterBlockError {}

impl From<std::collections::TryReserveError> for FilterBlockError {
    fn from(_: std::collections::TryReserveError) -> Self {
        FilterBlockError::OutOfMemory
    }
}

/// The keys of one filter, as a [`FilterPolicy`] is given them: a builder's, held as leveldb's
/// builder holds them (one buffer of their bytes, and where each key ends), a range of
/// [`PackedKeys`], or any slice of keys ([`BlockKeys::new`]), which a policy wrapping another
/// hands to it.
#[derive(Clone, Copy, Debug)]
pub struct BlockKeys<'a>(Stored<'a>);

#[derive(Clone, Copy, Debug)]
enum Stored<'a> {
    /// Keys back to back in one buffer: a builder's, or the caller's.
    Packed(PackedKeys<'a>),
    /// Keys from [`BlockKeys::new`].
    Slices(&'a [&'a [u8]]),
}

impl<'a> BlockKeys<'a> {
    /// `keys`, in order, as the keys of one filter: what a policy wrapping another hands it,
    /// as leveldb's `InternalFilterPolicy` hands its user policy each key less its 8-byte tag.
    ///
    /// ```
    /// use leveldb_bloom::{BlockKeys, FilterBlockError, FilterPolicy};
    ///
    /// /// leveldb's InternalFilterPolicy (db/dbformat.cc): filters of user keys, for a table's
    /// /// internal keys (a user key, then 8 bytes of sequence number and type).
    /// struct InternalFilterPolicy<P>(P);
    ///
    /// fn user_key(internal_key: &[u8]) -> &[u8] {
    ///     &internal_key[..internal_key.len() - 8]
    /// }
    ///
    /// impl<P: FilterPolicy> FilterPolicy for InternalFilterPolicy<P> {
    ///     fn create_filter(
    ///         &self,
    ///         keys: BlockKeys<'_>,
    ///         dst: &mut Vec<u8>,
    ///     ) -> Result<(), FilterBlockError> {
    ///         let user_keys: Vec<&[u8]> = keys.into_iter().map(user_key).collect();
    ///         self.0.create_filter(BlockKeys::new(&user_keys), dst)
    ///     }
    ///
    ///     fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
    ///         self.0.key_may_match(user_key(key), filter)
    ///     }
    /// }
    ///
    /// // A table's block of internal keys holds the filters of their user keys.
    /// let policy = leveldb_bloom::BloomPolicy::new(10);
    /// let mut internal = leveldb_bloom::FilterBlockBuilder::new(InternalFilterPolicy(policy));
    /// let mut user = leveldb_bloom::FilterBlockBuilder::new(policy);
    /// for (key, sequence) in [(&b"apple"[..], 7u64), (b"banana", 8)] {
    ///     internal.add_key(&[key, &(sequence << 8 | 1).to_le_bytes()].concat())?;
    ///     user.add_key(key)?;
    /// }
    /// assert_eq!(internal.finish()?, user.finish()?);
    /// # Ok::<(), FilterBlockError>(())
    /// ```
    #[must_use]
    pub fn new(keys: &'a [&'a [u8]]) -> Self {
        BlockKeys(Stored::Slices(keys))
    }

    /// A builder's keys: their bytes back to back, and where each ends (ascending, the last at
    /// most `bytes.len()`).
    pub(crate) fn packed(bytes: &'a [u8], ends: &'a [usize]) -> Self {
        BlockKeys(Stored::Packed(PackedKeys {
            bytes,
            start: 0,
            ends,
            suffix: 0,
        }))
    }

    /// How many keys there are, duplicates included.
    #[must_use]
    pub fn len(&self) -> usize {
        match self.0 {
            Stored::Packed(keys) => keys.len(),
            Stored::Slices(keys) => keys.len(),
        }
    }

    /// Whether there are no keys.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The keys in the order they were added.
    #[must_use]
    pub fn iter(&self) -> BlockKeysIter<'a> {
        BlockKeysIter(match self.0 {
            Stored::Packed(keys) => KeysIter::Packed(keys.iter()),
            Stored::Slices(keys) => KeysIter::Slices(keys.iter()),
        })
    }
}

impl<'a> IntoIterator for BlockKeys<'a> {
    type Item = &'a [u8];
    type IntoIter = BlockKeysIter<'a>;

    fn into_iter(self) -> BlockKeysIter<'a> {
        self.iter()
    }
}

/// The keys of a [`BlockKeys`], in order: [`BlockKeys::iter`].
#[derive(Clone, Debug)]
pub struct BlockKeysIter<'a>(KeysIter<'a>);

#[derive(Clone, Debug)]
enum KeysIter<'a> {
    Packed(PackedIter<'a>),
    Slices(std::slice::Iter<'a, &'a [u8]>),
}

impl<'a> Iterator for BlockKeysIter<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        match &mut self.0 {
            KeysIter::Packed(keys) => keys.next(),
            KeysIter::Slices(keys) => keys.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.0 {
            KeysIter::Packed(keys) => keys.size_hint(),
            KeysIter::Slices(keys) => keys.size_hint(),
        }
    }
}

impl ExactSizeIterator for BlockKeysIter<'_> {}

impl std::iter::FusedIterator for BlockKeysIter<'_> {}

/// Keys back to back in one buffer, as a table reader decodes a table's keys, each filtered less
/// the same number of last bytes (a database's internal keys less their 8-byte tag, as leveldb's
/// `InternalFilterPolicy` strips it): [`FilterBlockBuilder::build_packed`] builds their filter
/// block where they are, with no copy of them.
#[derive(Clone, Copy, Debug)]
pub struct PackedKeys<'a> {
    bytes: &'a [u8],
    /// Where the first key starts in `bytes`.
    start: usize,
    /// Where each key ends in `bytes`, its suffix included.
    ends: &'a [usize],
    /// How many last bytes of each key are not filtered.
    suffix: usize,
}

impl<'a> PackedKeys<'a> {
    /// The keys in `bytes`, the first starting at 0 and each ending where `ends` says, filtered
    /// less their last `suffix` bytes. None unless `ends` ascend, the last is at most
    /// `bytes.len()`, and each key is at least `suffix` bytes long.
    ///
    /// ```
    /// use leveldb_bloom::PackedKeys;
    ///
    /// // "apple" and "cherry", each with a 2-byte suffix that is not filtered.
    /// let keys = PackedKeys::new(b"apple..cherry..", &[7, 15], 2).unwrap();
    /// assert_eq!(keys.len(), 2);
    /// assert!(PackedKeys::new(b"apple..cherry..", &[7, 8], 2).is_none());
    /// ```
    #[must_use]
    pub fn new(bytes: &'a [u8], ends: &'a [usize], suffix: usize) -> Option<Self> {
        let mut start = 0;
        for &end in ends {
            if end.checked_sub(start)? < suffix {
                return None;
            }
            start = end;
        }
        (start <= bytes.len()).then_some(PackedKeys {
            bytes,
            start: 0,
            ends,
            suffix,
        })
    }

    /// How many keys there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there are no keys.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The keys `range` of these, as the keys of one filter.
    fn range(&self, range: std::ops::Range<usize>) -> BlockKeys<'a> {
        let start = match range.start.checked_sub(1) {
            Some(before) => self.ends[before],
            None => self.start,
        };
        BlockKeys(Stored::Packed(PackedKeys {
            start,
            ends: &self.ends[range],
            ..*self
        }))
    }

    fn iter(&self) -> PackedIter<'a> {
        PackedIter {
            bytes: self.bytes,
            ends: self.ends.iter(),
            start: self.start,
            suffix: self.suffix,
        }
    }
}

/// Packed keys, read from their buffer.
#[derive(Clone, Debug)]
struct PackedIter<'a> {
    bytes: &'a [u8],
    ends: std::slice::Iter<'a, usize>,
    start: usize,
    suffix: usize,
}

impl<'a> Iterator for PackedIter<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let end = *self.ends.next()?;
        let key = &self.bytes[self.start..end - self.suffix];
        self.start = end;
        Some(key)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

/// How each filter of a block is built and tested: leveldb's `FilterPolicy`. [`BloomPolicy`]
/// implements it (leveldb's built-in bloom filter), and so does a C policy of callbacks in the
/// C API; so does a reference to, a `Box` or an `Arc` of any policy, `dyn FilterPolicy`
/// included.
pub trait FilterPolicy {
    /// Appends the filter for `keys` to `dst`, as leveldb's `CreateFilter`.
    ///
    /// # Errors
    /// If no filter can be built; `dst` must then be as it was.
    fn create_filter(&self, keys: BlockKeys<'_>, dst: &mut Vec<u8>)
    -> Result<(), FilterBlockError>;

    /// Whether `key` may be in the set `filter` was built from: leveldb's `KeyMayMatch`.
    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool;

    /// [`FilterPolicy::key_may_match`] for each of `keys` against one filter, into `results`.
    /// Keys are slices here, where the rest of the API takes any `AsRef<[u8]>`, so that the
    /// trait can be a `dyn FilterPolicy`.
    ///
    /// # Panics
    /// If `results` is not as long as `keys`, with the message every batch query of this crate
    /// gives; an implementation of its own should panic likewise, as the default one does.
    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        check_one_result_per_key(keys.len(), results.len());
        for (key, result) in keys.iter().zip(results) {
            *result = self.key_may_match(key, filter);
        }
    }
}

/// A policy behind a pointer is the policy.
macro_rules! forward_filter_policy {
    ($($pointer:ty),+) => {$(
        impl<P: FilterPolicy + ?Sized> FilterPolicy for $pointer {
            fn create_filter(
                &self,
                keys: BlockKeys<'_>,
                dst: &mut Vec<u8>,
            ) -> Result<(), FilterBlockError> {
                (**self).create_filter(keys, dst)
            }

            fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
                (**self).key_may_match(key, filter)
            }

            fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
                (**self).key_may_match_batch(keys, filter, results);
            }
        }
    )+};
}

forward_filter_policy!(&P, Box<P>, std::rc::Rc<P>, std::sync::Arc<P>);

impl FilterPolicy for BloomPolicy {
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        let len = self
            .filter_len(keys.len())
            .ok_or(FilterBlockError::OutOfMemory)?;
        dst.try_reserve(len)?;
        let start = dst.len();
        dst.resize(start + len, 0);
        // The keys in place, read a chunk at a time: no list of them is made. Each kind of
        // keys with its own iterator, so that reading a key takes no branch on the kind.
        let out = &mut dst[start..];
        match keys.0 {
            Stored::Packed(keys) => self.fill_filter_from(keys.iter(), out),
            Stored::Slices(keys) => self.fill_filter_from(keys.iter().copied(), out),
        };
        Ok(())
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        crate::policy::key_may_match(key, filter)
    }

    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        check_one_result_per_key(keys.len(), results.len());
        bulk::may_match_batch(Isa::best(), keys.iter().copied(), filter, results);
    }
}

mod builder;
mod reader;
#[cfg(test)]
mod tests;

pub use builder::FilterBlockBuilder;
pub use reader::FilterBlockReader;
