//! leveldb's probe positions in vectors: by [`ProbePositions`]' multiply-shift, 16 or 8 lanes at
//! a time, or by a floating-point inverse of the array's length.

use std::arch::x86_64::*;

use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx512;

/// [`ProbePositions`] in vectors: leveldb's probe positions for 16 hashes at once.
#[derive(Clone, Copy)]
pub(crate) struct VectorPositions {
    len: __m512i,
    magic: __m512i,
    shift: __m128i,
}

impl VectorPositions {
    avx512!(
        pub(crate) fn new(positions: &ProbePositions) -> VectorPositions {
            // In every 32-bit lane, though the multiplies read only the even ones: with the odd
            // ones zero, the compiler may take a multiply for a full 64-bit one and expand it
            // into three.
            VectorPositions {
                len: _mm512_set1_epi32(positions.len as i32),
                magic: _mm512_set1_epi32(positions.magic as i32),
                shift: _mm_set_epi64x(0, i64::from(positions.shift)),
            }
        }
    );

    avx512!(
        /// The byte and the bit in it of each lane's probe `h % bits`, as
        /// [`ProbePositions::position`] computes it.
        #[inline]
        pub(crate) fn of(&self, h: __m512i) -> (__m512i, __m512i) {
            let a = _mm512_srli_epi32::<3>(h);
            // The multiplies take the even lanes; the odd ones are shifted down to take their
            // turn.
            let quotient = |a| _mm512_srl_epi64(_mm512_mul_epu32(a, self.magic), self.shift);
            let q_even = quotient(a);
            let q_odd = quotient(_mm512_srli_epi64::<32>(a));
            let product_even = _mm512_mul_epu32(q_even, self.len);
            let product_odd = _mm512_mul_epu32(q_odd, self.len);
            // Lane 2i from the even products, lane 2i + 1 from the odd ones (their low halves).
            let interleave =
                _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
            let product = _mm512_permutex2var_epi32(product_even, interleave, product_odd);
            let byte = _mm512_sub_epi32(a, product);
            (byte, _mm512_and_si512(h, _mm512_set1_epi32(7)))
        }
    );

    avx512!(
        /// [`VectorPositions::of`] for 8 hashes, one in the low half of each 64-bit lane (the high
        /// half is ignored); byte and bit come out as 64-bit lanes.
        #[inline]
        pub(crate) fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
            let a = _mm512_srli_epi64::<3>(_mm512_and_si512(h, _mm512_set1_epi64(0xffff_ffff)));
            let quotient = _mm512_srl_epi64(_mm512_mul_epu32(a, self.magic), self.shift);
            let byte = _mm512_sub_epi64(a, _mm512_mul_epu32(quotient, self.len));
            (byte, _mm512_and_si512(h, _mm512_set1_epi64(7)))
        }
    );
}

/// [`VectorPositions::of_qwords`] by a floating-point inverse of the array's length, computed per
/// call in vector registers, where [`ProbePositions`]' constants would take a division in
/// general-purpose ones, on the single query's chain (see docs/PERFORMANCE.md, Single query:
/// positions by a floating-point inverse).
///
/// The byte is a - q * len for a = h >> 3 < 2^29 (see [`ProbePositions`]) and q = floor(a / len),
/// which is floor(h / bits) for bits = 8 len: the quotient is taken of h itself, so that the
/// shift to `a` runs beside it, not ahead of it, on a chain of slow vector integer operations.
/// q = floor((h + 1/2) * r), r = 1/bits rounded to nearest, computed by one fused multiply-add
/// rounding down. Exact for every len >= 1: (h + 1/2) / bits, an odd number over 2 bits, is at
/// least 1 / (2 bits) away from any integer, and (h + 1/2) * r differs from it by a relative
/// 2^-53 at most, so by less than 2^32 / bits * 2^-53 = 2^-21 / bits. For len >= 2^29 (then
/// h < bits) q is 0 and the byte is a, as leveldb's position is h itself from 2^32 bits on; the
/// multiply by len's low 32 bits is then a multiply by 0.
pub(crate) struct InversePositions {
    len: __m512i,
    inverse: __m512d,
}

/// 2^52: a double's units digit, at this magnitude, is its mantissa's lowest bit.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

impl InversePositions {
    avx512!(
        #[inline]
        pub(crate) fn new(array_len: usize) -> InversePositions {
            // Rounded to nearest whatever the caller's MXCSR says, and with no exception flag set
            // (the length is exact up to 2^53).
            const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
            let len = _mm_cvt_roundu64_sd::<NEAREST>(_mm_setzero_pd(), array_len as u64);
            // 1 / (8 len): 1/8 is exact, so this is 1/bits rounded once.
            let inverse =
                _mm512_div_round_pd::<NEAREST>(_mm512_set1_pd(0.125), _mm512_broadcastsd_pd(len));
            InversePositions {
                len: _mm512_set1_epi64(array_len as i64),
                inverse,
            }
        }
    );

    avx512!(
        /// The byte and the bit in it of each lane's probe `h % bits` (h in the low half of each
        /// 64-bit lane; the high half is ignored).
        #[inline]
        pub(crate) fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
            let two_pow_52 = _mm512_set1_pd(TWO_POW_52);
            // h + 1/2, exactly: h's low 32 bits in the mantissa of 2^52 make 2^52 + h, in one
            // ternary logic operation ((h & low) | 2^52's bits).
            let h_in_mantissa = _mm512_ternarylogic_epi64::<0xea>(
                h,
                _mm512_set1_epi64(0xffff_ffff),
                _mm512_castpd_si512(two_pow_52),
            );
            let h_and_half = _mm512_sub_pd(
                _mm512_castsi512_pd(h_in_mantissa),
                _mm512_set1_pd(TWO_POW_52 - 0.5),
            );
            // 2^52 + q, rounded down: q in the mantissa's low bits, where the multiply reads it.
            let q = _mm512_castpd_si512(_mm512_fmadd_round_pd::<
                { _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC },
            >(h_and_half, self.inverse, two_pow_52));
            let a = _mm512_and_si512(_mm512_srli_epi64::<3>(h), _mm512_set1_epi64((1 << 29) - 1));
            let byte = _mm512_sub_epi64(a, _mm512_mul_epu32(q, self.len));
            (byte, _mm512_and_si512(h, _mm512_set1_epi64(7)))
        }
    );
}

avx512!(
    /// [`VectorPositions::of`], [`VectorPositions::of_qwords`] and [`InversePositions::of_qwords`]
    /// for 16 hashes, each as bit indices (byte * 8 + bit), for the tests. The 64-bit lanes get a
    /// nonzero high half, which they must ignore.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    #[cfg(test)]
    pub(crate) unsafe fn vector_bit_positions(
        positions: &ProbePositions,
        array_len: usize,
        h: [u32; 16],
    ) -> [[u32; 16]; 3] {
        let vector = VectorPositions::new(positions);
        // SAFETY: loadu reads the 16 u32s of `h`; it needs no alignment.
        let (byte, bit) = vector.of(unsafe { _mm512_loadu_si512(h.as_ptr().cast()) });
        let mut bits = [0u32; 16];
        // SAFETY: storeu writes the 16 u32s of `bits`; it needs no alignment.
        unsafe {
            _mm512_storeu_si512(
                bits.as_mut_ptr().cast(),
                _mm512_or_si512(_mm512_slli_epi32::<3>(byte), bit),
            )
        };
        let inverse = InversePositions::new(array_len);
        let mut qword_bits = [[0; 16]; 2];
        for (i, half) in h.chunks(8).enumerate() {
            let high = _mm512_set1_epi64(0x5a5a_5a5a << 32);
            let lanes = std::array::from_fn::<i64, 8, _>(|i| i64::from(half[i]));
            // SAFETY: loadu reads the 8 i64s of `lanes`; it needs no alignment.
            let lanes = _mm512_or_si512(unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }, high);
            for (way, (byte, bit)) in [vector.of_qwords(lanes), inverse.of_qwords(lanes)]
                .into_iter()
                .enumerate()
            {
                let mut got = [0u64; 8];
                // SAFETY: storeu writes the 8 u64s of `got`; it needs no alignment.
                unsafe {
                    _mm512_storeu_si512(
                        got.as_mut_ptr().cast(),
                        _mm512_or_si512(_mm512_slli_epi64::<3>(byte), bit),
                    )
                };
                for (out, got) in qword_bits[way][i * 8..].iter_mut().zip(got) {
                    *out = got as u32;
                }
            }
        }
        [bits, qword_bits[0], qword_bits[1]]
    }
);
