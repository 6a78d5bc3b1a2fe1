//! A bit array as the queries of one call read it: held in registers when small, else in memory.

use std::arch::x86_64::*;

use crate::kernels::x86::features::avx512;

/// Bit arrays up to this many bytes are held in two or four registers and probed with byte
/// permutes.
const REGISTER_ARRAY_BYTES: usize = 256;

/// The bit array as the queries of one call read it: in registers when small, else in memory.
#[allow(clippy::large_enum_variant)] // It is meant to live in registers, for one call.
pub(crate) enum Lookup<'a> {
    Registers(Registers),
    /// More than 256 bytes: read in memory (see the notes of [`super`]).
    Memory(&'a [u8]),
}

/// A bit array of up to 256 bytes, zero-padded, read by byte permutes.
pub(crate) enum Registers {
    /// Up to 128 bytes.
    Two([__m512i; 2]),
    /// Up to 256 bytes.
    Four([__m512i; 4]),
}

impl Registers {
    avx512!(
        /// Which of the 16 lanes have their probed bit set.
        #[inline]
        pub(crate) fn is_set(&self, byte: __m512i, bit: __m512i) -> __mmask16 {
            // A lane's low byte is the probed one; the bytes above it are never tested.
            let shifted = _mm512_srlv_epi32(self.bytes_at(byte), bit);
            _mm512_test_epi32_mask(shifted, _mm512_set1_epi32(1))
        }
    );

    avx512!(
        /// Byte i of the result is the array's byte at index byte i (its low 8 bits).
        #[inline]
        fn bytes_at(&self, index: __m512i) -> __m512i {
            // Byte permutes read the low 7 bits of each index byte.
            match self {
                Registers::Two(t) => _mm512_permutex2var_epi8(t[0], index, t[1]),
                Registers::Four(t) => {
                    let low = _mm512_permutex2var_epi8(t[0], index, t[1]);
                    let high = _mm512_permutex2var_epi8(t[2], index, t[3]);
                    // Index bit 7 picks the half.
                    let upper = _mm512_test_epi8_mask(index, _mm512_set1_epi8(0x80u8 as i8));
                    _mm512_mask_blend_epi8(upper, low, high)
                }
            }
        }
    );
}

impl<'a> Lookup<'a> {
    avx512!(
        #[inline]
        pub(crate) fn new(array: &'a [u8]) -> Lookup<'a> {
            // 64 bytes of the array from `from`, zero past its end. A part wholly past a short
            // array enables no byte, at an address just past it: mapped, unless the array ends a
            // mapping, where the load would only be slow (a microcode assist, see super::NO_KEY).
            let part = |from: usize| {
                let present = array.len().saturating_sub(from);
                // bzhi keeps the low `present` bits (all 64 from 64 on).
                let mask = _bzhi_u64(u64::MAX, present.min(64) as u32);
                // SAFETY: the mask enables only bytes of the array; masked-off bytes are never
                // accessed.
                unsafe { _mm512_maskz_loadu_epi8(mask, array.as_ptr().wrapping_add(from).cast()) }
            };
            if array.len() <= 128 {
                Lookup::Registers(Registers::Two([part(0), part(64)]))
            } else if array.len() <= REGISTER_ARRAY_BYTES {
                Lookup::Registers(Registers::Four([part(0), part(64), part(128), part(192)]))
            } else {
                Lookup::Memory(array)
            }
        }
    );

    avx512!(
        /// Which of the 8 probes, one per 64-bit lane, have their probed bit clear, of the `lanes`
        /// asked. Other lanes read nothing: a query of one key reads its k probes' cache
        /// lines, not 8.
        #[inline]
        pub(crate) fn is_clear_qwords(
            &self,
            byte: __m512i,
            bit: __m512i,
            lanes: __mmask8,
        ) -> __mmask8 {
            // The probed bit as a mask, computed while the bytes load: one test once they arrive.
            let one_hot = |shift| _mm512_sllv_epi64(_mm512_set1_epi64(1), shift);
            match self {
                // A lane's low byte is the probed one; the bytes above it are never tested.
                Lookup::Registers(registers) => {
                    _mm512_mask_testn_epi64_mask(lanes, registers.bytes_at(byte), one_hot(bit))
                }
                Lookup::Memory(array) => {
                    // The 4 bytes up to the probed one, moved forward inside the array at its start
                    // (where the probed one is among the first 3).
                    let end = _mm512_max_epu64(byte, _mm512_set1_epi64(3));
                    // SAFETY: each lane read takes the 4 bytes from `end` - 3 >= 0 to `end`, which
                    // is the probed byte (< len) or 3 (< len, as the array has more than 256
                    // bytes): inside the array.
                    let word = unsafe {
                        _mm512_mask_i64gather_epi32::<1>(
                            _mm256_setzero_si256(),
                            lanes,
                            end,
                            array.as_ptr().wrapping_sub(3).cast(),
                        )
                    };
                    // The probed byte is the word's last, or earlier by `end` - `byte`.
                    let skip = _mm512_slli_epi64::<3>(_mm512_sub_epi64(byte, end));
                    let at_bit = _mm512_or_si512(bit, _mm512_set1_epi64(24));
                    let mask = _mm512_cvtepi64_epi32(one_hot(_mm512_add_epi64(skip, at_bit)));
                    _mm256_mask_testn_epi32_mask(lanes, word, mask)
                }
            }
        }
    );
}
