//! The Rust API beyond the reference vectors: appending, allocation failure, filters of 2^32
//! bits or more (checked by leveldb's rule, too large to store as vectors), and threads, through
//! the Rust API and, with the `leveldb-c-api` feature, through the C ABI with a custom policy of
//! Rust callbacks.

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

/// The same through the C ABI, which the `leveldb-c-api` feature exports.
#[cfg(feature = "leveldb-c-api")]
mod c_abi {
    use std::ffi::c_char;

    use leveldb_bloom::BloomPolicy;
    use leveldb_bloom::ffi::{
        leveldb_filterpolicy_create, leveldb_filterpolicy_create_bloom,
        leveldb_filterpolicy_create_filter, leveldb_filterpolicy_destroy,
        leveldb_filterpolicy_key_may_match, leveldb_free,
    };

    use super::check_huge_filter;

    #[test]
    fn filters_of_2_pow_32_bits_through_the_c_abi() {
        let keys: [&[u8]; 2] = [b"alpha", b"beta"];
        let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
        let lens: Vec<usize> = keys.iter().map(|k| k.len()).collect();
        // 2 keys at INT_MAX bits each round up to exactly 2^32 bits (512 MiB) plus the k byte.
        let policy = leveldb_filterpolicy_create_bloom(i32::MAX);
        let mut len = 0;
        // SAFETY: two keys and their lengths, a live policy, a live `len`.
        let filter = unsafe {
            leveldb_filterpolicy_create_filter(policy, ptrs.as_ptr(), lens.as_ptr(), 2, &mut len)
        };
        assert!(!filter.is_null());
        assert_eq!(len, (1 << 29) + 1);
        // SAFETY: the filter is `len` bytes, live until leveldb_free below.
        let bytes = unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) };
        check_huge_filter(&keys, bytes);
        for key in keys {
            assert_eq!(
                // SAFETY: a live policy, key and filter, with their lengths.
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
        // SAFETY: what create_filter and create_bloom returned, released once.
        unsafe {
            leveldb_free(filter.cast());
            leveldb_filterpolicy_destroy(policy);
        }
    }

    /// A custom C policy made of Rust callbacks that forward to the bloom policy and count calls.
    mod counting_policy {
        use std::ffi::{c_char, c_int, c_void};
        use std::sync::atomic::{AtomicUsize, Ordering};

        use leveldb_bloom::ffi::{
            leveldb_filterpolicy_create_filter, leveldb_filterpolicy_key_may_match,
            leveldb_filterpolicy_t,
        };

        pub struct Counting {
            pub inner: *const leveldb_filterpolicy_t,
            pub creates: AtomicUsize,
            pub matches: AtomicUsize,
        }

        pub unsafe extern "C" fn create(
            state: *mut c_void,
            keys: *const *const c_char,
            lengths: *const usize,
            n: c_int,
            len: *mut usize,
        ) -> *mut c_char {
            // SAFETY: the state registered with the policy is a `Counting` that outlives it.
            let counting = unsafe { &*state.cast::<Counting>() };
            counting.creates.fetch_add(1, Ordering::Relaxed);
            // SAFETY: the library's own arguments, passed on to the live bloom policy.
            unsafe { leveldb_filterpolicy_create_filter(counting.inner, keys, lengths, n, len) }
        }

        pub unsafe extern "C" fn key_may_match(
            state: *mut c_void,
            key: *const c_char,
            length: usize,
            filter: *const c_char,
            filter_length: usize,
        ) -> u8 {
            // SAFETY: the state registered with the policy is a `Counting` that outlives it.
            let counting = unsafe { &*state.cast::<Counting>() };
            counting.matches.fetch_add(1, Ordering::Relaxed);
            // SAFETY: the library's own arguments, passed on to the live bloom policy.
            unsafe {
                leveldb_filterpolicy_key_may_match(
                    counting.inner,
                    key,
                    length,
                    filter,
                    filter_length,
                )
            }
        }

        pub unsafe extern "C" fn name(_: *mut c_void) -> *const c_char {
            c"test.Counting".as_ptr()
        }
    }

    /// A policy pointer shared by threads: policies are immutable, so sharing is allowed (header).
    #[derive(Clone, Copy)]
    struct Shared(*mut leveldb_bloom::ffi::leveldb_filterpolicy_t);
    // SAFETY: the header allows any thread to use a policy; only destroy must not race.
    unsafe impl Send for Shared {}
    // SAFETY: as for Send.
    unsafe impl Sync for Shared {}

    /// Builds the filter for `keys` through the C ABI and returns it with every probe's answer.
    fn c_build_and_query(
        policy: Shared,
        keys: &[Vec<u8>],
        probes: &[Vec<u8>],
    ) -> (Vec<u8>, Vec<u8>) {
        let ptrs: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
        let lens: Vec<usize> = keys.iter().map(Vec::len).collect();
        let mut len = 0;
        // SAFETY: `keys.len()` keys and lengths, a live policy, a live `len`.
        let filter = unsafe {
            leveldb_filterpolicy_create_filter(
                policy.0,
                ptrs.as_ptr(),
                lens.as_ptr(),
                keys.len() as i32,
                &mut len,
            )
        };
        assert!(!filter.is_null());
        // SAFETY: the filter is `len` bytes, live until leveldb_free below.
        let bytes = unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) }.to_vec();
        let answers = probes
            .iter()
            // SAFETY: a live policy, probe and filter, with their lengths.
            .map(|p| unsafe {
                leveldb_filterpolicy_key_may_match(
                    policy.0,
                    p.as_ptr().cast(),
                    p.len(),
                    filter,
                    len,
                )
            })
            .collect();
        // SAFETY: what create_filter returned, released once.
        unsafe { leveldb_free(filter.cast()) };
        (bytes, answers)
    }

    /// 8 Rust threads build and query through one C policy at once, each round a different key set:
    /// the bloom policy, then a custom policy of Rust callbacks forwarding to it. Every result equals
    /// the single-threaded one, and every call reaches the callbacks exactly once.
    #[test]
    fn threads_share_one_policy_through_the_c_abi() {
        const THREADS: usize = 8;
        const ROUNDS: usize = 20;
        const SETS: usize = 10;
        let probes: Vec<Vec<u8>> = (0..1500u32)
            .map(|i| i.to_be_bytes().repeat(1 + i as usize % 3))
            .collect();
        let sets: Vec<&[Vec<u8>]> = (0..SETS).map(|s| &probes[..s * 97]).collect();

        let bloom = Shared(leveldb_filterpolicy_create_bloom(10));
        let counting = counting_policy::Counting {
            inner: bloom.0,
            creates: 0.into(),
            matches: 0.into(),
        };
        let custom = Shared(leveldb_filterpolicy_create(
            std::ptr::from_ref(&counting).cast_mut().cast(),
            None,
            Some(counting_policy::create),
            Some(counting_policy::key_may_match),
            Some(counting_policy::name),
        ));
        for policy in [bloom, custom] {
            let expected: Vec<_> = sets
                .iter()
                .map(|keys| c_build_and_query(policy, keys, &probes))
                .collect();
            // The Rust API builds the same filters, so the C path is checked against the oracle too.
            for (keys, (filter, _)) in sets.iter().zip(&expected) {
                let mut oracle = Vec::new();
                BloomPolicy::new(10).create_filter(keys, &mut oracle);
                assert!(&oracle == filter);
            }
            std::thread::scope(|scope| {
                for t in 0..THREADS {
                    let (sets, probes, expected) = (&sets, &probes, &expected);
                    scope.spawn(move || {
                        for round in 0..ROUNDS {
                            let set = (t + round * (1 + t % 3)) % SETS;
                            assert!(c_build_and_query(policy, sets[set], probes) == expected[set]);
                        }
                    });
                }
            });
        }
        // The custom policy's single-threaded builds, then the threads'.
        let builds = SETS + THREADS * ROUNDS;
        assert_eq!(counting.creates.into_inner(), builds);
        assert_eq!(counting.matches.into_inner(), builds * probes.len());
        // SAFETY: the two policies made above, no longer used, each destroyed once.
        unsafe {
            leveldb_filterpolicy_destroy(custom.0);
            leveldb_filterpolicy_destroy(bloom.0);
        }
    }
}

/// Every test above again on each slower path this CPU has, in a child process.
#[test]
fn on_every_path() {
    leveldb_bloom_test_support::isa::on_every_path(leveldb_bloom::isa());
}
