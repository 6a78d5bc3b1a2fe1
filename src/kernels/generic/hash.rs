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
/// transposed give one vector per word, and each word is one step for every lane. Steps that
/// every key has a whole word for skip the masking of keys that have ended. Groups of `LANES`
/// keys are hashed side by side or one after another, as [`Vector::HASH_GROUPS_SIDE_BY_SIDE`]
/// says.
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
    let span = Span {
        longest: longest as usize,
        shortest: shortest as usize,
    };
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
    let mut h: [V; GROUPS] = if V::HASH_GROUPS_SIDE_BY_SIDE {
        unsafe { hash_groups::<V, LANES, GROUPS>(keys, &lens, 0, n / LANES, span) }
    } else {
        array_of(
            #[inline(always)]
            |g| unsafe {
                if g < groups {
                    hash_groups::<V, LANES, 1>(keys, &lens, g, 1, span)[0]
                } else {
                    V::splat(0)
                }
            },
        )
    };
    let scalar_from = n / LANES * LANES;
    if any_long || scalar_from < n {
        let mut all = unsafe { to_array(&h) };
        for (i, (key, hash)) in keys[..n].iter().zip(&mut all).enumerate() {
            if key.len() > MAX_LANE_KEY_LEN || i >= scalar_from {
                *hash = bloom_hash(key);
            }
        }
        h = array_of(
            #[inline(always)]
            |g| unsafe { V::load(&all[g * LANES..]) },
        );
    }
    h
}

/// The longest and the shortest key of a chunk's lanes.
#[derive(Clone, Copy)]
struct Span {
    longest: usize,
    shortest: usize,
}

/// The hashes of `G` groups of `LANES` lanes from group `first` on, side by side: the first
/// `live` groups hold keys, the others are left as they start.
///
/// # Safety
/// The CPU must have `V`'s features.
#[inline(always)]
unsafe fn hash_groups<V: Vector<LANES>, const LANES: usize, const G: usize>(
    keys: &[&[u8]; CHUNK],
    lens: &[u32; CHUNK],
    first: usize,
    live: usize,
    span: Span,
) -> [V; G] {
    let Span { longest, shortest } = span;
    // SAFETY (every block below): the CPU has V's features, by this function's contract.
    let lane_lens: [V; G] = array_of(
        #[inline(always)]
        |g| unsafe { V::load(&lens[(first + g) * LANES..]) },
    );
    let m = unsafe { V::splat(MULTIPLIER) };
    // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
    let mut h: [V; G] = array_of(
        #[inline(always)]
        |g| unsafe { V::splat(BLOOM_SEED).xor(lane_lens[g].mul(m)) },
    );
    // 32 bytes of every key at a time: 8 words.
    for window in (0..longest).step_by(32) {
        let mut words = [[unsafe { V::splat(0) }; 8]; G];
        for (g, words) in words.iter_mut().enumerate().take(live) {
            let lane = (first + g) * LANES;
            *words = unsafe {
                V::transpose(array_of(
                    #[inline(always)]
                    |i| V::key_row(keys[lane + i], lens[lane + i], window),
                ))
            };
        }
        let steps = (longest - window).div_ceil(4).min(8);
        #[allow(clippy::needless_range_loop)] // j is the word; the groups are the inner loop.
        for j in 0..steps {
            let start = window + 4 * j;
            // The loops run to the constant G, so that `h` stays in registers.
            for g in 0..G {
                if g >= live {
                    break;
                }
                h[g] = if start + 4 <= shortest {
                    // Every lane has a whole word here.
                    unsafe {
                        let next = h[g].add(words[g][j]).mul(m);
                        next.xor(next.shift_right_16())
                    }
                } else {
                    unsafe { V::hash_step(h[g], words[g][j], lane_lens[g], start as u32) }
                };
            }
        }
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
