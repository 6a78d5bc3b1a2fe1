//! The single query: the positions of 8 probes at once in a vector, in a C-ABI function with no
//! path to a panic ([`CannotPanic`]), which the C entries reach by a tail jump.

use std::arch::x86_64::*;

use super::lanes::{LANES, probe_bytes};
use crate::cannot_panic::CannotPanic;
use crate::kernels::portable::single_query_hash;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx2;

avx2!(
    /// [`probe`] as a C-ABI function returning 0 or 1, with no path to a panic
    /// ([`CannotPanic`]), for the C entries' tail jump (see [`crate::no_unwind::single_query`]).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
    pub(crate) unsafe extern "C" fn may_match_c_abi(k: u32, key: &[u8], array: &[u8]) -> u8 {
        let proof = CannotPanic;
        let answer = probe(key, array, k as u8);
        proof.holds();
        answer.into()
    }
);

avx2!(
    /// leveldb's `KeyMayMatch` for one key against a bit array and k (framing already checked):
    /// the hash in scalar code, then the positions of 8 probes at once in a vector, written out
    /// and checked together, and each probed byte read with a plain load, with no branch on the
    /// bits and no check per probe (see docs/PERFORMANCE.md, Single query: AVX2).
    #[inline]
    fn probe(key: &[u8], array: &[u8], k: u8) -> bool {
        let h = single_query_hash::<false>(key);
        let positions = ProbePositions::new(array.len(), k);
        if positions.len as usize > array.len() {
            // Never (ProbePositions::new), so the compiler drops it; it tells the compiler the
            // loads' bound below. If it ever held, "may match".
            return true;
        }
        let delta = _mm256_set1_epi32(h.rotate_right(17) as i32);
        let mut lanes = _mm256_add_epi32(
            _mm256_set1_epi32(h as i32),
            _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), delta),
        );
        let magic = _mm256_set1_epi64x(i64::from(positions.magic));
        let shift = _mm_cvtsi32_si128(positions.shift as i32);
        let len = _mm256_set1_epi32(positions.len as i32);
        let mut all_set = 1u32;
        let mut left = usize::from(k);
        while left > 0 {
            // SAFETY: the CPU supports AVX2, as this function's own features say.
            let byte = unsafe { probe_bytes(lanes, magic, shift, len) };
            let bit = _mm256_and_si256(lanes, _mm256_set1_epi32(7));
            // Every byte below len (both below 2^29, so a signed compare is an unsigned one):
            // checked for all 8 at once, by a branch always predicted.
            if _mm256_movemask_epi8(_mm256_cmpgt_epi32(len, byte)) != -1 {
                // Never: the multiply-shift's bytes are below len. If it ever held, "may
                // match", never a false negative.
                return true;
            }
            let (mut bytes, mut bits) = ([0u32; LANES], [0u32; LANES]);
            // SAFETY: each store writes 8 u32s, all of its array.
            unsafe {
                _mm256_storeu_si256(bytes.as_mut_ptr().cast(), byte);
                _mm256_storeu_si256(bits.as_mut_ptr().cast(), bit);
            }
            for (&byte, &bit) in bytes.iter().zip(&bits).take(left) {
                // SAFETY: byte < positions.len <= array.len(), both checked above.
                all_set &= u32::from(unsafe { *array.get_unchecked(byte as usize) }) >> bit;
            }
            left = left.saturating_sub(LANES);
            lanes = _mm256_add_epi32(lanes, _mm256_slli_epi32::<3>(delta));
        }
        all_set & 1 != 0
    }
);
