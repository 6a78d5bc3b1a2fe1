//! rusty-leveldb's `FilterPolicy` for [`BloomPolicy`] (cargo feature `rusty-leveldb`): a
//! rusty-leveldb database given `Rc::new(Box::new(BloomPolicy::new(10)))` as its
//! `Options::filter_policy` writes leveldb's filters, built by this library's kernels, and
//! answers every query as leveldb does.
//!
//! rusty-leveldb finds a table's filter block by the policy's name, so tables written by either
//! leveldb are read with their filters. Its own `BloomPolicy` writes the same filters, but on
//! every filter shorter than 2 bytes, where leveldb answers "no", it answers "may match" or
//! divides by zero (tests/rusty_leveldb.rs).

use crate::format::POLICY_NAME;
use crate::policy::{BloomPolicy, key_may_match};

impl rusty_leveldb::FilterPolicy for BloomPolicy {
    fn name(&self) -> &'static str {
        POLICY_NAME
    }

    /// leveldb's `CreateFilter` of the keys rusty-leveldb holds end to end in `keys`, each
    /// starting at its entry of `key_offsets` and ending where the next starts: read there,
    /// without a list of them made.
    ///
    /// # Panics
    /// If the offsets are out of order or one lies past the end of `keys` (rusty-leveldb never
    /// passes such offsets; its own policy panics too), or if the filter does not fit in memory
    /// (rusty-leveldb's signature cannot report it).
    fn create_filter(&self, keys: &[u8], key_offsets: &[usize]) -> Vec<u8> {
        let each_key = key_offsets.iter().enumerate().map(|(i, &start)| {
            let end = key_offsets.get(i + 1).copied().unwrap_or(keys.len());
            &keys[start..end]
        });
        let mut filter = Vec::new();
        self.append_filter(each_key, &mut filter);
        filter
    }

    /// leveldb's `KeyMayMatch`, for any filter bytes; see [`key_may_match`].
    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        key_may_match(key, filter)
    }
}
