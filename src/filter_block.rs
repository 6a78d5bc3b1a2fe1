//! The Rust API of leveldb's filter blocks (`table/filter_block.cc`, leveldb 1.23): the block a
//! table stores with one filter per 2 KB of data-block offsets. [`FilterBlockBuilder`] writes
//! leveldb's bytes for the same calls, [`FilterBlockReader`] answers as leveldb's reader for any
//! bytes; both take a [`FilterPolicy`] that builds and tests each filter.

use std::fmt;

use crate::block_format::{Layout, Lookup, append_trailer, filter_index, trailer_len};
use crate::bulk;
use crate::dispatch::Isa;
use crate::policy::BloomPolicy;

/// Why a [`FilterBlockBuilder`] call failed; the builder is as it was before the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterBlockError {
    /// [`FilterBlockBuilder::start_block`] with an offset in an earlier 2 KB range than the
    /// previous call's (leveldb asserts).
    OffsetBackwards { block_offset: u64 },
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
    #[must_use]
    pub fn len(&self) -> usize {
        self.ends.len()
    }

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

/// leveldb's `FilterBlockBuilder`: the same bytes for the same calls, `(start_block add_key*)*
/// finish`. Keys are kept in one buffer until their filter is built, as leveldb keeps them.
#[derive(Debug)]
pub struct FilterBlockBuilder<P> {
    policy: P,
    /// The pending keys' bytes, and where each ends.
    keys: Vec<u8>,
    key_ends: Vec<usize>,
    /// The filters built so far.
    result: Vec<u8>,
    /// Where each filter starts in `result`, as leveldb's `uint32_t` keeps it.
    filter_offsets: Vec<u32>,
}

impl<P: FilterPolicy> FilterBlockBuilder<P> {
    #[must_use]
    pub fn new(policy: P) -> Self {
        FilterBlockBuilder {
            policy,
            keys: Vec::new(),
            key_ends: Vec::new(),
            result: Vec::new(),
            filter_offsets: Vec::new(),
        }
    }

    /// The data block at `block_offset` starts: the filters of every 2 KB range before its own
    /// are built, the first from the keys added so far, the others empty.
    ///
    /// # Errors
    /// [`FilterBlockError::OffsetBackwards`] if `block_offset` is in an earlier 2 KB range than
    /// the previous call's; [`FilterBlockError::OutOfMemory`], or the policy's error. The builder
    /// is unchanged then.
    pub fn start_block(&mut self, block_offset: u64) -> Result<(), FilterBlockError> {
        let index = filter_index(block_offset);
        let built = self.filter_offsets.len() as u64;
        if index < built {
            return Err(FilterBlockError::OffsetBackwards { block_offset });
        }
        if index == built {
            return Ok(());
        }
        let new = usize::try_from(index - built).map_err(|_| FilterBlockError::OutOfMemory)?;
        // Reserved first, so that a failure changes nothing.
        self.filter_offsets.try_reserve(new)?;
        self.generate_filter()?;
        // The rest are empty: each starts where the filters built so far end.
        let offset = self.result.len() as u32;
        self.filter_offsets
            .resize(self.filter_offsets.len() + new - 1, offset);
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
        Ok(self.result)
    }

    /// [`FilterBlockBuilder::finish`] for a builder that outlives its block (the C API's):
    /// `copy` takes the block out. If it cannot (None), or on an error, the builder is left to
    /// be finished again, with the same block.
    #[cfg(feature = "leveldb-c-api")]
    pub(crate) fn finish_into<T>(
        &mut self,
        copy: impl FnOnce(&[u8]) -> Option<T>,
    ) -> Result<T, FilterBlockError> {
        let trailer_at = self.complete()?;
        copy(&self.result).ok_or_else(|| {
            self.result.truncate(trailer_at);
            FilterBlockError::OutOfMemory
        })
    }

    /// Builds the pending keys' filter and appends the trailer to the filters; returns where
    /// the trailer starts. On error the trailer is not there, and the pending filter is built
    /// or not: either way, the same block comes of finishing.
    fn complete(&mut self) -> Result<usize, FilterBlockError> {
        if !self.key_ends.is_empty() {
            self.filter_offsets.try_reserve(1)?;
            self.generate_filter()?;
        }
        let trailer =
            trailer_len(self.filter_offsets.len()).ok_or(FilterBlockError::OutOfMemory)?;
        self.result.try_reserve_exact(trailer)?;
        let trailer_at = self.result.len();
        append_trailer(&mut self.result, &self.filter_offsets);
        Ok(trailer_at)
    }

    /// leveldb's `GenerateFilter`: the filter of the pending keys (none: an empty one) and its
    /// offset. The caller has reserved room for the offset.
    fn generate_filter(&mut self) -> Result<(), FilterBlockError> {
        // leveldb's `uint32_t` takes the low 32 bits of the position.
        let offset = self.result.len() as u32;
        if !self.key_ends.is_empty() {
            let keys = BlockKeys {
                bytes: &self.keys,
                ends: &self.key_ends,
            };
            self.policy.create_filter(keys, &mut self.result)?;
            self.keys.clear();
            self.key_ends.clear();
        }
        self.filter_offsets.push(offset);
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

/// leveldb's `FilterBlockReader`: answers `KeyMayMatch(block_offset, key)` exactly as leveldb
/// does for any contents, corrupt ones included; errors are treated as potential matches.
#[derive(Debug)]
pub struct FilterBlockReader<'a, P> {
    policy: P,
    contents: &'a [u8],
    layout: Layout,
}

impl<'a, P: FilterPolicy> FilterBlockReader<'a, P> {
    #[must_use]
    pub fn new(policy: P, contents: &'a [u8]) -> Self {
        FilterBlockReader {
            policy,
            contents,
            layout: Layout::parse(contents),
        }
    }

    /// Whether `key` may be in the data block at `block_offset`: false only if its filter says
    /// it certainly is not.
    #[must_use]
    #[inline]
    pub fn key_may_match(&self, block_offset: u64, key: &[u8]) -> bool {
        match self.layout.lookup(self.contents, block_offset) {
            Lookup::Filter { start, limit, .. } => {
                self.policy.key_may_match(key, &self.contents[start..limit])
            }
            Lookup::Answer(answer) => answer,
        }
    }

    /// [`FilterBlockReader::key_may_match`] for each pair of `block_offsets[i]` and `keys[i]`,
    /// into `results[i]`. Each run of keys of one filter, as they come, is tested in one batch
    /// of the policy's: keys in block order (as a sorted set of keys lies in a table) in runs
    /// of a block's keys; keys in random order one by one, which is as fast as reordering them
    /// would make them (see docs/PERFORMANCE.md, Filter blocks).
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn key_may_match_batch(&self, block_offsets: &[u64], keys: &[&[u8]], results: &mut [bool]) {
        assert_eq!(block_offsets.len(), keys.len(), "one block offset per key");
        assert_eq!(results.len(), keys.len(), "one result per key");
        let mut start = 0;
        while start < keys.len() {
            let filter = self.layout.filter_index(block_offsets[start]);
            let run = block_offsets[start..]
                .iter()
                .take_while(|&&offset| self.layout.filter_index(offset) == filter)
                .count();
            let end = start + run;
            self.run(
                block_offsets[start],
                &keys[start..end],
                &mut results[start..end],
            );
            start = end;
        }
    }

    /// Answers `keys`, all of the filter of `block_offset`: the policy's batch, or its single
    /// queries for a few keys.
    fn run(&self, block_offset: u64, keys: &[&[u8]], results: &mut [bool]) {
        match self.layout.lookup(self.contents, block_offset) {
            Lookup::Filter { start, limit, .. } => {
                let filter = &self.contents[start..limit];
                if keys.len() < MIN_BATCH {
                    for (key, result) in keys.iter().zip(results) {
                        *result = self.policy.key_may_match(key, filter);
                    }
                } else {
                    self.policy.key_may_match_batch(keys, filter, results);
                }
            }
            Lookup::Answer(answer) => results.fill(answer),
        }
    }
}

/// Runs of fewer keys of one filter are answered by single queries: a batch hashes keys a
/// vector of them at a time, and a vector of a few keys costs more than their single queries
/// (see docs/PERFORMANCE.md, Filter blocks).
const MIN_BATCH: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    fn bloom_block(calls: &[(u64, &[&[u8]])]) -> Vec<u8> {
        let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
        for &(offset, keys) in calls {
            builder.start_block(offset).unwrap();
            for key in keys {
                builder.add_key(key).unwrap();
            }
        }
        builder.finish().unwrap()
    }

    // After leveldb's filter_block_test.cc (its calls, with the bloom policy for its test one).
    #[test]
    fn empty_builder_is_the_bare_trailer() {
        let block = FilterBlockBuilder::new(BloomPolicy::new(10))
            .finish()
            .unwrap();
        assert_eq!(block, [0, 0, 0, 0, 11]);
        let reader = FilterBlockReader::new(BloomPolicy::new(10), &block);
        assert!(reader.key_may_match(0, b"foo"));
        assert!(reader.key_may_match(100_000, b"foo"));
    }

    #[test]
    fn multi_chunk_layout_and_answers() {
        let block = bloom_block(&[
            (0, &[b"foo", b"bar"]),
            (2000, &[b"box"]),
            (3100, &[b"box"]),
            (9000, &[b"hello"]),
        ]);
        let reader = FilterBlockReader::new(BloomPolicy::new(10), &block);
        let layout = Layout::parse(&block);
        // Filters 0 (foo, bar, box), 1 (box), 2 and 3 empty; "hello" is pending at finish: 4.
        assert_eq!(layout.num_filters(), 5);
        for (offset, key) in [
            (0, &b"foo"[..]),
            (2000, b"bar"),
            (3100, b"box"),
            (9000, b"hello"),
        ] {
            assert!(reader.key_may_match(offset, key));
        }
        assert!(!reader.key_may_match(4100, b"foo"));
        assert!(!reader.key_may_match(6100, b"box"));
        // Past the last filter: a match.
        assert!(reader.key_may_match(20_000, b"anything"));
    }

    #[test]
    fn backwards_offsets_fail_and_change_nothing() {
        let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
        builder.start_block(5000).unwrap();
        builder.add_key(b"a").unwrap();
        // 4200 is in 5000's range: allowed, as leveldb allows it.
        builder.start_block(4200).unwrap();
        assert_eq!(
            builder.start_block(3000),
            Err(FilterBlockError::OffsetBackwards { block_offset: 3000 })
        );
        builder.start_block(7000).unwrap();
        let block = builder.finish().unwrap();
        assert_eq!(
            block,
            bloom_block(&[(5000, &[b"a"]), (4200, &[]), (7000, &[])])
        );
    }

    #[test]
    fn start_block_past_memory_fails_and_changes_nothing() {
        let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
        builder.add_key(b"a").unwrap();
        assert_eq!(
            builder.start_block(u64::MAX),
            Err(FilterBlockError::OutOfMemory)
        );
        assert_eq!(builder.finish().unwrap(), bloom_block(&[(0, &[b"a"])]));
    }

    #[test]
    fn batches_answer_as_single_queries_in_any_order() {
        let keys: Vec<Vec<u8>> = (0..300u32)
            .map(|i| format!("key{i}").into_bytes())
            .collect();
        let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
        for (i, key) in keys.iter().enumerate() {
            if i % 10 == 0 {
                builder.start_block(i as u64 * 300).unwrap();
            }
            builder.add_key(key).unwrap();
        }
        let mut block = builder.finish().unwrap();
        // One offset pointing past the array: a few lookups answer without the policy.
        let policy = BloomPolicy::new(10);
        for corrupt in [false, true] {
            if corrupt {
                let at = Layout::parse(&block).num_filters() / 2;
                let array = block.len() - 5 - 4 * Layout::parse(&block).num_filters();
                block[array + 4 * at..array + 4 * at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            }
            let reader = FilterBlockReader::new(policy, &block);
            // Every key at its own block, then shuffled, with absent keys and offsets past the end.
            let mut queries: Vec<(u64, Vec<u8>)> = Vec::new();
            for (i, key) in keys.iter().enumerate() {
                let offset = (i / 10) as u64 * 3000;
                queries.push((offset, key.clone()));
                queries.push((offset, format!("absent{i}").into_bytes()));
            }
            queries.push((u64::MAX, b"x".to_vec()));
            for in_order in [true, false] {
                if !in_order {
                    // A fixed permutation.
                    let n = queries.len();
                    queries = (0..n).map(|i| queries[(i * 7919) % n].clone()).collect();
                }
                let offsets: Vec<u64> = queries.iter().map(|q| q.0).collect();
                let query_keys: Vec<&[u8]> = queries.iter().map(|q| q.1.as_slice()).collect();
                let mut results = vec![false; queries.len()];
                reader.key_may_match_batch(&offsets, &query_keys, &mut results);
                for ((offset, key), result) in queries.iter().zip(&results) {
                    assert_eq!(*result, reader.key_may_match(*offset, key));
                }
            }
        }
    }
}
