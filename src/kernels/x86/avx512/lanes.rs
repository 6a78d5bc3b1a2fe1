//! AVX-512's lane operations for the batch engine ([`Vector`]): 16 keys per vector, keys read
//! with byte-masked loads, answers kept in mask registers.

use std::arch::x86_64::*;

use super::positions::VectorPositions;
use super::registers::Lookup;
use crate::hash::MULTIPLIER;
use crate::kernels::CHUNK;
use crate::kernels::generic::rows::ProbeRow;
use crate::kernels::generic::{LargeArrays, ROW_PART, Vector, array_of};
use crate::kernels::keys::NO_KEY;
use crate::kernels::positions::ProbePositions;

/// Keys per vector.
pub(crate) const LANES: usize = 16;

/// Vectors per chunk.
pub(crate) const GROUPS: usize = CHUNK / LANES;

// SAFETY: every method runs only AVX-512 instructions of the features `avx512!` compiles for
// (kernels/x86/features.rs), and reads or writes no memory but what its contract names.
unsafe impl Vector<LANES> for __m512i {
    type Row = __m256i;
    type Positions = VectorPositions;
    type AllSet = __mmask64;

    // Batches: with four vector pipes (Zen 4 and 5) or two wide ones (Intel), the rows of
    // thousands of keys are computed faster than their bits are set, and a batch keeps the two
    // phases from stalling each other.
    const LARGE_ARRAYS: LargeArrays = LargeArrays::Batches;
    const MAX_LANE_KEY_LEN: usize = 64;
    // 32 registers hold the words of the 4 groups side by side.
    const HASH_GROUPS_SIDE_BY_SIDE: bool = true;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_set1_epi32(x as i32) }
    }

    #[inline(always)]
    unsafe fn load(from: &[u32]) -> Self {
        assert!(from.len() >= LANES);
        // SAFETY: 16 u32s of `from`, checked above; loadu needs no alignment.
        unsafe { _mm512_loadu_si512(from.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, to: &mut [u32]) {
        assert!(to.len() >= LANES);
        // SAFETY: 16 u32s of `to`, checked above; storeu needs no alignment.
        unsafe { _mm512_storeu_si512(to.as_mut_ptr().cast(), self) }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_add_epi32(self, other) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_xor_si512(self, other) }
    }

    #[inline(always)]
    unsafe fn mul(self, other: Self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_mullo_epi32(self, other) }
    }

    #[inline(always)]
    unsafe fn shift_right_16(self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_srli_epi32::<16>(self) }
    }

    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_min_epu32(self, other) }
    }

    #[inline(always)]
    unsafe fn rotate_right_17(self) -> Self {
        // SAFETY: the CPU has the features, by the trait's contract.
        unsafe { _mm512_ror_epi32::<17>(self) }
    }

    /// A byte-masked load: it touches only the key's own bytes and zeroes the rest, so the tail
    /// word comes out zero-padded as the hash wants it. With no byte to read it loads from
    /// NO_KEY: a masked load from an address in no mapped page (an empty slice's may be one)
    /// takes a slow microcode assist even with every byte masked off.
    #[inline(always)]
    unsafe fn key_row(key: &[u8], len: u32, from: usize) -> Self::Row {
        debug_assert!(len as usize <= key.len());
        let present = len.saturating_sub(from as u32);
        let at = if present == 0 {
            NO_KEY.as_ptr()
        } else {
            key.as_ptr().wrapping_add(from)
        };
        // SAFETY: the mask enables at most the key's bytes from `from` on (bzhi keeps the low
        // `present` bits, all 32 from 32 on); masked-off bytes are never accessed, so nothing
        // outside the key is read (with no byte enabled, nothing is).
        unsafe { _mm256_maskz_loadu_epi8(_bzhi_u32(u32::MAX, present), at.cast()) }
    }

    #[inline(always)]
    unsafe fn transpose(rows: [Self::Row; LANES]) -> [Self; 8] {
        // SAFETY: register operations only.
        unsafe {
            // Rows i and i + 8 share a register; the steps below work on both halves alike.
            let z: [__m512i; 8] = array_of(
                #[inline(always)]
                |i| _mm512_inserti64x4::<1>(_mm512_castsi256_si512(rows[i]), rows[i + 8]),
            );
            // Pairs of rows interleaved, then quads: u[w] holds words w and w + 4 of four rows,
            // in 128-bit blocks (rows 0-3 or 4-7 in the low half, 8-11 or 12-15 in the high).
            let t = [
                _mm512_unpacklo_epi32(z[0], z[1]),
                _mm512_unpackhi_epi32(z[0], z[1]),
                _mm512_unpacklo_epi32(z[2], z[3]),
                _mm512_unpackhi_epi32(z[2], z[3]),
                _mm512_unpacklo_epi32(z[4], z[5]),
                _mm512_unpackhi_epi32(z[4], z[5]),
                _mm512_unpacklo_epi32(z[6], z[7]),
                _mm512_unpackhi_epi32(z[6], z[7]),
            ];
            let u = [
                _mm512_unpacklo_epi64(t[0], t[2]),
                _mm512_unpackhi_epi64(t[0], t[2]),
                _mm512_unpacklo_epi64(t[1], t[3]),
                _mm512_unpackhi_epi64(t[1], t[3]),
                _mm512_unpacklo_epi64(t[4], t[6]),
                _mm512_unpackhi_epi64(t[4], t[6]),
                _mm512_unpacklo_epi64(t[5], t[7]),
                _mm512_unpackhi_epi64(t[5], t[7]),
            ];
            // Gather the 128-bit blocks of one word, rows in order.
            let low = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
            let high = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
            array_of(
                #[inline(always)]
                |j| {
                    let select = if j < 4 { low } else { high };
                    _mm512_permutex2var_epi64(u[j % 4], select, u[j % 4 + 4])
                },
            )
        }
    }

    #[inline(always)]
    unsafe fn hash_step(h: Self, word: Self, lens: Self, start: u32) -> Self {
        // SAFETY: register operations only.
        unsafe {
            let has_word = _mm512_cmpgt_epu32_mask(lens, _mm512_set1_epi32(start as i32));
            let whole = _mm512_cmpge_epu32_mask(lens, _mm512_set1_epi32(start as i32 + 4));
            let shift =
                _mm512_mask_blend_epi32(whole, _mm512_set1_epi32(24), _mm512_set1_epi32(16));
            let next = _mm512_mullo_epi32(
                _mm512_add_epi32(h, word),
                _mm512_set1_epi32(MULTIPLIER as i32),
            );
            _mm512_mask_xor_epi32(h, has_word, next, _mm512_srlv_epi32(next, shift))
        }
    }

    #[inline(always)]
    unsafe fn positions(positions: &ProbePositions) -> Self::Positions {
        // SAFETY: the CPU has the features, by this function's contract.
        unsafe { VectorPositions::new(positions) }
    }

    #[inline(always)]
    unsafe fn byte_and_bit(positions: &Self::Positions, h: Self) -> (Self, Self) {
        // SAFETY: the CPU has the features, by this function's contract.
        unsafe { positions.of(h) }
    }

    #[inline(always)]
    unsafe fn store_row_part(
        bytes: [Self; ROW_PART],
        bits: [Self; ROW_PART],
        row: *mut ProbeRow,
        first: usize,
    ) {
        // SAFETY: `row` is valid for writes and `first + ROW_PART <= GROUPS`, by this function's
        // contract; no reference to its memory is made, which may be uninitialised. Each store
        // writes 16 u32s inside the row's 64 bytes or 16 u8s inside its 64 masks.
        unsafe {
            let (out_bytes, out_masks) = (
                (&raw mut (*row).0).cast::<u32>().add(first * LANES),
                (&raw mut (*row).1).cast::<u8>().add(first * LANES),
            );
            let one = _mm512_set1_epi32(1);
            for (i, (byte, bit)) in bytes.iter().zip(bits).enumerate() {
                _mm512_storeu_si512(out_bytes.add(i * LANES).cast(), *byte);
                _mm_storeu_si128(
                    out_masks.add(i * LANES).cast(),
                    _mm512_cvtepi32_epi8(_mm512_sllv_epi32(one, bit)),
                );
            }
        }
    }

    #[inline(always)]
    unsafe fn all_set(n: usize) -> Self::AllSet {
        // SAFETY: the CPU has BMI2, by this function's contract.
        unsafe { _bzhi_u64(u64::MAX, n as u32) }
    }

    /// 64 keys per instruction.
    #[inline(always)]
    unsafe fn test_row(set: &mut Self::AllSet, probed: &[u8; CHUNK], masks: &[u8; CHUNK]) {
        // SAFETY: each load reads the 64 bytes of its array.
        unsafe {
            let (probed, masks) = (
                _mm512_loadu_si512(probed.as_ptr().cast()),
                _mm512_loadu_si512(masks.as_ptr().cast()),
            );
            *set &= _mm512_test_epi8_mask(probed, masks);
        }
    }

    #[inline(always)]
    unsafe fn store_answers(set: Self::AllSet, out: &mut [bool]) {
        // SAFETY: the mask enables the first out.len() <= 64 bytes, all inside `out`; each is 0
        // or 1, a valid bool.
        unsafe {
            let written = _bzhi_u64(u64::MAX, out.len().min(CHUNK) as u32);
            _mm512_mask_storeu_epi8(
                out.as_mut_ptr().cast(),
                written,
                _mm512_maskz_set1_epi8(set, 1),
            );
        }
    }

    /// A bit array of at most 256 bytes is held in registers and probed 16 keys per instruction
    /// with byte permutes (kernels/x86/avx512/registers.rs), with no rows.
    #[inline(always)]
    unsafe fn test_small_array<const G: usize>(
        positions: &ProbePositions,
        hashes: &[Self; G],
        array: &[u8],
        out: &mut [bool],
    ) -> bool {
        // SAFETY: the CPU has the features, by this function's contract.
        unsafe {
            let Lookup::Registers(registers) = Lookup::new(array) else {
                return false;
            };
            let vector = VectorPositions::new(positions);
            for (&h, out) in hashes.iter().zip(out.chunks_mut(LANES)) {
                let (mut h, delta) = (h, _mm512_ror_epi32::<17>(h));
                let mut set: __mmask16 = !0;
                for _ in 0..positions.k {
                    let (byte, bit) = vector.of(h);
                    set &= registers.is_set(byte, bit);
                    h = _mm512_add_epi32(h, delta);
                }
                // The mask enables the first out.len() bytes, all inside `out`; each is 0 or 1,
                // a valid bool.
                let written = u16::MAX >> (LANES - out.len());
                _mm_mask_storeu_epi8(
                    out.as_mut_ptr().cast(),
                    written,
                    _mm_maskz_set1_epi8(set, 1),
                );
            }
            true
        }
    }
}
