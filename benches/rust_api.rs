//! Criterion benches of the Rust API: building and querying at 10 bits/key, the fast paths next to
//! the scalar oracle (`leveldb_bloom::scalar`). Per key throughput. Run: `cargo bench --bench
//! rust_api`. The comparison with leveldb itself is `cargo bench --bench vs_leveldb`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_main};
use leveldb_bloom::{BloomPolicy, scalar};
use leveldb_bloom_test_support::random::random_strings;
use std::hint::black_box;

/// Keys of 16..24 bytes from a fixed seed (splitmix64).
fn keys(n: usize, seed: u64) -> Vec<Vec<u8>> {
    random_strings(n, 16, 24, seed)
}

/// Half present, half absent, interleaved.
fn queries(members: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let absent = keys(members.len(), 99);
    members
        .iter()
        .zip(&absent)
        .enumerate()
        .map(|(i, (m, a))| if i % 2 == 0 { m.clone() } else { a.clone() })
        .collect()
}

const SIZES: [(&str, usize); 3] = [
    ("100 keys", 100),
    ("1M keys", 1 << 20),
    ("8M keys", 8 << 20),
];

fn build(c: &mut Criterion) {
    let policy = BloomPolicy::new(10);
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for (name, n) in SIZES {
        let keys = keys(n, 1);
        let slices: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let mut out = vec![0; policy.filter_len(n).unwrap()];
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("fast", name), |b| {
            b.iter(|| policy.fill_filter(slices.iter().copied(), black_box(&mut out)))
        });
        group.bench_function(BenchmarkId::new("scalar", name), |b| {
            b.iter(|| {
                scalar::fill_filter(
                    policy.num_probes(),
                    slices.iter().copied(),
                    black_box(&mut out),
                )
            })
        });
    }
}

fn query(c: &mut Criterion) {
    let policy = BloomPolicy::new(10);
    let mut group = c.benchmark_group("query 50% present");
    group.sample_size(10);
    for (name, n) in SIZES {
        let keys = keys(n, 1);
        let mut filter = Vec::new();
        policy.create_filter(&keys, &mut filter);
        let queries = queries(&keys);
        let mut results = vec![false; n];
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function(BenchmarkId::new("batch", name), |b| {
            b.iter(|| policy.key_may_match_batch(&queries, black_box(&filter), &mut results))
        });
        group.bench_function(BenchmarkId::new("single", name), |b| {
            b.iter(|| {
                for (q, r) in queries.iter().zip(&mut results) {
                    *r = policy.key_may_match(q, black_box(&filter));
                }
            })
        });
        group.bench_function(BenchmarkId::new("scalar", name), |b| {
            b.iter(|| {
                for (q, r) in queries.iter().zip(&mut results) {
                    *r = scalar::key_may_match(q, black_box(&filter));
                }
            })
        });
    }
}

// In a private module: criterion_group! writes a public function without a doc comment.
mod group {
    criterion::criterion_group!(benches, super::build, super::query);
}
criterion_main!(group::benches);
