//! leveldb's hash of a chunk's keys, 16 per vector.

use std::arch::x86_64::*;

use super::{GROUPS, LANES};
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
use crate::kernels::CHUNK;
#[cfg(test)]
use crate::kernels::keys::for_each_chunk;
use crate::kernels::keys::{NO_KEY, dangles};
use crate::kernels::x86::features::avx512;

/// Keys longer than this are hashed one at a time: every lane of a group takes as many steps as
/// its longest key, so one long key would make 15 others wait.
const MAX_LANE_KEY_LEN: usize = 64;

avx512!(
    /// Writes `bloom_hash(keys[i])` to `hashes[i]`: [`hash_chunk_vectors`] for any number of keys,
    /// which the tests compare with the scalar hash (building and queries keep the hashes in
    /// registers).
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    #[cfg(test)]
    pub(crate) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
        let mut hashes = hashes.chunks_mut(CHUNK);
        for_each_chunk(keys.iter().copied(), |chunk, n| {
            let out = hashes.next().expect("one hash slot per key");
            out.copy_from_slice(&to_array(&hash_chunk_vectors(chunk, n))[..n]);
        });
    }
);

avx512!(
    /// The hashes of a chunk's first `n` keys, 16 per vector (the rest are stale).
    ///
    /// Its groups of 16 keys are hashed side by side: a step's multiply has a long latency, and
    /// independent chains keep the multiplier busy meanwhile.
    #[inline]
    pub(crate) fn hash_chunk_vectors(keys: &[&[u8]; CHUNK], n: usize) -> [__m512i; GROUPS] {
        // n <= CHUNK; `min` shows the compiler, without a panic path.
        let n = n.min(CHUNK);
        // Lane lengths, in one pass so that each group loads its 16 at once. A longer key takes
        // no lane step (length 0) and is hashed on its own at the end.
        let mut lens = [0u32; CHUNK];
        let mut longest = 0;
        let mut any_long = false;
        let mut any_empty = false;
        for (len, key) in lens.iter_mut().zip(&keys[..n]) {
            let long = key.len() > MAX_LANE_KEY_LEN;
            any_long |= long;
            any_empty |= key.is_empty();
            *len = if long { 0 } else { key.len() as u32 };
            longest = longest.max(*len);
        }
        let longest = longest as usize;
        let groups = n.div_ceil(LANES);
        // Each lane of the chunk's groups loads from its key's address, a stale lane too, so none
        // may be a dangling pointer (NO_KEY).
        let patched;
        let mut stale = keys.iter().take(groups * LANES).skip(n);
        let keys = if any_empty || stale.any(|key| dangles(key)) {
            patched = keys.map(|key| if dangles(key) { NO_KEY } else { key });
            &patched
        } else {
            keys
        };
        let lane_lens = from_array(&lens);
        let m = _mm512_set1_epi32(MULTIPLIER as i32);
        // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
        let mut h = lane_lens.map(|lens| {
            _mm512_xor_si512(
                _mm512_set1_epi32(BLOOM_SEED as i32),
                _mm512_mullo_epi32(lens, m),
            )
        });
        // 32 bytes of every key at a time: 8 words.
        for window in (0..longest).step_by(32) {
            let mut words = [[_mm512_setzero_si512(); 8]; GROUPS];
            for (g, words) in words.iter_mut().enumerate().take(groups) {
                let lanes = g * LANES..(g + 1) * LANES;
                *words = transpose(std::array::from_fn(|i| {
                    let lane = lanes.start + i;
                    key_bytes(keys[lane], lens[lane], window)
                }));
            }
            let steps = (longest - window).div_ceil(4).min(8);
            #[allow(clippy::needless_range_loop)] // j is the word; the groups are the inner loop.
            for j in 0..steps {
                let start = (window + 4 * j) as i32;
                for g in 0..groups {
                    h[g] = step(h[g], words[g][j], lane_lens[g], start);
                }
            }
        }
        if any_long {
            let mut all = to_array(&h);
            for (key, hash) in keys[..n].iter().zip(&mut all) {
                if key.len() > MAX_LANE_KEY_LEN {
                    *hash = bloom_hash(key);
                }
            }
            h = from_array(&all);
        }
        h
    }
);

avx512!(
    /// A chunk's 16-lane vectors as one array of u32s, vector g in `[16 * g..16 * (g + 1)]`.
    pub(crate) fn to_array(v: &[__m512i; GROUPS]) -> [u32; CHUNK] {
        let mut all = [0u32; CHUNK];
        for (g, &v) in v.iter().enumerate() {
            // SAFETY: each store writes 16 u32s inside the 64 of `all`; storeu needs no alignment.
            unsafe { _mm512_storeu_si512(all[g * LANES..].as_mut_ptr().cast(), v) };
        }
        all
    }
);

avx512!(
    /// [`to_array`] reversed.
    fn from_array(all: &[u32; CHUNK]) -> [__m512i; GROUPS] {
        // SAFETY: each load reads 16 u32s inside the 64 of `all`; loadu needs no alignment.
        std::array::from_fn(|g| unsafe { _mm512_loadu_si512(all[g * LANES..].as_ptr().cast()) })
    }
);

avx512!(
    /// One step of leveldb's hash in each lane whose key has bytes from `start` on: `h = (h + w) *
    /// m; h ^= h >> s`, with s = 16 for a whole word and 24 for the zero-padded tail word. Keys of
    /// different lengths share the steps: a lane keeps its hash once its key has ended.
    #[inline]
    fn step(h: __m512i, word: __m512i, lens: __m512i, start: i32) -> __m512i {
        let has_word = _mm512_cmpgt_epu32_mask(lens, _mm512_set1_epi32(start));
        let whole = _mm512_cmpge_epu32_mask(lens, _mm512_set1_epi32(start + 4));
        let shift = _mm512_mask_blend_epi32(whole, _mm512_set1_epi32(24), _mm512_set1_epi32(16));
        let next = _mm512_mullo_epi32(
            _mm512_add_epi32(h, word),
            _mm512_set1_epi32(MULTIPLIER as i32),
        );
        _mm512_mask_xor_epi32(h, has_word, next, _mm512_srlv_epi32(next, shift))
    }
);

avx512!(
    /// Bytes `from..from + 32` of `key`, zero past `len` (its length, or 0 to read nothing).
    #[inline]
    fn key_bytes(key: &[u8], len: u32, from: usize) -> __m256i {
        debug_assert!(len as usize <= key.len());
        // bzhi keeps the low `present` bits (all 32 from 32 on).
        let mask = _bzhi_u32(u32::MAX, len.saturating_sub(from as u32));
        // SAFETY: the mask enables at most the key's bytes from `from` on; masked-off bytes are
        // never accessed, so nothing outside the key is read (with no byte enabled, nothing is).
        unsafe { _mm256_maskz_loadu_epi8(mask, key.as_ptr().wrapping_add(from).cast()) }
    }
);

avx512!(
    /// Transposes 16 rows of 8 u32s: vector j holds element j of every row, row i in lane i.
    /// Inline: out of line, its 16 rows and 8 vectors pass through memory, and whether the
    /// compiler inlines it unasked depends on how the crate's code is split into units.
    #[inline]
    fn transpose(rows: [__m256i; LANES]) -> [__m512i; 8] {
        // Rows i and i + 8 share a register; the steps below work on both halves alike.
        let z: [__m512i; 8] = std::array::from_fn(|i| {
            _mm512_inserti64x4::<1>(_mm512_castsi256_si512(rows[i]), rows[i + 8])
        });
        // Pairs of rows interleaved, then quads: u[w] holds words w and w + 4 of four rows, in
        // 128-bit blocks (rows 0-3 or 4-7 in the low half, 8-11 or 12-15 in the high half).
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
        std::array::from_fn(|j| {
            let select = if j < 4 { low } else { high };
            _mm512_permutex2var_epi64(u[j % 4], select, u[j % 4 + 4])
        })
    }
);
