//! leveldb's `FilterBlockReader`.

use std::mem::MaybeUninit;

use super::FilterPolicy;
use crate::block_format::{Layout, Lookup};
use crate::policy::check_one_result_per_key;

/// leveldb's `FilterBlockReader`: answers `KeyMayMatch(block_offset, key)` exactly as leveldb
/// does for any contents, corrupt ones included; errors are treated as potential matches.
#[derive(Debug)]
pub struct FilterBlockReader<'a, P> {
    policy: P,
    contents: &'a [u8],
    layout: Layout,
}

impl<'a, P: FilterPolicy> FilterBlockReader<'a, P> {
    /// A reader of the block `contents`, whose filters `policy` queries.
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
    /// If `results` is not as long as `keys`, as every batch query of this crate; if
    /// `block_offsets` is not as long as `keys`.
    #[track_caller]
    pub fn key_may_match_batch<K: AsRef<[u8]>>(
        &self,
        block_offsets: &[u64],
        keys: &[K],
        results: &mut [bool],
    ) {
        check_one_result_per_key(keys.len(), results.len());
        assert!(
            block_offsets.len() == keys.len(),
            "key_may_match_batch: {} block offsets for {} keys; it needs one per key",
            block_offsets.len(),
            keys.len()
        );
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
    fn run<K: AsRef<[u8]>>(&self, block_offset: u64, keys: &[K], results: &mut [bool]) {
        match self.layout.lookup(self.contents, block_offset) {
            Lookup::Filter { start, limit, .. } => {
                let filter = &self.contents[start..limit];
                if keys.len() < MIN_BATCH {
                    for (key, result) in keys.iter().zip(results) {
                        *result = self.policy.key_may_match(key.as_ref(), filter);
                    }
                } else {
                    self.batch(keys, filter, results);
                }
            }
            Lookup::Answer(answer) => results.fill(answer),
        }
    }

    /// The policy's batch over `keys`, which it takes as slices (a `dyn FilterPolicy` cannot
    /// take keys of any type): a run of a block's keys made into slices on the stack, a longer
    /// one in one allocation, or on the stack a part at a time if that fails.
    fn batch<K: AsRef<[u8]>>(&self, keys: &[K], filter: &[u8], results: &mut [bool]) {
        let mut slices = Vec::new();
        if keys.len() > STACK_KEYS && slices.try_reserve_exact(keys.len()).is_ok() {
            slices.extend(keys.iter().map(AsRef::as_ref));
            return self.policy.key_may_match_batch(&slices, filter, results);
        }
        // Left uninitialized: filling 4 KB for each run would cost more than its keys' queries.
        let mut stack = [const { MaybeUninit::<&[u8]>::uninit() }; STACK_KEYS];
        for (keys, results) in keys.chunks(STACK_KEYS).zip(results.chunks_mut(STACK_KEYS)) {
            for (slot, key) in stack.iter_mut().zip(keys) {
                slot.write(key.as_ref());
            }
            // SAFETY: the first `keys.len()` slots (at most all of them) were written just above.
            let slices =
                unsafe { std::slice::from_raw_parts(stack.as_ptr().cast::<&[u8]>(), keys.len()) };
            self.policy.key_may_match_batch(slices, filter, results);
        }
    }
}

/// The keys of a run made into slices on the stack, 4 KB of them: more than a 2 KB or 4 KB data
/// block holds.
const STACK_KEYS: usize = 256;

/// Runs of fewer keys of one filter are answered by single queries: a batch hashes keys a
/// vector of them at a time, and a vector of a few keys costs more than their single queries
/// (see docs/PERFORMANCE.md, Filter blocks).
const MIN_BATCH: usize = 8;
