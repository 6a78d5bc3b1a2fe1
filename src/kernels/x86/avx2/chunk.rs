//! Builds and batch queries of a chunk of keys, from rows of probe positions computed 8 per
//! instruction and bounded once.

use std::arch::x86_64::*;

use super::hash::hash_chunk;
use super::{LANES, probe_bytes};
use crate::format::MAX_PROBES;
#[cfg(doc)]
use crate::kernels::portable;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::avx512::rows::{ProbeRow, probed_bytes, rows_below, set_probed_bits};
use crate::kernels::x86::features::avx2;
use crate::kernels::{CHUNK, LARGE_ARRAY_BYTES, prefetch_line};

avx2!(
    /// [`portable::fill_chunk`] with AVX2: the hashes 8 keys and the probe positions 8 lanes per
    /// instruction, written out as rows whose bytes are all bounded, so that the bits are set
    /// with no check per probe (see docs/PERFORMANCE.md, AVX2: rows of probes). In an array past
    /// the L2 cache, every row of the chunk is written first and its lines prefetched, so that
    /// the misses overlap.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(crate) unsafe fn fill_chunk(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        array: &mut [u8],
    ) {
        if rows_below(positions) as usize > array.len() {
            // Never: positions are made for the array whose bits they set. Were it otherwise,
            // every bit is set, so that no key is missed, rather than bits outside the array.
            array.fill(0xff);
            return;
        }
        let large = large_array(array);
        for_each_probe_row(positions, keys, n, large, |bytes, masks| {
            // n <= CHUNK; `min` shows the compiler, without a panic path (the closure is compiled
            // on its own, apart from the `n` of its caller).
            let n = n.min(CHUNK);
            // SAFETY: every byte is below rows_below(positions) <= array.len().
            unsafe { set_probed_bits(array, &bytes[..n], &masks[..n]) };
        });
    }
);

avx2!(
    /// [`portable::test_chunk`] with AVX2: every probe of every key tested (an early exit would
    /// mispredict about once per key), one plain load per probe from [`for_each_probe_row`]'s
    /// rows, tested against their masks 32 keys per instruction.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(crate) unsafe fn test_chunk(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        array: &[u8],
        out: &mut [bool],
    ) {
        assert!(
            rows_below(positions) as usize <= array.len(),
            "probes past the array"
        );
        let n = out.len();
        let mut all_set = [0u8; CHUNK];
        test_by_rows(positions, keys, n, large_array(array), array, &mut all_set);
        for (out, set) in out.iter_mut().zip(all_set) {
            *out = set != 0;
        }
    }
);

avx2!(
    /// Whether all probes of each key of a chunk are set, as a nonzero byte per lane: one plain
    /// load per probe from [`for_each_probe_row`]'s rows, tested against their masks 32 keys per
    /// instruction.
    #[inline]
    fn test_by_rows(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        large: Option<*const u8>,
        array: &[u8],
        all_set: &mut [u8; CHUNK],
    ) {
        let zero = _mm256_setzero_si256();
        // Lanes whose probes so far were all set, as 0xff bytes.
        let mut set = [_mm256_set1_epi8(-1); 2];
        for_each_probe_row(positions, keys, n, large, |bytes, masks| {
            // SAFETY: every byte is below rows_below(positions) <= array.len(), as test_chunk
            // checked.
            let probed = unsafe { probed_bytes(array, bytes) };
            for (half, set) in set.iter_mut().enumerate() {
                // SAFETY: each load reads 32 of the 64 bytes of `probed` and of `masks`.
                let (probed, masks) = unsafe {
                    (
                        _mm256_loadu_si256(probed.as_ptr().add(32 * half).cast()),
                        _mm256_loadu_si256(masks.as_ptr().add(32 * half).cast()),
                    )
                };
                let clear = _mm256_cmpeq_epi8(_mm256_and_si256(probed, masks), zero);
                *set = _mm256_andnot_si256(clear, *set);
            }
        });
        for (half, set) in set.iter().enumerate() {
            // SAFETY: each store writes 32 of the 64 bytes of `all_set`.
            unsafe { _mm256_storeu_si256(all_set.as_mut_ptr().add(32 * half).cast(), *set) };
        }
    }
);

/// The start of `array` if it is past the L2 cache, for [`for_each_probe_row`] to prefetch from.
#[inline(always)]
fn large_array(array: &[u8]) -> Option<*const u8> {
    (array.len() >= LARGE_ARRAY_BYTES).then_some(array.as_ptr())
}

/// A chunk's probes, a row (one probe of every key) at a time, as [`ProbeRow`]s: the AVX-512
/// kernels' rows, computed 8 lanes per instruction. Every byte written is below [`rows_below`],
/// made so with one minimum per 8 probes (the multiply-shift's bytes are below the array's length
/// already), so that the rows' users index without a check per probe and without a path to a
/// panic.
struct RowWriter {
    /// Each lane's hash for its next probe.
    h: [__m256i; CHUNK / LANES],
    /// What each lane's hash steps by from one probe to the next.
    delta: [__m256i; CHUNK / LANES],
    magic: __m256i,
    shift: __m128i,
    len: __m256i,
    /// The last byte a row may name: `rows_below(positions) - 1`.
    last: __m256i,
}

impl RowWriter {
    avx2!(
        /// Hashes the first `n` keys of a chunk.
        #[inline]
        fn new(positions: &ProbePositions, keys: &[&[u8]; CHUNK], n: usize) -> RowWriter {
            // SAFETY: the CPU supports AVX2, as this function's own features say.
            let hashes = unsafe { hash_chunk(keys, n) };
            let h: [__m256i; CHUNK / LANES] = std::array::from_fn(|v| {
                // SAFETY: loadu reads 8 of the chunk's hashes, inside the array.
                unsafe { _mm256_loadu_si256(hashes.as_ptr().add(v * LANES).cast()) }
            });
            RowWriter {
                // Double hashing: the second hash is the first rotated right by 17 bits.
                delta: h.map(|h| {
                    _mm256_or_si256(_mm256_srli_epi32::<17>(h), _mm256_slli_epi32::<15>(h))
                }),
                h,
                magic: _mm256_set1_epi64x(i64::from(positions.magic)),
                shift: _mm_cvtsi32_si128(positions.shift as i32),
                len: _mm256_set1_epi32(positions.len as i32),
                last: _mm256_set1_epi32((rows_below(positions) - 1) as i32),
            }
        }
    );

    avx2!(
        /// The bytes of lane group `v`'s next probes, and the hashes they came from; moves the
        /// group on to its following probes.
        #[inline]
        fn next_bytes(&mut self, v: usize) -> (__m256i, __m256i) {
            let h = self.h[v];
            self.h[v] = _mm256_add_epi32(h, self.delta[v]);
            (probe_bytes(h, self.magic, self.shift, self.len), h)
        }
    );

    avx2!(
        /// Writes the next row to `row`, every lane of it.
        #[inline]
        fn write(&mut self, row: &mut ProbeRow) {
            let (bytes, masks) = (&mut row.0, &mut row.1);
            let one = _mm256_set1_epi32(1);
            let seven = _mm256_set1_epi32(7);
            // Each mask's low byte, to the front of its 128-bit half.
            let low_bytes = _mm256_setr_epi8(
                0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12, -1, -1,
                -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
            );
            let halves = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
            for v in 0..CHUNK / LANES {
                let (byte, h) = self.next_bytes(v);
                let byte = _mm256_min_epu32(byte, self.last);
                let mask = _mm256_sllv_epi32(one, _mm256_and_si256(h, seven));
                let mask =
                    _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(mask, low_bytes), halves);
                // SAFETY: the stores write 8 u32s inside the row's 64 bytes and 8 u8s inside its
                // 64 masks.
                unsafe {
                    _mm256_storeu_si256(bytes.as_mut_ptr().add(v * LANES).cast(), byte);
                    _mm_storel_epi64(
                        masks.as_mut_ptr().add(v * LANES).cast(),
                        _mm256_castsi256_si128(mask),
                    );
                }
            }
        }
    );
}

avx2!(
    /// Calls `f(bytes, masks)` for each of the k probes in turn, with the row a [`RowWriter`]
    /// wrote for it (whole rows: lanes from `n` on hold stale probes, which `f` must leave alone).
    /// Every byte `f` gets is below [`rows_below`]`(positions)`. With `large`, the start of an
    /// array past the L2 cache, every row is written before any is handed on, and the lines its
    /// first `n` probes touch are prefetched.
    #[inline]
    fn for_each_probe_row(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        large: Option<*const u8>,
        mut f: impl FnMut(&[u32; CHUNK], &[u8; CHUNK]),
    ) {
        let mut writer = RowWriter::new(positions, keys, n);
        let k = usize::from(positions.k);
        if let Some(array) = large {
            // k <= MAX_PROBES (a filter with more probes matches every key, whatever its bits);
            // `take` states it without a panic path.
            let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); MAX_PROBES as usize];
            for row in rows.iter_mut().take(k) {
                writer.write(row);
                for &byte in row.0.iter().take(n) {
                    prefetch_line(array.wrapping_add(byte as usize));
                }
            }
            for row in rows.iter().take(k) {
                f(&row.0, &row.1);
            }
            return;
        }
        // The next row is written while `f` reads this one, as the AVX-512 kernels do.
        let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); 2];
        let [even, odd] = &mut rows;
        writer.write(even);
        for probe in 0..k {
            let (this, next) = if probe % 2 == 0 {
                (&*even, &mut *odd)
            } else {
                (&*odd, &mut *even)
            };
            if probe + 1 < k {
                writer.write(next);
            }
            f(&this.0, &this.1);
        }
    }
);
