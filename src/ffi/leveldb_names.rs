//! leveldb's C API names (`leveldb_filterpolicy_*`, `leveldb_free`) and the extensions under
//! leveldb's prefix (`leveldb_filterblock_*`), with the `leveldb-c-api` feature (a default): each
//! the `leveldb_bloom_*` function of the same name past the prefix, over the same objects.
//!
//! `create_bloom` and `create` are written out: where leveldb's own C API is loaded, they return
//! an object of leveldb's (in_leveldb/wrap.rs). The rest only forward, made from one list by
//! `forward_to_own_names!`; the single query forwards to a body that looks for leveldb's objects
//! first. cbindgen does not expand macros, so tests/header.rs hands it the list as written: its
//! signatures, beside the own names', are the second copy the header needs.
//!
//! One module, so that a build without the feature has none of them, and the static library
//! keeps them in one object: linked with leveldb's `libleveldb.a` too, any of them brings all of
//! leveldb's names along, and the link stops at their clash.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

// The own names and types, which every item here calls or takes (mod.rs re-exports them).
use super::*;
use crate::ffi::filterpolicy_key_may_match::key_may_match_leveldb_first;
use crate::ffi::in_leveldb::wrap::for_leveldb;
use crate::no_unwind::ffi_boundary;

/// Each item of the list, `pub unsafe extern "C" fn NAME(ARGS) -> RET { OWN }`, with its doc:
/// the export NAME, calling OWN with its arguments and returning what OWN returns, leveldb's
/// types cast to the own ones they stand for and back.
macro_rules! forward_to_own_names {
    ($(
        $(#[doc = $doc:literal])*
        pub unsafe extern "C" fn $name:ident($($arg:ident: $type:ty),* $(,)?) $(-> $ret:ty)? {
            $own:ident
        }
    )*) => {$(
        $(#[doc = $doc])*
        #[unsafe(no_mangle)]
        #[allow(clippy::unnecessary_cast)] // Only the policy and builder types change.
        pub unsafe extern "C" fn $name($($arg: $type),*) $(-> $ret)? {
            // SAFETY: the own function's contract, which this one's doc repeats.
            unsafe { $own($($arg as _),*) $(as $ret)? }
        }
    )*};
}

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
/// it up on each call, with no lock: the `leveldb_bloom_*` functions with a
/// `leveldb_bloom_filterpolicy_t` answer a single query a little faster). Inside leveldb, a
/// filter that memory cannot hold aborts the process, as leveldb's own code does. If leveldb's
/// `leveldb_filterpolicy_create` throws (`std::bad_alloc` when memory runs out), the process
/// aborts: this library has no C++ to catch it, and a C program calling leveldb's C API ends
/// there too.
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

forward_to_own_names! {
/// leveldb's `leveldb_filterpolicy_destroy`: `leveldb_bloom_filterpolicy_destroy`, for a policy
/// made by `leveldb_filterpolicy_create_bloom` or `leveldb_filterpolicy_create` of this library.
///
/// # Threads
/// Must not run while another thread uses the same policy; other policies are unaffected.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_destroy`.
pub unsafe extern "C" fn leveldb_filterpolicy_destroy(
    policy: *mut leveldb_filterpolicy_t,
) { leveldb_bloom_filterpolicy_destroy }

/// leveldb's `leveldb_free`: libc `free`, as `leveldb_bloom_free`.
///
/// # Threads
/// Any thread may free a buffer, once, whichever thread it came from.
///
/// # Safety
/// `ptr` must be NULL or a `malloc`ed pointer not freed yet.
pub unsafe extern "C" fn leveldb_free(ptr: *mut c_void) { leveldb_bloom_free }

/// `leveldb_bloom_filterpolicy_name` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_name`.
pub unsafe extern "C" fn leveldb_filterpolicy_name(
    policy: *const leveldb_filterpolicy_t,
) -> *const c_char { leveldb_bloom_filterpolicy_name }

/// `leveldb_bloom_filterpolicy_create_filter` for a `leveldb_filterpolicy_t`: a `malloc`ed
/// filter, to release with `leveldb_free`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_create_filter`.
pub unsafe extern "C" fn leveldb_filterpolicy_create_filter(
    policy: *const leveldb_filterpolicy_t,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char { leveldb_bloom_filterpolicy_create_filter }

/// `leveldb_bloom_filterpolicy_key_may_match` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_key_may_match`.
pub unsafe extern "C" fn leveldb_filterpolicy_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 { key_may_match_leveldb_first }

/// `leveldb_bloom_filterpolicy_key_may_match_batch` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too, each with its own
/// `results`.
///
/// # Safety
/// As `leveldb_bloom_filterpolicy_key_may_match_batch`.
pub unsafe extern "C" fn leveldb_filterpolicy_key_may_match_batch(
    policy: *const leveldb_filterpolicy_t,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    filter: *const c_char,
    filter_length: usize,
    results: *mut u8,
) { leveldb_bloom_filterpolicy_key_may_match_batch }

/// `leveldb_bloom_filterblock_builder_create` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too. A builder is used by one
/// thread at a time.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_create`.
pub unsafe extern "C" fn leveldb_filterblock_builder_create(
    policy: *const leveldb_filterpolicy_t,
) -> *mut leveldb_filterblock_builder_t { leveldb_bloom_filterblock_builder_create }

/// `leveldb_bloom_filterblock_builder_destroy`.
///
/// # Threads
/// Must not run while another thread uses the same builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_destroy`.
pub unsafe extern "C" fn leveldb_filterblock_builder_destroy(
    builder: *mut leveldb_filterblock_builder_t,
) { leveldb_bloom_filterblock_builder_destroy }

/// `leveldb_bloom_filterblock_builder_start_block`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_start_block`.
pub unsafe extern "C" fn leveldb_filterblock_builder_start_block(
    builder: *mut leveldb_filterblock_builder_t,
    block_offset: u64,
) -> u8 { leveldb_bloom_filterblock_builder_start_block }

/// `leveldb_bloom_filterblock_builder_add_key`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_add_key`.
pub unsafe extern "C" fn leveldb_filterblock_builder_add_key(
    builder: *mut leveldb_filterblock_builder_t,
    key: *const c_char,
    length: usize,
) -> u8 { leveldb_bloom_filterblock_builder_add_key }

/// `leveldb_bloom_filterblock_builder_finish`: the block, to release with `leveldb_free`.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// As `leveldb_bloom_filterblock_builder_finish`.
pub unsafe extern "C" fn leveldb_filterblock_builder_finish(
    builder: *mut leveldb_filterblock_builder_t,
    length: *mut usize,
) -> *mut c_char { leveldb_bloom_filterblock_builder_finish }

/// `leveldb_bloom_filterblock_key_may_match` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too.
///
/// # Safety
/// As `leveldb_bloom_filterblock_key_may_match`.
pub unsafe extern "C" fn leveldb_filterblock_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offset: u64,
    key: *const c_char,
    key_length: usize,
) -> u8 { leveldb_bloom_filterblock_key_may_match }

/// `leveldb_bloom_filterblock_key_may_match_batch` for a `leveldb_filterpolicy_t`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too, each with its own
/// `results`.
///
/// # Safety
/// As `leveldb_bloom_filterblock_key_may_match_batch`.
pub unsafe extern "C" fn leveldb_filterblock_key_may_match_batch(
    policy: *const leveldb_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offsets: *const u64,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    results: *mut u8,
) { leveldb_bloom_filterblock_key_may_match_batch }
}
