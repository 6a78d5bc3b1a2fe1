//! C entry points under our own prefix, `leveldb_bloom_*`, exported by every build: the length of
//! a filter, building one into the caller's buffer, querying one. They need no policy object, so
//! the C++ shim (shim/) forwards leveldb's `FilterPolicy` calls straight to them; it is built
//! without the `leveldb-c-api` feature, and these stay.
//!
//! Beyond the C ABI's conventions (mod.rs), none has a path to a panic
//! ([`ffi_boundary_cannot_panic!`]): a program that links only these, as the C++ shim's core does,
//! leaves the standard library's panic machinery out.

use std::ffi::{CStr, c_char, c_int};

use crate::dispatch::Isa;
use crate::ffi::checks::{borrow_array, borrow_bytes, policy_for_bits, query_bytes};
use crate::ffi::key_arrays::{KeyArrays, KeyEntries, leveldb_bloom_slice_t};
use crate::no_unwind::{ffi_boundary_cannot_panic, single_query};

pub(crate) const POLICY_NAME_C: &CStr = c"leveldb.BuiltinBloomFilter2";

const VERSION_C: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(version) => version,
        Err(_) => panic!("a crate version has no NUL byte"),
    };

/// This library's version, `"MAJOR.MINOR.PATCH"`, in static storage: what the header's
/// `LEVELDB_BLOOM_VERSION_*` macros say at compile time, for the library loaded at run time.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_version() -> *const c_char {
    ffi_boundary_cannot_panic!(VERSION_C.as_ptr(), { VERSION_C.as_ptr() })
}

/// The name leveldb records in a table for these filters: `"leveldb.BuiltinBloomFilter2"`, in
/// static storage.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_policy_name() -> *const c_char {
    ffi_boundary_cannot_panic!(POLICY_NAME_C.as_ptr(), { POLICY_NAME_C.as_ptr() })
}

/// The kernels this process runs: `"avx512"`, `"avx2"` or `"portable"`, in static storage (never
/// to be freed), from any thread. The best the CPU supports, unless the environment variable
/// `LEVELDB_BLOOM_ISA` names a slower one: then the best not above the one named (`avx512` on a
/// CPU with only AVX2 runs `avx2`). Any other value is ignored. Chosen once per process, at the
/// first call of this or of any build or query; the bytes and answers are the same on every path.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_isa() -> *const c_char {
    ffi_boundary_cannot_panic!(c"portable".as_ptr(), { Isa::best().name().as_ptr() })
}

/// Length in bytes of the filter leveldb's `NewBloomFilterPolicy(bits_per_key)` builds for
/// `num_keys` keys. Returns 0, which no filter is, if `bits_per_key < 0` or the length would
/// exceed `SIZE_MAX`.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_filter_length(bits_per_key: c_int, num_keys: usize) -> usize {
    ffi_boundary_cannot_panic!(0, {
        policy_for_bits(bits_per_key)
            .and_then(|policy| policy.filter_len(num_keys))
            .unwrap_or(0)
    })
}

/// Builds the filter of `NewBloomFilterPolicy(bits_per_key)` for the `num_keys` keys at `keys`
/// (duplicates allowed) in place, over the `out_length` bytes at `out`: the caller grows its own
/// buffer once, by exactly `leveldb_bloom_filter_length(bits_per_key, num_keys)` bytes, as
/// leveldb's `CreateFilter` grows its `std::string`. The bytes are leveldb 1.23's.
///
/// Returns 1 once the filter is written. Returns 0, leaving `out` untouched, for: `bits_per_key
/// < 0`; an `out_length` other than that length (a filter too large to exist has length 0); a
/// NULL `out`; a NULL `keys` with `num_keys > 0`; more keys than memory can hold; a key with NULL
/// `data` and a `size` above 0. A key with NULL `data` and `size` 0 is the empty key.
///
/// # Threads
/// Any number of threads may call it at once, each with its own `out`; keys may be shared.
///
/// # Safety
/// A non-NULL `keys` must point to `num_keys` entries, each non-NULL `data` to `size` readable
/// bytes; a non-NULL `out` to `out_length` writable bytes that overlap no key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_fill_filter(
    bits_per_key: c_int,
    keys: *const leveldb_bloom_slice_t,
    num_keys: usize,
    out: *mut c_char,
    out_length: usize,
) -> c_int {
    ffi_boundary_cannot_panic!(0, {
        let Some(policy) = policy_for_bits(bits_per_key) else {
            return 0;
        };
        if out.is_null() || policy.filter_len(num_keys) != Some(out_length) {
            return 0;
        }
        // SAFETY: `num_keys` entries per the contract.
        let Some(keys) = (unsafe { borrow_array(keys, num_keys) }) else {
            return 0;
        };
        // All checked before `out` is written, as promised.
        if !keys.all_valid(Isa::best()) {
            return 0;
        }
        // SAFETY: non-NULL; `out_length` writable bytes, apart from the keys, per the contract.
        let out = unsafe { std::slice::from_raw_parts_mut(out.cast::<u8>(), out_length) };
        // SAFETY: every key was accepted just above; readable per the contract.
        let written = policy.fill_filter_from(&mut unsafe { KeyArrays::checked(keys) }, out);
        // Always written: the filter's length, checked above, is 9 bytes or more.
        written.into()
    })
}

/// leveldb's `KeyMayMatch`: whether the key of `key_length` bytes at `key` may be in the set the
/// filter of `filter_length` bytes at `filter` was built from; 0 only if it certainly is not. It
/// answers exactly as leveldb 1.23 does for any filter bytes, corrupt ones included, whatever
/// `bits_per_key` built them (the filter records what a query needs).
///
/// Returns 1 ("may match": an error must never cause a false negative) for a NULL `key` or
/// `filter` with a length above 0, and for a length above `PTRDIFF_MAX`, which no object has
/// (nothing is read). A NULL `key` or `filter` with length 0 is empty.
///
/// # Threads
/// Any number of threads may call it at once, on one filter too.
///
/// # Safety
/// A non-NULL `key` and `filter` must point to their length in readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_key_may_match(
    key: *const c_char,
    key_length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    ffi_boundary_cannot_panic!(1, {
        // SAFETY: per the contract.
        if let Some((key, filter)) = unsafe { query_bytes(key, key_length, filter, filter_length) }
        {
            return single_query(key, filter);
        }
        // SAFETY: per the contract.
        match unsafe {
            (
                borrow_bytes(key, key_length),
                borrow_bytes(filter, filter_length),
            )
        } {
            (Some(key), Some(filter)) => single_query(key, filter),
            _ => 1,
        }
    })
}
