//! The fast paths behind [`crate::BloomPolicy`]: the same bits and answers as [`crate::scalar`]
//! (the tests compare them on every path), computed faster.
//!
//! Where leveldb's loop spends its time, and what replaces it here:
//! - a 64-bit division per probe (`h % bits`): Lemire's exact fastmod with a constant computed
//!   once per filter ([`Probes`]);
//! - one serial multiply chain per key hash: keys are hashed a chunk at a time so independent
//!   chains overlap, with AVX2 8 keys per instruction ([`Isa`]);
//! - cache misses in filters past the caches: a chunk's probe positions are computed first and
//!   prefetched, so the misses overlap instead of queueing one after another;
//! - a key hashing like the key before it (a duplicate) sets or tests the same bits: skipped.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(test)]
mod tests;

use crate::bloom::MAX_PROBES;
use crate::hash::bloom_hash;

/// Keys hashed per step: enough to keep several hash chains and cache misses in flight, few
/// enough that the chunk's probe positions stay in L1.
const CHUNK: usize = 64;

/// Bit arrays at least this long (bytes) are probed through the prefetching pipeline; smaller
/// ones stay in the core's L2 cache, where prefetching only costs time.
const PREFETCH_MIN_BYTES: usize = 512 * 1024;

/// How keys are hashed. Get one from [`Isa::best`]; tests also force each available one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Plain Rust, for any CPU.
    Portable,
    /// 8 keys at once in AVX2 lanes. Only constructed when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl Isa {
    /// The fastest the CPU running us supports (std caches the detection).
    pub(crate) fn best() -> Isa {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            return Isa::Avx2;
        }
        Isa::Portable
    }

    /// Writes `bloom_hash(keys[i])` to `hashes[i]`.
    fn hash_keys(self, keys: &[&[u8]], hashes: &mut [u32]) {
        match self {
            Isa::Portable => {
                for (key, hash) in keys.iter().zip(hashes) {
                    *hash = bloom_hash(key);
                }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::hash_keys(keys, hashes) },
        }
    }
}

/// Where leveldb's probes for a hash land in a bit array of `len` bytes, without dividing.
///
/// leveldb's position is `h % bits` in 64 bits, with bits = 8 * len. Writing h = q * bits + r
/// (r < bits): h >> 3 = q * len + (r >> 3) with r >> 3 < len, so the byte is `(h >> 3) % len` and
/// the bit in it is `h & 7`. As h >> 3 < 2^29, lengths of 2^29 or more (2^32 bits or more, where
/// leveldb's position is h itself) leave it unchanged, and so does 2^31, which they are clamped to.
/// What remains is a modulo of 32-bit numbers: Lemire's fastmod (Lemire, Kaser, Kurz, "Faster
/// remainder by direct computation", 2019), exact for all 32-bit operands.
#[derive(Clone, Copy)]
struct Probes {
    len: u64,
    /// ceil(2^64 / len), the fastmod constant.
    magic: u64,
    k: u8,
}

impl Probes {
    fn new(array_len: usize, k: u8) -> Probes {
        debug_assert!(array_len > 0 && k <= MAX_PROBES);
        let len = array_len.min(1 << 31) as u64;
        // For len = 1 this wraps to 0, and 0 is the right constant: everything % 1 is 0.
        let magic = (u64::MAX / len).wrapping_add(1);
        Probes { len, magic, k }
    }

    /// (byte index, bit mask) of one probe.
    #[inline(always)]
    fn probe(&self, h: u32) -> (usize, u8) {
        let low = self.magic.wrapping_mul(u64::from(h >> 3));
        let byte = ((u128::from(low) * u128::from(self.len)) >> 64) as usize;
        (byte, 1 << (h & 7))
    }

    /// Calls `f` with each of the k probes of `hash`, in leveldb's order.
    #[inline(always)]
    fn for_each(&self, hash: u32, mut f: impl FnMut(usize, u8)) {
        // Double hashing: the second hash is the first rotated right by 17 bits.
        let delta = hash.rotate_right(17);
        let mut h = hash;
        for _ in 0..self.k {
            let (byte, mask) = self.probe(h);
            f(byte, mask);
            h = h.wrapping_add(delta);
        }
    }

    /// Whether all k probes of `hash` are set, stopping at the first clear one.
    #[inline(always)]
    fn all_set(&self, array: &[u8], hash: u32) -> bool {
        let delta = hash.rotate_right(17);
        let mut h = hash;
        for _ in 0..self.k {
            let (byte, mask) = self.probe(h);
            if array[byte] & mask == 0 {
                return false;
            }
            h = h.wrapping_add(delta);
        }
        true
    }
}

/// Hashes `keys` a chunk at a time and hands each chunk's hashes to `f`.
fn for_each_chunk<'k>(
    isa: Isa,
    keys: impl IntoIterator<Item = &'k [u8]>,
    mut f: impl FnMut(&[u32]),
) {
    let mut keys = keys.into_iter();
    let mut chunk: [&[u8]; CHUNK] = [&[]; CHUNK];
    let mut hashes = [0u32; CHUNK];
    loop {
        let mut n = 0;
        while n < CHUNK {
            let Some(key) = keys.next() else { break };
            chunk[n] = key;
            n += 1;
        }
        if n == 0 {
            return;
        }
        isa.hash_keys(&chunk[..n], &mut hashes[..n]);
        f(&hashes[..n]);
        if n < CHUNK {
            return;
        }
    }
}

/// Starts loading the cache line holding `array[byte]`.
#[inline(always)]
fn prefetch(array: &[u8], byte: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache; it never faults and reads nothing for us.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(array.as_ptr().wrapping_add(byte).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (array, byte);
}

/// In an array past the caches, starts loading every line the probes of `hashes` touch, so the
/// misses overlap; smaller arrays are left alone.
fn prefetch_probes(probes: &Probes, array: &[u8], hashes: &[u32]) {
    if array.len() >= PREFETCH_MIN_BYTES {
        for &hash in hashes {
            probes.for_each(hash, |byte, _| prefetch(array, byte));
        }
    }
}

/// Sets the bits of `keys` with k probes in `array` (a filter's bit array, already zeroed).
pub(crate) fn fill<'k>(
    isa: Isa,
    k: u8,
    keys: impl IntoIterator<Item = &'k [u8]>,
    array: &mut [u8],
) {
    let probes = Probes::new(array.len(), k);
    let mut previous = None;
    for_each_chunk(isa, keys, |hashes| {
        prefetch_probes(&probes, array, hashes);
        for &hash in hashes {
            if previous == Some(hash) {
                continue;
            }
            previous = Some(hash);
            probes.for_each(hash, |byte, mask| array[byte] |= mask);
        }
    });
}

/// What a filter's framing decides before any probe, as leveldb's `KeyMayMatch`: `Err(answer)`
/// for every key, or `Ok` with the bit array and probes.
fn parse(filter: &[u8]) -> Result<(&[u8], Probes), bool> {
    let Some((&k, array)) = filter.split_last() else {
        return Err(false);
    };
    if array.is_empty() {
        return Err(false);
    }
    if k > MAX_PROBES {
        // Reserved for potentially new encodings of short filters: consider it a match.
        return Err(true);
    }
    Ok((array, Probes::new(array.len(), k)))
}

/// leveldb's `KeyMayMatch` for each key, written to `results` in order; `results` must have
/// one slot per key.
pub(crate) fn may_match_batch<'k, T: From<bool>>(
    isa: Isa,
    keys: impl IntoIterator<Item = &'k [u8]>,
    filter: &[u8],
    results: &mut [T],
) {
    let (array, probes) = match parse(filter) {
        Ok(parsed) => parsed,
        Err(answer) => {
            results.iter_mut().for_each(|r| *r = answer.into());
            return;
        }
    };
    let mut results = results.iter_mut();
    let mut previous = None;
    for_each_chunk(isa, keys, |hashes| {
        prefetch_probes(&probes, array, hashes);
        for &hash in hashes {
            let answer = match previous {
                Some((h, answer)) if h == hash => answer,
                _ => probes.all_set(array, hash),
            };
            previous = Some((hash, answer));
            *results.next().expect("one result slot per key") = answer.into();
        }
    });
}
