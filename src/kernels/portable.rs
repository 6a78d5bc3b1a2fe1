//! The portable kernels: plain Rust for any CPU, and the scalar half of the single query that the
//! SIMD kernels share.

use crate::cannot_panic::CannotPanic;
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};
use crate::kernels::CHUNK;
use crate::kernels::keys::{Keys, for_each_chunk};
use crate::kernels::positions::{LemirePositions, ProbePositions};

/// Writes `bloom_hash(keys[i])` to `hashes[i]`, a chunk at a time as the queries hash them.
#[cfg(test)]
pub(crate) fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
    for (keys, hashes) in keys.chunks(CHUNK).zip(hashes.chunks_mut(CHUNK)) {
        let mut chunk = [crate::kernels::keys::NO_KEY; CHUNK];
        chunk[..keys.len()].copy_from_slice(keys);
        hashes.copy_from_slice(&hash_chunk(&chunk, keys.len())[..keys.len()]);
    }
}

/// The hashes of the first `n` keys of a chunk (the rest are stale).
fn hash_chunk(keys: &[&[u8]; CHUNK], n: usize) -> [u32; CHUNK] {
    let mut hashes = [0; CHUNK];
    // n <= CHUNK; `min` shows the compiler, without a panic path.
    let keys = &keys[..n.min(CHUNK)];
    if one_length(keys) {
        for (key, hash) in keys.iter().zip(&mut hashes) {
            *hash = single_query_hash::<true>(key);
        }
    } else {
        for (key, hash) in keys.iter().zip(&mut hashes) {
            *hash = single_query_hash::<false>(key);
        }
    }
    hashes
}

/// Whether all keys are of one length. The hash then takes the branches on the length, all
/// predicted; keys of mixed lengths take the conditional moves, as branches on their lengths
/// would mispredict (docs/PERFORMANCE.md, Portable: the hash).
#[inline(always)]
fn one_length(keys: &[&[u8]]) -> bool {
    let first = keys.first().map_or(0, |key| key.len());
    // A fold, not `all`: no early exit to branch on.
    keys.iter()
        .fold(true, |same, key| same & (key.len() == first))
}

/// Sets the bits of `keys` in `array` (a filter's bit array, zeroed), `positions` made for it.
pub(crate) fn fill_bit_array<'k>(
    positions: &ProbePositions,
    keys: impl Keys<'k>,
    array: &mut [u8],
) {
    for_each_chunk(keys, |chunk, n| fill_chunk(positions, chunk, n, array));
}

/// Writes whether each of `keys` may match the bit array `array` (with `positions` made for it)
/// to `results`, one slot per key.
pub(crate) fn may_match_batch<'k>(
    positions: &ProbePositions,
    keys: impl Keys<'k>,
    array: &[u8],
    results: &mut [bool],
) {
    let mut results = results.chunks_mut(CHUNK);
    for_each_chunk(keys, |chunk, n| {
        let out = results.next().expect("one result slot per key");
        test_chunk(positions, chunk, array, &mut out[..n]);
    });
}

/// Sets the bits of the first `n` keys of a chunk.
#[inline(always)]
fn fill_chunk(positions: &ProbePositions, keys: &[&[u8]; CHUNK], n: usize, array: &mut [u8]) {
    // Positions made for a larger array than this one: every bit set, so that no key is missed.
    // An empty array has no bit to set (and no length to divide by).
    if positions.len as usize > array.len() || array.is_empty() {
        array.fill(0xff);
        return;
    }
    let keys = &keys[..n.min(CHUNK)];
    let lemire = LemirePositions::new(array.len());
    if one_length(keys) {
        set_bits::<true>(keys, positions.k, &lemire, array);
    } else {
        set_bits::<false>(keys, positions.k, &lemire, array);
    }
}

/// Sets each key's k bits right after hashing it, the positions by Lemire's remainder: a build
/// is bound by its instructions, and this takes fewer than writing rows of positions first and
/// reading them back.
#[inline(always)]
fn set_bits<const BRANCH_ON_LENGTH: bool>(
    keys: &[&[u8]],
    k: u8,
    positions: &LemirePositions,
    array: &mut [u8],
) {
    for key in keys {
        let mut h = single_query_hash::<BRANCH_ON_LENGTH>(key);
        let delta = h.rotate_right(17);
        for _ in 0..k {
            let pos = positions.of(h);
            // SAFETY: LemirePositions::of is below the bit count, at most 8 * array.len().
            unsafe { *array.get_unchecked_mut(pos >> 3) |= 1 << (pos & 7) };
            h = h.wrapping_add(delta);
        }
    }
}

/// Writes whether each of the first `out.len()` keys of a chunk may match.
#[inline(always)]
fn test_chunk(positions: &ProbePositions, keys: &[&[u8]; CHUNK], array: &[u8], out: &mut [bool]) {
    test_hashed_chunk(positions, &hash_chunk(keys, out.len()), array, out);
}

/// The probe positions of a chunk of keys, one row (one probe of every key) at a time, in
/// leveldb's probe order. All CHUNK lanes are computed, stale ones too, so that the loop has a
/// fixed length and vectorises.
struct PositionRows {
    h: [u32; CHUNK],
    delta: [u32; CHUNK],
}

impl PositionRows {
    #[inline(always)]
    fn new(hashes: &[u32; CHUNK]) -> PositionRows {
        // Double hashing: the second hash is the first rotated right by 17 bits.
        let mut delta = [0; CHUNK];
        for (delta, h) in delta.iter_mut().zip(hashes) {
            *delta = h.rotate_right(17);
        }
        PositionRows { h: *hashes, delta }
    }

    /// Writes the next row: `row[i]` is the next probe position of key i.
    #[inline(always)]
    fn next(&mut self, positions: &ProbePositions, row: &mut [u32; CHUNK]) {
        for ((pos, h), delta) in row.iter_mut().zip(&mut self.h).zip(&self.delta) {
            *pos = positions.position(*h);
            *h = h.wrapping_add(*delta);
        }
    }
}

/// Writes whether all probes of each of the first `out.len()` keys of a chunk are set, given
/// their hashes: a row (one probe of every key) at a time, so that the row's loads, independent
/// of each other, overlap their misses in a large array; no prefetching, which only added work
/// (docs/PERFORMANCE.md, Portable: no prefetching).
#[inline(always)]
fn test_hashed_chunk(
    positions: &ProbePositions,
    hashes: &[u32; CHUNK],
    array: &[u8],
    out: &mut [bool],
) {
    let n = out.len();
    // Every probe is tested, without branching on the bits: an early exit would mispredict
    // about once per key, which costs more than the probes it saves.
    let mut all_set = [true; CHUNK];
    let mut rows = PositionRows::new(hashes);
    let mut row = [0; CHUNK];
    for _ in 0..positions.k {
        rows.next(positions, &mut row);
        for (set, &pos) in all_set.iter_mut().zip(&row[..n]) {
            *set &= array[(pos >> 3) as usize] & (1 << (pos & 7)) != 0;
        }
    }
    out.copy_from_slice(&all_set[..n]);
}

/// leveldb's `KeyMayMatch` for one key against a bit array and k (framing already checked), in
/// scalar code.
///
/// Every probe is tested, without branching on the bits: a query for an absent key would
/// otherwise mispredict its exit about once, and nothing of the next query could start before the
/// branch resolves. Without such a branch, consecutive queries overlap in the CPU.
#[inline]
fn may_match(key: &[u8], array: &[u8], k: u8) -> bool {
    let positions = LemirePositions::new(array.len());
    // Branches on the key's length: with keys all of one length they are predicted, and
    // leveldb's own hash runs that fast then (see docs/PERFORMANCE.md, Single query: portable).
    let mut h = single_query_hash::<true>(key);
    let delta = h.rotate_right(17);
    let mut all_set = 1;
    for _ in 0..k {
        let pos = positions.of(h);
        // SAFETY: LemirePositions::of is the high half of a product by bits, so pos < bits <=
        // 8 * array.len(): the byte exists. A check per probe cost the query more than its
        // hash's branches (see docs/PERFORMANCE.md, Single query: portable).
        let byte = unsafe { *array.get_unchecked(pos >> 3) };
        all_set &= byte >> (pos & 7);
        h = h.wrapping_add(delta);
    }
    all_set & 1 != 0
}

/// [`single_answer`] as a C-ABI function, for the C entries' tail jump (see
/// [`crate::no_unwind::single_query`]).
#[inline(never)]
#[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
pub(crate) extern "C" fn may_match_c_abi(k: u32, key: &[u8], array: &[u8]) -> u8 {
    single_answer(k, key, array)
}

/// [`may_match`] as 0 or 1, with no path to a panic ([`CannotPanic`]): the body of the portable
/// single query's C-ABI functions, this one and the BMI2 one (kernels/x86/bmi2.rs).
#[inline(always)]
pub(crate) fn single_answer(k: u32, key: &[u8], array: &[u8]) -> u8 {
    let proof = CannotPanic;
    // Never empty (`format::parse`), but the compiler cannot see it here: were it so, "may match"
    // rather than a division by zero.
    let answer = array.is_empty() || may_match(key, array, k as u8);
    proof.holds();
    answer.into()
}

/// [`bloom_hash`] for one key: 16 bytes per loop step and 8 if left, then the odd word and the
/// 1–3 tail bytes, the tail found from the length alone. Keys vary in length, so branches on it
/// mispredict; without `BRANCH_ON_LENGTH` the odd word is found from the length too, both last
/// steps are computed and kept or dropped by conditional moves, which instead lengthen every
/// key's chain. Which costs less depends on what else the query waits for: a filter in registers
/// waits on nothing else and takes the conditional moves, a filter in memory waits on its loads
/// anyway and takes the branches (see docs/PERFORMANCE.md, Single query: branches on key length).
#[inline(always)]
pub(crate) fn single_query_hash<const BRANCH_ON_LENGTH: bool>(key: &[u8]) -> u32 {
    let len = key.len();
    if len < 4 {
        return bloom_hash(key);
    }
    let mut h = BLOOM_SEED ^ (len as u32).wrapping_mul(MULTIPLIER);
    // 16 bytes per loop step, then 8 if left. Compiled, each word's load folds into its add;
    // 8-byte steps become a loop unrolled twice, of 8-byte loads split by shifts, which take more
    // instructions per query (see docs/PERFORMANCE.md, Single query: instruction count).
    let mut rest = key;
    let sixteen_step = |h: u32, sixteen: &[u8; 16]| {
        let (first, second) = sixteen.split_at(8);
        mix_eight(mix_eight(h, first), second)
    };
    // The first step ahead of the loop, so that a key of 16 to 31 bytes takes no loop counter.
    if let Some((sixteen, after)) = rest.split_first_chunk::<16>() {
        h = sixteen_step(h, sixteen);
        rest = after;
    }
    while let Some((sixteen, after)) = rest.split_first_chunk::<16>() {
        h = sixteen_step(h, sixteen);
        rest = after;
    }
    if let Some((eight, after)) = rest.split_first_chunk::<8>() {
        h = mix_eight(h, eight);
        rest = after;
    }
    // The odd word, when len % 8 >= 4.
    if BRANCH_ON_LENGTH {
        // Where the loop stopped: a load folded into its add, with no address to compute.
        if let Some((word, _)) = rest.split_first_chunk::<4>() {
            h = mix(h, u32::from_le_bytes(*word));
        }
    } else {
        // Found from the length alone, so that its load does not wait for the loop: the key's
        // last whole word, read either way (len >= 4) and dropped when there is none. The
        // compiler would otherwise branch on it.
        let at = (len & !3) - 4;
        let word = u32::from_le_bytes(key[at..at + 4].try_into().expect("4 bytes"));
        h = std::hint::select_unpredictable(len & 4 != 0, mix(h, word), h);
    }
    // The tail bytes: the key's last 4 bytes shifted right by 32 - 8 * (len % 4) bits, a count
    // that wrapping_shr takes mod 32 (so without a tail this is dropped garbage).
    let last = u32::from_le_bytes(key[len - 4..].try_into().expect("4 bytes"));
    let tail_bytes = last.wrapping_shr((len as u32).wrapping_mul(8).wrapping_neg());
    let tail = |h: u32| {
        let h = h.wrapping_add(tail_bytes).wrapping_mul(MULTIPLIER);
        h ^ (h >> 24)
    };
    if BRANCH_ON_LENGTH {
        return if len.is_multiple_of(4) { h } else { tail(h) };
    }
    std::hint::select_unpredictable(len.is_multiple_of(4), h, tail(h))
}

/// [`mix`] for the two words of 8 bytes, each read on its own, so that its load folds into its
/// add: read as one 8-byte value, they would take a shift to split and one register more, which
/// the AVX-512 query would have to save on the stack.
#[inline(always)]
fn mix_eight(h: u32, eight: &[u8]) -> u32 {
    let (first, second) = eight.split_at(4);
    let h = mix(h, u32::from_le_bytes(first.try_into().expect("4 bytes")));
    mix(h, u32::from_le_bytes(second.try_into().expect("4 bytes")))
}

/// One word of leveldb's hash loop.
#[inline(always)]
fn mix(h: u32, word: u32) -> u32 {
    let h = h.wrapping_add(word).wrapping_mul(MULTIPLIER);
    h ^ (h >> 16)
}
