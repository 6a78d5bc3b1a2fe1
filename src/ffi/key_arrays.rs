//! The keys of a C call, as its arrays describe them: the C entries' key source ([`KeyArrays`],
//! the kernels' [`Keys`] over C's arrays), over either layout they take ([`KeyEntries`]).
//!
//! Checking the entries is C-ABI work (pointer checks), so it stays here rather than among the
//! kernels, with an AVX-512 variant for each layout; which runs follows the [`Isa`] the caller
//! got from the dispatch.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::ffi::c_char;

use crate::dispatch::Isa;
use crate::ffi::checks::{accepted_bytes, can_borrow};
use crate::kernels::keys::{Keys, NO_KEY};
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86::features::avx512;
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

    #[inline(always)]
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
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { arrays_valid_avx512(self.pointers, self.lengths) },
            _ => self.iter().all(|(ptr, len)| can_borrow(ptr, len)),
        }
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
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { slices_valid_avx512(self) },
            _ => self.iter().all(|key| can_borrow(key.data, key.size)),
        }
    }
}

#[cfg(target_arch = "x86_64")]
avx512!(
    /// [`PointersAndLengths::all_valid`] with AVX-512.
    ///
    /// # Safety
    /// The CPU must support the features of [`Isa::Avx512`].
    unsafe fn arrays_valid_avx512(pointers: &[*const c_char], lengths: &[usize]) -> bool {
        let n = pointers.len().min(lengths.len());
        let mut invalid: __mmask8 = 0;
        for start in (0..n).step_by(8) {
            let entries = _bzhi_u32(0xff, (n - start).min(8) as u32) as __mmask8;
            // SAFETY: the mask enables only entries start..n, inside both arrays; masked-off lanes
            // are never accessed, and read as zero (an empty key, which can exist).
            let (ptr, len) = unsafe {
                (
                    _mm512_maskz_loadu_epi64(entries, pointers.as_ptr().add(start).cast()),
                    _mm512_maskz_loadu_epi64(entries, lengths.as_ptr().add(start).cast()),
                )
            };
            // NULL with bytes in it, or more than isize::MAX bytes (the sign bit set).
            let has_bytes = _mm512_test_epi64_mask(len, len);
            invalid |= _mm512_mask_testn_epi64_mask(has_bytes, ptr, ptr)
                | _mm512_cmplt_epi64_mask(len, _mm512_setzero_si512());
        }
        invalid == 0
    }
);

#[cfg(target_arch = "x86_64")]
avx512!(
    /// The slices' [`KeyEntries::all_valid`] with AVX-512: 4 slices per vector, each a pointer
    /// (even lane) and a length (odd lane).
    ///
    /// # Safety
    /// The CPU must support the features of [`Isa::Avx512`].
    unsafe fn slices_valid_avx512(slices: &[leveldb_bloom_slice_t]) -> bool {
        // leveldb_bloom_slice_t is two 8-byte fields, without padding.
        let words = 2 * slices.len();
        let first = slices.as_ptr().cast::<u64>();
        let mut invalid: __mmask8 = 0;
        for start in (0..words).step_by(8) {
            let lanes = _bzhi_u32(0xff, (words - start).min(8) as u32) as __mmask8;
            // SAFETY: the mask enables only words start..words, inside the slices; masked-off lanes
            // are never accessed, and read as zero (an empty key, which can exist).
            let v = unsafe { _mm512_maskz_loadu_epi64(lanes, first.add(start).cast()) };
            let nonzero = _mm512_test_epi64_mask(v, v);
            // NULL with bytes in it (the length's mask bit moved onto its pointer's), or more than
            // isize::MAX bytes (a length with the sign bit set).
            let has_bytes = (nonzero & 0xaa) >> 1;
            invalid |= (!nonzero & has_bytes)
                | (_mm512_cmplt_epi64_mask(v, _mm512_setzero_si512()) & 0xaa);
        }
        invalid == 0
    }
);
