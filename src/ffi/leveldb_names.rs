//! leveldb's C API names (`leveldb_filterpolicy_*`, `leveldb_free`) and the extensions under
//! leveldb's prefix (`leveldb_filterblock_*`), built with the `leveldb-c-api` feature (a
//! default). Each is the `leveldb_bloom_*` function of the same name past the prefix, over the
//! same objects, except that where leveldb's own C API is loaded, `leveldb_filterpolicy_create`
//! and `_create_bloom` return an object of leveldb's (in_leveldb.rs).
//!
//! All in one module, so that a build without the feature has none of them, and the static
//! library keeps them in one object: linked with leveldb's `libleveldb.a` too, any of them
//! brings leveldb's names along, and the link stops at their clash.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::ffi::filterblock_builder::{
    leveldb_bloom_filterblock_builder_add_key, leveldb_bloom_filterblock_builder_create,
    leveldb_bloom_filterblock_builder_destroy, leveldb_bloom_filterblock_builder_finish,
    leveldb_bloom_filterblock_builder_start_block,
};
use crate::ffi::filterblock_reader::{
    leveldb_bloom_filterblock_key_may_match, leveldb_bloom_filterblock_key_may_match_batch,
};
use crate::ffi::filterpolicy::{
    leveldb_bloom_create_filter_fn, leveldb_bloom_destructor_fn, leveldb_bloom_filterpolicy_create,
    leveldb_bloom_filterpolicy_create_bloom, leveldb_bloom_filterpolicy_destroy,
    leveldb_bloom_filterpolicy_name, leveldb_bloom_free, leveldb_bloom_key_may_match_fn,
    leveldb_bloom_name_fn,
};
use crate::ffi::filterpolicy_create_filter::leveldb_bloom_filterpolicy_create_filter;
use crate::ffi::filterpolicy_key_may_match::{
    key_may_match, leveldb_bloom_filterpolicy_key_may_match_batch,
};
use crate::ffi::in_leveldb::for_leveldb;
use crate::no_unwind::ffi_boundary;

/// leveldb's filter policy type: a `leveldb_bloom_filterpolicy_t` of this library (the same
/// object, cast), or a policy of leveldb's own C API, which the functions here answer as bad
/// input. Opaque to C.
#[allow(non_camel_case_types)] // leveldb's C name, so one C file can include both headers
pub struct leveldb_filterpolicy_t {
    _opaque: [u8; 0],
}

/// A filter block builder under leveldb's prefix: a `leveldb_bloom_filterblock_builder_t`, cast.
/// Opaque to C.
#[allow(non_camel_case_types)]
pub struct leveldb_filterblock_builder_t {
    _opaque: [u8; 0],
}

/// leveldb's `leveldb_filterpolicy_create_bloom`: `leveldb_bloom_filterpolicy_create_bloom`,
/// with the same filters and bad input. Where leveldb's own C API is loaded in the process
/// (linked, or with `dlopen`), the policy is an object of leveldb's, made by leveldb's
/// `leveldb_filterpolicy_create` over this library's filter: leveldb's
/// `leveldb_options_set_filter_policy` can take it, and every function here takes it (looking
/// it up on each call: the `leveldb_bloom_*` functions with a `leveldb_bloom_filterpolicy_t` are
/// faster). Inside leveldb, a filter that memory cannot hold aborts the process, as leveldb's
/// own code does.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_filterpolicy_create_bloom(
    bits_per_key: c_int,
) -> *mut leveldb_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        let policy = leveldb_bloom_filterpolicy_create_bloom(bits_per_key);
        // SAFETY: a policy made just now.
        unsafe { for_leveldb(policy) }.cast()
    })
}

/// leveldb's `leveldb_filterpolicy_create`: `leveldb_bloom_filterpolicy_create`, with the same
/// rules for the callbacks and bad input. Where leveldb's own C API is loaded in the process,
/// the policy is an object of leveldb's over them, as `leveldb_filterpolicy_create_bloom` says.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_filterpolicy_create(
    state: *mut c_void,
    destructor: leveldb_bloom_destructor_fn,
    create_filter: leveldb_bloom_create_filter_fn,
    key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
) -> *mut leveldb_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        let policy = leveldb_bloom_filterpolicy_create(
            state,
            destructor,
            create_filter,
            key_may_match,
            name,
        );
        // SAFETY: a policy made just now.
        unsafe { for_leveldb(policy) }.cast()
    })
}

/// leveldb's `leveldb_filterpolicy_destroy`: `leveldb_bloom_filterpolicy_destroy`, for a policy
/// made by `leveldb_filterpolicy_create_bloom` or `leveldb_filterpolicy_create` of this library.
///
/// # Threads
/// Must not run while another thread uses the same policy; other policies are unaffected.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_destroy(policy: *mut leveldb_filterpolicy_t) {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterpolicy_destroy(policy.cast()) }
}

/// leveldb's `leveldb_free`: libc `free`, as `leveldb_bloom_free`.
///
/// # Threads
/// Any thread may free a buffer, once, whichever thread it came from.
///
/// # Safety
/// `ptr` must be NULL or a `malloc`ed pointer not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_free(ptr: *mut c_void) {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_free(ptr) }
}

/// `leveldb_bloom_filterpolicy_name` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_name(
    policy: *const leveldb_filterpolicy_t,
) -> *const c_char {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterpolicy_name(policy.cast()) }
}

/// `leveldb_bloom_filterpolicy_create_filter` for a `leveldb_filterpolicy_t`: a `malloc`ed
/// filter, to release with `leveldb_free`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_create_filter`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_create_filter(
    policy: *const leveldb_filterpolicy_t,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char {
    // SAFETY: per the contract.
    unsafe {
        leveldb_bloom_filterpolicy_create_filter(
            policy.cast(),
            key_array,
            key_length_array,
            num_keys,
            filter_length,
        )
    }
}

/// `leveldb_bloom_filterpolicy_key_may_match` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_key_may_match`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    // SAFETY: per the contract.
    unsafe { key_may_match(policy.cast(), key, length, filter, filter_length) }
}

/// `leveldb_bloom_filterpolicy_key_may_match_batch` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too, each with its own
/// `results`.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_key_may_match_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_key_may_match_batch(
    policy: *const leveldb_filterpolicy_t,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    filter: *const c_char,
    filter_length: usize,
    results: *mut u8,
) {
    // SAFETY: per the contract.
    unsafe {
        leveldb_bloom_filterpolicy_key_may_match_batch(
            policy.cast(),
            keys,
            key_lengths,
            num_keys,
            filter,
            filter_length,
            results,
        );
    }
}

/// `leveldb_bloom_filterblock_builder_create` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too. A builder is used by one
/// thread at a time.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_create`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_create(
    policy: *const leveldb_filterpolicy_t,
) -> *mut leveldb_filterblock_builder_t {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterblock_builder_create(policy.cast()) }.cast()
}

/// `leveldb_bloom_filterblock_builder_destroy`.
///
/// # Threads
/// Must not run while another thread uses the same builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_destroy`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_destroy(
    builder: *mut leveldb_filterblock_builder_t,
) {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterblock_builder_destroy(builder.cast()) }
}

/// `leveldb_bloom_filterblock_builder_start_block`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_start_block`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_start_block(
    builder: *mut leveldb_filterblock_builder_t,
    block_offset: u64,
) -> u8 {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterblock_builder_start_block(builder.cast(), block_offset) }
}

/// `leveldb_bloom_filterblock_builder_add_key`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_add_key`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_add_key(
    builder: *mut leveldb_filterblock_builder_t,
    key: *const c_char,
    length: usize,
) -> u8 {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterblock_builder_add_key(builder.cast(), key, length) }
}

/// `leveldb_bloom_filterblock_builder_finish`: the block, to release with `leveldb_free`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_finish`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_finish(
    builder: *mut leveldb_filterblock_builder_t,
    length: *mut usize,
) -> *mut c_char {
    // SAFETY: per the contract.
    unsafe { leveldb_bloom_filterblock_builder_finish(builder.cast(), length) }
}

/// `leveldb_bloom_filterblock_key_may_match` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too.
///
/// # Safety
/// As `leveldb_bloom_filterblock_key_may_match`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offset: u64,
    key: *const c_char,
    key_length: usize,
) -> u8 {
    // SAFETY: per the contract.
    unsafe {
        leveldb_bloom_filterblock_key_may_match(
            policy.cast(),
            contents,
            contents_length,
            block_offset,
            key,
            key_length,
        )
    }
}

/// `leveldb_bloom_filterblock_key_may_match_batch` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too, each with its own
/// `results`.
///
/// # Safety
/// As `leveldb_bloom_filterblock_key_may_match_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_key_may_match_batch(
    policy: *const leveldb_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offsets: *const u64,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    results: *mut u8,
) {
    // SAFETY: per the contract.
    unsafe {
        leveldb_bloom_filterblock_key_may_match_batch(
            policy.cast(),
            contents,
            contents_length,
            block_offsets,
            keys,
            key_lengths,
            num_keys,
            results,
        );
    }
}
