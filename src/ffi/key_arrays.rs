//! The keys of a C call, as its arrays describe them: the C entries' key source ([`KeyArrays`],
//! the kernels' [`Keys`] over C's arrays), over either layout they take ([`KeyEntries`]).
//!
//! Checking the entries is C-ABI work (pointer checks); the dispatch runs it with AVX-512 where
//! the caller's [`Isa`] has it.

use std::ffi::c_char;

use crate::dispatch::Isa;
use crate::ffi::checks::{accepted_bytes, can_borrow};
use crate::kernels::keys::{Keys, NO_KEY};
use crate::kernels::{CHUNK, prefetch_line};

/// How many entries ahead of their reads [`KeyArrays`] prefetches its arrays
/// (docs/PERFORMANCE.md, C key arrays).
const ARRAYS_AHEAD: usize = 256;

/// The keys of a C call, read a chunk at a time: each chunk's entries are checked together
/// ([`KeyEntries::all_valid`]) before any key is borrowed, and with many keys the arrays are
/// prefetched ahead of their reads ([`ARRAYS_AHEAD`]). A key that cannot exist (NULL with bytes
/// in it, or longer than `isize::MAX`) is read as the empty key; [`KeyArrays::all_read_valid`]
/// tells the caller to answer for it. Checking a chunk's entries together takes no branch per
/// key; prefetching keeps the reads of many keys from waiting on the arrays' loads.
pub(crate) struct KeyArrays<E> {
    /// The entries not read yet.
    entries: E,
    /// The instructions that check each chunk's entries; none for keys the caller checked.
    check: Option<Isa>,
    any_invalid: bool,
}

impl<'k, E: KeyEntries<'k>> KeyArrays<E> {
    /// The keys of `entries`, each chunk checked with `isa`'s instructions.
    ///
    /// # Safety
    /// Each key that [`can_borrow`] accepts must point to its length in readable bytes that stay
    /// unchanged for `'k`.
    pub(crate) unsafe fn new(isa: Isa, entries: E) -> KeyArrays<E> {
        KeyArrays {
            entries,
            check: Some(isa),
            any_invalid: false,
        }
    }

    /// The keys of `entries` that [`KeyEntries::all_valid`] accepted already, read without
    /// checking them again: `leveldb_bloom_fill_filter` (the C++ shim's build) checks them all
    /// before it writes.
    ///
    /// # Safety
    /// Every key must point to its length in readable bytes that stay unchanged for `'k`.
    pub(crate) unsafe fn checked(entries: E) -> KeyArrays<E> {
        KeyArrays {
            entries,
            check: None,
            any_invalid: false,
        }
    }

    /// Whether every key has been read, and each was one that can exist: if not, the caller must
    /// answer for the others itself (they were read as empty keys, or not at all).
    pub(crate) fn all_read_valid(&self) -> bool {
        self.entries.count() == 0 && !self.any_invalid
    }
}

impl<'k, E: KeyEntries<'k>> Keys<'k> for &mut KeyArrays<E> {
    fn max_len(&self) -> Option<usize> {
        Some(self.entries.count())
    }

    // Kept out of the kernels: compiled into one for AVX2, this loop is vectorised into blends
    // and permutes that take longer than its plain scalar form.
    #[inline(never)]
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize {
        if prefetch {
            self.entries.prefetch(ARRAYS_AHEAD..ARRAYS_AHEAD + CHUNK);
        }
        let n = self.entries.count().min(CHUNK);
        let (entries, rest) = self.entries.split(n);
        self.entries = rest;
        let valid = self.check.is_none_or(|isa| entries.all_valid(isa));
        self.any_invalid |= !valid;
        for (slot, (ptr, len)) in chunk.iter_mut().zip(entries.iter()) {
            // Checked once for the chunk; only in a chunk that failed, key by key.
            let key = if len != 0 && (valid || can_borrow(ptr, len)) {
                // SAFETY: can_borrow accepts the key: with its chunk (just above, or before, by
                // the caller of `checked`), or on its own; its bytes are readable for 'k by the
                // constructors' contract.
                unsafe { accepted_bytes(ptr, len) }
            } else {
                NO_KEY
            };
            if prefetch {
                prefetch_line(key.as_ptr());
            }
            *slot = key;
        }
        n
    }
}

/// A key: `size` bytes at `data`. Laid out as `leveldb::Slice` (`const char* data_; size_t
/// size_;`), so the C++ shim passes leveldb's array of keys as it is, without copying.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)] // C naming, as the rest of the header
pub struct leveldb_bloom_slice_t {
    /// The key's first byte; NULL is allowed with `size` 0.
    pub data: *const c_char,
    /// The key's length in bytes.
    pub size: usize,
}

/// Where a C call keeps its keys' pointers and lengths: two arrays
/// ([`PointersAndLengths`]: leveldb's C API), or one of `leveldb::Slice`s (the C++ shim's).
pub(crate) trait KeyEntries<'k>: Copy {
    /// How many entries there are.
    fn count(self) -> usize;

    /// The first `n` entries, and the rest.
    fn split(self, n: usize) -> (Self, Self);

    /// Each key's pointer and length, as the caller gave them.
    fn iter(self) -> impl Iterator<Item = (*const c_char, usize)>;

    /// Starts loading the lines that hold the entries of `range` (those that exist).
    fn prefetch(self, range: std::ops::Range<usize>);

    /// Whether [`can_borrow`] accepts every entry's key: with AVX-512, 8 keys' entries per
    /// instruction, masked loads taking the last few, so that a chunk's check takes no branch
    /// per key.
    fn all_valid(self, isa: Isa) -> bool;

    /// Sets to 1 ("may match") the result of each key that cannot exist, which a batch query
    /// read as the empty key or not at all.
    fn answer_invalid(self, results: &mut [u8]) {
        for ((ptr, len), result) in self.iter().zip(results) {
            if !can_borrow(ptr, len) {
                *result = 1;
            }
        }
    }
}

/// A C API call's two arrays: key pointers, and key lengths.
#[derive(Clone, Copy)]
pub(crate) struct PointersAndLengths<'k> {
    pub(crate) pointers: &'k [*const c_char],
    pub(crate) lengths: &'k [usize],
}

impl<'k> KeyEntries<'k> for PointersAndLengths<'k> {
    fn count(self) -> usize {
        self.pointers.len().min(self.lengths.len())
    }

    fn split(self, n: usize) -> (Self, Self) {
        let (pointers, rest_pointers) = self.pointers.split_at(n);
        let (lengths, rest_lengths) = self.lengths.split_at(n);
        (
            PointersAndLengths { pointers, lengths },
            PointersAndLengths {
                pointers: rest_pointers,
                lengths: rest_lengths,
            },
        )
    }

    #[inline(always)]
    fn iter(self) -> impl Iterator<Item = (*const c_char, usize)> {
        self.pointers
            .iter()
            .copied()
            .zip(self.lengths.iter().copied())
    }

    #[inline(always)]
    fn prefetch(self, range: std::ops::Range<usize>) {
        // One line of each array per 8 entries.
        for i in range.step_by(8) {
            if let (Some(pointer), Some(length)) = (self.pointers.get(i), self.lengths.get(i)) {
                prefetch_line(std::ptr::from_ref(pointer).cast());
                prefetch_line(std::ptr::from_ref(length).cast());
            }
        }
    }

    fn all_valid(self, isa: Isa) -> bool {
        isa.arrays_valid(self.pointers, self.lengths)
            .unwrap_or_else(|| self.iter().all(|(ptr, len)| can_borrow(ptr, len)))
    }
}

impl<'k> KeyEntries<'k> for &'k [leveldb_bloom_slice_t] {
    fn count(self) -> usize {
        self.len()
    }

    fn split(self, n: usize) -> (Self, Self) {
        self.split_at(n)
    }

    #[inline(always)]
    fn iter(self) -> impl Iterator<Item = (*const c_char, usize)> {
        <[leveldb_bloom_slice_t]>::iter(self).map(|key| (key.data, key.size))
    }

    #[inline(always)]
    fn prefetch(self, range: std::ops::Range<usize>) {
        // One line per 4 entries of 16 bytes.
        for i in range.step_by(4) {
            if let Some(slice) = self.get(i) {
                prefetch_line(std::ptr::from_ref(slice).cast());
            }
        }
    }

    fn all_valid(self, isa: Isa) -> bool {
        // SAFETY: leveldb_bloom_slice_t is repr(C), a pointer then a usize, of one size and
        // alignment: laid out as [usize; 2], without padding.
        let pairs = unsafe { std::slice::from_raw_parts(self.as_ptr().cast(), self.len()) };
        isa.pairs_valid(pairs)
            .unwrap_or_else(|| self.iter().all(|key| can_borrow(key.data, key.size)))
    }
}
