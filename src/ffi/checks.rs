//! The pointer checks of the C ABI: which pointer-length pairs name bytes that can exist, and
//! borrowing them; the policy a C `bits_per_key` asks for; objects handed to C allocated without
//! aborting.

use std::alloc::{Layout, alloc};
use std::ffi::{c_char, c_int};
use std::ptr;

use crate::policy::BloomPolicy;

/// Borrows `len` bytes at `ptr`. `None` when the bytes cannot exist: a NULL pointer with a
/// non-zero length, or a length past `isize::MAX`. NULL with length 0 is the empty slice.
///
/// # Safety
/// A non-NULL `ptr` must point to `len` readable bytes that outlive `'a`.
pub(crate) unsafe fn borrow_bytes<'a>(ptr: *const c_char, len: usize) -> Option<&'a [u8]> {
    if !can_borrow(ptr, len) {
        return None;
    }
    // SAFETY: accepted just now; readability is the caller's contract.
    Some(unsafe { accepted_bytes(ptr, len) })
}

/// Whether [`borrow_bytes`] borrows `len` bytes at `ptr` rather than answering `None`.
pub(crate) fn can_borrow(ptr: *const c_char, len: usize) -> bool {
    len == 0 || (!ptr.is_null() && is_object_length(len))
}

/// Whether some object can be `len` bytes long: none is longer than `isize::MAX` (C's
/// `PTRDIFF_MAX`), which is also what `std::slice::from_raw_parts` requires.
#[inline(always)]
fn is_object_length(len: usize) -> bool {
    len <= isize::MAX as usize
}

/// [`borrow_bytes`] of a pointer and length that [`can_borrow`] accepted, without checking them
/// again: [`KeyArrays`](crate::ffi::key_arrays::KeyArrays) checks a chunk of a C caller's keys at
/// once, before it borrows any, which takes no branch per key.
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
/// a few predictable branches that change no register. `None` leaves the rest to
/// [`borrow_bytes`], whose checks compile to conditional moves that delay the key's address on
/// the single query's chain (docs/PERFORMANCE.md, Single query: pointer checks).
///
/// # Safety
/// As [`borrow_bytes`], for both.
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

/// The `n` entries of a C array at `ptr`: the empty slice for none; `None` for a NULL `ptr` with
/// entries in it, or more entries than an array can hold.
///
/// # Safety
/// A non-NULL `ptr` must point to `n` entries that outlive `'a`.
pub(crate) unsafe fn borrow_array<'a, T>(ptr: *const T, n: usize) -> Option<&'a [T]> {
    if n == 0 {
        return Some(&[]);
    }
    if ptr.is_null() || n > isize::MAX as usize / size_of::<T>() {
        return None;
    }
    // SAFETY: non-NULL, the size in range; `n` entries per the contract.
    Some(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// The `num_keys` results of a C batch query, each set to 1 ("may match") before any work, so
/// that nothing, not even an internal failure, leaves a false negative. `None`, with nothing
/// written, for a NULL `results`, no keys, or more keys than an array of pointers can hold
/// (past `isize::MAX / 8`).
///
/// # Safety
/// A non-NULL `results` must have `num_keys` writable bytes that outlive `'a`.
pub(crate) unsafe fn batch_results<'a>(results: *mut u8, num_keys: usize) -> Option<&'a mut [u8]> {
    if results.is_null() || num_keys == 0 || num_keys > isize::MAX as usize / 8 {
        return None;
    }
    // SAFETY: checked non-NULL; `num_keys` writable bytes per the contract.
    let results = unsafe { std::slice::from_raw_parts_mut(results, num_keys) };
    results.fill(1);
    Some(results)
}

/// `results` as the answers they hold, for the batch queries to write.
///
/// # Safety
/// Every byte of `results` must be 0 or 1, valid bools; only bools are written through the view.
pub(crate) unsafe fn as_answers(results: &mut [u8]) -> &mut [bool] {
    // SAFETY: per the contract; bool has the size and alignment of u8.
    unsafe { &mut *(std::ptr::from_mut(results) as *mut [bool]) }
}

/// The policy `NewBloomFilterPolicy(bits_per_key)` makes; `None` for a negative `bits_per_key`.
pub(crate) fn policy_for_bits(bits_per_key: c_int) -> Option<BloomPolicy> {
    u32::try_from(bits_per_key).ok().map(BloomPolicy::new)
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
