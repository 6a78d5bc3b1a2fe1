//! leveldb's filter blocks (`table/filter_block.cc`) through the C API: either kind of
//! `leveldb_bloom_filterpolicy_t` as the policy of the builder
//! (`leveldb_bloom_filterblock_builder_*`, in filterblock_builder.rs) and of the reader
//! (`leveldb_bloom_filterblock_key_may_match` and its batch form, in filterblock_reader.rs).

use std::ffi::{c_char, c_int};

use crate::ffi::filterpolicy::{PolicyKind, leveldb_bloom_filterpolicy_t};
use crate::filter_block::{BlockKeys, FilterBlockError, FilterPolicy};
use crate::no_unwind::single_query;
use crate::policy::check_one_result_per_key;

impl FilterPolicy for leveldb_bloom_filterpolicy_t {
    /// The bloom policy's filter, or what a custom policy's `create_filter` callback returns,
    /// copied and freed.
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        let custom = match &self.kind {
            PolicyKind::Bloom(bloom) => return FilterPolicy::create_filter(bloom, keys, dst),
            PolicyKind::Custom(custom) => custom,
        };
        let num_keys = c_int::try_from(keys.len()).map_err(|_| FilterBlockError::TooManyKeys)?;
        let (mut pointers, mut lengths) = (Vec::new(), Vec::new());
        pointers.try_reserve_exact(keys.len())?;
        lengths.try_reserve_exact(keys.len())?;
        for key in keys.iter() {
            pointers.push(key.as_ptr().cast::<c_char>());
            lengths.push(key.len());
        }
        let mut len = 0;
        // SAFETY: both arrays hold `num_keys` entries describing live keys.
        let filter = unsafe {
            custom.create_filter(pointers.as_ptr(), lengths.as_ptr(), num_keys, &mut len)
        };
        if filter.is_null() {
            return Err(FilterBlockError::PolicyFailed);
        }
        // A length past isize::MAX cannot be reserved: it fails here, before any read.
        let appended = dst.try_reserve(len).map(|()| {
            // SAFETY: the callback returned `len` readable bytes at `filter`.
            dst.extend_from_slice(unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) });
        });
        // SAFETY: leveldb's contract: the callback's filter is malloc'ed, for its caller to free.
        unsafe { libc::free(filter.cast()) };
        Ok(appended?)
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        match &self.kind {
            PolicyKind::Bloom(_) => single_query(key, filter) != 0,
            // SAFETY: both slices live.
            PolicyKind::Custom(custom) => unsafe {
                custom.key_may_match(
                    key.as_ptr().cast(),
                    key.len(),
                    filter.as_ptr().cast(),
                    filter.len(),
                )
            },
        }
    }

    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        match &self.kind {
            PolicyKind::Bloom(bloom) => {
                FilterPolicy::key_may_match_batch(bloom, keys, filter, results);
            }
            PolicyKind::Custom(_) => {
                check_one_result_per_key(keys.len(), results.len());
                for (key, result) in keys.iter().zip(results) {
                    *result = self.key_may_match(key, filter);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use crate::ffi::filterblock_builder::*;
    use crate::ffi::filterblock_reader::*;
    use crate::ffi::filterpolicy::{
        leveldb_bloom_filterpolicy_create_bloom, leveldb_bloom_filterpolicy_destroy,
        leveldb_bloom_free,
    };

    // The C tests cover every bad-input row; these few run the same paths under `cargo miri test`.
    #[test]
    fn builder_and_reader_round_trip_and_refuse_bad_input() {
        let policy = leveldb_bloom_filterpolicy_create_bloom(10);
        // SAFETY: every pointer passed is NULL, a live local, or what an earlier call returned
        // and nothing has released yet; the block's length is what finish wrote.
        unsafe {
            let builder = leveldb_bloom_filterblock_builder_create(policy);
            assert!(!builder.is_null());
            // In order: a block, its key, a NULL key with a length, an offset before the block's.
            let added = [
                leveldb_bloom_filterblock_builder_start_block(builder, 5000),
                leveldb_bloom_filterblock_builder_add_key(builder, c"key".as_ptr(), 3),
                leveldb_bloom_filterblock_builder_add_key(builder, ptr::null(), 1),
                leveldb_bloom_filterblock_builder_start_block(builder, 100),
            ];
            assert_eq!(added, [1, 1, 0, 0]);
            let mut len = 7;
            let block = leveldb_bloom_filterblock_builder_finish(builder, &mut len);
            assert!(!block.is_null() && len > 5);
            assert!(leveldb_bloom_filterblock_builder_finish(builder, &mut len).is_null());
            assert_eq!(len, 0);
            let after_finish = leveldb_bloom_filterblock_builder_add_key(builder, c"k".as_ptr(), 1);
            assert_eq!(after_finish, 0);
            leveldb_bloom_filterblock_builder_destroy(builder);
            leveldb_bloom_filterblock_builder_destroy(ptr::null_mut());

            let block_len = 9 + 4 * 3 + 5;
            let answer = |offset, key: &std::ffi::CStr, key_len| {
                leveldb_bloom_filterblock_key_may_match(
                    policy,
                    block,
                    block_len,
                    offset,
                    key.as_ptr(),
                    key_len,
                )
            };
            assert_eq!(answer(4096, c"key", 3), 1);
            assert_eq!(answer(0, c"key", 3), 0);
            let (offsets, keys, lens) = (
                [0u64, 4096, 0],
                [c"key".as_ptr(), c"key".as_ptr(), ptr::null()],
                [3, 3, 1],
            );
            let mut results = [7u8; 3];
            leveldb_bloom_filterblock_key_may_match_batch(
                policy,
                block,
                block_len,
                offsets.as_ptr(),
                keys.as_ptr(),
                lens.as_ptr(),
                3,
                results.as_mut_ptr(),
            );
            assert_eq!(results, [0, 1, 1]);
            leveldb_bloom_free(block.cast());
            leveldb_bloom_filterpolicy_destroy(policy);
        }
    }
}
