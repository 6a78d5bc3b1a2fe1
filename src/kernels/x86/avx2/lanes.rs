//! AVX2's lane operations for the batch engine ([`Vector`]): 8 keys per vector, each key's whole
//! words read with a dword-masked load and its tail word put in beside them.

use std::arch::x86_64::*;

use crate::hash::MULTIPLIER;
use crate::kernels::CHUNK;
use crate::kernels::generic::rows::ProbeRow;
use crate::kernels::generic::{LargeArrays, ROW_PART, Vector, array_of};
use crate::kernels::positions::ProbePositions;

/// Keys per vector.
pub(super) const LANES: usize = 8;

/// Vectors per chunk.
pub(super) const GROUPS: usize = CHUNK / LANES;

/// [`ProbePositions`] in vectors: the magic in 64-bit lanes, the shift, the length.
#[derive(Clone, Copy)]
pub(crate) struct Positions {
    magic: __m256i,
    shift: __m128i,
    len: __m256i,
}

// SAFETY: every method runs only AVX2 instructions, and reads or writes no memory but what its
// contract names.
unsafe impl Vector<LANES> for __m256i {
    type Row = __m256i;
    type Positions = Positions;
    /// Lanes whose probes so far were all set, as 0xff bytes: keys 0-31, then 32-63.
    type AllSet = [__m256i; 2];

    // Prefetched rows: with two or three vector pipes the rows of a batch cost as long as the
    // misses they would hide.
    const LARGE_ARRAYS: LargeArrays = LargeArrays::PrefetchRows;
    // One row of 8 words per key.
    const MAX_LANE_KEY_LEN: usize = 32;
    // One group at a time: 8 words of 8 groups side by side would not fit 16 registers.
    const HASH_GROUPS_SIDE_BY_SIDE: bool = false;

    #[inline(always)]
    unsafe fn splat(x: u32) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_set1_epi32(x as i32) }
    }

    #[inline(always)]
    unsafe fn load(from: &[u32]) -> Self {
        assert!(from.len() >= LANES);
        // SAFETY: 8 u32s of `from`, checked above; loadu needs no alignment.
        unsafe { _mm256_loadu_si256(from.as_ptr().cast()) }
    }

    #[inline(always)]
    unsafe fn store(self, to: &mut [u32]) {
        assert!(to.len() >= LANES);
        // SAFETY: 8 u32s of `to`, checked above; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(to.as_mut_ptr().cast(), self) }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_add_epi32(self, other) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_xor_si256(self, other) }
    }

    #[inline(always)]
    unsafe fn mul(self, other: Self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_mullo_epi32(self, other) }
    }

    #[inline(always)]
    unsafe fn shift_right_16(self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_srli_epi32::<16>(self) }
    }

    #[inline(always)]
    unsafe fn min(self, other: Self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_min_epu32(self, other) }
    }

    #[inline(always)]
    unsafe fn rotate_right_17(self) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { _mm256_or_si256(_mm256_srli_epi32::<17>(self), _mm256_slli_epi32::<15>(self)) }
    }

    /// The whole words with a dword-masked load (which reads only the enabled words), the tail
    /// word after them from the key's last 4 bytes.
    #[inline(always)]
    unsafe fn key_row(key: &[u8], len: u32, from: usize) -> Self::Row {
        debug_assert!(len as usize <= key.len());
        // SAFETY: len <= key.len(), by this function's contract.
        let key = unsafe { key.get_unchecked(..len as usize) };
        let first = (from / 4) as i32;
        // SAFETY: the CPU has AVX2, by the trait's contract; only the key's whole words from
        // `from` on are read (masked-off elements are never accessed).
        unsafe {
            let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            // Whole words left from `from` on (negative or past 8 where none or all are).
            let whole = _mm256_set1_epi32((key.len() / 4) as i32 - first);
            let words = _mm256_maskload_epi32(
                key.as_ptr().wrapping_add(from).cast(),
                _mm256_cmpgt_epi32(whole, index),
            );
            // The tail word goes right after the whole words, if in this row.
            _mm256_blendv_epi8(
                words,
                _mm256_set1_epi32(tail_word(key) as i32),
                _mm256_cmpeq_epi32(index, whole),
            )
        }
    }

    #[inline(always)]
    unsafe fn transpose(rows: [Self::Row; LANES]) -> [Self; 8] {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe {
            let [r0, r1, r2, r3, r4, r5, r6, r7] = rows;
            let (t0, t1) = (_mm256_unpacklo_epi32(r0, r1), _mm256_unpackhi_epi32(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_epi32(r2, r3), _mm256_unpackhi_epi32(r2, r3));
            let (t4, t5) = (_mm256_unpacklo_epi32(r4, r5), _mm256_unpackhi_epi32(r4, r5));
            let (t6, t7) = (_mm256_unpacklo_epi32(r6, r7), _mm256_unpackhi_epi32(r6, r7));
            let (u0, u1) = (_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2));
            let (u2, u3) = (_mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3));
            let (u4, u5) = (_mm256_unpacklo_epi64(t4, t6), _mm256_unpackhi_epi64(t4, t6));
            let (u6, u7) = (_mm256_unpacklo_epi64(t5, t7), _mm256_unpackhi_epi64(t5, t7));
            [
                _mm256_permute2x128_si256::<0x20>(u0, u4),
                _mm256_permute2x128_si256::<0x20>(u1, u5),
                _mm256_permute2x128_si256::<0x20>(u2, u6),
                _mm256_permute2x128_si256::<0x20>(u3, u7),
                _mm256_permute2x128_si256::<0x31>(u0, u4),
                _mm256_permute2x128_si256::<0x31>(u1, u5),
                _mm256_permute2x128_si256::<0x31>(u2, u6),
                _mm256_permute2x128_si256::<0x31>(u3, u7),
            ]
        }
    }

    #[inline(always)]
    unsafe fn hash_step(h: Self, word: Self, lens: Self, start: u32) -> Self {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe {
            // Lengths below 2^31, so signed compares are unsigned ones.
            let has_word = _mm256_cmpgt_epi32(lens, _mm256_set1_epi32(start as i32));
            let whole = _mm256_cmpgt_epi32(lens, _mm256_set1_epi32(start as i32 + 3));
            // Whole words shift by 16, the tail word by 24.
            let shift = _mm256_sub_epi32(
                _mm256_set1_epi32(24),
                _mm256_and_si256(whole, _mm256_set1_epi32(8)),
            );
            let next = _mm256_mullo_epi32(
                _mm256_add_epi32(h, word),
                _mm256_set1_epi32(MULTIPLIER as i32),
            );
            let next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, shift));
            _mm256_blendv_epi8(h, next, has_word)
        }
    }

    #[inline(always)]
    unsafe fn positions(positions: &ProbePositions) -> Self::Positions {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe {
            Positions {
                magic: _mm256_set1_epi64x(i64::from(positions.magic)),
                shift: _mm_cvtsi32_si128(positions.shift as i32),
                len: _mm256_set1_epi32(positions.len as i32),
            }
        }
    }

    #[inline(always)]
    unsafe fn byte_and_bit(positions: &Self::Positions, h: Self) -> (Self, Self) {
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe {
            let p = positions;
            (
                probe_bytes(h, p.magic, p.shift, p.len),
                _mm256_and_si256(h, _mm256_set1_epi32(7)),
            )
        }
    }

    /// The masks of the part's 32 lanes become bytes by three packs and one permute (which
    /// restores the lanes' order across 128-bit halves).
    #[inline(always)]
    unsafe fn store_row_part(
        bytes: [Self; ROW_PART],
        bits: [Self; ROW_PART],
        row: *mut ProbeRow,
        first: usize,
    ) {
        // SAFETY: `row` is valid for writes and `first + ROW_PART <= GROUPS`, by this function's
        // contract; no reference to its memory is made, which may be uninitialised. Each store
        // writes 8 u32s inside the row's 64 bytes or 32 u8s inside its 64 masks.
        unsafe {
            let (out_bytes, out_masks) = (
                (&raw mut (*row).0).cast::<u32>().add(first * LANES),
                (&raw mut (*row).1).cast::<u8>().add(first * LANES),
            );
            let one = _mm256_set1_epi32(1);
            for (i, byte) in bytes.iter().enumerate() {
                _mm256_storeu_si256(out_bytes.add(i * LANES).cast(), *byte);
            }
            let [m0, m1, m2, m3]: [__m256i; ROW_PART] = array_of(
                #[inline(always)]
                |i| _mm256_sllv_epi32(one, bits[i]),
            );
            // Each mask is at most 128, which both unsigned-saturating packs keep as it is.
            let packed =
                _mm256_packus_epi16(_mm256_packus_epi32(m0, m1), _mm256_packus_epi32(m2, m3));
            let packed =
                _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
            _mm256_storeu_si256(out_masks.cast(), packed);
        }
    }

    #[inline(always)]
    unsafe fn all_set(n: usize) -> Self::AllSet {
        let _ = n;
        // SAFETY: the CPU has AVX2, by the trait's contract.
        unsafe { [_mm256_set1_epi8(-1); 2] }
    }

    /// 32 keys per instruction.
    #[inline(always)]
    unsafe fn test_row(set: &mut Self::AllSet, probed: &[u8; CHUNK], masks: &[u8; CHUNK]) {
        // SAFETY: the CPU has AVX2, by the trait's contract; each load reads 32 of the 64 bytes
        // of `probed` and of `masks`.
        unsafe {
            let zero = _mm256_setzero_si256();
            for (half, set) in set.iter_mut().enumerate() {
                let probed = _mm256_loadu_si256(probed.as_ptr().add(32 * half).cast());
                let masks = _mm256_loadu_si256(masks.as_ptr().add(32 * half).cast());
                let clear = _mm256_cmpeq_epi8(_mm256_and_si256(probed, masks), zero);
                *set = _mm256_andnot_si256(clear, *set);
            }
        }
    }

    #[inline(always)]
    unsafe fn store_answers(set: Self::AllSet, out: &mut [bool]) {
        let mut all_set = [0u8; CHUNK];
        for (half, set) in set.iter().enumerate() {
            // SAFETY: the CPU has AVX2, by the trait's contract; each store writes 32 of the 64
            // bytes of `all_set`.
            unsafe { _mm256_storeu_si256(all_set.as_mut_ptr().add(32 * half).cast(), *set) };
        }
        for (out, set) in out.iter_mut().zip(all_set) {
            *out = set != 0;
        }
    }
}

/// The little-endian value of the 1..3 bytes after the key's last whole word (0 if none).
#[inline(always)]
fn tail_word(key: &[u8]) -> u32 {
    let tail = key.len() % 4;
    match key.last_chunk::<4>() {
        // The key's last 4 bytes, shifted down to its tail bytes (to nothing without a tail).
        Some(&last) => (u64::from(u32::from_le_bytes(last)) >> (8 * (4 - tail))) as u32,
        None => key
            .iter()
            .rev()
            .fold(0, |acc, &b| (acc << 8) | u32::from(b)),
    }
}

/// [`ProbePositions::position`]'s byte for each of 8 lanes of hashes, given the positions' magic
/// (in 64-bit lanes), shift and length: the quotients of the even lanes and of the odd ones by
/// 32 x 32 -> 64-bit multiplies.
///
/// # Safety
/// The CPU must support AVX2.
#[inline(always)]
pub(super) unsafe fn probe_bytes(
    h: __m256i,
    magic: __m256i,
    shift: __m128i,
    len: __m256i,
) -> __m256i {
    // SAFETY: the CPU has AVX2, by this function's contract.
    unsafe {
        let a = _mm256_srli_epi32::<3>(h);
        let even = _mm256_srl_epi64(_mm256_mul_epu32(a, magic), shift);
        let odd = _mm256_srl_epi64(_mm256_mul_epu32(_mm256_srli_epi64::<32>(a), magic), shift);
        let quotient = _mm256_blend_epi32::<0b1010_1010>(even, _mm256_slli_epi64::<32>(odd));
        _mm256_sub_epi32(a, _mm256_mullo_epi32(quotient, len))
    }
}
