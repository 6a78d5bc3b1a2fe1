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

    let lanes = |f: &dyn Fn(usize) -> i32| {
        _mm256_setr_epi32(f(0), f(1), f(2), f(3), f(4), f(5), f(6), f(7))
    };
    let m = _mm256_set1_epi32(MULTIPLIER as i32);
    // Lengths fit in i32 (checked above); leveldb mixes in the length's low 32 bits.
    let len_v = lanes(&|i| lens[i] as i32);
    let whole_v = lanes(&|i| (lens[i] / 4) as i32);
    let words_v = lanes(&|i| words[i] as i32);
    let tail_v = lanes(&|i| tail_word(keys[i]) as i32);
    let addr = |i: usize| keys[i].as_ptr() as i64;
    let addr_lo = _mm256_setr_epi64x(addr(0), addr(1), addr(2), addr(3));
    let addr_hi = _mm256_setr_epi64x(addr(4), addr(5), addr(6), addr(7));
    let shift_whole = _mm256_set1_epi32(16);
    let shift_tail = _mm256_set1_epi32(24);

    let mut h = _mm256_xor_si256(
        _mm256_set1_epi32(BLOOM_SEED as i32),
        _mm256_mullo_epi32(len_v, m),
    );
    for step in 0..steps {
        let step_v = _mm256_set1_epi32(step as i32);
        let whole = _mm256_cmpgt_epi32(whole_v, step_v);
        let active = _mm256_cmpgt_epi32(words_v, step_v);
        let offset = _mm256_set1_epi64x(4 * step as i64);
        // SAFETY: only lanes whose key has a whole word at `offset` are read (the mask); the
        // others read nothing. A null base makes the offsets plain addresses.
        let (lo, hi) = unsafe {
            (
                _mm256_mask_i64gather_epi32::<1>(
                    _mm_setzero_si128(),
                    std::ptr::null(),
                    _mm256_add_epi64(addr_lo, offset),
                    _mm256_castsi256_si128(whole),
                ),
                _mm256_mask_i64gather_epi32::<1>(
                    _mm_setzero_si128(),
                    std::ptr::null(),
                    _mm256_add_epi64(addr_hi, offset),
                    _mm256_extracti128_si256::<1>(whole),
                ),
            )
        };
        let word = _mm256_blendv_epi8(tail_v, _mm256_set_m128i(hi, lo), whole);
        let shift = _mm256_blendv_epi8(shift_tail, shift_whole, whole);
        let next = _mm256_mullo_epi32(_mm256_add_epi32(h, word), m);
        let next = _mm256_xor_si256(next, _mm256_srlv_epi32(next, shift));
        h = _mm256_blendv_epi8(h, next, active);
    }
    // SAFETY: `out` is 8 u32s, 32 writable bytes; storeu needs no alignment.
    unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), h) };
}
