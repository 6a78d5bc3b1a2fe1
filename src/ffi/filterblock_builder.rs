//! leveldb's `FilterBlockBuilder` through the C API: `leveldb_bloom_filterblock_builder_*`.

use std::ffi::c_char;
use std::ptr::{self, NonNull};

use crate::ffi::checks::{borrow_bytes, into_raw};
use crate::ffi::filterpolicy::{leveldb_bloom_filterpolicy_t, recognize_current};
use crate::filter_block::{BlockKeys, FilterBlockBuilder, FilterBlockError, FilterPolicy};
use crate::no_unwind::ffi_boundary;

/// The policy a C builder was created with (the one behind an object of leveldb's that
/// wraps one), which the caller keeps alive until the builder is destroyed.
#[derive(Clone, Copy)]
struct PolicyRef(NonNull<leveldb_bloom_filterpolicy_t>);

impl PolicyRef {
    fn get(&self) -> &leveldb_bloom_filterpolicy_t {
        // SAFETY: `leveldb_bloom_filterblock_builder_create`'s contract keeps the policy alive
        // while the builder that holds this is.
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
pub struct leveldb_bloom_filterblock_builder_t {
    /// None once finished.
    builder: Option<FilterBlockBuilder<PolicyRef>>,
}

/// The builder behind `builder`, if it is not NULL and not finished.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library, used by no other thread.
unsafe fn unfinished<'a>(
    builder: *mut leveldb_bloom_filterblock_builder_t,
) -> Option<&'a mut FilterBlockBuilder<PolicyRef>> {
    // SAFETY: per the contract.
    unsafe { builder.as_mut() }?.builder.as_mut()
}

/// Creates a filter block builder over `policy`, as leveldb's `FilterBlockBuilder(policy)`: the
/// calls `(start_block add_key*)* finish` give the block leveldb 1.23 writes for them, whose
/// filters the policy builds (the bloom policy's, byte-identical to leveldb's; a custom
/// policy's `create_filter` callback, once per filter).
///
/// Returns NULL for a NULL policy or one this library did not make, or if memory runs out. The
/// builder keeps a pointer to the policy, which must stay live until the builder is destroyed
/// (as in leveldb). Release the builder with `leveldb_bloom_filterblock_builder_destroy`.
///
/// # Threads
/// Any number of threads may call it at once, with one policy too. A builder is used by one
/// thread at a time.
///
/// # Safety
/// `policy` must be NULL or a live policy (from this library, or leveldb's).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterblock_builder_create(
    policy: *const leveldb_bloom_filterpolicy_t,
) -> *mut leveldb_bloom_filterblock_builder_t {
    ffi_boundary!(ptr::null_mut(), {
        // SAFETY: per the contract.
        let Some(policy) = (unsafe { recognize_current(policy) }) else {
            return ptr::null_mut();
        };
        let policy = NonNull::from(policy);
        into_raw(leveldb_bloom_filterblock_builder_t {
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
pub unsafe extern "C" fn leveldb_bloom_filterblock_builder_destroy(
    builder: *mut leveldb_bloom_filterblock_builder_t,
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
/// builder; a `block_offset` past 2^63 - 1, the largest file offset (refused before anything is
/// allocated); one in an earlier 2 KB range than the previous call's (leveldb asserts); memory
/// running out (an offset far out needs 4 bytes per 2 KB skipped); a custom policy's
/// `create_filter` returning NULL.
///
/// # Threads
/// One thread at a time per builder.
///
/// # Safety
/// `builder` must be NULL or a live builder from this library.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn leveldb_bloom_filterblock_builder_start_block(
    builder: *mut leveldb_bloom_filterblock_builder_t,
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
pub unsafe extern "C" fn leveldb_bloom_filterblock_builder_add_key(
    builder: *mut leveldb_bloom_filterblock_builder_t,
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
/// returned in a `malloc`ed buffer (release it with `leveldb_bloom_free`), its length in `*length`;
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
pub unsafe extern "C" fn leveldb_bloom_filterblock_builder_finish(
    builder: *mut leveldb_bloom_filterblock_builder_t,
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
