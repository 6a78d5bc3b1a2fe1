//! C entry points under our own prefix, `leveldb_bloom_*`, exported by every build: the length of
//! a filter, building one into the caller's buffer, querying one. They need no policy object, so
//! the C++ shim (shim/) forwards leveldb's `FilterPolicy` calls straight to them; it is built
//! without the `leveldb-c-api` feature, and these stay.
//!
//! Same conventions as the rest of the C ABI: every export runs inside [`ffi_boundary!`]; every
//! pointer is checked before use; bad input gets a documented result, and a query answers 1
//! ("may match"), never a false negative.

use std::ffi::{CStr, c_char, c_int};

use crate::bloom::BloomPolicy;
use crate::fast::{self, Isa, KeyArrays, KeyEntries};

/// Runs an export's body and turns a panic into the export's documented error result. Internal
/// C-ABI functions use it too (src/fast/one.rs), as no panic may unwind out of one either.
macro_rules! ffi_boundary {
    ($on_panic:expr, $body:block) => {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| $body)).unwrap_or($on_panic)
    };
}
pub(crate) use ffi_boundary;

pub(crate) const BLOOM_NAME: &CStr = c"leveldb.BuiltinBloomFilter2";

/// Borrows `len` bytes at `ptr`. `None` when the bytes cannot exist: a NULL pointer with a
/// non-zero length, or a length past `isize::MAX`. NULL with length 0 is the empty slice.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const c_char, len: usize) -> Option<&'a [u8]> {
    if !can_borrow(ptr, len) {
        return None;
    }
    // SAFETY: accepted just now; readability is the caller's contract.
    Some(unsafe { accepted_bytes(ptr, len) })
}

/// Whether [`bytes`] borrows `len` bytes at `ptr` rather than answering `None`.
pub(crate) fn can_borrow(ptr: *const c_char, len: usize) -> bool {
    len == 0 || (!ptr.is_null() && is_object_length(len))
}

/// Whether some object can be `len` bytes long: none is longer than `isize::MAX` (C's
/// `PTRDIFF_MAX`), which is also what `std::slice::from_raw_parts` requires.
#[inline(always)]
fn is_object_length(len: usize) -> bool {
    len <= isize::MAX as usize
}

/// [`bytes`] of a pointer and length that [`can_borrow`] accepted, without checking them again:
/// a C caller's keys are checked a chunk at a time before any of them is borrowed
/// (`fast::KeyArrays`), and checking each key again cost the build of a 100-key filter 8% (0.5 ns
/// per key on Zen 5, when the whole array was checked first).
///
/// # Safety
/// `can_borrow(ptr, len)` must hold, and a non-NULL `ptr` must point to `len` readable bytes
/// that outlive `'a`.
pub(crate) unsafe fn accepted_bytes<'a>(ptr: *const c_char, len: usize) -> &'a [u8] {
    if len == 0 {
        return &[];
    }
    // SAFETY: with bytes in it, the key is non-NULL and its length in range (`can_borrow`);
    // readability is the caller's contract.
    unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) }
}

/// A query's key and filter, borrowed when both pointers are non-NULL, both lengths in range and
/// the filter frames a bit array (2 bytes or more): every call but a bad or empty one, decided in
/// a few predictable branches that change no register. `None` leaves the rest to [`bytes`],
/// whose checks compile to conditional moves that put the key's address later: taking this way
/// first cut `leveldb_filterpolicy_key_may_match` on a block filter from 10.0–10.6 to 9.7 ns
/// (`cargo bench --bench vs_leveldb -- block`, Zen 5).
///
/// # Safety
/// As [`bytes`], for both.
#[inline(always)]
pub(crate) unsafe fn query_bytes<'a>(
    key: *const c_char,
    key_length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> Option<(&'a [u8], &'a [u8])> {
    // As signed, a length past isize::MAX is negative: one compare checks that the filter's
    // length is in range and frames a bit array, where two would be combined into a register.
    if key.is_null()
        || filter.is_null()
        || !is_object_length(key_length)
        || (filter_length as isize) < 2
    {
        return None;
    }
    // SAFETY: non-NULL, lengths in range; readability is the caller's contract.
    unsafe {
        Some((
            std::slice::from_raw_parts(key.cast::<u8>(), key_length),
            std::slice::from_raw_parts(filter.cast::<u8>(), filter_length),
        ))
    }
}

/// A key: `size` bytes at `data`. Laid out as `leveldb::Slice` (`const char* data_; size_t
/// size_;`), so the C++ shim passes leveldb's array of keys as it is, without copying.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)] // C naming, as the rest of the header
pub struct leveldb_bloom_slice_t {
    pub data: *const c_char,
    pub size: usize,
}

/// The policy `NewBloomFilterPolicy(bits_per_key)` makes; `None` for a negative `bits_per_key`.
pub(crate) fn policy(bits_per_key: c_int) -> Option<BloomPolicy> {
    u32::try_from(bits_per_key).ok().map(BloomPolicy::new)
}

/// The name leveldb records in a table for these filters: `"leveldb.BuiltinBloomFilter2"`, in
/// static storage.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_policy_name() -> *const c_char {
    ffi_boundary!(BLOOM_NAME.as_ptr(), { BLOOM_NAME.as_ptr() })
}

/// Length in bytes of the filter leveldb's `NewBloomFilterPolicy(bits_per_key)` builds for
/// `num_keys` keys. Returns 0, which no filter is, if `bits_per_key < 0` or the length would
/// exceed `SIZE_MAX`.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_filter_length(bits_per_key: c_int, num_keys: usize) -> usize {
    ffi_boundary!(0, {
        policy(bits_per_key)
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
    ffi_boundary!(0, {
        let Some(policy) = policy(bits_per_key) else {
            return 0;
        };
        if out.is_null() || policy.filter_len(num_keys) != Some(out_length) {
            return 0;
        }
        let keys: &[leveldb_bloom_slice_t] = if num_keys == 0 {
            &[]
        } else if keys.is_null()
            || num_keys > isize::MAX as usize / size_of::<leveldb_bloom_slice_t>()
        {
            return 0;
        } else {
            // SAFETY: non-NULL, the size in range; `num_keys` entries per the contract.
            unsafe { std::slice::from_raw_parts(keys, num_keys) }
        };
        // All checked before `out` is written, as promised.
        if !keys.all_valid(Isa::best()) {
            return 0;
        }
        // SAFETY: non-NULL; `out_length` writable bytes, apart from the keys, per the contract.
        let out = unsafe { std::slice::from_raw_parts_mut(out.cast::<u8>(), out_length) };
        // SAFETY: every key was accepted just above; readable per the contract.
        policy.fill_filter_from(&mut unsafe { KeyArrays::checked(keys) }, out);
        1
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
/// # Safety
/// A non-NULL `key` and `filter` must point to their length in readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_key_may_match(
    key: *const c_char,
    key_length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    ffi_boundary!(1, {
        // SAFETY: per the contract.
        if let Some((key, filter)) = unsafe { query_bytes(key, key_length, filter, filter_length) }
        {
            return fast::may_match_one_c(key, filter);
        }
        // SAFETY: per the contract.
        match unsafe { (bytes(key, key_length), bytes(filter, filter_length)) } {
            (Some(key), Some(filter)) => fast::may_match_one_c(key, filter),
            _ => 1,
        }
    })
}
