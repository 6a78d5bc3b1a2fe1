//! leveldb's `FilterBlockReader` through the C API: `leveldb_bloom_filterblock_key_may_match`
//! and its batch form.

use std::ffi::c_char;

use crate::ffi::checks::{as_answers, batch_results, borrow_array, borrow_bytes};
use crate::ffi::filterpolicy::{leveldb_bloom_filterpolicy_t, recognize};
use crate::ffi::key_arrays::{KeyEntries, PointersAndLengths};
use crate::filter_block::FilterBlockReader;
use crate::no_unwind::ffi_boundary;

/// leveldb's `FilterBlockReader(policy, contents).KeyMayMatch(block_offset, key)`: whether the
/// key of `key_length` bytes at `key` may be in the data block at `block_offset`, by the filter
/// block of `contents_length` bytes at `contents`; 0 only if its filter says it certainly is
/// not. The answer equals leveldb 1.23's for any contents, corrupt ones included (errors are
/// potential matches; an empty filter range matches nothing). `policy` tests the filter: the
/// bloom policy as leveldb's, a custom policy by its `key_may_match` callback.
///
/// Returns 1 ("may match") for: a NULL policy or one this library did not make; a NULL
/// `contents` or `key` with a length above 0; a length above `PTRDIFF_MAX`. A NULL `contents` or
/// `key` with length 0 is empty.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too.
///
/// # Safety
/// A non-NULL `contents` and `key` must point to their length in readable bytes; `policy` must
/// be NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterblock_key_may_match(
    policy: *const leveldb_bloom_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offset: u64,
    key: *const c_char,
    key_length: usize,
) -> u8 {
    ffi_boundary!(1, {
        // SAFETY: per the contract.
        match unsafe {
            (
                recognize(policy),
                borrow_bytes(contents, contents_length),
                borrow_bytes(key, key_length),
            )
        } {
            (Some(policy), Some(contents), Some(key)) => FilterBlockReader::new(policy, contents)
                .key_may_match(block_offset, key)
                .into(),
            _ => 1,
        }
    })
}

/// Keys a C batch turns into slices at a time: a buffer that stays in cache, where one for all
/// the keys would take fresh pages on every call (docs/PERFORMANCE.md, Filter blocks).
const KEY_WINDOW: usize = 4096;

/// `leveldb_bloom_filterblock_key_may_match` for `num_keys` (block offset, key) pairs against one
/// filter block, in one call: `results[i]` (0 or 1) is its answer for the key of
/// `key_lengths[i]` bytes at `keys[i]` in the data block at `block_offsets[i]`, bad input
/// included. Each run of keys of one filter, as they come, is tested together: with the bloom
/// policy, keys in block order (as sorted keys lie in a table) are much faster than a loop of
/// single queries; keys in random order are as fast as that loop.
///
/// - NULL `results`, or `num_keys` 0 or above `PTRDIFF_MAX / 8`: nothing is written.
/// - NULL policy or one this library did not make; NULL `block_offsets`, `keys` or
///   `key_lengths`; NULL `contents` with `contents_length > 0`; memory running out: every result
///   is 1.
/// - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.
///
/// Every result is set to 1 before any work, so not even an internal failure yields a false
/// negative.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too, each with its own
/// `results`.
///
/// # Safety
/// A non-NULL `results` must have `num_keys` writable bytes; non-NULL `block_offsets`, `keys`
/// and `key_lengths` must hold `num_keys` entries, each non-NULL key its length in readable
/// bytes; a non-NULL `contents` must point to `contents_length` readable bytes; `policy` must be
/// NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterblock_key_may_match_batch(
    policy: *const leveldb_bloom_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offsets: *const u64,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    results: *mut u8,
) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let Some(results) = (unsafe { batch_results(results, num_keys) }) else {
            return;
        };
        // SAFETY: per the contract.
        let (Some(policy), Some(contents)) = (unsafe { recognize(policy) }, unsafe {
            borrow_bytes(contents, contents_length)
        }) else {
            return;
        };
        // SAFETY: `num_keys` entries each, per the contract.
        let (Some(block_offsets), Some(pointers), Some(lengths)) = (unsafe {
            (
                borrow_array(block_offsets, num_keys),
                borrow_array(keys, num_keys),
                borrow_array(key_lengths, num_keys),
            )
        }) else {
            return;
        };
        // The keys as slices, a window at a time.
        let mut keys: Vec<&[u8]> = Vec::new();
        if keys.try_reserve_exact(num_keys.min(KEY_WINDOW)).is_err() {
            return;
        }
        let reader = FilterBlockReader::new(policy, contents);
        let mut rest = PointersAndLengths { pointers, lengths };
        let windows = block_offsets
            .chunks(KEY_WINDOW)
            .zip(results.chunks_mut(KEY_WINDOW));
        for (block_offsets, window) in windows {
            let (entries, after) = rest.split(window.len());
            rest = after;
            keys.clear();
            // A key that cannot exist is tested as the empty key, and its result set back to 1.
            let mut any_invalid = false;
            keys.extend(entries.iter().map(|(key, len)| {
                // SAFETY: per the contract on each key.
                unsafe { borrow_bytes(key, len) }.unwrap_or_else(|| {
                    any_invalid = true;
                    &[]
                })
            }));
            // SAFETY: every byte of `window` is 1.
            let answers = unsafe { as_answers(window) };
            reader.key_may_match_batch(block_offsets, &keys, answers);
            if any_invalid {
                entries.answer_invalid(window);
            }
        }
    })
}
