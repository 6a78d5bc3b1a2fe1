//! leveldb's filter blocks (`table/filter_block.cc`) through the C API: the builder
//! (`leveldb_filterblock_builder_*`, as leveldb's `FilterBlockBuilder`) and the reader
//! (`leveldb_filterblock_key_may_match` and its batch form, as its `FilterBlockReader`), over
//! either kind of `leveldb_filterpolicy_t`.

use std::ffi::{c_char, c_int};
use std::ptr::{self, NonNull};

use crate::ffi::checks::{as_answers, batch_results, borrow_bytes, can_borrow};
use crate::ffi::filterpolicy::{PolicyKind, into_raw, leveldb_filterpolicy_t};
use crate::filter_block::{
    BlockKeys, FilterBlockBuilder, FilterBlockError, FilterBlockReader, FilterPolicy,
};
use crate::no_unwind::{ffi_boundary, single_query};

impl FilterPolicy for leveldb_filterpolicy_t {
    /// The bloom policy's filter, or what a custom policy's `create_filter` callback returns,
    /// copied and freed.
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        let custom = match &self.kind {
            PolicyKind::Bloom(bloom) => return FilterPolicy::create_filter(bloom, keys, dst),
            PolicyKind::Custom(custom) => custom,
        };
        let create_filter = custom.create_filter.ok_or(FilterBlockError::PolicyFailed)?;
        let num_keys = c_int::try_from(keys.len()).map_err(|_| FilterBlockError::TooManyKeys)?;
        let (mut pointers, mut lengths) = (Vec::new(), Vec::new());
        pointers.try_reserve_exact(keys.len())?;
        lengths.try_reserve_exact(keys.len())?;
        for key in keys.iter() {
            pointers.push(key.as_ptr().cast::<c_char>());
            lengths.push(key.len());
        }
        let mut len = 0;
        // SAFETY: the callback was given with `state` for this use; both arrays hold `num_keys`
        // entries describing live keys.
        let filter = unsafe {
            create_filter(
                custom.state,
                pointers.as_ptr(),
                lengths.as_ptr(),
                num_keys,
                &mut len,
            )
        };
        if filter.is_null() {
            return Err(FilterBlockError::PolicyFailed);
        }
        // A length past isize::MAX cannot be reserved: it fails here, before any read.
        let appended = dst.try_reserve(len).map(|()| {
            // SAFETY: the callback returned `len` readable bytes at `filter`.
            dst.extend_from_slice(unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) });
        });
        // SAFETY: leveldb's contract: the callback's filter is malloc'ed, and ours to free.
        unsafe { libc::free(filter.cast()) };
        Ok(appended?)
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        match &self.kind {
            PolicyKind::Bloom(_) => single_query(key, filter) != 0,
            PolicyKind::Custom(custom) => custom.key_may_match.is_none_or(|key_may_match| {
                // SAFETY: the callback was given with `state` for this use; both slices live.
                unsafe {
                    key_may_match(
                        custom.state,
                        key.as_ptr().cast(),
                        key.len(),
                        filter.as_ptr().cast(),
                        filter.len(),
                    ) != 0
                }
            }),
        }
    }

    fn key_may_match_batch(&self, keys: &[&[u8]], filter: &[u8], results: &mut [bool]) {
        match &self.kind {
            PolicyKind::Bloom(bloom) => {
                FilterPolicy::key_may_match_batch(bloom, keys, filter, results);
            }
            PolicyKind::Custom(_) => {
                for (key, result) in keys.iter().zip(results) {
                    *result = self.key_may_match(key, filter);
                }
            }
        }
    }
}

/// The policy a C builder was created with, which the caller keeps alive until the builder is
/// destroyed.
#[derive(Clone, Copy)]
struct PolicyRef(NonNull<leveldb_filterpolicy_t>);

impl PolicyRef {
    fn get(&self) -> &leveldb_filterpolicy_t {
        // SAFETY: `leveldb_filterblock_builder_create`'s contract keeps the policy alive while
        // the builder that holds this is.
        unsafe { self.0.as_ref() }
    }
}

impl FilterPolicy for PolicyRef {
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        self.get().create_filter(keys, dst)
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        self.get().key_may_match(key, filter)
    }
}

/// A filter block builder: leveldb's `FilterBlockBuilder` over a policy. Opaque to C.
#[allow(non_camel_case_types)] // C naming, as the rest of the header
pub struct leveldb_filterblock_builder_t {
    /// None once finished.
    builder: Option<FilterBlockBuilder<PolicyRef>>,
}

/// The builder behind `builder`, if it is not NULL and not finished.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library, used by no other thread.
unsafe fn unfinished<'a>(
    builder: *mut leveldb_filterblock_builder_t,
) -> Option<&'a mut FilterBlockBuilder<PolicyRef>> {
    // SAFETY: per the contract.
    unsafe { builder.as_mut() }?.builder.as_mut()
}

/// Creates a filter block builder over `policy`, as leveldb's `FilterBlockBuilder(policy)`: the
/// calls `(start_block add_key*)* finish` give the block leveldb 1.23 writes for them, whose
/// filters the policy builds (the bloom policy's, byte-identical to leveldb's; a custom
/// policy's `create_filter` callback, once per filter).
///
/// Returns NULL for a NULL policy, or if memory runs out. The builder keeps a pointer to the
/// policy, which must stay live until the builder is destroyed (as in leveldb). Release the
/// builder with `leveldb_filterblock_builder_destroy`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too. A builder is used by one
/// thread at a time.
///
/// # Safety
/// `policy` must be NULL or a live policy from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_create(
    policy: *const leveldb_filterpolicy_t,
) -> *mut leveldb_filterblock_builder_t {
    ffi_boundary!(ptr::null_mut(), {
        let Some(policy) = NonNull::new(policy.cast_mut()) else {
            return ptr::null_mut();
        };
        into_raw(leveldb_filterblock_builder_t {
            builder: Some(FilterBlockBuilder::new(PolicyRef(policy))),
        })
    })
}

/// Destroys a builder, finished or not. NULL: does nothing.
///
/// # Threads
/// Must not run while another thread uses the same builder.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library, not used again afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_destroy(
    builder: *mut leveldb_filterblock_builder_t,
) {
    ffi_boundary!((), {
        if !builder.is_null() {
            // SAFETY: made by `into_raw` (per the contract), so owned by this Box now.
            drop(unsafe { Box::from_raw(builder) });
        }
    })
}

/// The data block at `block_offset` starts, as leveldb's `StartBlock`: the filter of each 2 KB
/// range of offsets before its own is built, the first from the keys added so far, the others
/// empty.
///
/// Returns 1 on success. Returns 0, leaving the builder unchanged, for: a NULL or finished
/// builder; a `block_offset` in an earlier 2 KB range than the previous call's (leveldb
/// asserts); memory running out (an offset far out needs 4 bytes per 2 KB skipped); a custom
/// policy's `create_filter` returning NULL.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_start_block(
    builder: *mut leveldb_filterblock_builder_t,
    block_offset: u64,
) -> u8 {
    ffi_boundary!(0, {
        // SAFETY: per the contract.
        match unsafe { unfinished(builder) } {
            Some(builder) => builder.start_block(block_offset).is_ok().into(),
            None => 0,
        }
    })
}

/// Adds a key of the current data block, as leveldb's `AddKey`; the builder copies it.
///
/// Returns 1 on success. Returns 0, leaving the builder unchanged, for: a NULL or finished
/// builder; a NULL `key` with `length` above 0 (NULL with 0 is the empty key); memory running
/// out; more than `INT_MAX` keys for one filter.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library; a non-NULL `key` must point to
/// `length` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_add_key(
    builder: *mut leveldb_filterblock_builder_t,
    key: *const c_char,
    length: usize,
) -> u8 {
    ffi_boundary!(0, {
        // SAFETY: per the contract.
        match unsafe { (unfinished(builder), borrow_bytes(key, length)) } {
            (Some(builder), Some(key)) => builder.add_key(key).is_ok().into(),
            _ => 0,
        }
    })
}

/// The block, as leveldb's `Finish`: the filter of the keys added since the last built one,
/// then the offset of every filter, the offset of that array and the base lg byte (11). It is
/// returned in a `malloc`ed buffer (release it with `leveldb_free`), its length in `*length`;
/// the builder is finished then, and every later call on it but destroy fails.
///
/// Returns NULL, with `*length` set to 0 when `length` is not NULL, for: a NULL builder or
/// `length`; a finished builder; memory running out, or a custom policy's `create_filter`
/// returning NULL, after which the builder can be finished again. Past 4 GiB of filters,
/// offsets keep their low 32 bits, as leveldb's `uint32_t`s do.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library; a non-NULL `length` must be
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_builder_finish(
    builder: *mut leveldb_filterblock_builder_t,
    length: *mut usize,
) -> *mut c_char {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: checked non-NULL; writable per the contract.
        let Some(length) = (unsafe { length.as_mut() }) else {
            return ptr::null_mut();
        };
        *length = 0;
        // SAFETY: per the contract.
        let Some(handle) = (unsafe { builder.as_mut() }) else {
            return ptr::null_mut();
        };
        let Some(block_builder) = handle.builder.as_mut() else {
            return ptr::null_mut();
        };
        let copied = block_builder.finish_into(|block| {
            // SAFETY: malloc has no preconditions; NULL is handled.
            let buffer = NonNull::new(unsafe { libc::malloc(block.len()) }.cast::<u8>())?;
            // SAFETY: `buffer` holds `block.len()` bytes, apart from `block`.
            unsafe {
                buffer
                    .as_ptr()
                    .copy_from_nonoverlapping(block.as_ptr(), block.len());
            }
            Some((buffer, block.len()))
        });
        match copied {
            Ok((buffer, len)) => {
                handle.builder = None;
                *length = len;
                buffer.as_ptr().cast()
            }
            Err(_) => ptr::null_mut(),
        }
    })
}

/// leveldb's `FilterBlockReader(policy, contents).KeyMayMatch(block_offset, key)`: whether the
/// key of `key_length` bytes at `key` may be in the data block at `block_offset`, by the filter
/// block of `contents_length` bytes at `contents`; 0 only if its filter says it certainly is
/// not. The answer equals leveldb 1.23's for any contents, corrupt ones included (errors are
/// potential matches; an empty filter range matches nothing). `policy` tests the filter: the
/// bloom policy as leveldb's, a custom policy by its `key_may_match` callback.
///
/// Returns 1 ("may match") for: a NULL policy; a NULL `contents` or `key` with a length above 0;
/// a length above `PTRDIFF_MAX`. A NULL `contents` or `key` with length 0 is empty.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too.
///
/// # Safety
/// A non-NULL `contents` and `key` must point to their length in readable bytes; `policy` must
/// be NULL or a live policy from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_filterblock_key_may_match(
    policy: *const leveldb_filterpolicy_t,
    contents: *const c_char,
    contents_length: usize,
    block_offset: u64,
    key: *const c_char,
    key_length: usize,
) -> u8 {
    ffi_boundary!(1, {
        // SAFETY: per the contract.
        match unsafe {
            (
                policy.as_ref(),
                borrow_bytes(contents, contents_length),
                borrow_bytes(key, key_length),
            )
        } {
            (Some(policy), Some(contents), Some(key)) => FilterBlockReader::new(policy, contents)
                .key_may_match(block_offset, key)
                .into(),
            _ => 1,
        }
    })
}

/// Keys a C batch turns into slices at a time (see docs/PERFORMANCE.md, Filter blocks).
const KEY_WINDOW: usize = 4096;

/// `leveldb_filterblock_key_may_match` for `num_keys` (block offset, key) pairs against one
/// filter block, in one call: `results[i]` (0 or 1) is its answer for the key of
/// `key_lengths[i]` bytes at `keys[i]` in the data block at `block_offsets[i]`, bad input
/// included. Each run of keys of one filter, as they come, is tested together: with the bloom
/// policy, keys in block order (as sorted keys lie in a table) are much faster than a loop of
/// single queries; keys in random order are as fast as that loop.
///
/// - NULL `results`, or `num_keys` 0 or above `PTRDIFF_MAX / 8`: nothing is written.
/// - NULL policy; NULL `block_offsets`, `keys` or `key_lengths`; NULL `contents` with
///   `contents_length > 0`; memory running out: every result is 1.
/// - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.
///
/// Every result is set to 1 before any work, so not even an internal failure yields a false
/// negative.
///
/// # Threads
/// Any number of threads may call it at once, with one policy and block too, each with its own
/// `results`.
///
/// # Safety
/// A non-NULL `results` must have `num_keys` writable bytes; non-NULL `block_offsets`, `keys`
/// and `key_lengths` must hold `num_keys` entries, each non-NULL key its length in readable
/// bytes; a non-NULL `contents` must point to `contents_length` readable bytes; `policy` must be
/// NULL or a live policy from this library.
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
    ffi_boundary!((), {
        // SAFETY: per the contract.
        let Some(results) = (unsafe { batch_results(results, num_keys) }) else {
            return;
        };
        // SAFETY: per the contract.
        let (Some(policy), Some(contents)) = (unsafe { policy.as_ref() }, unsafe {
            borrow_bytes(contents, contents_length)
        }) else {
            return;
        };
        if block_offsets.is_null() || keys.is_null() || key_lengths.is_null() {
            return;
        }
        // SAFETY: all three checked non-NULL; `num_keys` entries per the contract.
        let (block_offsets, pointers, lengths) = unsafe {
            (
                std::slice::from_raw_parts(block_offsets, num_keys),
                std::slice::from_raw_parts(keys, num_keys),
                std::slice::from_raw_parts(key_lengths, num_keys),
            )
        };
        // The keys as slices, a window at a time: a buffer that stays in cache.
        let mut keys: Vec<&[u8]> = Vec::new();
        if keys.try_reserve_exact(num_keys.min(KEY_WINDOW)).is_err() {
            return;
        }
        let reader = FilterBlockReader::new(policy, contents);
        for start in (0..num_keys).step_by(KEY_WINDOW) {
            let end = num_keys.min(start + KEY_WINDOW);
            keys.clear();
            // A key that cannot exist is tested as the empty key, and its result set back to 1.
            let mut any_invalid = false;
            // SAFETY: per the contract on each key.
            keys.extend(pointers[start..end].iter().zip(&lengths[start..end]).map(
                |(&key, &len)| {
                    unsafe { borrow_bytes(key, len) }.unwrap_or_else(|| {
                        any_invalid = true;
                        &[]
                    })
                },
            ));
            let window = &mut results[start..end];
            // SAFETY: every byte of `window` is 1.
            let answers = unsafe { as_answers(window) };
            reader.key_may_match_batch(&block_offsets[start..end], &keys, answers);
            if any_invalid {
                let entries = pointers[start..end].iter().zip(&lengths[start..end]);
                for ((&key, &len), result) in entries.zip(window) {
                    if !can_borrow(key, len) {
                        *result = 1;
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ffi::filterpolicy::{
        leveldb_filterpolicy_create_bloom, leveldb_filterpolicy_destroy, leveldb_free,
    };

    // The C tests cover every bad-input row; these few run the same paths under `cargo miri test`.
    #[test]
    fn builder_and_reader_round_trip_and_refuse_bad_input() {
        let policy = leveldb_filterpolicy_create_bloom(10);
        unsafe {
            let builder = leveldb_filterblock_builder_create(policy);
            assert!(!builder.is_null());
            assert_eq!(leveldb_filterblock_builder_start_block(builder, 5000), 1);
            assert_eq!(
                leveldb_filterblock_builder_add_key(builder, c"key".as_ptr(), 3),
                1
            );
            assert_eq!(
                leveldb_filterblock_builder_add_key(builder, ptr::null(), 1),
                0
            );
            assert_eq!(leveldb_filterblock_builder_start_block(builder, 100), 0);
            let mut len = 7;
            let block = leveldb_filterblock_builder_finish(builder, &mut len);
            assert!(!block.is_null() && len > 5);
            assert!(leveldb_filterblock_builder_finish(builder, &mut len).is_null());
            assert_eq!(len, 0);
            assert_eq!(
                leveldb_filterblock_builder_add_key(builder, c"k".as_ptr(), 1),
                0
            );
            leveldb_filterblock_builder_destroy(builder);
            leveldb_filterblock_builder_destroy(ptr::null_mut());

            let block_len = 9 + 4 * 3 + 5;
            let answer = |offset, key: &std::ffi::CStr, key_len| {
                leveldb_filterblock_key_may_match(
                    policy,
                    block,
                    block_len,
                    offset,
                    key.as_ptr(),
                    key_len,
                )
            };
            assert_eq!(answer(4096, c"key", 3), 1);
            assert_eq!(answer(0, c"key", 3), 0);
            let (offsets, keys, lens) = (
                [0u64, 4096, 0],
                [c"key".as_ptr(), c"key".as_ptr(), ptr::null()],
                [3, 3, 1],
            );
            let mut results = [7u8; 3];
            leveldb_filterblock_key_may_match_batch(
                policy,
                block,
                block_len,
                offsets.as_ptr(),
                keys.as_ptr(),
                lens.as_ptr(),
                3,
                results.as_mut_ptr(),
            );
            assert_eq!(results, [0, 1, 1]);
            leveldb_free(block.cast());
            leveldb_filterpolicy_destroy(policy);
        }
    }
}
