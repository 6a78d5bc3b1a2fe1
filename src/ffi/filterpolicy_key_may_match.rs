//! `leveldb_bloom_filterpolicy_key_may_match` and its batch form.

use std::ffi::c_char;

use crate::bulk;
use crate::dispatch::Isa;
use crate::ffi::checks::{as_answers, batch_results, borrow_array, borrow_bytes, query_bytes};
use crate::ffi::filterpolicy::{PolicyKind, is_bloom, leveldb_bloom_filterpolicy_t, recognize};
#[cfg(feature = "leveldb-c-api")]
use crate::ffi::in_leveldb;
use crate::ffi::key_arrays::{KeyArrays, KeyEntries, PointersAndLengths};
use crate::no_unwind::{ffi_boundary, single_query};

/// The single query's fast path, once the caller has found `policy` to be a bloom policy of
/// this library (`$bloom`): a well-formed key and filter go to the kernel, anything else on to
/// `$rest` with the same arguments, by a tail call.
macro_rules! bloom_or_else {
    (
        $bloom:expr,
        $rest:ident($policy:ident, $key:ident, $length:ident, $filter:ident, $len:ident)
    ) => {
        if $bloom
            // SAFETY: per the caller's contract, as `leveldb_bloom_filterpolicy_key_may_match`'s.
            && let Some((key, filter)) = unsafe { query_bytes($key, $length, $filter, $len) }
        {
            single_query(key, filter)
        } else {
            // SAFETY: as above.
            unsafe { $rest($policy, $key, $length, $filter, $len) }
        }
    };
}

/// Whether the key of `length` bytes at `key` may be in the set `filter` (of `filter_length`
/// bytes) was built from: 0 only if it certainly is not. For the bloom policy the answer equals
/// leveldb 1.23's `KeyMayMatch` for any filter bytes, corrupt ones included; a custom policy's
/// callback answers (normalised to 0 or 1).
///
/// Returns 1 ("may match"; an error must never cause a false negative) for: a NULL policy or one
/// this library did not make; a NULL `key` or `filter` with a length above 0; a length above
/// `PTRDIFF_MAX`, which no object has (nothing is read). A NULL `key` or `filter` with length 0
/// is empty.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too (a custom policy's
/// callbacks must allow that).
///
/// # Safety
/// A non-NULL `key` and `filter` must point to their length in readable bytes; `policy` must be
/// NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterpolicy_key_may_match(
    policy: *const leveldb_bloom_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    ffi_boundary!(1, {
        // SAFETY: per the contract.
        let bloom = unsafe { is_bloom(policy) };
        bloom_or_else!(
            bloom,
            key_may_match_apart(policy, key, length, filter, filter_length)
        )
    })
}

/// The single query's C entries past the export, each `NAME(policy, key, length, filter,
/// filter_length) -> u8`, as the export, around the body given, with a boundary of its own:
/// C-ABI, so that no call from the fast path can unwind, and the fast path needs no landing pad
/// nor the stack frame one would take.
macro_rules! single_query_entries {
    (|$policy:ident, $key:ident, $length:ident, $filter:ident, $filter_length:ident| $(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident $body:block
    )*) => {$(
        $(#[$attr])*
        $vis unsafe extern "C" fn $name(
            $policy: *const leveldb_bloom_filterpolicy_t,
            $key: *const c_char,
            $length: usize,
            $filter: *const c_char,
            $filter_length: usize,
        ) -> u8 {
            ffi_boundary!(1, $body)
        }
    )*};
}

single_query_entries! { |policy, key, length, filter, filter_length|
    /// `leveldb_bloom_filterpolicy_key_may_match` off its fast path: first an object of leveldb's
    /// wrapping a bloom policy of this library (in_leveldb/), whose well-formed query takes the
    /// fast path's steps after a lookup with no lock and no call, then everything else, cold.
    /// Apart, so that the fast path sets no register for it.
    ///
    /// # Safety
    /// As `leveldb_bloom_filterpolicy_key_may_match`.
    #[inline(never)]
    fn key_may_match_apart {
        #[cfg(feature = "leveldb-c-api")]
        let bloom = in_leveldb::bloom_at_home(policy.cast());
        #[cfg(not(feature = "leveldb-c-api"))]
        let bloom = false;
        bloom_or_else!(bloom, key_may_match_cold(policy, key, length, filter, filter_length))
    }

    /// `leveldb_filterpolicy_key_may_match`: as `leveldb_bloom_filterpolicy_key_may_match`, but
    /// looking for an object of leveldb's first, as leveldb's names hand those out wherever
    /// leveldb is loaded (in_leveldb/). Where it is not, the single query's index is empty: one
    /// load.
    ///
    /// # Safety
    /// As `leveldb_bloom_filterpolicy_key_may_match`.
    #[cfg(feature = "leveldb-c-api")]
    #[inline(always)]
    pub(crate) fn key_may_match_leveldb_first {
        let bloom = in_leveldb::bloom_at_home(policy.cast());
        bloom_or_else!(
            bloom,
            leveldb_bloom_filterpolicy_key_may_match(policy, key, length, filter, filter_length)
        )
    }

    /// `leveldb_bloom_filterpolicy_key_may_match` for the rest: a NULL policy, a custom one, one
    /// this library did not make, bad input or an empty key or filter.
    ///
    /// # Safety
    /// As `leveldb_bloom_filterpolicy_key_may_match`.
    #[cold]
    #[inline(never)]
    fn key_may_match_cold {
        // SAFETY: per the contract.
        match unsafe { recognize(policy) } {
            // SAFETY: per the contract.
            Some(policy) => unsafe { answer(policy, key, length, filter, filter_length) },
            None => 1,
        }
    }
}

/// The policy's answer for one key, bad input included: the cold single query's, and the batch
/// query's for each key of a custom policy.
///
/// # Safety
/// A non-NULL `key` and `filter` must point to their length in readable bytes.
unsafe fn answer(
    policy: &leveldb_bloom_filterpolicy_t,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    // SAFETY: per the contract.
    let (Some(key_bytes), Some(filter_bytes)) = (unsafe { borrow_bytes(key, length) }, unsafe {
        borrow_bytes(filter, filter_length)
    }) else {
        return 1;
    };
    match &policy.kind {
        PolicyKind::Bloom(_) => single_query(key_bytes, filter_bytes),
        PolicyKind::Custom(custom) => {
            // SAFETY: arguments checked.
            unsafe { custom.key_may_match(key, length, filter, filter_length) }.into()
        }
    }
}

/// `leveldb_bloom_filterpolicy_key_may_match` for `num_keys` keys against one filter, in one
/// call: `results[i]` (0 or 1) is its answer for the key of `key_lengths[i]` bytes at `keys[i]`,
/// bad input included. For the bloom policy this is much faster than a loop of single queries; a
/// custom policy's `key_may_match` callback is called once per key.
///
/// - NULL `results`: nothing is written.
/// - NULL policy or one this library did not make; NULL `keys` or `key_lengths` with
///   `num_keys > 0`; NULL `filter` with `filter_length > 0`: every result is 1.
/// - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.
/// - `num_keys` above `PTRDIFF_MAX / 8`, more than any array can hold: nothing is written.
///
/// Every result is set to 1 before any work, so not even an internal failure yields a false
/// negative.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and filter too, each with its own
/// `results`.
///
/// # Safety
/// A non-NULL `results` must have `num_keys` writable bytes; non-NULL `keys` and `key_lengths`
/// must hold `num_keys` entries, each non-NULL key its length in readable bytes; a non-NULL
/// `filter` must point to `filter_length` readable bytes; `policy` must be NULL or a live policy
/// (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterpolicy_key_may_match_batch(
    policy: *const leveldb_bloom_filterpolicy_t,
    keys: *const *const c_char,
    key_lengths: *const usize,
    num_keys: usize,
    filter: *const c_char,
    filter_length: usize,
    results: *mut u8,
) {
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let Some(results) = (unsafe { batch_results(results, num_keys) }) else {
            return;
        };
        // SAFETY: per the contract.
        let Some(policy) = (unsafe { recognize(policy) }) else {
            return;
        };
        // SAFETY: `num_keys` entries each, per the contract.
        let (Some(keys), Some(key_lengths)) = (unsafe { borrow_array(keys, num_keys) }, unsafe {
            borrow_array(key_lengths, num_keys)
        }) else {
            return;
        };
        match &policy.kind {
            PolicyKind::Bloom(_) => {
                // SAFETY: per the contract.
                let Some(filter) = (unsafe { borrow_bytes(filter, filter_length) }) else {
                    return;
                };
                let isa = Isa::best();
                let entries = PointersAndLengths {
                    pointers: keys,
                    lengths: key_lengths,
                };
                // SAFETY: per the contract on each key.
                let mut key_arrays = unsafe { KeyArrays::new(isa, entries) };
                // SAFETY: every byte of `results` is 1.
                let answers = unsafe { as_answers(results) };
                bulk::may_match_batch(isa, &mut key_arrays, filter, answers);
                // A key that cannot exist was hashed as the empty key, or not read at all (a
                // filter that answers every key alike): its answer is 1.
                if !key_arrays.all_read_valid() {
                    entries.answer_invalid(results);
                }
            }
            PolicyKind::Custom(_) => {
                for ((&key, &len), result) in keys.iter().zip(key_lengths).zip(results) {
                    // SAFETY: per the contract.
                    *result = unsafe { answer(policy, key, len, filter, filter_length) };
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use std::ptr;

    use super::*;
    use crate::ffi::filterpolicy::{
        leveldb_bloom_filterpolicy_create_bloom, leveldb_bloom_filterpolicy_destroy,
        leveldb_bloom_free,
    };
    use crate::ffi::filterpolicy_create_filter::leveldb_bloom_filterpolicy_create_filter;

    // The C tests cover every bad-input row; these few run the same paths under `cargo miri test`.
    #[test]
    fn bad_pointers_get_documented_results() {
        let policy = leveldb_bloom_filterpolicy_create_bloom(10);
        let key = c"key".as_ptr();
        let (keys, lens) = ([key, ptr::null()], [3, 1]);
        let mut len = 7;
        // SAFETY: every pointer passed is NULL, a live local, or what an earlier call returned
        // and nothing has released yet.
        unsafe {
            let create = |num_keys, len: &mut usize| {
                leveldb_bloom_filterpolicy_create_filter(
                    policy,
                    keys.as_ptr(),
                    lens.as_ptr(),
                    num_keys,
                    len,
                )
            };
            // The second key is NULL with a length.
            assert!(create(2, &mut len).is_null());
            assert_eq!(len, 0);
            let filter = create(1, &mut len);
            assert!(!filter.is_null());
            // The key present, a NULL key with a length, a NULL policy.
            for (policy, key) in [(policy, key), (policy, ptr::null()), (ptr::null_mut(), key)] {
                let answer = leveldb_bloom_filterpolicy_key_may_match(policy, key, 3, filter, len);
                assert_eq!(answer, 1);
            }
            leveldb_bloom_free(filter.cast());
            leveldb_bloom_filterpolicy_destroy(policy);
            leveldb_bloom_filterpolicy_destroy(ptr::null_mut());
        }
        assert!(leveldb_bloom_filterpolicy_create_bloom(-1).is_null());
    }

    // A stand-in for a policy of leveldb's C API: a C++ object, whose first word is its vtable
    // pointer (an aligned address), then its fields.
    #[test]
    fn a_policy_this_library_did_not_make_is_bad_input() {
        let vtable = [0usize; 4];
        let object = [ptr::from_ref(&vtable).addr(), 0, 0, 0, 0, 0];
        let foreign = ptr::from_ref(&object).cast::<leveldb_bloom_filterpolicy_t>();
        let policy = leveldb_bloom_filterpolicy_create_bloom(10);
        let key = c"key";
        let keys = [key.as_ptr()];
        let mut len = 7;
        // SAFETY: every pointer passed is a live local or what an earlier call returned and
        // nothing has released yet; `foreign`'s first word, all that is read of it, is aligned.
        unsafe {
            let filter =
                leveldb_bloom_filterpolicy_create_filter(policy, keys.as_ptr(), &3, 1, &mut len);
            let absent = c"absent-0";
            assert_eq!(
                leveldb_bloom_filterpolicy_key_may_match(policy, absent.as_ptr(), 8, filter, len),
                0
            );
            assert_eq!(
                leveldb_bloom_filterpolicy_key_may_match(foreign, absent.as_ptr(), 8, filter, len),
                1
            );
            let mut foreign_len = 7;
            let from_foreign = leveldb_bloom_filterpolicy_create_filter(
                foreign,
                keys.as_ptr(),
                &3,
                1,
                &mut foreign_len,
            );
            assert!(from_foreign.is_null() && foreign_len == 0);
            let mut results = [0u8];
            leveldb_bloom_filterpolicy_key_may_match_batch(
                foreign,
                [absent.as_ptr()].as_ptr(),
                &8,
                1,
                filter,
                len,
                results.as_mut_ptr(),
            );
            assert_eq!(results, [1]);
            assert!(crate::ffi::filterpolicy::leveldb_bloom_filterpolicy_name(foreign).is_null());
            // Left to its owner: nothing of it is freed.
            leveldb_bloom_filterpolicy_destroy(foreign.cast_mut());
            leveldb_bloom_free(filter.cast());
            leveldb_bloom_filterpolicy_destroy(policy);
        }
        assert_eq!(object[1..], [0; 5]);
    }
}
