//! The check of a C caller's key entries, 8 entries per instruction: whether each key can exist
//! (not NULL with bytes in it, not longer than `isize::MAX`), with no branch per key.

use std::arch::x86_64::*;
use std::ffi::c_char;

use crate::kernels::x86::features::avx512;

avx512!(
    /// Whether every key of two arrays, pointers and lengths, can exist (the first
    /// `min(pointers.len(), lengths.len())` of them), masked loads taking the last few.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    pub(crate) unsafe fn arrays_valid(pointers: &[*const c_char], lengths: &[usize]) -> bool {
        let n = pointers.len().min(lengths.len());
        let mut invalid: __mmask8 = 0;
        for start in (0..n).step_by(8) {
            let entries = _bzhi_u32(0xff, (n - start).min(8) as u32) as __mmask8;
            // SAFETY: the mask enables only entries start..n, inside both arrays; masked-off
            // lanes are never accessed, and read as zero (an empty key, which can exist).
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

avx512!(
    /// Whether every key of an array of (pointer, length) pairs can exist: 4 pairs per vector,
    /// each a pointer (even lane) and a length (odd lane).
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    pub(crate) unsafe fn pairs_valid(pairs: &[[usize; 2]]) -> bool {
        let words = 2 * pairs.len();
        let first = pairs.as_ptr().cast::<u64>();
        let mut invalid: __mmask8 = 0;
        for start in (0..words).step_by(8) {
            let lanes = _bzhi_u32(0xff, (words - start).min(8) as u32) as __mmask8;
            // SAFETY: the mask enables only words start..words, inside the pairs; masked-off
            // lanes are never accessed, and read as zero (an empty key, which can exist).
            let v = unsafe { _mm512_maskz_loadu_epi64(lanes, first.add(start).cast()) };
            let nonzero = _mm512_test_epi64_mask(v, v);
            // NULL with bytes in it (the length's mask bit moved onto its pointer's), or more
            // than isize::MAX bytes (a length with the sign bit set).
            let has_bytes = (nonzero & 0xaa) >> 1;
            invalid |= (!nonzero & has_bytes)
                | (_mm512_cmplt_epi64_mask(v, _mm512_setzero_si512()) & 0xaa);
        }
        invalid == 0
    }
);
