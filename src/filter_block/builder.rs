//! leveldb's `FilterBlockBuilder`.

use super::{BlockKeys, FilterBlockError, FilterPolicy, MAX_BLOCK_OFFSET, PackedKeys};
use crate::block_format::{append_trailer, filter_index, trailer_len};

/// leveldb's `FilterBlockBuilder`: the same bytes for the same calls, `(start_block add_key*)*
/// finish`. Keys are kept in one buffer until their filter is built, as leveldb keeps them.
#[derive(Debug)]
pub struct FilterBlockBuilder<P> {
    policy: P,
    /// The pending keys' bytes, and where each ends.
    keys: Vec<u8>,
    key_ends: Vec<usize>,
    filters: Filters,
}

impl<P: FilterPolicy> FilterBlockBuilder<P> {
    /// An empty block whose filters `policy` builds.
    #[must_use]
    pub fn new(policy: P) -> Self {
        FilterBlockBuilder {
            policy,
            keys: Vec::new(),
            key_ends: Vec::new(),
            filters: Filters::default(),
        }
    }

    /// The block a builder makes of `keys` with `start_block(block_offset)` called where
    /// `keys_before` of them have been added, for each of `starts` in order, then `finish`:
    /// from keys a caller already holds in one buffer (a table's, as a reader decodes them),
    /// which are not copied.
    ///
    /// ```
    /// use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, PackedKeys};
    ///
    /// // Two data blocks, at 0 ("apple") and at 3000 ("cherry"), which ends at 5000; each key
    /// // followed by 2 bytes that are not filtered.
    /// let policy = BloomPolicy::new(10);
    /// let keys = PackedKeys::new(b"apple..cherry..", &[7, 15], 2).unwrap();
    /// let block = FilterBlockBuilder::build_packed(policy, keys, [(0, 0), (3000, 1), (5000, 2)])?;
    ///
    /// let mut builder = FilterBlockBuilder::new(policy);
    /// builder.start_block(0)?;
    /// builder.add_key(b"apple")?;
    /// builder.start_block(3000)?;
    /// builder.add_key(b"cherry")?;
    /// builder.start_block(5000)?;
    /// assert_eq!(block, builder.finish()?);
    /// # Ok::<(), leveldb_bloom::FilterBlockError>(())
    /// ```
    ///
    /// # Errors
    /// As [`FilterBlockBuilder::start_block`]'s and [`FilterBlockBuilder::finish`]'s.
    ///
    /// # Panics
    /// If a `keys_before` is past the keys or less than the one before it.
    pub fn build_packed(
        policy: P,
        keys: PackedKeys<'_>,
        starts: impl IntoIterator<Item = (u64, usize)>,
    ) -> Result<Vec<u8>, FilterBlockError> {
        let mut filters = Filters::default();
        // The first key not in a filter yet, and the last start's keys_before.
        let (mut pending, mut added) = (0, 0);
        for (block_offset, keys_before) in starts {
            assert!(
                (added..=keys.len()).contains(&keys_before),
                "build_packed: keys_before {keys_before} is not in {added}..={}",
                keys.len()
            );
            added = keys_before;
            if filters.start_block(&policy, block_offset, keys.range(pending..added))? {
                pending = added;
            }
        }
        filters.flush(&policy, keys.range(pending..keys.len()))?;
        filters.append_trailer()?;
        Ok(filters.result)
    }

    /// The data block at `block_offset` starts: the filters of every 2 KB range before its own
    /// are built, the first from the keys added so far, the others empty.
    ///
    /// # Errors
    /// [`FilterBlockError::OffsetTooLarge`] if `block_offset` is past 2^63 - 1, the largest file
    /// offset; [`FilterBlockError::OffsetBackwards`] if it is in an earlier 2 KB range than the
    /// previous call's; [`FilterBlockError::OutOfMemory`], or the policy's error. The builder is
    /// unchanged then.
    pub fn start_block(&mut self, block_offset: u64) -> Result<(), FilterBlockError> {
        let pending = BlockKeys::packed(&self.keys, &self.key_ends);
        if self
            .filters
            .start_block(&self.policy, block_offset, pending)?
        {
            self.keys.clear();
            self.key_ends.clear();
        }
        Ok(())
    }

    /// Adds a key of the current data block.
    ///
    /// # Errors
    /// [`FilterBlockError::OutOfMemory`], or [`FilterBlockError::TooManyKeys`] past `i32::MAX`
    /// keys for one filter. The builder is unchanged then.
    #[inline]
    pub fn add_key(&mut self, key: &[u8]) -> Result<(), FilterBlockError> {
        // Room for the key, its end and the count: no call, so no registers saved on the way.
        if self.keys.capacity() - self.keys.len() < key.len()
            || self.key_ends.capacity() == self.key_ends.len()
            || self.key_ends.len() >= i32::MAX as usize
        {
            return self.add_key_growing(key);
        }
        append(&mut self.keys, key);
        self.key_ends.push(self.keys.len());
        Ok(())
    }

    /// [`FilterBlockBuilder::add_key`] when a buffer must grow, or the count is at its limit.
    #[cold]
    #[inline(never)]
    fn add_key_growing(&mut self, key: &[u8]) -> Result<(), FilterBlockError> {
        if self.key_ends.len() >= i32::MAX as usize {
            return Err(FilterBlockError::TooManyKeys);
        }
        self.keys.try_reserve(key.len())?;
        self.key_ends.try_reserve(1)?;
        append(&mut self.keys, key);
        self.key_ends.push(self.keys.len());
        Ok(())
    }

    /// The block: the filter of the keys still pending, if any, then the offset array, its
    /// offset and the base lg byte. Past 4 GiB of filters, offsets keep their low 32 bits, as
    /// leveldb's `uint32_t`s do, and the block cannot be read back (by leveldb either).
    ///
    /// # Errors
    /// [`FilterBlockError::OutOfMemory`], or the policy's error.
    pub fn finish(mut self) -> Result<Vec<u8>, FilterBlockError> {
        self.complete()?;
        Ok(self.filters.result)
    }

    /// [`FilterBlockBuilder::finish`] for a builder that outlives its block (the C API's):
    /// `copy` takes the block out. If it cannot (None), or on an error, the builder is left to
    /// be finished again, with the same block.
    pub(crate) fn finish_into<T>(
        &mut self,
        copy: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<T, FilterBlockError> {
        let trailer_at = self.complete()?;
        copy(&self.filters.result).ok_or_else(|| {
            self.filters.result.truncate(trailer_at);
            FilterBlockError::OutOfMemory
        })
    }

    /// Builds the pending keys' filter and appends the trailer to the filters; returns where
    /// the trailer starts. On error the trailer is not there, and the pending filter is built
    /// or not: either way, the same block comes of finishing.
    fn complete(&mut self) -> Result<usize, FilterBlockError> {
        let pending = BlockKeys::packed(&self.keys, &self.key_ends);
        if self.filters.flush(&self.policy, pending)? {
            self.keys.clear();
            self.key_ends.clear();
        }
        self.filters.append_trailer()
    }
}

/// The filters built so far and where each starts: what a builder and
/// [`FilterBlockBuilder::build_packed`] share, each calling with its pending keys.
#[derive(Debug, Default)]
struct Filters {
    result: Vec<u8>,
    /// Where each filter starts in `result`, as leveldb's `uint32_t` keeps it.
    offsets: Vec<u32>,
}

impl Filters {
    /// leveldb's `StartBlock` with the `pending` keys: true if their filter was built (then
    /// they are no longer pending), false if the block is in the same 2 KB range as the
    /// previous one. Errors as [`FilterBlockBuilder::start_block`]; nothing changes then.
    fn start_block(
        &mut self,
        policy: &impl FilterPolicy,
        block_offset: u64,
        pending: BlockKeys<'_>,
    ) -> Result<bool, FilterBlockError> {
        if block_offset > MAX_BLOCK_OFFSET {
            return Err(FilterBlockError::OffsetTooLarge { block_offset });
        }
        let index = filter_index(block_offset);
        let built = self.offsets.len() as u64;
        if index < built {
            return Err(FilterBlockError::OffsetBackwards { block_offset });
        }
        if index == built {
            return Ok(false);
        }
        let new = usize::try_from(index - built).map_err(|_| FilterBlockError::OutOfMemory)?;
        // Reserved first, so that a failure changes nothing.
        self.offsets.try_reserve(new)?;
        self.generate_filter(policy, pending)?;
        // The rest are empty: each starts where the filters built so far end.
        let offset = self.result.len() as u32;
        self.offsets.resize(self.offsets.len() + new - 1, offset);
        Ok(true)
    }

    /// The filter of the `pending` keys, if there are any: true if it was built.
    fn flush(
        &mut self,
        policy: &impl FilterPolicy,
        pending: BlockKeys<'_>,
    ) -> Result<bool, FilterBlockError> {
        if pending.is_empty() {
            return Ok(false);
        }
        self.offsets.try_reserve(1)?;
        self.generate_filter(policy, pending)?;
        Ok(true)
    }

    /// Appends the trailer to the filters; returns where it starts.
    fn append_trailer(&mut self) -> Result<usize, FilterBlockError> {
        let trailer = trailer_len(self.offsets.len()).ok_or(FilterBlockError::OutOfMemory)?;
        self.result.try_reserve_exact(trailer)?;
        let trailer_at = self.result.len();
        append_trailer(&mut self.result, &self.offsets);
        Ok(trailer_at)
    }

    /// leveldb's `GenerateFilter`: the filter of `keys` (none: an empty one) and its offset.
    /// The caller has reserved room for the offset.
    fn generate_filter(
        &mut self,
        policy: &impl FilterPolicy,
        keys: BlockKeys<'_>,
    ) -> Result<(), FilterBlockError> {
        // leveldb's `uint32_t` takes the low 32 bits of the position.
        let offset = self.result.len() as u32;
        if !keys.is_empty() {
            policy.create_filter(keys, &mut self.result)?;
        }
        self.offsets.push(offset);
        Ok(())
    }
}

/// Appends `key` to `keys`, which has room for it. Table keys are mostly 16 to 32 bytes: those
/// take two overlapping 16-byte moves, where `extend_from_slice` would call memcpy for each
/// (see docs/PERFORMANCE.md, Filter blocks).
#[inline(always)]
fn append(keys: &mut Vec<u8>, key: &[u8]) {
    let (len, at) = (key.len(), keys.len());
    debug_assert!(keys.capacity() - at >= len);
    if (16..=32).contains(&len) {
        // SAFETY: both moves read inside `key` (16 <= len) and write inside the room reserved
        // for it; every byte of at..at + len is written before the length covers it.
        unsafe {
            let (src, dst) = (key.as_ptr(), keys.as_mut_ptr().add(at));
            let head = src.cast::<[u8; 16]>().read_unaligned();
            let tail = src.add(len - 16).cast::<[u8; 16]>().read_unaligned();
            dst.cast::<[u8; 16]>().write_unaligned(head);
            dst.add(len - 16).cast::<[u8; 16]>().write_unaligned(tail);
            keys.set_len(at + len);
        }
    } else {
        keys.extend_from_slice(key);
    }
}
