//! leveldb's hash of a chunk's keys, `LANES` keys per vector.
//!
//! Each key is read 32 bytes at a time as a row of 8 words ([`Vector::key_row`]); `LANES` rows
//! transposed give one vector per word, and each word is one step for every lane. Steps that
//! every key has a whole word for skip the masking of keys that have ended.

use super::{Vector, array_of};
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
use crate::kernels::CHUNK;
use crate::kernels::keys::map_no_key;

/// The hashes of a chunk's first `n` keys, `LANES` per vector (the rest are stale): its groups of
/// `LANES` keys side by side or one after another, as [`Vector::HASH_GROUPS_SIDE_BY_SIDE`] says.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn hash_chunk<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    keys: &[&[u8]; CHUNK],
    n: usize,
) -> [V; GROUPS] {
    const { assert!(LANES * GROUPS == CHUNK) };
    // n <= CHUNK; `min` shows the compiler, without a panic path.
    let n = n.min(CHUNK);
    // SAFETY: the CPU has V's features, by this function's contract.
    unsafe {
        if V::HASH_GROUPS_SIDE_BY_SIDE {
            hash_side_by_side(keys, n)
        } else {
            hash_group_by_group(keys, n)
        }
    }
}

/// [`hash_chunk`] with the chunk's groups side by side, every lane taking the steps of the
/// chunk's longest key: a key longer than `V::MAX_LANE_KEY_LEN` takes none, and is hashed on its
/// own at the end.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn hash_side_by_side<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    keys: &[&[u8]; CHUNK],
    n: usize,
) -> [V; GROUPS] {
    // Lane lengths, in one pass so that each group loads its lanes at once; a long key's is 0.
    let mut lens = [0u32; CHUNK];
    let (mut longest, mut shortest) = (0, u32::MAX);
    let mut any_long = false;
    for (len, key) in lens.iter_mut().zip(&keys[..n]) {
        let long = key.len() > V::MAX_LANE_KEY_LEN;
        any_long |= long;
        *len = if long { 0 } else { key.len() as u32 };
        longest = longest.max(*len);
        shortest = shortest.min(*len);
    }
    let (longest, shortest) = (longest as usize, shortest as usize);
    let groups = n.div_ceil(LANES);
    map_no_key();
    // SAFETY: the CPU has V's features, by this function's contract; each lane's length is its
    // key's, or 0.
    unsafe {
        let lane_lens: [V; GROUPS] = array_of(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |g| V::load(&lens[g * LANES..]),
        );
        let m = V::splat(MULTIPLIER);
        // leveldb mixes the length in first, then takes a step per whole word and one for the
        // tail.
        let mut h: [V; GROUPS] = array_of(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |g| V::splat(BLOOM_SEED).xor(lane_lens[g].mul(m)),
        );
        // 32 bytes of every key at a time: 8 words.
        for window in (0..longest).step_by(32) {
            let mut words = [[V::splat(0); 8]; GROUPS];
            for (g, words) in words.iter_mut().enumerate().take(groups) {
                let first = g * LANES;
                *words = V::transpose(array_of(
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |i| V::key_row(keys[first + i], lens[first + i], window),
                ));
            }
            let steps = (longest - window).div_ceil(4).min(8);
            #[allow(clippy::needless_range_loop)] // j is the word; the groups are the inner loop.
            for j in 0..steps {
                // To the constant GROUPS, so that `h` stays in registers.
                for g in 0..GROUPS {
                    if g >= groups {
                        break;
                    }
                    h[g] = step(h[g], words[g][j], lane_lens[g], window + 4 * j, shortest);
                }
            }
        }
        if any_long {
            let mut all = to_array(&h);
            for (key, hash) in keys[..n].iter().zip(&mut all) {
                if key.len() > V::MAX_LANE_KEY_LEN {
                    *hash = bloom_hash(key);
                }
            }
            h = array_of(
                #[cfg_attr(not(debug_assertions), inline(always))]
                |g| V::load(&all[g * LANES..]),
            );
        }
        h
    }
}

/// [`hash_chunk`] a group at a time, each group's hashes stored as soon as they are made, as
/// registers run short: a whole group of keys of 1 to `V::MAX_LANE_KEY_LEN` (at most 32) bytes
/// in lanes, taking the steps of its own longest key; the keys of any other group one at a time
/// (an empty key's address may dangle, and a masked load from it takes a microcode assist).
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn hash_group_by_group<V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    keys: &[&[u8]; CHUNK],
    n: usize,
) -> [V; GROUPS] {
    let mut all = [0u32; CHUNK];
    let (groups, rest) = keys[..n].as_chunks::<LANES>();
    let (in_groups, rest_out) = all.split_at_mut(groups.len() * LANES);
    for (group, out) in groups.iter().zip(in_groups.as_chunks_mut::<LANES>().0) {
        if group
            .iter()
            .all(|key| !key.is_empty() && key.len() <= V::MAX_LANE_KEY_LEN)
        {
            // SAFETY: the CPU has V's features, by this function's contract.
            unsafe { hash_row_group::<V, LANES>(group).store(out) };
        } else {
            for (key, hash) in group.iter().zip(out) {
                *hash = bloom_hash(key);
            }
        }
    }
    for (key, hash) in rest.iter().zip(rest_out) {
        *hash = bloom_hash(key);
    }
    // SAFETY: the CPU has V's features, by this function's contract.
    unsafe {
        array_of(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |g| V::load(&all[g * LANES..]),
        )
    }
}

/// The hashes of one group of keys of 1 to 32 bytes: one row of words per key.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn hash_row_group<V: Vector<LANES>, const LANES: usize>(group: &[&[u8]; LANES]) -> V {
    debug_assert!(V::MAX_LANE_KEY_LEN <= 32);
    let mut lens = [0u32; LANES];
    let (mut longest, mut shortest) = (0, usize::MAX);
    for (len, key) in lens.iter_mut().zip(group) {
        *len = key.len() as u32;
        longest = longest.max(key.len());
        shortest = shortest.min(key.len());
    }
    // SAFETY: the CPU has V's features, by this function's contract; each length is its key's.
    unsafe {
        let lane_lens = V::load(&lens);
        let m = V::splat(MULTIPLIER);
        let mut h = V::splat(BLOOM_SEED).xor(lane_lens.mul(m));
        let words = V::transpose(array_of(
            #[cfg_attr(not(debug_assertions), inline(always))]
            |i| V::key_row(group[i], lens[i], 0),
        ));
        for (j, word) in words.into_iter().enumerate().take(longest.div_ceil(4)) {
            h = step(h, word, lane_lens, 4 * j, shortest);
        }
        h
    }
}

/// One step of leveldb's hash, for the word at byte `start` of every lane's key.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn step<V: Vector<LANES>, const LANES: usize>(
    h: V,
    word: V,
    lane_lens: V,
    start: usize,
    shortest: usize,
) -> V {
    // SAFETY: the CPU has V's features, by this function's contract.
    unsafe {
        if start + 4 <= shortest {
            // Every lane has a whole word here.
            let next = h.add(word).mul(V::splat(MULTIPLIER));
            next.xor(next.shift_right_16())
        } else {
            V::hash_step(h, word, lane_lens, start as u32)
        }
    }
}

/// A chunk's vectors as one array, vector g in `[LANES * g..LANES * (g + 1)]`.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
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
