//! The Rust API of leveldb's filter blocks (`table/filter_block.cc`, leveldb 1.23): the block a
//! table stores with one filter per 2 KB of data-block offsets. [`FilterBlockBuilder`] writes
//! leveldb's bytes for the same calls, [`FilterBlockReader`] answers as leveldb's reader for any
//! bytes; both take a [`FilterPolicy`] that builds and tests each filter.

use std::fmt;

use crate::bulk;
use crate::dispatch::Isa;
use crate::policy::BloomPolicy;

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
    /// Memory ran out.
    OutOfMemory,
    /// More keys for one filter than a C `int` counts (leveldb passes the count as one).
    TooManyKeys,
    /// The policy could not build a filter (a custom C policy's `create_filter` returned NULL).
    PolicyFailed,
}

impl fmt::Display for FilterBlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterBlockError::OffsetBackwards { block_offset } => write!(
                f,
                "block offset {block_offset} is in an earlier 2 KB range than the previous block's"
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

/// The keys of one filter, held as leveldb's builder holds them: one buffer of their bytes,
/// and where each key ends.
#[derive(Clone, Copy, Debug)]
pub struct BlockKeys<'a> {
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl<'a> BlockKeys<'a> {
    /// How many keys there are.
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether there is no key.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The keys in the order they were added.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [u8]> + use<'a> {
        let bytes = self.bytes;
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let key = &bytes[start..end];
            start = end;
            key
        })
    }
}

/// How each filter of a block is built and tested: leveldb's `FilterPolicy`. [`BloomPolicy`]
/// implements it (leveldb's built-in bloom filter), and so does a C policy of callbacks in the
/// C API.
pub trait FilterPolicy {
    /// Appends the filter for `keys` to `dst`, as leveldb's `CreateFilter`.
    ///
    /// # Errors
    /// If no filter can be built; `dst` must then be as it was.
    fn create_filter(&self, keys: BlockKeys<'_>, dst: &mut Vec<u8>)
    -> Result<(), FilterBlockError>;

    /// Whether `key` may be in the set `filter` was built from: leveldb's `KeyMayMatch`.
    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool;

    /// [`FilterPolicy::key_may_match`] for each of `keys` against one filter, into `results`
    /// (as long as `keys`).
    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        for (key, result) in keys.iter().zip(results) {
            *result = self.key_may_match(key, filter);
        }
    }
}

impl<P: FilterPolicy + ?Sized> FilterPolicy for &P {
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
        // The block's keys in place, read a chunk at a time: no list of them is made.
        self.fill_filter_from(keys.iter(), &mut dst[start..]);
        Ok(())
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        crate::policy::key_may_match(key, filter)
    }

    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        bulk::may_match_batch(Isa::best(), keys.iter().copied(), filter, results);
    }
}

mod builder;
mod reader;
#[cfg(test)]
mod tests;

pub use builder::FilterBlockBuilder;
pub use reader::FilterBlockReader;
