//! leveldb's bloom filter from Rust: a filter for 10,000 keys, every key found, the false-positive
//! rate; the same filter written into a buffer of one's own; a table's filter block. Run it with
//! `cargo run --example quickstart`, or as a crate of one's own depending on this one (the
//! README's "Rust").

use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, FilterBlockReader};

fn main() {
    let keys: Vec<Vec<u8>> = (0..10_000)
        .map(|i| format!("user:{i:08}").into_bytes())
        .collect();

    // 10 bits per key is leveldb's usual setting (NewBloomFilterPolicy(10)): about 1% false
    // positives. Building appends to the buffer, as leveldb's CreateFilter does.
    let policy = BloomPolicy::new(10);
    let mut filter = Vec::new();
    policy.create_filter(&keys, &mut filter);
    println!(
        "{}: {} keys -> {} byte filter, path {}",
        policy.name(),
        keys.len(),
        filter.len(),
        leveldb_bloom::isa()
    );

    // A bloom filter never misses a key it was built from: all of them asked in one batch call.
    let mut found = vec![false; keys.len()];
    policy.key_may_match_batch(&keys, &filter, &mut found);
    let members = found.iter().filter(|&&hit| hit).count();
    println!("members found:   {members} of {}", keys.len());
    assert_eq!(members, keys.len());

    // ...and rarely claims one it was not built from: one key at a time here.
    let absent = 100_000;
    let false_positives = (0..absent)
        .filter(|i| policy.key_may_match(format!("absent:{i:08}").as_bytes(), &filter))
        .count();
    println!("false positives: {false_positives} of {absent}");

    // The same bytes written into a buffer of one's own, of the size filter_len gives.
    let mut own = vec![
        0;
        policy
            .filter_len(keys.len())
            .expect("a filter this size fits")
    ];
    policy.fill_filter(keys.iter().map(Vec::as_slice), &mut own);
    assert_eq!(own, filter);

    // A table's filter block (leveldb's table/filter_block.cc): one filter per 2 KB of data-block
    // offsets, here for two data blocks, at offsets 0 and 4096.
    let mut builder = FilterBlockBuilder::new(&policy);
    builder.start_block(0).expect("offsets in order");
    builder.add_key(b"apple").expect("a key");
    builder.start_block(4096).expect("offsets in order");
    builder.add_key(b"banana").expect("a key");
    let block = builder.finish().expect("a block");
    let reader = FilterBlockReader::new(&policy, &block);
    assert!(reader.key_may_match(0, b"apple") && reader.key_may_match(4096, b"banana"));
    println!("filter block: {} bytes for 2 data blocks", block.len());
}
