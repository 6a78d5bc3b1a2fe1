//! The keys of a C call, as its two arrays: the C entries' key source ([`KeyArrays`]).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::ffi::c_char;

use super::{CHUNK, Isa, Keys, NO_KEY, prefetch_line};
use crate::core_ffi::{accepted_bytes, can_borrow};

/// How many entries ahead of their reads [`KeyArrays`] prefetches its arrays: 128, 256, 512 and
/// 2048 measured alike.
const ARRAYS_AHEAD: usize = 256;

/// The keys of a C call, an array of key pointers and one of lengths, read a chunk at a time:
/// each chunk's entries are checked together ([`keys_valid`]) before any key is borrowed, and
/// with many keys the arrays are prefetched ahead of their reads ([`ARRAYS_AHEAD`]). A key that
/// cannot exist (NULL with bytes in it, or longer than `isize::MAX`) is read as the empty key;
/// [`KeyArrays::all_read_valid`] tells the caller to answer for it.
///
/// Measured on Zen 5 against the C entries of before, which read the arrays key by key through
/// an iterator, checking each key on its own (batch queries) or all of them in a pass of their
/// own first (builds), with the arrays left to the hardware prefetcher: 1M-key batch queries
/// 5.08–5.23 → 4.72–4.88 ns per key (`single_query_ab --stream --batch --chunk 1000000`, three
/// runs); builds of 100-key filters 4.01–4.13x → 4.42–4.46x leveldb's speed (`cargo bench --bench
/// vs_leveldb -- block`, three runs of each). Of the batch queries' gain, prefetching the arrays
/// took about half: `perf` showed the key-by-key loop waiting on their loads.
pub(crate) struct KeyArrays<'k> {
    /// The entries not read yet.
    ptrs: &'k [*const c_char],
    lens: &'k [usize],
    isa: Isa,
    any_invalid: bool,
}

impl<'k> KeyArrays<'k> {
    /// The keys of arrays of equal length, checked with `isa`'s instructions.
    ///
    /// # Safety
    /// Each key that [`can_borrow`] accepts must point to its length in readable bytes that stay
    /// unchanged for `'k`.
    pub(crate) unsafe fn new(
        isa: Isa,
        ptrs: &'k [*const c_char],
        lens: &'k [usize],
    ) -> KeyArrays<'k> {
        assert_eq!(ptrs.len(), lens.len(), "one length per key");
        KeyArrays {
            ptrs,
            lens,
            isa,
            any_invalid: false,
        }
    }

    /// Whether every key has been read, and each was one that can exist: if not, the caller must
    /// answer for the others itself (they were read as empty keys, or not at all).
    pub(crate) fn all_read_valid(&self) -> bool {
        self.ptrs.is_empty() && !self.any_invalid
    }
}

impl<'k> Keys<'k> for KeyArrays<'k> {
    fn max_len(&self) -> Option<usize> {
        Some(self.ptrs.len())
    }

    #[inline(always)]
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize {
        if prefetch {
            // One line of each array per 8 entries.
            for ahead in (ARRAYS_AHEAD..ARRAYS_AHEAD + CHUNK).step_by(8) {
                if let (Some(ptr), Some(len)) = (self.ptrs.get(ahead), self.lens.get(ahead)) {
                    prefetch_line(std::ptr::from_ref(ptr).cast());
                    prefetch_line(std::ptr::from_ref(len).cast());
                }
            }
        }
        let n = self.ptrs.len().min(CHUNK);
        let (ptrs, rest) = self.ptrs.split_at(n);
        self.ptrs = rest;
        let (lens, rest) = self.lens.split_at(n);
        self.lens = rest;
        let valid = keys_valid(self.isa, ptrs, lens);
        self.any_invalid |= !valid;
        for ((slot, &ptr), &len) in chunk.iter_mut().zip(ptrs).zip(lens) {
            // Checked once for the chunk; only in a chunk that failed, key by key.
            let key = if len != 0 && (valid || can_borrow(ptr, len)) {
                // SAFETY: can_borrow accepts the key (with the chunk, or on its own); its bytes
                // are readable for 'k by new's contract.
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

/// Whether [`can_borrow`] accepts every key of the arrays: with AVX-512, 8 entries per
/// instruction.
pub(crate) fn keys_valid(isa: Isa, ptrs: &[*const c_char], lens: &[usize]) -> bool {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
        Isa::Avx512 => unsafe { keys_valid_avx512(ptrs, lens) },
        _ => ptrs
            .iter()
            .zip(lens)
            .all(|(&ptr, &len)| can_borrow(ptr, len)),
    }
}

/// [`keys_valid`] with AVX-512: `can_borrow` for 8 entries per instruction, masked loads taking
/// the last few, so that a chunk's check takes no branch per key.
///
/// # Safety
/// The CPU must support the features of [`Isa::Avx512`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
unsafe fn keys_valid_avx512(ptrs: &[*const c_char], lens: &[usize]) -> bool {
    let n = ptrs.len().min(lens.len());
    let mut invalid: __mmask8 = 0;
    for start in (0..n).step_by(8) {
        let entries = _bzhi_u32(0xff, (n - start).min(8) as u32) as __mmask8;
        // SAFETY: the mask enables only entries start..n, inside both arrays; masked-off lanes are
        // never accessed, and read as zero (an empty key, which can exist).
        let (ptr, len) = unsafe {
            (
                _mm512_maskz_loadu_epi64(entries, ptrs.as_ptr().add(start).cast()),
                _mm512_maskz_loadu_epi64(entries, lens.as_ptr().add(start).cast()),
            )
        };
        // NULL with bytes in it, or more than isize::MAX bytes (the sign bit set).
        let has_bytes = _mm512_test_epi64_mask(len, len);
        invalid |= _mm512_mask_testn_epi64_mask(has_bytes, ptr, ptr)
            | _mm512_cmplt_epi64_mask(len, _mm512_setzero_si512());
    }
    invalid == 0
}
