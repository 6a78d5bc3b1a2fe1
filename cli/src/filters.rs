//! What a stored filter block says beyond its bytes: its filters one by one, the bits per key
//! they were built with, their false-positive rate in theory, and the filters of the other
//! writers the check can name.

use leveldb_bloom::{BlockKeys, BloomPolicy, FilterBlockError, FilterPolicy};

/// The name leveldb 1.23 (and every version since 1.5 or so) records its bloom filters under.
pub const LEVELDB_POLICY: &str = leveldb_bloom::POLICY_NAME;

/// The name goleveldb records the same bloom filters under, which C++ leveldb ignores.
pub const GOLEVELDB_POLICY: &str = "leveldb.BuiltinBloomFilter";

/// Probe counts above this make leveldb answer "may match" for every key.
const MAX_PROBES: u8 = 30;

/// The filters of a filter block, in order, as leveldb's FilterBlockReader finds them: each
/// one's bytes, or None where its offsets are out of order or past the filters (leveldb then
/// answers without a filter). Empty where the block has no offset array leveldb can read.
pub fn filters(block: &[u8]) -> Vec<Option<&[u8]>> {
    let fixed32 = |at: usize| {
        block
            .get(at..at + 4)
            .map_or(0, |w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
    };
    let Some(trailer) = block.len().checked_sub(5) else {
        return Vec::new();
    };
    let array = fixed32(trailer);
    if array > trailer {
        return Vec::new();
    }
    let count = (trailer - array) / 4;
    (0..count)
        .map(|i| {
            let start = fixed32(array + 4 * i);
            let limit = if i + 1 < count {
                fixed32(array + 4 * (i + 1))
            } else {
                array
            };
            (start <= limit && limit <= array).then(|| &block[start..limit])
        })
        .collect()
}

/// The bits per key that explains most of the filters, each given with the number of keys it
/// was built from: the one whose filters have their lengths and probe counts (filters of no key
/// say nothing). Ties go to the smallest; 10, leveldb's usual, when nothing is known.
pub fn infer_bits_per_key(filters: &[(&[u8], u64)]) -> u32 {
    // A table's filters come in few shapes (probe count, key count, length): each shape is
    // tried once per setting, however many filters have it.
    let mut all: Vec<(Option<u8>, u64, usize)> = filters
        .iter()
        .filter(|(_, keys)| *keys > 0)
        .map(|(filter, keys)| (filter.last().copied(), *keys, filter.len()))
        .collect();
    all.sort_unstable();
    let shapes: Vec<_> = all
        .chunk_by(PartialEq::eq)
        .map(|same| (same[0], same.len()))
        .collect();
    let explained = |bits: u32| {
        let policy = BloomPolicy::new(bits);
        // The probe count first: most settings have another, and are done without a length.
        shapes
            .iter()
            .filter(|((probes, keys, len), _)| {
                *probes == Some(policy.num_probes())
                    && usize::try_from(*keys)
                        .ok()
                        .and_then(|keys| policy.filter_len(keys))
                        == Some(*len)
            })
            .map(|(_, filters)| filters)
            .sum::<usize>()
    };
    // leveldb's probe count stops growing at 44 bits per key; a filter's length tells past that.
    let best = (1..=200).max_by_key(|&bits| (explained(bits), std::cmp::Reverse(bits)));
    match best {
        Some(bits) if explained(bits) > 0 => bits,
        _ => 10,
    }
}

/// The false-positive rate a bloom filter of `filter`'s bits and probe count has, in theory, for
/// `keys` keys: (1 - e^(-kn/m))^k. None for a filter leveldb does not test (under 2 bytes), 1 for
/// one it answers "may match" for every key (k over 30).
pub fn theoretical_rate(filter: &[u8], keys: u64) -> Option<f64> {
    let (&k, array) = filter.split_last().filter(|(_, array)| !array.is_empty())?;
    if k > MAX_PROBES {
        return Some(1.0);
    }
    let (n, m) = (keys as f64, array.len() as f64 * 8.0);
    // k is a whole number: multiplied out, much faster than powf for a rate per filter.
    Some((1.0 - (-f64::from(k) * n / m).exp()).powi(i32::from(k)))
}

/// leveldb's bloom filter as leveldb before 1.18 built it (and ports of that code still do):
/// util/hash.cc read the last 1 to 3 bytes of a key through `char`, which is signed on x86, so
/// a byte of 0x80 or more added its sign-extended value. Filters differ from leveldb's for keys
/// whose length is not a multiple of 4 and whose tail has such a byte.
pub struct SignedCharBloom(pub BloomPolicy);

impl SignedCharBloom {
    /// The hash leveldb before 1.18 gave `key` (the seed and steps of leveldb's `BloomHash`).
    fn hash(key: &[u8]) -> u32 {
        const SEED: u32 = 0xbc9f_1d34;
        const M: u32 = 0xc6a4_a793;
        let mut h = SEED ^ (key.len() as u32).wrapping_mul(M);
        let mut words = key.chunks_exact(4);
        for word in &mut words {
            h = h
                .wrapping_add(u32::from_le_bytes([word[0], word[1], word[2], word[3]]))
                .wrapping_mul(M);
            h ^= h >> 16;
        }
        let tail = words.remainder();
        if !tail.is_empty() {
            for (i, &byte) in tail.iter().enumerate() {
                // The signed char, promoted to int, shifted: its sign bits reach the top.
                h = h.wrapping_add((i32::from(byte as i8) as u32) << (8 * i));
            }
            h = h.wrapping_mul(M);
            h ^= h >> 24;
        }
        h
    }
}

impl FilterPolicy for SignedCharBloom {
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        // leveldb's length and probe count, then the old hash's bits over them.
        let start = dst.len();
        FilterPolicy::create_filter(&self.0, keys, dst)?;
        let hashes = keys.into_iter().map(SignedCharBloom::hash);
        leveldb_bloom::scalar::fill_filter_of_hashes(
            self.0.num_probes(),
            hashes,
            &mut dst[start..],
        );
        Ok(())
    }

    fn key_may_match(&self, _: &[u8], _: &[u8]) -> bool {
        // Only built here, to be compared: leveldb's own query is what reads them.
        true
    }
}
