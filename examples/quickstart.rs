//! Quickstart: build a leveldb-compatible bloom filter and query it.
//! Run with `cargo run --release --example quickstart`.

use leveldb_bloom::BloomPolicy;

fn main() {
    // 10 bits per key is leveldb's usual setting: about 1% false positives.
    let policy = BloomPolicy::new(10);
    let keys: Vec<Vec<u8>> = (0..10_000u32)
        .map(|i| format!("user:{i:08}").into_bytes())
        .collect();

    let mut filter = Vec::new();
    policy.create_filter(&keys, &mut filter);
    println!(
        "{}: {} keys -> {} byte filter, k = {}",
        policy.name(),
        keys.len(),
        filter.len(),
        policy.num_probes()
    );

    // A bloom filter never misses a key it was built from...
    let members = keys
        .iter()
        .filter(|k| policy.key_may_match(k, &filter))
        .count();
    println!("members found:         {members} of {}", keys.len());
    assert_eq!(members, keys.len());

    // ...and rarely claims one it was not.
    let probes = 100_000u32;
    let false_positives = (0..probes)
        .filter(|i| policy.key_may_match(format!("absent:{i:08}").as_bytes(), &filter))
        .count();
    println!(
        "false positives:       {false_positives} of {probes} ({:.2}%)",
        100.0 * false_positives as f64 / f64::from(probes)
    );
}
