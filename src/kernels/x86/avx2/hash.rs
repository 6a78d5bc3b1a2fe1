//! leveldb's hash of 8 keys at once, one key per 32-bit lane.
//!
//! Every step of the hash is `h = (h + w) * m; h ^= h >> s` with s = 16 for a whole word and
//! s = 24 for the zero-padded tail word, so keys of different lengths share the steps: a lane
//! takes its word or tail while it has one, and keeps its hash once its key has ended.

use std::arch::x86_64::*;

use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
use crate::kernels::CHUNK;
use crate::kernels::x86::features::avx2;

avx2!(
    /// The hashes of the first `n` keys of a chunk (the rest are stale).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(super) unsafe fn hash_chunk(keys: &[&[u8]; CHUNK], n: usize) -> [u32; CHUNK] {
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
        let steps = keys
            .iter()
            .map(|key| key.len().div_ceil(4))
            .max()
            .unwrap_or(0);
        // SAFETY: loadu reads 8 i32s, all of `lens`, and needs no alignment.
        let lens = unsafe { _mm256_loadu_si256(lens.as_ptr().cast()) };
        let m = _mm256_set1_epi32(MULTIPLIER as i32);
        // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
        let whole = _mm256_srli_epi32::<2>(lens);
        let words = _mm256_srli_epi32::<2>(_mm256_add_epi32(lens, _mm256_set1_epi32(3)));
        let mut h = _mm256_xor_si256(
            _mm256_set1_epi32(BLOOM_SEED as i32),
            _mm256_mullo_epi32(lens, m),
        );
        let columns = transpose(std::array::from_fn(|i| key_row(keys[i])));
        for (step, word) in columns.into_iter().enumerate().take(steps) {
            let step = _mm256_set1_epi32(step as i32);
            let is_whole = _mm256_cmpgt_epi32(whole, step);
            let active = _mm256_cmpgt_epi32(words, step);
            // Whole words shift by 16, the tail word by 24.
            let shift = _mm256_sub_epi32(
                _mm256_set1_epi32(24),
                _mm256_and_si256(is_whole, _mm256_set1_epi32(8)),
            );
            let next = _mm256_mullo_epi32(_mm256_add_epi32(h, word), m);
            let next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, shift));
            h = _mm256_blendv_epi8(h, next, active);
        }
        let mut out = [0u32; 8];
        // SAFETY: `out` is 8 u32s, 32 writable bytes; storeu needs no alignment.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), h) };
        out
    }
);
