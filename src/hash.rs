//! leveldb's 32-bit hash (`util/hash.cc`, leveldb 1.23), the only hash its bloom filter uses.

/// Seed leveldb's `BloomHash` passes to `Hash`.
pub(crate) const BLOOM_SEED: u32 = 0xbc9f1d34;

/// The multiplier of leveldb's `Hash`.
pub(crate) const MULTIPLIER: u32 = 0xc6a4a793;

/// leveldb's `Hash(data, n, seed)`: a Murmur-like hash over little-endian 32-bit words.
#[must_use]
pub fn hash(data: &[u8], seed: u32) -> u32 {
    const M: u32 = MULTIPLIER;
    const R: u32 = 24;
    // leveldb computes `n * m` in size_t and keeps the low 32 bits, which depend only on n's low 32 bits.
    let mut h = seed ^ (data.len() as u32).wrapping_mul(M);

    let mut words = data.chunks_exact(4);
    for word in &mut words {
        let w = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
        h = h.wrapping_add(w).wrapping_mul(M);
        h ^= h >> 16;
    }

    let tail = words.remainder();
    if !tail.is_empty() {
        // Tail bytes are read unsigned since leveldb 1.18; the older signed read gives different filters.
        for (i, &byte) in tail.iter().enumerate() {
            h = h.wrapping_add(u32::from(byte) << (8 * i));
        }
        h = h.wrapping_mul(M);
        h ^= h >> R;
    }
    h
}

/// leveldb's `BloomHash(key)`.
#[must_use]
pub fn bloom_hash(key: &[u8]) -> u32 {
    hash(key, BLOOM_SEED)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values are leveldb's own `util/hash_test.cc` (SignedUnsignedIssue), which pins the
    // unsigned tail reading.
    #[test]
    fn matches_leveldb_hash_test() {
        assert_eq!(hash(&[], 0xbc9f1d34), 0xbc9f1d34);
        assert_eq!(hash(&[0x62], 0xbc9f1d34), 0xef1345c4);
        assert_eq!(hash(&[0xc3, 0x97], 0xbc9f1d34), 0x5b663814);
        assert_eq!(hash(&[0xe2, 0x99, 0xa5], 0xbc9f1d34), 0x323c078f);
        assert_eq!(hash(&[0xe1, 0x80, 0xb9, 0x32], 0xbc9f1d34), 0xed21633a);
        let data5 = [
            0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14,
            0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        ];
        assert_eq!(hash(&data5, 0x12345678), 0xf333dabb);
    }
}
