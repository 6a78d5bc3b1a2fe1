//! `leveldb_bloom_filterpolicy_create_filter`: a filter built into a `malloc`ed buffer.

use std::ffi::{c_char, c_int};
use std::ptr;

use crate::dispatch::Isa;
use crate::ffi::checks::borrow_array;
use crate::ffi::filterpolicy::{PolicyKind, leveldb_bloom_filterpolicy_t, recognize_current};
use crate::ffi::key_arrays::{KeyArrays, KeyEntries, PointersAndLengths};
use crate::no_unwind::ffi_boundary;
use crate::policy::BloomPolicy;

/// The key arrays of a C `create_filter` call; `None` if they cannot describe `num_keys` keys: a
/// negative count, or a NULL array with keys in it. The keys themselves are checked as they are
/// read.
///
/// # Safety
/// Non-NULL arrays must hold `num_keys` entries.
unsafe fn create_filter_keys<'a>(
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
) -> Option<PointersAndLengths<'a>> {
    let n = usize::try_from(num_keys).ok()?;
    // SAFETY: per the contract.
    unsafe {
        Some(PointersAndLengths {
            pointers: borrow_array(key_array, n)?,
            lengths: borrow_array(key_length_array, n)?,
        })
    }
}

/// Builds the filter for `num_keys` keys (key `i` is `key_length_array[i]` bytes at
/// `key_array[i]`; duplicates allowed) and returns it in a `malloc`ed buffer, storing its length
/// in `*filter_length`. Release it with `leveldb_bloom_free` (or `free`). Same shape as leveldb's
/// `create_filter` callback; a custom policy's callback is called with these arguments once they
/// pass the checks below.
///
/// Returns NULL, with `*filter_length` set to 0 when `filter_length` is not NULL, for: a NULL
/// policy or one this library did not make; a NULL `filter_length`; `num_keys < 0`; a NULL
/// `key_array` or `key_length_array` with `num_keys > 0`; a NULL key with a length above 0; a
/// filter too large to allocate. A NULL key with length 0 is the empty key.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too (a custom policy's callbacks must
/// allow that).
///
/// # Safety
/// Non-NULL arrays must hold `num_keys` entries, each non-NULL key its length in readable bytes;
/// `policy` must be NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterpolicy_create_filter(
    policy: *const leveldb_bloom_filterpolicy_t,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: checked non-NULL; writable per the contract.
        let Some(filter_length) = (unsafe { filter_length.as_mut() }) else {
            return ptr::null_mut();
        };
        *filter_length = 0;
        // SAFETY: per the contract.
        let Some(policy) = (unsafe { recognize_current(policy) }) else {
            return ptr::null_mut();
        };
        // SAFETY: per the contract.
        let Some(keys) = (unsafe { create_filter_keys(key_array, key_length_array, num_keys) })
        else {
            return ptr::null_mut();
        };
        match &policy.kind {
            // SAFETY: per the contract.
            PolicyKind::Bloom(bloom) => unsafe { bloom_filter_malloc(bloom, keys, filter_length) },
            PolicyKind::Custom(_) if !keys.all_valid(Isa::best()) => ptr::null_mut(),
            PolicyKind::Custom(custom) => {
                // SAFETY: arguments checked.
                let filter = unsafe {
                    custom.create_filter(key_array, key_length_array, num_keys, filter_length)
                };
                if filter.is_null() {
                    *filter_length = 0;
                }
                filter
            }
        }
    })
}

/// Builds a bloom filter straight into a `malloc`ed buffer, so C can `free` it; NULL if the
/// filter cannot be allocated or a key cannot exist.
///
/// # Safety
/// Each key that `can_borrow` accepts must point to its length in readable bytes.
unsafe fn bloom_filter_malloc(
    bloom: &BloomPolicy,
    keys: PointersAndLengths<'_>,
    filter_length: &mut usize,
) -> *mut c_char {
    let Some(len) = bloom.filter_len(keys.count()) else {
        return ptr::null_mut();
    };
    // SAFETY: malloc has no preconditions; NULL is handled.
    let buffer = unsafe { libc::malloc(len) }.cast::<u8>();
    if buffer.is_null() {
        return ptr::null_mut();
    }
    // SAFETY: `buffer` holds `len` bytes we own until returning it; `fill_filter` writes them all.
    let out = unsafe { std::slice::from_raw_parts_mut(buffer, len) };
    // SAFETY: per this function's contract.
    let mut key_arrays = unsafe { KeyArrays::new(Isa::best(), keys) };
    // Always written: a filter's length is 9 bytes or more.
    let written = bloom.fill_filter_from(&mut key_arrays, out);
    // The keys were checked as they were read, a chunk at a time: one that cannot exist fails
    // the call, and the filter written so far is dropped.
    if !written || !key_arrays.all_read_valid() {
        // SAFETY: `buffer` came from malloc and is not returned.
        unsafe { libc::free(buffer.cast()) };
        return ptr::null_mut();
    }
    *filter_length = len;
    buffer.cast::<c_char>()
}
