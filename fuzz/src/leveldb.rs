//! leveldb itself, through leveldb_adapter.cc (compiled by build.rs when leveldb is installed).

use std::ffi::{c_char, c_int};

unsafe extern "C" {
    fn leveldb_adapter_create_filter(
        bits_per_key: c_int,
        keys: *const *const c_char,
        lengths: *const usize,
        num_keys: c_int,
        filter_length: *mut usize,
    ) -> *mut c_char;
    fn leveldb_adapter_key_may_match(
        key: *const c_char,
        length: usize,
        filter: *const c_char,
        filter_length: usize,
    ) -> c_int;
}

/// leveldb's `NewBloomFilterPolicy(bits_per_key)->CreateFilter(keys)`.
pub fn create_filter(bits_per_key: u32, keys: &[&[u8]]) -> Vec<u8> {
    let (ptrs, lens) = crate::c_key_arrays(keys);
    let mut len = 0;
    // SAFETY: both arrays hold keys.len() entries describing live keys.
    let filter = unsafe {
        leveldb_adapter_create_filter(
            bits_per_key.try_into().unwrap(),
            ptrs.as_ptr(),
            lens.as_ptr(),
            keys.len().try_into().unwrap(),
            &mut len,
        )
    };
    // SAFETY: the adapter's filters are malloc'ed, `len` bytes long.
    unsafe { crate::take_filter(filter, len, "the leveldb adapter") }
}

/// leveldb's `KeyMayMatch(key, filter)`.
pub fn key_may_match(key: &[u8], filter: &[u8]) -> bool {
    // SAFETY: the slices are live for the call.
    unsafe {
        leveldb_adapter_key_may_match(
            key.as_ptr().cast(),
            key.len(),
            filter.as_ptr().cast(),
            filter.len(),
        ) != 0
    }
}
