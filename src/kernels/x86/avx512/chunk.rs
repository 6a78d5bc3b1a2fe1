//! Building and batch queries a chunk of keys at a time.

use std::arch::x86_64::*;

use super::LANES;
use super::hash::hash_chunk_vectors;
use super::positions::VectorPositions;
use super::registers::Lookup;
use super::rows::{
    for_each_probe_row, probed_bytes, rows_below, rows_fit_or_set_all, set_probed_bits,
};
use crate::kernels::CHUNK;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx512;

avx512!(
    /// [`portable::fill_chunk`](crate::kernels::portable::fill_chunk) with AVX-512: the chunk's
    /// hashes and probe positions 16 lanes per instruction ([`for_each_probe_row`]), then the
    /// bits set.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    pub(crate) unsafe fn fill_chunk(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        array: &mut [u8],
    ) {
        if !rows_fit_or_set_all(positions, array) {
            return;
        }
        // n <= CHUNK; `min` shows the compiler, without a panic path.
        let n = n.min(CHUNK);
        for_each_probe_row(positions, keys, n, |bytes, masks| {
            // SAFETY: every byte is below rows_below(positions) <= array.len().
            unsafe { set_probed_bits(array, &bytes[..n], &masks[..n]) };
        });
    }
);

avx512!(
    /// [`portable::test_chunk`](crate::kernels::portable::test_chunk) with AVX-512: every probe of
    /// every key tested (an early exit would mispredict about once per key); 16 keys' probes per
    /// instruction from a bit array in registers; for a larger one, one plain load per probe from
    /// [`for_each_probe_row`]'s rows ([`probed_bytes`]), tested 64 keys per instruction.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    pub(crate) unsafe fn test_chunk(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        array: &[u8],
        out: &mut [bool],
    ) {
        let n = out.len();
        let registers = match Lookup::new(array) {
            Lookup::Registers(registers) => registers,
            Lookup::Memory(array) => {
                // Plain loads, not gathers. Each row's probed bytes are copied out and tested
                // against their masks 64 at a time, so a probe costs no more than its load and one
                // store, less than testing and AND-ing each in scalar code (see
                // docs/PERFORMANCE.md, AVX-512: plain loads, not gathers).
                assert!(
                    rows_below(positions) as usize <= array.len(),
                    "probes past the array"
                );
                let keys_in_chunk = _bzhi_u64(u64::MAX, n as u32);
                let mut set = keys_in_chunk;
                for_each_probe_row(positions, keys, n, |bytes, masks| {
                    // SAFETY: every byte is below rows_below(positions) <= array.len().
                    let probed = unsafe { probed_bytes(array, bytes) };
                    // SAFETY: loadu reads the 64 bytes of `probed`; the masked load reads only the
                    // first n bytes, all of `masks`.
                    let (probed, masks) = unsafe {
                        (
                            _mm512_loadu_si512(probed.as_ptr().cast()),
                            _mm512_maskz_loadu_epi8(keys_in_chunk, masks.as_ptr().cast()),
                        )
                    };
                    set &= _mm512_test_epi8_mask(probed, masks);
                });
                // SAFETY: the mask enables the first n bytes, all inside `out`; each is 0 or 1, a
                // valid bool.
                unsafe {
                    _mm512_mask_storeu_epi8(
                        out.as_mut_ptr().cast(),
                        keys_in_chunk,
                        _mm512_maskz_set1_epi8(set, 1),
                    )
                };
                return;
            }
        };
        let hashes = hash_chunk_vectors(keys, n);
        let vector = VectorPositions::new(positions);
        for (mut h, out) in hashes.into_iter().zip(out.chunks_mut(LANES)) {
            let delta = _mm512_ror_epi32::<17>(h);
            let mut set: __mmask16 = !0;
            for _ in 0..positions.k {
                let (byte, bit) = vector.of(h);
                set &= registers.is_set(byte, bit);
                h = _mm512_add_epi32(h, delta);
            }
            let written = u16::MAX >> (LANES - out.len());
            // SAFETY: the mask enables the first out.len() bytes, all inside `out`; each is 0 or 1,
            // a valid bool.
            unsafe {
                _mm_mask_storeu_epi8(
                    out.as_mut_ptr().cast(),
                    written,
                    _mm_maskz_set1_epi8(set, 1),
                )
            };
        }
    }
);
