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
    let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
    let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
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
    assert!(!filter.is_null(), "out of memory copying leveldb's filter");
    // SAFETY: the adapter returns `len` malloc'ed bytes, freed right after the copy.
    let copy = unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) }.to_vec();
    // leveldb_free is libc free.
    unsafe { leveldb_bloom::ffi::leveldb_free(filter.cast()) };
    copy
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
