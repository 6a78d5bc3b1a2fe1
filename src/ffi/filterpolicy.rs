//! leveldb's C filter-policy object (`leveldb_filterpolicy_t`): the built-in bloom policy or one
//! of C callbacks; creating, destroying and naming it, and `leveldb_free`.

use std::alloc::{Layout, alloc};
use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::ffi::checks::policy_for_bits;
use crate::ffi::extensions::POLICY_NAME_C;
use crate::no_unwind::ffi_boundary;
use crate::policy::BloomPolicy;

// The callbacks of `leveldb_filterpolicy_create`, named so that its prototype fits the header's
// width. leveldb/c.h spells the same types out; C treats the two declarations as one.

/// A custom policy's destructor: called once with `state` by `leveldb_filterpolicy_destroy`.
#[allow(non_camel_case_types)] // C naming, as the rest of the header
pub type leveldb_bloom_destructor_fn = Option<unsafe extern "C" fn(state: *mut c_void)>;

/// A custom policy's `create_filter`: returns a `malloc`ed filter for the keys and stores its
/// length in `*filter_length`.
#[allow(non_camel_case_types)]
pub type leveldb_bloom_create_filter_fn = Option<
    unsafe extern "C" fn(
        state: *mut c_void,
        key_array: *const *const c_char,
        key_length_array: *const usize,
        num_keys: c_int,
        filter_length: *mut usize,
    ) -> *mut c_char,
>;

/// A custom policy's `key_may_match`: 0 only if the key is certainly not in the filter's set.
#[allow(non_camel_case_types)]
pub type leveldb_bloom_key_may_match_fn = Option<
    unsafe extern "C" fn(
        state: *mut c_void,
        key: *const c_char,
        length: usize,
        filter: *const c_char,
        filter_length: usize,
    ) -> u8,
>;

/// A custom policy's `name`: a string that lives as long as the policy.
#[allow(non_camel_case_types)]
pub type leveldb_bloom_name_fn = Option<unsafe extern "C" fn(state: *mut c_void) -> *const c_char>;

/// A filter policy: leveldb's built-in bloom filter, or one made of C callbacks. Opaque to C.
#[allow(non_camel_case_types)] // leveldb's C name, so one C file can include both headers
pub struct leveldb_filterpolicy_t {
    pub(crate) kind: PolicyKind,
}

pub(crate) enum PolicyKind {
    Bloom(BloomPolicy),
    Custom(CustomPolicy),
}

pub(crate) struct CustomPolicy {
    pub(crate) state: *mut c_void,
    // Never None but `destructor`: `leveldb_filterpolicy_create` refuses the others missing.
    destructor: leveldb_bloom_destructor_fn,
    pub(crate) create_filter: leveldb_bloom_create_filter_fn,
    pub(crate) key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
}

// SAFETY: the policy only hands `state` to the caller's callbacks. As in leveldb, which calls a
// policy from several threads at once, the header requires callbacks to be thread-safe.
unsafe impl Send for CustomPolicy {}
// SAFETY: as for Send: the callbacks it calls concurrently are thread-safe by the header's rule.
unsafe impl Sync for CustomPolicy {}

impl Drop for CustomPolicy {
    fn drop(&mut self) {
        if let Some(destructor) = self.destructor {
            // SAFETY: the caller gave us `state` together with the destructor that releases it.
            unsafe { destructor(self.state) }
        }
    }
}

/// Moves an object C will own (a policy, a filter block builder) to the heap, returning NULL
/// instead of aborting when allocation fails.
pub(crate) fn into_raw<T>(value: T) -> *mut T {
    const {
        assert!(
            size_of::<T>() > 0,
            "only objects with a size are handed to C"
        )
    };
    let layout = Layout::new::<T>();
    // SAFETY: the layout has a non-zero size (checked at compile time).
    let raw = unsafe { alloc(layout) }.cast::<T>();
    if raw.is_null() {
        // Whoever gets NULL still owns what they passed in: a custom destructor must not run.
        std::mem::forget(value);
        return ptr::null_mut();
    }
    // SAFETY: `raw` is fresh, aligned memory for one T, later freed by `Box::from_raw` with the
    // same global allocator and layout.
    unsafe { raw.write(value) };
    raw
}

/// Creates leveldb's built-in bloom filter policy, as `leveldb_filterpolicy_create_bloom` in
/// leveldb's C API does; its filters are byte-identical to leveldb 1.23's.
///
/// - `bits_per_key < 0`: returns NULL.
/// - `bits_per_key == 0`: a policy with k = 1 and the 64-bit minimum filter, as leveldb.
/// - any larger value, up to `INT_MAX`: a policy with k = `bits_per_key * 0.69` clamped to 1..30.
///
/// Returns NULL if memory runs out. Release the policy with `leveldb_filterpolicy_destroy`.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_filterpolicy_create_bloom(
    bits_per_key: c_int,
) -> *mut leveldb_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        match policy_for_bits(bits_per_key) {
            Some(bloom) => into_raw(leveldb_filterpolicy_t {
                kind: PolicyKind::Bloom(bloom),
            }),
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
        if create_filter.is_none() || key_may_match.is_none() || name.is_none() {
            return ptr::null_mut();
        }
        into_raw(leveldb_filterpolicy_t {
            kind: PolicyKind::Custom(CustomPolicy {
                state,
                destructor,
                create_filter,
                key_may_match,
                name,
            }),
        })
    })
}

/// Destroys a policy made by `leveldb_filterpolicy_create_bloom` or `leveldb_filterpolicy_create`
/// (calling the latter's destructor once). NULL: does nothing.
///
/// # Threads
/// Must not run while another thread uses the same policy; other policies are unaffected.
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
/// # Threads
/// Any thread may free a buffer, once, whichever thread it came from.
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
/// # Threads
/// Any number of threads may call it at once, with one policy too.
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
            Some(PolicyKind::Bloom(_)) => POLICY_NAME_C.as_ptr(),
            Some(PolicyKind::Custom(custom)) => match custom.name {
                // SAFETY: the callback was given with `state` for this use.
                Some(name) => unsafe { name(custom.state) },
                None => ptr::null(),
            },
        }
    })
}
