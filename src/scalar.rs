//! The plain scalar filter: leveldb 1.23's `util/bloom.cc` written out directly, one key and one
//! probe at a time. It is the oracle: every kernel (src/kernels) is tested against it, and it
//! stays this simple on purpose.

use crate::format::MAX_PROBES;
use crate::hash::bloom_hash;

/// Writes the filter for `keys` with `num_probes` probes over all of `out` (bit array, then k),
/// as [`crate::BloomPolicy::fill_filter`] does.
///
/// # Panics
/// If `out` is shorter than 2 bytes.
pub fn fill_filter<'k>(num_probes: u8, keys: impl IntoIterator<Item = &'k [u8]>, out: &mut [u8]) {
    fill_filter_of_hashes(num_probes, keys.into_iter().map(bloom_hash), out);
}

/// [`fill_filter`] for keys given by their hashes: the filter another hash of the keys makes
/// under leveldb's format (`leveldb-bloom check` rebuilds those of writers that hash otherwise).
/// Hidden: the workspace's tool uses it, and it is no part of the API (docs/RELEASING.md).
///
/// # Panics
/// If `out` is shorter than 2 bytes.
#[doc(hidden)]
pub fn fill_filter_of_hashes(
    num_probes: u8,
    hashes: impl IntoIterator<Item = u32>,
    out: &mut [u8],
) {
    let (k, array) = out
        .split_last_mut()
        .expect("a filter is at least 2 bytes long");
    assert!(!array.is_empty(), "a filter is at least 2 bytes long");
    array.fill(0);
    *k = num_probes;
    let bits = array_bits(array);
    for hash in hashes {
        for pos in probe_positions(hash, num_probes, bits) {
            array[(pos / 8) as usize] |= 1 << (pos % 8);
        }
    }
}

/// leveldb's `KeyMayMatch`, as [`crate::key_may_match`].
pub fn key_may_match(key: &[u8], filter: &[u8]) -> bool {
    let Some((&k, array)) = filter.split_last() else {
        return false;
    };
    if array.is_empty() {
        return false;
    }
    if k > MAX_PROBES {
        // Reserved for potentially new encodings of short filters: consider it a match.
        return true;
    }
    let bits = array_bits(array);
    probe_positions(bloom_hash(key), k, bits)
        .all(|pos| array[(pos / 8) as usize] & (1 << (pos % 8)) != 0)
}

fn array_bits(array: &[u8]) -> u64 {
    array.len() as u64 * 8
}

/// The k bit positions leveldb uses for a key hash in a bit array of `bits` bits.
fn probe_positions(hash: u32, k: u8, bits: u64) -> impl Iterator<Item = u64> {
    // Double hashing: the second hash is the first rotated right by 17 bits.
    let delta = hash.rotate_right(17);
    let mut h = hash;
    (0..k).map(move |_| {
        // The modulo is 64-bit: in arrays of 2^32 bits or more, h itself is the position.
        let pos = u64::from(h) % bits;
        h = h.wrapping_add(delta);
        pos
    })
}
