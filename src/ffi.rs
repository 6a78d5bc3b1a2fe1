//! The C ABI: leveldb's C filter-policy functions (same names and signatures as `leveldb/c.h`) and
//! our extensions that use a policy directly. Built with the `leveldb-c-api` feature (a default):
//! the C++ shim, which sits next to leveldb's own C API, is built without it.
//!
//! Conventions, stated once here and in the header: every export runs inside [`ffi_boundary!`] so
//! no panic crosses into C; every pointer is checked before use; an error yields NULL, or 1 ("may
//! match") from a query, because a false negative would make leveldb miss data that exists.

use std::alloc::{Layout, alloc};
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::bloom::BloomPolicy;
use crate::core_ffi::{BLOOM_NAME, bytes, can_borrow, ffi_boundary, policy, query_bytes};
use crate::fast::{self, Isa, KeyArrays, KeyEntries, PointersAndLengths};

/// leveldb's `create_filter` callback: returns a `malloc`ed filter and stores its length.
type CreateFilterFn = unsafe extern "C" fn(
    state: *mut c_void,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char;

/// leveldb's `key_may_match` callback.
type KeyMayMatchFn = unsafe extern "C" fn(
    state: *mut c_void,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8;

/// leveldb's `name` callback.
type NameFn = unsafe extern "C" fn(state: *mut c_void) -> *const c_char;

/// A filter policy: leveldb's built-in bloom filter, or one made of C callbacks. Opaque to C.
#[allow(non_camel_case_types)] // leveldb's C name, so one C file can include both headers
pub struct leveldb_filterpolicy_t {
    kind: PolicyKind,
}

enum PolicyKind {
    Bloom(BloomPolicy),
    Custom(CustomPolicy),
}

struct CustomPolicy {
    state: *mut c_void,
    destructor: Option<unsafe extern "C" fn(*mut c_void)>,
    create_filter: CreateFilterFn,
    key_may_match: KeyMayMatchFn,
    name: NameFn,
}

// SAFETY: the policy only hands `state` to the caller's callbacks. As in leveldb, which calls a
// policy from several threads at once, the header requires callbacks to be thread-safe.
unsafe impl Send for CustomPolicy {}
unsafe impl Sync for CustomPolicy {}

impl Drop for CustomPolicy {
    fn drop(&mut self) {
        if let Some(destructor) = self.destructor {
            // SAFETY: the caller gave us `state` together with the destructor that releases it.
            unsafe { destructor(self.state) }
        }
    }
}

/// Moves a policy to the heap, returning NULL instead of aborting when allocation fails.
fn into_raw(kind: PolicyKind) -> *mut leveldb_filterpolicy_t {
    let layout = Layout::new::<leveldb_filterpolicy_t>();
    // SAFETY: the layout has a non-zero size.
    let raw = unsafe { alloc(layout) }.cast::<leveldb_filterpolicy_t>();
    if raw.is_null() {
        // Whoever gets NULL still owns what they passed in: a custom destructor must not run.
        std::mem::forget(kind);
        return ptr::null_mut();
    }
    // SAFETY: `raw` is fresh, aligned memory for one policy, later freed by `Box::from_raw` with
    // the same global allocator and layout.
    unsafe { raw.write(leveldb_filterpolicy_t { kind }) };
    raw
}

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
    if n == 0 {
        return Some(PointersAndLengths {
            pointers: &[],
            lengths: &[],
        });
    }
    if key_array.is_null() || key_length_array.is_null() {
        return None;
    }
    // SAFETY: both checked non-NULL; their length is the caller's contract.
    Some(unsafe {
        PointersAndLengths {
            pointers: std::slice::from_raw_parts(key_array, n),
            lengths: std::slice::from_raw_parts(key_length_array, n),
        }
    })
}

/// Creates leveldb's built-in bloom filter policy, as `leveldb_filterpolicy_create_bloom` in
/// leveldb's C API does; its filters are byte-identical to leveldb 1.23's.
///
/// - `bits_per_key < 0`: returns NULL.
/// - `bits_per_key == 0`: a policy with k = 1 and the 64-bit minimum filter, as leveldb.
/// - any larger value, up to `INT_MAX`: a policy with k = `bits_per_key * 0.69` clamped to 1..30.
///
/// Returns NULL if memory runs out. Release the policy with `leveldb_filterpolicy_destroy`.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_filterpolicy_create_bloom(
    bits_per_key: c_int,
) -> *mut leveldb_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        match policy(bits_per_key) {
            Some(bloom) => into_raw(PolicyKind::Bloom(bloom)),
            None => ptr::null_mut(),
        }
    })
}

/// Creates a policy from callbacks, as `leveldb_filterpolicy_create` in leveldb's C API does.
/// `leveldb_filterpolicy_create_filter`, `_key_may_match` and `_name` call them with `state`.
///
/// - NULL `create_filter`, `key_may_match` or `name`: returns NULL.
/// - `destructor` may be NULL; otherwise `leveldb_filterpolicy_destroy` calls it exactly once.
/// - Out of memory: returns NULL. Whenever NULL is returned, `destructor` is not called.
///
/// The callbacks may be called from several threads at once and must allow it, as in leveldb.
/// `create_filter` must return a `malloc`ed buffer (or NULL), which the caller frees.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_filterpolicy_create(
    state: *mut c_void,
    destructor: Option<unsafe extern "C" fn(*mut c_void)>,
    // The callback types are spelled out, not aliased, so cbindgen writes them as leveldb/c.h does.
    create_filter: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            key_array: *const *const c_char,
            key_length_array: *const usize,
            num_keys: c_int,
            filter_length: *mut usize,
        ) -> *mut c_char,
    >,
    key_may_match: Option<
        unsafe extern "C" fn(
            state: *mut c_void,
            key: *const c_char,
            length: usize,
            filter: *const c_char,
            filter_length: usize,
        ) -> u8,
    >,
    name: Option<unsafe extern "C" fn(state: *mut c_void) -> *const c_char>,
) -> *mut leveldb_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        let (Some(create_filter), Some(key_may_match), Some(name)) =
            (create_filter, key_may_match, name)
        else {
            return ptr::null_mut();
        };
        into_raw(PolicyKind::Custom(CustomPolicy {
            state,
            destructor,
            create_filter,
            key_may_match,
            name,
        }))
    })
}

/// Destroys a policy made by `leveldb_filterpolicy_create_bloom` or `leveldb_filterpolicy_create`
/// (calling the latter's destructor once). NULL: does nothing.
///
/// # Safety
/// `policy` must be NULL or a live policy from this library, not used again afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_destroy(policy: *mut leveldb_filterpolicy_t) {
    ffi_boundary!((), {
        if !policy.is_null() {
            // SAFETY: made by `into_raw` (per the contract), so owned by this Box now.
            drop(unsafe { Box::from_raw(policy) });
        }
    })
}

/// Frees a buffer this library returned (a filter from `leveldb_filterpolicy_create_filter`),
/// as `leveldb_free` in leveldb's C API does; it is libc `free`. NULL: does nothing.
///
/// # Safety
/// `ptr` must be NULL or a `malloc`ed pointer not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_free(ptr: *mut c_void) {
    ffi_boundary!((), {
        // SAFETY: per the contract; free(NULL) is a no-op.
        unsafe { libc::free(ptr) }
    })
}

/// The policy's name: `"leveldb.BuiltinBloomFilter2"` for the bloom policy, what the `name`
/// callback returns for a custom one. Valid as long as the policy. NULL policy: returns NULL.
///
/// # Safety
/// `policy` must be NULL or a live policy from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_name(
    policy: *const leveldb_filterpolicy_t,
) -> *const c_char {
    ffi_boundary!(ptr::null(), {
        // SAFETY: per the contract.
        match unsafe { policy.as_ref() }.map(|p| &p.kind) {
            None => ptr::null(),
            Some(PolicyKind::Bloom(_)) => BLOOM_NAME.as_ptr(),
            // SAFETY: the callback was given with `state` for this use.
            Some(PolicyKind::Custom(custom)) => unsafe { (custom.name)(custom.state) },
        }
    })
}

/// Builds the filter for `num_keys` keys (key `i` is `key_length_array[i]` bytes at
/// `key_array[i]`; duplicates allowed) and returns it in a `malloc`ed buffer, storing its length
/// in `*filter_length`. Release it with `leveldb_free` (or `free`). Same shape as leveldb's
/// `create_filter` callback; a custom policy's callback is called with these arguments once they
/// pass the checks below.
///
/// Returns NULL, with `*filter_length` set to 0 when `filter_length` is not NULL, for: a NULL
/// policy or `filter_length`; `num_keys < 0`; a NULL `key_array` or `key_length_array` with
/// `num_keys > 0`; a NULL key with a length above 0; a filter too large to allocate. A NULL key
/// with length 0 is the empty key.
///
/// # Safety
/// Non-NULL arrays must hold `num_keys` entries, each non-NULL key its length in readable bytes;
/// `policy` must be NULL or a live policy from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_create_filter(
    policy: *const leveldb_filterpolicy_t,
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
        let Some(policy) = (unsafe { policy.as_ref() }) else {
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
                // SAFETY: the callback was given with `state` for this use; arguments checked.
                let filter = unsafe {
                    (custom.create_filter)(
                        custom.state,
                        key_array,
                        key_length_array,
                        num_keys,
                        filter_length,
                    )
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
    bloom.fill_filter_from(&mut key_arrays, out);
    // Keys are checked as they are read, a chunk at a time, not in a pass of their own first.
    if !key_arrays.all_read_valid() {
        // SAFETY: `buffer` came from malloc and is not returned.
        unsafe { libc::free(buffer.cast()) };
        return ptr::null_mut();
    }
    *filter_length = len;
    buffer.cast::<c_char>()
}

/// Whether the key of `length` bytes at `key` may be in the set `filter` (of `filter_length`
/// bytes) was built from: 0 only if it certainly is not. For the bloom policy the answer equals
/// leveldb 1.23's `KeyMayMatch` for any filter bytes, corrupt ones included; a custom policy's
/// callback answers (normalised to 0 or 1).
///
/// Returns 1 ("may match"; an error must never cause a false negative) for: a NULL policy; a NULL
/// `key` or `filter` with a length above 0; a length above `PTRDIFF_MAX`, which no object has
/// (nothing is read). A NULL `key` or `filter` with length 0 is empty.
///
/// # Safety
/// A non-NULL `key` and `filter` must point to their length in readable bytes; `policy` must be
/// NULL or a live policy from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterpolicy_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    ffi_boundary!(1, {
        // SAFETY: per the contract.
        if let Some(policy) = unsafe { policy.as_ref() }
            // SAFETY: per the contract.
            && let Some((key, filter)) = unsafe { query_bytes(key, length, filter, filter_length) }
            && let PolicyKind::Bloom(_) = policy.kind
        {
            return fast::may_match_one_c(key, filter);
        }
        // SAFETY: per the contract.
        unsafe { may_match_one(policy, key, length, filter, filter_length) }
    })
}

/// `leveldb_filterpolicy_key_may_match` off its fast path: a NULL policy, a custom one, bad
/// input or an empty key or filter. Apart, so that the fast path sets no register for it. The
/// batch export calls it for each key of a custom policy, whose callback costs far more.
///
/// # Safety
/// As `leveldb_filterpolicy_key_may_match`.
#[cold]
#[inline(never)]
unsafe fn may_match_one(
    policy: *const leveldb_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    // SAFETY: per the contract.
    let Some(policy) = (unsafe { policy.as_ref() }) else {
        return 1;
    };
    // SAFETY: per the contract.
    let (Some(key_bytes), Some(filter_bytes)) = (unsafe { bytes(key, length) }, unsafe {
        bytes(filter, filter_length)
    }) else {
        return 1;
    };
    match &policy.kind {
        PolicyKind::Bloom(_) => fast::may_match_one_c(key_bytes, filter_bytes),
        // SAFETY: the callback was given with `state` for this use; arguments checked.
        PolicyKind::Custom(custom) => unsafe {
            ((custom.key_may_match)(custom.state, key, length, filter, filter_length) != 0).into()
        },
    }
}

/// `leveldb_filterpolicy_key_may_match` for `num_keys` keys against one filter, in one call:
/// `results[i]` (0 or 1) is its answer for the key of `key_lengths[i]` bytes at `keys[i]`, bad
/// input included. For the bloom policy this is much faster than a loop of single queries; a
/// custom policy's `key_may_match` callback is called once per key.
///
/// - NULL `results`: nothing is written.
/// - NULL policy; NULL `keys` or `key_lengths` with `num_keys > 0`; NULL `filter` with
///   `filter_length > 0`: every result is 1.
/// - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.
/// - `num_keys` above `PTRDIFF_MAX / 8`, more than any array can hold: nothing is written.
///
/// Every result is set to 1 before any work, so not even an internal failure yields a false
/// negative.
///
/// # Safety
/// A non-NULL `results` must have `num_keys` writable bytes; non-NULL `keys` and `key_lengths`
/// must hold `num_keys` entries, each non-NULL key its length in readable bytes; a non-NULL
/// `filter` must point to `filter_length` readable bytes; `policy` must be NULL or a live policy
/// from this library.
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
    ffi_boundary!((), {
        if results.is_null() || num_keys == 0 || num_keys > isize::MAX as usize / 8 {
            // Past isize::MAX / 8 no array of pointers can hold num_keys entries.
            return;
        }
        // SAFETY: checked non-NULL; `num_keys` writable bytes per the contract.
        let results = unsafe { std::slice::from_raw_parts_mut(results, num_keys) };
        results.fill(1);
        // SAFETY: per the contract.
        let Some(policy) = (unsafe { policy.as_ref() }) else {
            return;
        };
        if keys.is_null() || key_lengths.is_null() {
            return;
        }
        // SAFETY: both checked non-NULL; `num_keys` entries per the contract.
        let (keys, key_lengths) = unsafe {
            (
                std::slice::from_raw_parts(keys, num_keys),
                std::slice::from_raw_parts(key_lengths, num_keys),
            )
        };
        match &policy.kind {
            PolicyKind::Bloom(_) => {
                // SAFETY: per the contract.
                let Some(filter) = (unsafe { bytes(filter, filter_length) }) else {
                    return;
                };
                let isa = Isa::best();
                let entries = PointersAndLengths {
                    pointers: keys,
                    lengths: key_lengths,
                };
                // SAFETY: per the contract on each key.
                let mut key_arrays = unsafe { KeyArrays::new(isa, entries) };
                // SAFETY: every byte of `results` is 1, a valid bool, and only bools are written
                // through the view.
                let answers = unsafe { &mut *(ptr::from_mut(results) as *mut [bool]) };
                fast::may_match_batch(isa, &mut key_arrays, filter, answers);
                // A key that cannot exist was hashed as the empty key, or not read at all (a
                // filter that answers every key alike): its answer is 1.
                if !key_arrays.all_read_valid() {
                    for ((key, len), result) in entries.iter().zip(results) {
                        if !can_borrow(key, len) {
                            *result = 1;
                        }
                    }
                }
            }
            PolicyKind::Custom(_) => {
                for ((&key, &len), result) in keys.iter().zip(key_lengths).zip(results) {
                    // SAFETY: per the contract.
                    *result = unsafe { may_match_one(policy, key, len, filter, filter_length) };
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_boundary_turns_a_panic_into_the_documented_result() {
        let answer: u8 = ffi_boundary!(1, {
            if answer_is_computed() {
                panic!("a bug inside an export");
            }
            0
        });
        assert_eq!(answer, 1);
    }

    fn answer_is_computed() -> bool {
        true
    }

    // The C tests cover every bad-input row; these few run the same paths under `cargo miri test`.
    #[test]
    fn bad_pointers_get_documented_results() {
        let policy = leveldb_filterpolicy_create_bloom(10);
        let key = b"key";
        let keys = [key.as_ptr().cast::<c_char>(), ptr::null()];
        let lens = [key.len(), 1];
        let mut len = 7;
        unsafe {
            assert!(
                leveldb_filterpolicy_create_filter(
                    policy,
                    keys.as_ptr(),
                    lens.as_ptr(),
                    2,
                    &mut len
                )
                .is_null()
            );
            assert_eq!(len, 0);
            let filter = leveldb_filterpolicy_create_filter(
                policy,
                keys.as_ptr(),
                lens.as_ptr(),
                1,
                &mut len,
            );
            assert!(!filter.is_null());
            assert_eq!(
                leveldb_filterpolicy_key_may_match(policy, key.as_ptr().cast(), 3, filter, len),
                1
            );
            assert_eq!(
                leveldb_filterpolicy_key_may_match(policy, ptr::null(), 3, filter, len),
                1
            );
            assert_eq!(
                leveldb_filterpolicy_key_may_match(
                    ptr::null(),
                    key.as_ptr().cast(),
                    3,
                    filter,
                    len
                ),
                1
            );
            leveldb_free(filter.cast());
            leveldb_filterpolicy_destroy(policy);
            leveldb_filterpolicy_destroy(ptr::null_mut());
        }
        assert!(leveldb_filterpolicy_create_bloom(-1).is_null());
    }
}
