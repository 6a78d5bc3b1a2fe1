//! Every reference vector made by leveldb 1.23, through the Rust API.

use leveldb_bloom::{BloomPolicy, key_may_match};
use leveldb_bloom_test_support::vectors::for_each_record;

fn answers(probes: &[Vec<u8>], filter: &[u8]) -> Vec<bool> {
    probes.iter().map(|p| key_may_match(p, filter)).collect()
}

#[test]
fn filters_and_answers_equal_leveldb() {
    let records = for_each_record("build.txt", |r| {
        let policy = BloomPolicy::new(r.bits_per_key.expect("build.txt holds filter records"));
        // Building appends: what the buffer held before must stay untouched.
        let prefix = b"previous filter bytes".to_vec();
        let mut dst = prefix.clone();
        policy.create_filter(r.keys, &mut dst);
        assert_eq!(&dst[..prefix.len()], prefix.as_slice());
        assert!(
            dst[prefix.len()..] == r.filter,
            "filter differs: {} keys at {:?} bits/key",
            r.keys.len(),
            r.bits_per_key
        );
        assert_eq!(policy.filter_len(r.keys.len()), Some(r.filter.len()));
        assert_eq!(
            Some(&policy.num_probes()),
            r.filter.last(),
            "k differs from leveldb's"
        );
        assert!(answers(r.probes, &r.filter) == r.answers, "answers differ");
    });
    assert_eq!(records, 507);
}

#[test]
fn answers_on_arbitrary_and_corrupt_filters_equal_leveldb() {
    let records = for_each_record("match.txt", |r| {
        assert!(
            answers(r.probes, &r.filter) == r.answers,
            "answers differ on filter {:02x?}",
            &r.filter
        );
    });
    assert_eq!(records, 3989);
}

/// Every test above again on each slower path this CPU has, in a child process.
#[test]
fn on_every_path() {
    leveldb_bloom_test_support::isa::on_every_path(leveldb_bloom::isa());
}
