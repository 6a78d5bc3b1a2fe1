//! `leveldb-bloom fpr`: the false-positive rate of this library's filters (leveldb's), measured
//! with keys not in them, beside the rate a bloom filter of the same bits and probes has in theory.

use std::fmt::Write;

use leveldb_bloom::BloomPolicy;

use crate::filters::theoretical_rate;

/// Absent keys asked of each filter.
const QUERIES: usize = 1_000_000;

/// One setting's measurement.
pub struct Row {
    /// The bits per key the filter was built with.
    pub bits_per_key: u32,
    /// Its probe count.
    pub probes: u8,
    /// Its keys.
    pub keys: usize,
    /// Its length in bytes.
    pub bytes: usize,
    /// The share of absent keys it answered "may match" for.
    pub measured: f64,
    /// (1 - e^(-kn/m))^k.
    pub theory: f64,
}

/// `n` keys of 16 bytes: each one's index, then `set` (as leveldb's own bloom_test makes keys of
/// integers): the keys of two sets differ.
fn keys(n: usize, set: u64) -> Vec<[u8; 16]> {
    (0..n as u64)
        .map(|i| {
            let mut key = [0; 16];
            key[..8].copy_from_slice(&i.to_le_bytes());
            key[8..].copy_from_slice(&set.to_le_bytes());
            key
        })
        .collect()
}

/// The filter of `keys` keys with `bits_per_key`, asked about [`QUERIES`] others.
pub fn measure(bits_per_key: u32, count: usize) -> Row {
    let policy = BloomPolicy::new(bits_per_key);
    let mut filter = Vec::new();
    policy.create_filter(&keys(count, 1), &mut filter);
    let absent = keys(QUERIES, 2);
    let mut answers = vec![false; absent.len()];
    policy.key_may_match_batch(&absent, &filter, &mut answers);
    let positives = answers.iter().filter(|&&a| a).count();
    Row {
        bits_per_key,
        probes: policy.num_probes(),
        keys: count,
        bytes: filter.len(),
        measured: positives as f64 / QUERIES as f64,
        theory: theoretical_rate(&filter, count as u64).unwrap_or(1.0),
    }
}

/// The rows as a table: a header, then one line each.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "bits/key  probes  keys        bytes       measured  theory    measured/theory\n",
    );
    for row in rows {
        let _ = writeln!(
            out,
            "{:<8}  {:<6}  {:<10}  {:<10}  {:<8}  {:<8}  {:.3}",
            row.bits_per_key,
            row.probes,
            row.keys,
            row.bytes,
            format!("{:.4}%", 100.0 * row.measured),
            format!("{:.4}%", 100.0 * row.theory),
            row.measured / row.theory
        );
    }
    out
}
