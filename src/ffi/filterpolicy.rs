//! This library's filter-policy object, `leveldb_bloom_filterpolicy_t`: the built-in bloom policy
//! or one of C callbacks. Creating, destroying and naming it, telling it from an object this
//! library did not make, and `leveldb_bloom_free`.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::ffi::checks::{into_raw, policy_for_bits};
use crate::ffi::extensions::POLICY_NAME_C;
#[cfg(feature = "leveldb-c-api")]
use crate::ffi::in_leveldb;
use crate::no_unwind::ffi_boundary;
use crate::policy::BloomPolicy;

// The callbacks of a custom policy, named so that the prototypes fit the header's width.
// leveldb/c.h spells the same types out; C treats the two declarations as one.

/// A custom policy's destructor: called once with `state` when the policy is destroyed.
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

/// A filter policy of this library: leveldb's built-in bloom filter, or one made of C callbacks.
/// Opaque to C.
#[allow(non_camel_case_types)] // C naming, as the rest of the header
pub struct leveldb_bloom_filterpolicy_t {
    pub(crate) kind: PolicyKind,
}

/// The kind of a policy, whose tag is the object's first word: [`BLOOM_TAG`] or [`CUSTOM_TAG`].
#[repr(u64)]
pub(crate) enum PolicyKind {
    Bloom(BloomPolicy) = BLOOM_TAG,
    Custom(CustomPolicy) = CUSTOM_TAG,
}

// The tags are values no object of leveldb's C API can start with: a C++ object starts with its
// vtable pointer, a multiple of 8 below the kernel's half of the address space (x86-64,
// AArch64); these are odd, in that half. Sign-extended 32-bit values, so that x86-64 compares the
// single query's kind check in one instruction.
const BLOOM_TAG: u64 = 0xffff_ffff_b100_f117;
const CUSTOM_TAG: u64 = 0xffff_ffff_c057_0a11;
const _: () = assert!(std::mem::offset_of!(leveldb_bloom_filterpolicy_t, kind) == 0);

/// A policy of C callbacks. Other files call them through its methods, which hand each its
/// `state`.
pub(crate) struct CustomPolicy {
    state: *mut c_void,
    destructor: leveldb_bloom_destructor_fn,
    // Never None: `leveldb_bloom_filterpolicy_create` refuses them missing.
    create_filter: leveldb_bloom_create_filter_fn,
    key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
}

impl CustomPolicy {
    /// The `create_filter` callback's filter for `n` keys: `malloc`ed, its length in `*len`;
    /// NULL if it fails.
    ///
    /// # Safety
    /// Both arrays must hold `n` entries, each key its length in readable bytes.
    pub(crate) unsafe fn create_filter(
        &self,
        keys: *const *const c_char,
        lengths: *const usize,
        n: c_int,
        len: &mut usize,
    ) -> *mut c_char {
        self.create_filter.map_or(ptr::null_mut(), |create_filter| {
            // SAFETY: the callback was given with `state` for this use; arguments per the
            // contract.
            unsafe { create_filter(self.state, keys, lengths, n, len) }
        })
    }

    /// The `key_may_match` callback's answer: false only if the key is certainly not in the
    /// filter's set.
    ///
    /// # Safety
    /// `key` and `filter` must each point to its length in readable bytes, or be NULL with
    /// length 0.
    pub(crate) unsafe fn key_may_match(
        &self,
        key: *const c_char,
        length: usize,
        filter: *const c_char,
        filter_length: usize,
    ) -> bool {
        self.key_may_match.is_none_or(|key_may_match| {
            // SAFETY: the callback was given with `state` for this use; arguments per the
            // contract.
            unsafe { key_may_match(self.state, key, length, filter, filter_length) != 0 }
        })
    }
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

/// Whether `policy` is one of this library's bloom policies: the single query's check, which
/// reads its first word only.
///
/// # Safety
/// `policy` must be NULL or point to a live policy of this library or of leveldb's C API.
#[inline(always)]
pub(crate) unsafe fn is_bloom(policy: *const leveldb_bloom_filterpolicy_t) -> bool {
    // SAFETY: either kind of object starts with an aligned word, a tag or leveldb's vtable
    // pointer (per the contract).
    !policy.is_null() && unsafe { policy.cast::<u64>().read() } == BLOOM_TAG
}

/// Whether `policy`'s first word is one of the tags: it is a policy this library made.
///
/// # Safety
/// `policy` must point to a live policy of this library or of leveldb's C API.
unsafe fn tagged(policy: *const leveldb_bloom_filterpolicy_t) -> bool {
    // SAFETY: as in `is_bloom`.
    let first = unsafe { policy.cast::<u64>().read() };
    first == BLOOM_TAG || first == CUSTOM_TAG
}

/// The policy of this library at `policy`: itself when its first word is one of the tags, or,
/// for an object of leveldb's that wraps one (in_leveldb/), that one. `None` for NULL or a policy
/// this library did not make, such as one of leveldb's own: nothing else of it is read. For
/// queries: it takes no lock.
///
/// # Safety
/// `policy` must be NULL or point to a live policy of this library or of leveldb's C API, which
/// outlives `'a`.
pub(crate) unsafe fn recognize<'a>(
    policy: *const leveldb_bloom_filterpolicy_t,
) -> Option<&'a leveldb_bloom_filterpolicy_t> {
    if policy.is_null() {
        return None;
    }
    // SAFETY: per the contract.
    if unsafe { tagged(policy) } {
        // SAFETY: this library's, live per the contract.
        return Some(unsafe { &*policy });
    }
    #[cfg(feature = "leveldb-c-api")]
    if let Some(inner) = in_leveldb::policy_behind(policy.cast()) {
        // SAFETY: this library's policy, which lives as long as the object of leveldb's that
        // wraps it.
        return Some(unsafe { &*inner.cast::<leveldb_bloom_filterpolicy_t>() });
    }
    None
}

/// [`recognize`] for the calls that are not queries, which first forget the objects of a
/// leveldb unloaded since (in_leveldb/).
///
/// # Safety
/// As [`recognize`].
pub(crate) unsafe fn recognize_current<'a>(
    policy: *const leveldb_bloom_filterpolicy_t,
) -> Option<&'a leveldb_bloom_filterpolicy_t> {
    // SAFETY: per the contract.
    #[cfg(feature = "leveldb-c-api")]
    if !policy.is_null() && !unsafe { tagged(policy) } {
        in_leveldb::forget_unloaded();
    }
    // SAFETY: per the contract.
    unsafe { recognize(policy) }
}

/// Frees a policy that was never handed out, without calling a custom policy's destructor:
/// whoever gets NULL instead still owns its state.
///
/// # Safety
/// `policy` must come from `leveldb_bloom_filterpolicy_create_bloom` or `_create`, and not be
/// used again.
#[cfg(feature = "leveldb-c-api")]
pub(crate) unsafe fn discard(policy: *mut leveldb_bloom_filterpolicy_t) {
    // SAFETY: made by `into_raw` (per the contract), so owned by this Box now.
    let mut policy = unsafe { Box::from_raw(policy) };
    if let PolicyKind::Custom(custom) = &mut policy.kind {
        custom.destructor = None;
    }
}

/// Destroys a policy of this library, or has leveldb destroy an object of its own that wraps
/// one (whose destructor destroys this library's); any other pointer is left alone.
///
/// # Safety
/// `policy` must be NULL or point to a live policy of this library or of leveldb's C API; if it
/// is destroyed, it is not used again.
pub(crate) unsafe fn destroy(policy: *mut leveldb_bloom_filterpolicy_t) {
    if policy.is_null() {
        return;
    }
    // SAFETY: per the contract.
    if unsafe { tagged(policy) } {
        // SAFETY: made by `into_raw` (per the contract and its tag), so owned by this Box now.
        drop(unsafe { Box::from_raw(policy) });
    } else {
        // SAFETY: per the contract.
        #[cfg(feature = "leveldb-c-api")]
        unsafe {
            in_leveldb::destroy(policy.cast());
        }
    }
}

/// The policy's name (see `leveldb_bloom_filterpolicy_name`).
///
/// # Safety
/// `policy` must be NULL or point to a live policy of this library or of leveldb's C API.
pub(crate) unsafe fn name(policy: *const leveldb_bloom_filterpolicy_t) -> *const c_char {
    // SAFETY: per the contract.
    match unsafe { recognize_current(policy) }.map(|p| &p.kind) {
        None => ptr::null(),
        Some(PolicyKind::Bloom(_)) => POLICY_NAME_C.as_ptr(),
        Some(PolicyKind::Custom(custom)) => match custom.name {
            // SAFETY: the callback was given with `state` for this use.
            Some(name) => unsafe { name(custom.state) },
            None => ptr::null(),
        },
    }
}

/// Creates leveldb's built-in bloom filter policy, as `NewBloomFilterPolicy(bits_per_key)`; its
/// filters are byte-identical to leveldb 1.23's.
///
/// - `bits_per_key < 0`: returns NULL.
/// - `bits_per_key == 0`: a policy with k = 1 and the 64-bit minimum filter, as leveldb.
/// - any larger value, up to `INT_MAX`: a policy with k = `bits_per_key * 0.69` clamped to 1..30.
///
/// Returns NULL if memory runs out. Release the policy with `leveldb_bloom_filterpolicy_destroy`.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_filterpolicy_create_bloom(
    bits_per_key: c_int,
) -> *mut leveldb_bloom_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        match policy_for_bits(bits_per_key) {
            Some(bloom) => into_raw(leveldb_bloom_filterpolicy_t {
                kind: PolicyKind::Bloom(bloom),
            }),
            None => ptr::null_mut(),
        }
    })
}

/// Creates a policy from callbacks, as `leveldb_filterpolicy_create` in leveldb's C API does.
/// `leveldb_bloom_filterpolicy_create_filter`, `_key_may_match` and `_name` call them with
/// `state`.
///
/// - NULL `create_filter`, `key_may_match` or `name`: returns NULL.
/// - `destructor` may be NULL; otherwise `leveldb_bloom_filterpolicy_destroy` calls it exactly
///   once.
/// - Out of memory: returns NULL. Whenever NULL is returned, `destructor` is not called.
///
/// The callbacks may be called from several threads at once and must allow it, as in leveldb.
/// `create_filter` must return a `malloc`ed buffer (or NULL), which the caller frees.
///
/// # Threads
/// Any number of threads may call it at once.
#[unsafe(no_mangle)]
pub extern "C" fn leveldb_bloom_filterpolicy_create(
    state: *mut c_void,
    destructor: leveldb_bloom_destructor_fn,
    create_filter: leveldb_bloom_create_filter_fn,
    key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
) -> *mut leveldb_bloom_filterpolicy_t {
    ffi_boundary!(ptr::null_mut(), {
        if create_filter.is_none() || key_may_match.is_none() || name.is_none() {
            return ptr::null_mut();
        }
        into_raw(leveldb_bloom_filterpolicy_t {
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

/// Destroys a policy made by `leveldb_bloom_filterpolicy_create_bloom` or
/// `leveldb_bloom_filterpolicy_create` (calling the latter's destructor once). NULL, or a policy
/// this library did not make (one of leveldb's own): does nothing.
///
/// # Threads
/// Must not run while another thread uses the same policy; other policies are unaffected.
///
/// # Safety
/// `policy` must be NULL or a live policy (from this library, or leveldb's), not used again
/// afterwards if it is this library's.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterpolicy_destroy(
    policy: *mut leveldb_bloom_filterpolicy_t,
) {
    // SAFETY: per the contract.
    ffi_boundary!((), { unsafe { destroy(policy) } })
}

/// Frees a buffer this library returned (a filter, a filter block); it is libc `free`. NULL:
/// does nothing.
///
/// # Threads
/// Any thread may free a buffer, once, whichever thread it came from.
///
/// # Safety
/// `ptr` must be NULL or a `malloc`ed pointer not freed yet.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_free(ptr: *mut c_void) {
    ffi_boundary!((), {
        // SAFETY: per the contract; free(NULL) is a no-op.
        unsafe { libc::free(ptr) }
    })
}

/// The policy's name: `"leveldb.BuiltinBloomFilter2"` for the bloom policy, what the `name`
/// callback returns for a custom one. Valid as long as the policy. NULL, or a policy this
/// library did not make: returns NULL.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too.
///
/// # Safety
/// `policy` must be NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterpolicy_name(
    policy: *const leveldb_bloom_filterpolicy_t,
) -> *const c_char {
    // SAFETY: per the contract.
    ffi_boundary!(ptr::null(), { unsafe { name(policy) } })
}
