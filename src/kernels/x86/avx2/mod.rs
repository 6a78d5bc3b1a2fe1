//! The AVX2 kernels: leveldb's hash of 8 keys at once, one key per 32-bit lane; builds and batch
//! queries from rows of probe positions computed 8 per instruction and bounded once; and a
//! single query whose 8 probe positions come from one vector.
//!
//! Every step of the hash is `h = (h + w) * m; h ^= h >> s` with s = 16 for a whole word and
//! s = 24 for the zero-padded tail word, so keys of different lengths share the steps: a lane
//! takes its word or tail while it has one, and keeps its hash once its key has ended.

// The hash and the row writer stay in this one module, so in one codegen unit: apart, the batch
// queries' code came out slower (docs/PERFORMANCE.md, AVX2: rows of probes).
mod single;

use std::arch::x86_64::*;

use super::avx512::rows::{
    ProbeRow, probed_bytes, rows_below, rows_fit_or_set_all, set_probed_bits,
};
use crate::format::MAX_PROBES;
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
#[cfg(doc)]
use crate::kernels::portable;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx2;
use crate::kernels::{CHUNK, LARGE_ARRAY_BYTES, prefetch_line};

pub(crate) use single::may_match_c_abi;

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
        if !rows_fit_or_set_all(positions, array) {
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

/// Lanes per AVX2 vector of 32-bit values.
const LANES: usize = 8;

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
            // 32 lanes at a time, so that their masks become bytes by three packs and one permute
            // (which restores the lanes' order across 128-bit halves), not a shuffle and a
            // permute per 8 lanes (see docs/PERFORMANCE.md, AVX2: rows of probes).
            for quad in 0..CHUNK / (4 * LANES) {
                let mut mask = [_mm256_setzero_si256(); 4];
                for (i, mask) in mask.iter_mut().enumerate() {
                    let v = 4 * quad + i;
                    let (byte, h) = self.next_bytes(v);
                    let byte = _mm256_min_epu32(byte, self.last);
                    *mask = _mm256_sllv_epi32(one, _mm256_and_si256(h, seven));
                    // SAFETY: the store writes 8 u32s inside the row's 64 bytes.
                    unsafe { _mm256_storeu_si256(bytes.as_mut_ptr().add(v * LANES).cast(), byte) };
                }
                // Each mask is at most 128, which both unsigned-saturating packs keep as it is.
                let packed = _mm256_packus_epi16(
                    _mm256_packus_epi32(mask[0], mask[1]),
                    _mm256_packus_epi32(mask[2], mask[3]),
                );
                let packed =
                    _mm256_permutevar8x32_epi32(packed, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
                // SAFETY: the store writes 32 u8s inside the row's 64 masks.
                unsafe {
                    _mm256_storeu_si256(masks.as_mut_ptr().add(quad * 4 * LANES).cast(), packed)
                };
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

avx2!(
    /// The hashes of the first `n` keys of a chunk (the rest are stale).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    unsafe fn hash_chunk(keys: &[&[u8]; CHUNK], n: usize) -> [u32; CHUNK] {
        let mut hashes = [0; CHUNK];
        // n <= CHUNK; `min` shows the compiler, without a panic path.
        let n = n.min(CHUNK);
        // SAFETY: the CPU supports AVX2, by this function's contract.
        unsafe { hash_keys(&keys[..n], &mut hashes[..n]) };
        hashes
    }
);

/// Keys longer than this are hashed one at a time: a lane holds one row of 8 words, and long
/// keys gain little from lanes anyway.
const MAX_LANE_KEY_LEN: usize = 32;

avx2!(
    /// Writes `bloom_hash(keys[i])` to `hashes[i]`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(crate) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
        let (groups, keys_left) = keys.as_chunks::<8>();
        let (outs, hashes_left) = hashes.as_chunks_mut::<8>();
        for (group, out) in groups.iter().zip(outs) {
            // A group with an empty key is hashed one key at a time: the key's masked load would
            // take a microcode assist at a dangling address (super::NO_KEY).
            if group
                .iter()
                .all(|key| !key.is_empty() && key.len() <= MAX_LANE_KEY_LEN)
            {
                *out = hash8(group);
            } else {
                for (key, hash) in group.iter().zip(out) {
                    *hash = bloom_hash(key);
                }
            }
        }
        for (key, hash) in keys_left.iter().zip(hashes_left) {
            *hash = bloom_hash(key);
        }
    }
);

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

avx2!(
    /// Every word of a key of at most 32 bytes as leveldb's hash reads them, in one row: its whole
    /// little-endian words, then its zero-padded tail word, then zeros.
    fn key_row(key: &[u8]) -> __m256i {
        let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let whole = _mm256_set1_epi32((key.len() / 4) as i32);
        // SAFETY: only the whole words of the key are read (masked-off elements are never
        // accessed), and a key here is at most 32 bytes.
        let words =
            unsafe { _mm256_maskload_epi32(key.as_ptr().cast(), _mm256_cmpgt_epi32(whole, index)) };
        // The tail word goes right after the whole words (past the row when the key is 32 bytes).
        _mm256_blendv_epi8(
            words,
            _mm256_set1_epi32(tail_word(key) as i32),
            _mm256_cmpeq_epi32(index, whole),
        )
    }
);

avx2!(
    /// Transposes 8 rows of 8 u32s: column i of the result holds element i of every row.
    fn transpose(rows: [__m256i; 8]) -> [__m256i; 8] {
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
);

avx2!(
    /// leveldb's hash of 8 keys of at most 32 bytes each.
    fn hash8(keys: &[&[u8]; 8]) -> [u32; 8] {
        let mut lens = [0i32; 8];
        for (len, key) in lens.iter_mut().zip(keys) {
            *len = key.len() as i32;
        }
        // SAFETY: loadu reads 8 i32s, all of `lens`, and needs no alignment.
        let lens = unsafe { _mm256_loadu_si256(lens.as_ptr().cast()) };
        let m = _mm256_set1_epi32(MULTIPLIER as i32);
        // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
        let whole = _mm256_srli_epi32::<2>(lens);
        let words = _mm256_srli_epi32::<2>(_mm256_add_epi32(lens, _mm256_set1_epi32(3)));
        // Every lane takes as many steps as the group's longest key has words; in the first
        // steps, as many as its shortest key has whole words, every lane takes a whole word.
        let steps = lanes_max(words) as usize;
        let all_whole = !lanes_max(_mm256_xor_si256(whole, _mm256_set1_epi32(-1))) as usize;
        let mut h = _mm256_xor_si256(
            _mm256_set1_epi32(BLOOM_SEED as i32),
            _mm256_mullo_epi32(lens, m),
        );
        let columns = transpose(std::array::from_fn(|i| key_row(keys[i])));
        for (step, word) in columns.into_iter().enumerate().take(steps) {
            let next = _mm256_mullo_epi32(_mm256_add_epi32(h, word), m);
            if step < all_whole {
                h = _mm256_xor_si256(next, _mm256_srli_epi32::<16>(next));
                continue;
            }
            let step = _mm256_set1_epi32(step as i32);
            let is_whole = _mm256_cmpgt_epi32(whole, step);
            let active = _mm256_cmpgt_epi32(words, step);
            // Whole words shift by 16, the tail word by 24.
            let shift = _mm256_sub_epi32(
                _mm256_set1_epi32(24),
                _mm256_and_si256(is_whole, _mm256_set1_epi32(8)),
            );
            let next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, shift));
            h = _mm256_blendv_epi8(h, next, active);
        }
        let mut out = [0u32; 8];
        // SAFETY: `out` is 8 u32s, 32 writable bytes; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), h) };
        out
    }
);

avx2!(
    /// The largest of 8 unsigned lanes (the smallest is `!lanes_max(!v)`).
    #[inline]
    fn lanes_max(v: __m256i) -> u32 {
        let max = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let max = _mm_max_epu32(max, _mm_shuffle_epi32::<0b01_00_11_10>(max));
        let max = _mm_max_epu32(max, _mm_shuffle_epi32::<0b10_11_00_01>(max));
        _mm_cvtsi128_si32(max) as u32
    }
);

avx2!(
    /// [`ProbePositions::position`]'s byte for each of 8 lanes of hashes, given the positions'
    /// magic (in 64-bit lanes), shift and length: the quotients of the even lanes and of the odd
    /// ones by 32 x 32 -> 64-bit multiplies.
    #[inline]
    fn probe_bytes(h: __m256i, magic: __m256i, shift: __m128i, len: __m256i) -> __m256i {
        let a = _mm256_srli_epi32::<3>(h);
        let even = _mm256_srl_epi64(_mm256_mul_epu32(a, magic), shift);
        let odd = _mm256_srl_epi64(_mm256_mul_epu32(_mm256_srli_epi64::<32>(a), magic), shift);
        let quotient = _mm256_blend_epi32::<0b1010_1010>(even, _mm256_slli_epi64::<32>(odd));
        _mm256_sub_epi32(a, _mm256_mullo_epi32(quotient, len))
    }
);
