//! A chunk's probes written out as rows of bytes and bit masks, for plain loads and stores.

use std::arch::x86_64::*;

use super::hash::hash_chunk_vectors;
use super::positions::VectorPositions;
use super::{GROUPS, LANES};
use crate::kernels::CHUNK;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx512;

/// One probe of each key of a chunk: the byte, and the bit in it as a mask.
pub(crate) type ProbeRow = ([u32; CHUNK], [u8; CHUNK]);

/// ORs `masks[i]` into `array[bytes[i]]` for each i.
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: no probe is checked here (see
/// [`RowWriter`], which bounds its rows' bytes).
#[inline(always)]
pub(crate) unsafe fn set_probed_bits(array: &mut [u8], bytes: &[u32], masks: &[u8]) {
    let mut set = |(&byte, &mask): (&u32, &u8)| {
        // SAFETY: byte < array.len(), by this function's contract.
        unsafe { *array.get_unchecked_mut(byte as usize) |= mask };
    };
    // Eight probes per loop step: with one step per probe or two, the loop's own instructions
    // would slow a block filter's build, which waits on byte read-modify-writes (see
    // docs/PERFORMANCE.md, AVX-512: building).
    let (bytes8, masks8) = (bytes.chunks_exact(8), masks.chunks_exact(8));
    let (bytes_left, masks_left) = (bytes8.remainder(), masks8.remainder());
    for (bytes, masks) in bytes8.zip(masks8) {
        bytes.iter().zip(masks).for_each(&mut set);
    }
    bytes_left.iter().zip(masks_left).for_each(set);
}

/// The bytes of `array` at a row's positions, every lane's (stale ones too), read by the batch
/// queries of arrays held in memory.
///
/// Unchecked, for all CHUNK lanes, in scalar code: one load and one store per probe, where a
/// check per probe of a row's first n lanes only would slow the batch queries (see
/// docs/PERFORMANCE.md, AVX-512: plain loads, not gathers).
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: none is checked here ([`RowWriter`] bounds
/// every lane of the rows it writes).
#[inline(always)]
pub(crate) unsafe fn probed_bytes(array: &[u8], bytes: &[u32; CHUNK]) -> [u8; CHUNK] {
    let mut probed = [0u8; CHUNK];
    for (probed, byte) in probed.iter_mut().zip(bytes) {
        // Read as volatile, to keep the loop scalar: in test_chunk the compiler would otherwise
        // move the positions through vector registers and insert each byte into one (`vpinsrb`),
        // which is slower (see docs/PERFORMANCE.md, AVX-512: plain loads, not gathers).
        // SAFETY: `byte` is a reference, valid to read; the byte it names is below array.len()
        // by this function's contract.
        *probed = unsafe { *array.get_unchecked(std::ptr::read_volatile(byte) as usize) };
    }
    probed
}

/// A chunk's probes, written out a row (one probe of every key) at a time: for each of the
/// chunk's CHUNK lanes (stale ones too), the byte the probe reads and the bit in it as a mask.
/// The positions are computed 16 lanes per instruction and written to memory so that the rows'
/// users work on bytes with plain loads and stores: AVX-512 has no scatter that ORs (colliding
/// lanes would lose bits), and gathers are slow on some CPUs (see docs/PERFORMANCE.md, AVX-512:
/// plain loads, not gathers).
///
/// Every byte written is below [`rows_below`], made so with one minimum per 16 probes (the
/// multiply-shift's bytes are below the array's length already), so that the rows' users may
/// index without a check per probe, which would keep the build's loop from unrolling, and
/// without a path to a panic.
pub(crate) struct RowWriter {
    /// Each lane's hash for its next probe.
    h: [__m512i; GROUPS],
    /// What each lane's hash steps by from one probe to the next.
    delta: [__m512i; GROUPS],
    positions: VectorPositions,
    /// The last byte a row may name: `rows_below(positions) - 1`.
    last: __m512i,
}

/// What every byte a [`RowWriter`] writes for `positions` is below: the length of the array they
/// were made for, or 1 for an empty one, which no filter has. Where it is at most an array's
/// length, the rows index that array.
pub(crate) fn rows_below(positions: &ProbePositions) -> u32 {
    positions.len.max(1)
}

/// Whether rows made for `positions` index `array`, as they always do: positions are made for
/// the array whose bits they set. Were it otherwise, every bit is set, so that no key is missed,
/// rather than bits outside the array, and the build has nothing left to do.
#[inline]
pub(crate) fn rows_fit_or_set_all(positions: &ProbePositions, array: &mut [u8]) -> bool {
    let fit = rows_below(positions) as usize <= array.len();
    if !fit {
        array.fill(0xff);
    }
    fit
}

impl RowWriter {
    avx512!(
        /// Hashes the first `n` keys of a chunk.
        #[inline]
        pub(crate) fn new(
            positions: &ProbePositions,
            keys: &[&[u8]; CHUNK],
            n: usize,
        ) -> RowWriter {
            let h = hash_chunk_vectors(keys, n);
            RowWriter {
                // Double hashing: the second hash is the first rotated right by 17 bits.
                delta: h.map(|h| _mm512_ror_epi32::<17>(h)),
                h,
                positions: VectorPositions::new(positions),
                last: _mm512_set1_epi32((rows_below(positions) - 1) as i32),
            }
        }
    );

    avx512!(
        /// Writes the next row to `row`, every lane of it.
        ///
        /// # Safety
        /// `row` must be valid for writes.
        #[inline]
        pub(crate) unsafe fn write(&mut self, row: *mut ProbeRow) {
            // SAFETY: `row` is valid for writes, by this function's contract; no reference to its
            // memory is made, which may be uninitialised.
            let (bytes, masks) = unsafe {
                (
                    (&raw mut (*row).0).cast::<u32>(),
                    (&raw mut (*row).1).cast::<u8>(),
                )
            };
            let one = _mm512_set1_epi32(1);
            for v in 0..GROUPS {
                let (byte, bit) = self.positions.of(self.h[v]);
                let byte = _mm512_min_epu32(byte, self.last);
                self.h[v] = _mm512_add_epi32(self.h[v], self.delta[v]);
                // SAFETY: the stores write 16 u32s inside the row's 64 bytes and 16 u8s inside its
                // 64 masks.
                unsafe {
                    _mm512_storeu_si512(bytes.add(v * LANES).cast(), byte);
                    _mm_storeu_si128(
                        masks.add(v * LANES).cast(),
                        _mm512_cvtepi32_epi8(_mm512_sllv_epi32(one, bit)),
                    );
                }
            }
        }
    );
}

avx512!(
    /// Calls `f(bytes, masks)` for each of the k probes in turn, with the row a [`RowWriter`] wrote
    /// for it (whole rows: lanes from `n` on hold stale probes, which `f` must leave alone). Every
    /// byte `f` gets is below [`rows_below`]`(positions)`.
    #[inline]
    pub(crate) fn for_each_probe_row(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        mut f: impl FnMut(&[u32; CHUNK], &[u8; CHUNK]),
    ) {
        let mut writer = RowWriter::new(positions, keys, n);
        // The next row is written while `f` reads this one, so that f's loads find their row
        // stored well before instead of waiting on vector stores just ahead of them (see
        // docs/PERFORMANCE.md, AVX-512: building).
        let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); 2];
        let [even, odd] = &mut rows;
        // SAFETY: `even` is a local row, valid for writes.
        unsafe { writer.write(even) };
        for probe in 0..positions.k {
            let (this, next) = if probe % 2 == 0 {
                (&*even, &mut *odd)
            } else {
                (&*odd, &mut *even)
            };
            if probe + 1 < positions.k {
                // SAFETY: `next` is a local row, valid for writes.
                unsafe { writer.write(next) };
            }
            f(&this.0, &this.1);
        }
    }
);
