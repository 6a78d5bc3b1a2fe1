//! leveldb's hash of a chunk's keys, `LANES` keys per vector.

use super::{Vector, array_of};
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
use crate::kernels::CHUNK;
use crate::kernels::keys::{NO_KEY, dangles};

/// Keys longer than this are hashed one at a time: every lane of a chunk takes as many steps as
/// its longest key, so one long key would make the others wait.
const MAX_LANE_KEY_LEN: usize = 64;

/// The hashes of a chunk's first `n` keys, `LANES` per vector (the rest are stale).
///
/// Each key is read 32 bytes at a time as a row of 8 words ([`Vector::key_row`]); `LANES` rows
/// transposed give one vector per word, and each word is one step for every lane. The groups of
/// `LANES` keys are hashed side by side: a step's multiply has a long latency, and independent
/// chains keep the multiplier busy meanwhile. Steps that every key has a whole word for skip the
/// masking of keys that have ended.
///
/// # Safety
/// The CPU must have `V`'s features.
#[inline(always)]
pub(crate) unsafe fn hash_chunk<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    keys: &[&[u8]; CHUNK],
    n: usize,
) -> [V; GROUPS] {
    const { assert!(LANES * GROUPS == CHUNK) };
    // n <= CHUNK; `min` shows the compiler, without a panic path.
    let n = n.min(CHUNK);
    // Lane lengths, in one pass so that each group loads its lanes at once. A longer key takes
    // no lane step (length 0) and is hashed on its own at the end.
    let mut lens = [0u32; CHUNK];
    let (mut longest, mut shortest) = (0, u32::MAX);
    let (mut any_long, mut any_empty) = (false, false);
    for (len, key) in lens.iter_mut().zip(&keys[..n]) {
        let long = key.len() > MAX_LANE_KEY_LEN;
        any_long |= long;
        any_empty |= key.is_empty();
        *len = if long { 0 } else { key.len() as u32 };
        longest = longest.max(*len);
        shortest = shortest.min(*len);
    }
    let (longest, shortest) = (longest as usize, shortest as usize);
    let groups = n.div_ceil(LANES);
    // Each lane of the chunk's groups loads from its key's address, a stale lane too, so none may
    // be a dangling pointer (NO_KEY).
    let patched;
    let mut stale = keys.iter().take(groups * LANES).skip(n);
    let keys = if any_empty || stale.any(|key| dangles(key)) {
        patched = keys.map(|key| if dangles(key) { NO_KEY } else { key });
        &patched
    } else {
        keys
    };
    // SAFETY (every block below): the CPU has V's features, by this function's contract.
    let lane_lens: [V; GROUPS] =
        array_of(#[inline(always)] |g| unsafe { V::load(&lens[g * LANES..]) });
    let m = unsafe { V::splat(MULTIPLIER) };
    // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
    let mut h: [V; GROUPS] = array_of(
        #[inline(always)]
        |g| unsafe { V::splat(BLOOM_SEED).xor(lane_lens[g].mul(m)) },
    );
    // 32 bytes of every key at a time: 8 words.
    for window in (0..longest).step_by(32) {
        let mut words = [[unsafe { V::splat(0) }; 8]; GROUPS];
        for (g, words) in words.iter_mut().enumerate().take(groups) {
            let first = g * LANES;
            *words = unsafe {
                V::transpose(array_of(#[inline(always)] |i| {
                    V::key_row(keys[first + i], lens[first + i], window)
                }))
            };
        }
        let steps = (longest - window).div_ceil(4).min(8);
        #[allow(clippy::needless_range_loop)] // j is the word; the groups are the inner loop.
        for j in 0..steps {
            let start = window + 4 * j;
            if start + 4 <= shortest {
                // Every lane has a whole word here.
                for g in 0..groups {
                    h[g] = unsafe {
                        let next = h[g].add(words[g][j]).mul(m);
                        next.xor(next.shift_right_16())
                    };
                }
            } else {
                for g in 0..groups {
                    h[g] = unsafe { V::hash_step(h[g], words[g][j], lane_lens[g], start as u32) };
                }
            }
        }
    }
    if any_long {
        // SAFETY: the CPU has V's features, by this function's contract.
        let mut all = unsafe { to_array(&h) };
        for (key, hash) in keys[..n].iter().zip(&mut all) {
            if key.len() > MAX_LANE_KEY_LEN {
                *hash = bloom_hash(key);
            }
        }
        h = array_of(#[inline(always)] |g| unsafe { V::load(&all[g * LANES..]) });
    }
    h
}

/// A chunk's vectors as one array, vector g in `[LANES * g..LANES * (g + 1)]`.
///
/// # Safety
/// The CPU must have `V`'s features.
#[inline(always)]
pub(crate) unsafe fn to_array<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    v: &[V; GROUPS],
) -> [u32; CHUNK] {
    let mut all = [0u32; CHUNK];
    for (g, v) in v.iter().enumerate() {
        // SAFETY: the CPU has V's features, by this function's contract.
        unsafe { v.store(&mut all[g * LANES..]) };
    }
    all
}

/// Writes `bloom_hash(keys[i])` to `hashes[i]`, a chunk at a time as the kernels hash them (for
/// the tests).
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg(test)]
pub(crate) unsafe fn hash_keys<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    keys: &[&[u8]],
    hashes: &mut [u32],
) {
    let mut hashes = hashes.chunks_mut(CHUNK);
    crate::kernels::keys::for_each_chunk(keys.iter().copied(), |chunk, n| {
        let out = hashes.next().expect("one hash slot per key");
        // SAFETY: the CPU has V's features, by this function's contract.
        let all = unsafe { to_array(&hash_chunk::<V, LANES, GROUPS>(chunk, n)) };
        out.copy_from_slice(&all[..n]);
    });
}
