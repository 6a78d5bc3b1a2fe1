//! The Rust API beyond the reference vectors: appending, allocation failure, filters of 2^32
//! bits or more (checked by leveldb's rule, too large to store as vectors), and threads.

use std::ffi::c_char;

use leveldb_bloom::ffi::{
    leveldb_filterpolicy_create_bloom, leveldb_filterpolicy_create_filter,
    leveldb_filterpolicy_destroy, leveldb_filterpolicy_key_may_match, leveldb_free,
};
use leveldb_bloom::hash::bloom_hash;
use leveldb_bloom::{BloomPolicy, POLICY_NAME, key_may_match};

#[test]
fn policy_reports_leveldb_parameters() {
    assert_eq!(BloomPolicy::new(10).name(), POLICY_NAME);
    assert_eq!(POLICY_NAME, "leveldb.BuiltinBloomFilter2");
    // k for 0..50, 64, 100, 255 and 1000 bits per key is checked against leveldb's filters in
    // tests/vectors.rs; k is clamped at 30, so the largest input agrees with 1000.
    assert_eq!(
        BloomPolicy::new(u32::MAX).num_probes(),
        BloomPolicy::new(1000).num_probes()
    );
}

#[test]
fn a_filter_too_large_to_allocate_is_an_error_and_leaves_dst_alone() {
    let keys = vec![&b"k"[..]; 1 << 20];
    let mut dst = b"kept".to_vec();
    // 2^20 keys at 2^32 bits each: 512 TiB.
    assert!(
        BloomPolicy::new(u32::MAX)
            .try_create_filter(&keys, &mut dst)
            .is_err()
    );
    assert_eq!(dst, b"kept");
}

/// The bit positions leveldb's rule gives a key in a filter of at least 2^32 bits: no modulo.
fn positions_past_2_pow_32(key: &[u8], k: u8) -> Vec<u64> {
    let mut h = bloom_hash(key);
    let delta = h.rotate_right(17);
    (0..k)
        .map(|_| {
            let pos = u64::from(h);
            h = h.wrapping_add(delta);
            pos
        })
        .collect()
}

/// Checks that exactly the bits leveldb's rule names are set, and that every key matches.
fn check_huge_filter(keys: &[&[u8]], filter: &[u8]) {
    let (&k, array) = filter.split_last().unwrap();
    assert!(array.len() as u64 * 8 >= 1 << 32);
    let mut expected: Vec<u64> = keys
        .iter()
        .flat_map(|key| positions_past_2_pow_32(key, k))
        .collect();
    expected.sort_unstable();
    expected.dedup();
    let mut set = Vec::new();
    for (word_index, word) in array.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(word.try_into().unwrap());
        if word != 0 {
            set.extend(
                (0..64)
                    .filter(|b| word >> b & 1 == 1)
                    .map(|b| word_index as u64 * 64 + b),
            );
        }
    }
    assert_eq!(set, expected);
    assert!(keys.iter().all(|key| key_may_match(key, filter)));
}

#[test]
fn filters_of_2_pow_32_bits_or_more_use_the_hash_as_the_position() {
    let keys: [&[u8]; 3] = [b"first key", b"", b"\xff\x80\x81"];
    // 3 keys at u32::MAX bits each: a 1.5 GiB filter of 3 * (2^32 - 1) bits.
    let policy = BloomPolicy::new(u32::MAX);
    let mut filter = Vec::new();
    policy.create_filter(&keys, &mut filter);
    assert_eq!(
        filter.len(),
        (3 * u64::from(u32::MAX)).div_ceil(8) as usize + 1
    );
    check_huge_filter(&keys, &filter);
}

#[test]
fn filters_of_2_pow_32_bits_through_the_c_abi() {
    let keys: [&[u8]; 2] = [b"alpha", b"beta"];
    let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
    let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    // 2 keys at INT_MAX bits each round up to exactly 2^32 bits (512 MiB) plus the k byte.
    let policy = leveldb_filterpolicy_create_bloom(i32::MAX);
    let mut len = 0;
    let filter = unsafe {
        leveldb_filterpolicy_create_filter(policy, ptrs.as_ptr(), lens.as_ptr(), 2, &mut len)
    };
    assert!(!filter.is_null());
    assert_eq!(len, (1 << 29) + 1);
    let bytes = unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) };
    check_huge_filter(&keys, bytes);
    for key in keys {
        assert_eq!(
            unsafe {
                leveldb_filterpolicy_key_may_match(
                    policy,
                    key.as_ptr().cast(),
                    key.len(),
                    filter,
                    len,
                )
            },
            1
        );
    }
    unsafe {
        leveldb_free(filter.cast());
        leveldb_filterpolicy_destroy(policy);
    }
}

#[test]
fn threads_share_one_policy() {
    let policy = BloomPolicy::new(10);
    let keys: Vec<Vec<u8>> = (0..2000u32)
        .map(|i| i.to_le_bytes().repeat(1 + i as usize % 5))
        .collect();
    let mut expected = Vec::new();
    policy.create_filter(&keys, &mut expected);
    let expected_answers: Vec<bool> = keys
        .iter()
        .chain(&[b"absent".to_vec()])
        .map(|k| policy.key_may_match(k, &expected))
        .collect();
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                for _ in 0..20 {
                    let mut filter = Vec::new();
                    policy.create_filter(&keys, &mut filter);
                    assert!(filter == expected);
                    let answers: Vec<bool> = keys
                        .iter()
                        .chain(&[b"absent".to_vec()])
                        .map(|k| policy.key_may_match(k, &filter))
                        .collect();
                    assert!(answers == expected_answers);
                }
            });
        }
    });
}
