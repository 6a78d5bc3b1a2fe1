//! leveldb's hash of 8 keys at once, one key per 32-bit AVX2 lane.
//!
//! Every step of the hash is `h = (h + w) * m; h ^= h >> s` with s = 16 for a whole word and
//! s = 24 for the zero-padded tail word, so keys of different lengths share the steps: a lane
//! takes its word or tail while it has one, and keeps its hash once its key has ended.

use std::arch::x86_64::*;

use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};

/// Keys longer than this are hashed one at a time: their lane counters are 32-bit, and long
/// keys gain nothing from lanes anyway.
const MAX_LANE_KEY_LEN: usize = 1 << 20;

/// Writes `bloom_hash(keys[i])` to `hashes[i]`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
    let mut groups = keys.chunks_exact(8);
    let mut outs = hashes.chunks_exact_mut(8);
    for (group, out) in (&mut groups).zip(&mut outs) {
        let group: &[&[u8]; 8] = group.try_into().expect("chunks of 8");
        let out: &mut [u32; 8] = out.try_into().expect("chunks of 8");
        hash8(group, out);
    }
    for (key, hash) in groups.remainder().iter().zip(outs.into_remainder()) {
        *hash = bloom_hash(key);
    }
}

/// The little-endian value of the 1..3 bytes after the key's last whole word (0 if none).
fn tail_word(key: &[u8]) -> u32 {
    let tail = &key[key.len() / 4 * 4..];
    tail.iter()
        .rev()
        .fold(0, |acc, &b| (acc << 8) | u32::from(b))
}

/// Words `first..first + 8` of `key` as leveldb's hash reads them: whole little-endian words,
/// then the zero-padded tail word, then zeros.
#[target_feature(enable = "avx2")]
fn key_words(key: &[u8], first: usize, tail: u32) -> __m256i {
    let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let whole = key.len() / 4;
    let loaded = whole.saturating_sub(first).min(8) as i32;
    let load_mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(loaded), index);
    // SAFETY: only the `loaded` words after word `first` are read, and they lie inside `key`:
    // masked-off elements are never accessed, so the address may point past the key.
    let words =
        unsafe { _mm256_maskload_epi32(key.as_ptr().wrapping_add(4 * first).cast(), load_mask) };
    // The tail's place; outside 0..8 (or tail 0, when there is none) this changes nothing.
    let tail_at = _mm256_set1_epi32((whole as i64 - first as i64).clamp(-1, 8) as i32);
    _mm256_blendv_epi8(
        words,
        _mm256_set1_epi32(tail as i32),
        _mm256_cmpeq_epi32(index, tail_at),
    )
}

/// Transposes 8 rows of 8 u32s: column i of the result holds element i of every row.
#[target_feature(enable = "avx2")]
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

#[target_feature(enable = "avx2")]
fn hash8(keys: &[&[u8]; 8], out: &mut [u32; 8]) {
    let lens = keys.map(<[u8]>::len);
    let words = lens.map(|len| len.div_ceil(4));
    let steps = words.iter().copied().max().unwrap_or(0);
    let busy = words.iter().sum::<usize>();
    // Lanes would mostly idle (one long key among short ones), or a key is too long for lanes.
    if busy * 2 < steps * 8 || lens.iter().any(|&len| len > MAX_LANE_KEY_LEN) {
        for (key, hash) in keys.iter().zip(out) {
            *hash = bloom_hash(key);
        }
        return;
    }

    let lanes = |f: fn(usize) -> i32, values: &[usize; 8]| {
        let v = values.map(f);
        _mm256_setr_epi32(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7])
    };
    let m = _mm256_set1_epi32(MULTIPLIER as i32);
    // Lengths fit in i32 (checked above); leveldb mixes in the length's low 32 bits.
    let whole_v = lanes(|len| (len / 4) as i32, &lens);
    let words_v = lanes(|words| words as i32, &words);
    let tails = keys.map(tail_word);
    let shift_whole = _mm256_set1_epi32(16);
    let shift_tail = _mm256_set1_epi32(24);

    let mut h = _mm256_xor_si256(
        _mm256_set1_epi32(BLOOM_SEED as i32),
        _mm256_mullo_epi32(lanes(|len| len as i32, &lens), m),
    );
    for first in (0..steps).step_by(8) {
        // One row of 8 words per key, turned into one vector per step holding every key's word.
        let rows = std::array::from_fn(|i| key_words(keys[i], first, tails[i]));
        for (step, word) in (first..steps).zip(transpose(rows)) {
            let step_v = _mm256_set1_epi32(step as i32);
            let whole = _mm256_cmpgt_epi32(whole_v, step_v);
            let active = _mm256_cmpgt_epi32(words_v, step_v);
            let shift = _mm256_blendv_epi8(shift_tail, shift_whole, whole);
            let next = _mm256_mullo_epi32(_mm256_add_epi32(h, word), m);
            let next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, shift));
            h = _mm256_blendv_epi8(h, next, active);
        }
    }
    // SAFETY: `out` is 8 u32s, 32 writable bytes; storeu needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), h) };
}
