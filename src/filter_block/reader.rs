//! leveldb's `FilterBlockReader`.

use super::FilterPolicy;
use crate::block_format::{Layout, Lookup};

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
