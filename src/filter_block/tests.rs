use super::*;
use crate::block_format::Layout;

fn bloom_block(calls: &[(u64, &[&[u8]])]) -> Vec<u8> {
    let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
    for &(offset, keys) in calls {
        builder.start_block(offset).unwrap();
        for key in keys {
            builder.add_key(key).unwrap();
        }
    }
    builder.finish().unwrap()
}

// After leveldb's filter_block_test.cc (its calls, with the bloom policy for its test one).
#[test]
fn empty_builder_is_the_bare_trailer() {
    let block = FilterBlockBuilder::new(BloomPolicy::new(10))
        .finish()
        .unwrap();
    assert_eq!(block, [0, 0, 0, 0, 11]);
    let reader = FilterBlockReader::new(BloomPolicy::new(10), &block);
    assert!(reader.key_may_match(0, b"foo"));
    assert!(reader.key_may_match(100_000, b"foo"));
}

#[test]
fn multi_chunk_layout_and_answers() {
    let block = bloom_block(&[
        (0, &[b"foo", b"bar"]),
        (2000, &[b"box"]),
        (3100, &[b"box"]),
        (9000, &[b"hello"]),
    ]);
    let reader = FilterBlockReader::new(BloomPolicy::new(10), &block);
    let layout = Layout::parse(&block);
    // Filters 0 (foo, bar, box), 1 (box), 2 and 3 empty; "hello" is pending at finish: 4.
    assert_eq!(layout.num_filters(), 5);
    for (offset, key) in [
        (0, &b"foo"[..]),
        (2000, b"bar"),
        (3100, b"box"),
        (9000, b"hello"),
    ] {
        assert!(reader.key_may_match(offset, key));
    }
    assert!(!reader.key_may_match(4100, b"foo"));
    assert!(!reader.key_may_match(6100, b"box"));
    // Past the last filter: a match.
    assert!(reader.key_may_match(20_000, b"anything"));
}

#[test]
fn backwards_offsets_fail_and_change_nothing() {
    let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
    builder.start_block(5000).unwrap();
    builder.add_key(b"a").unwrap();
    // 4200 is in 5000's range: allowed, as leveldb allows it.
    builder.start_block(4200).unwrap();
    assert_eq!(
        builder.start_block(3000),
        Err(FilterBlockError::OffsetBackwards { block_offset: 3000 })
    );
    builder.start_block(7000).unwrap();
    let block = builder.finish().unwrap();
    assert_eq!(
        block,
        bloom_block(&[(5000, &[b"a"]), (4200, &[]), (7000, &[])])
    );
}

#[test]
fn offsets_past_any_file_fail_and_change_nothing() {
    let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
    builder.add_key(b"a").unwrap();
    for block_offset in [MAX_BLOCK_OFFSET + 1, u64::MAX] {
        assert_eq!(
            builder.start_block(block_offset),
            Err(FilterBlockError::OffsetTooLarge { block_offset })
        );
    }
    assert_eq!(
        FilterBlockError::OffsetTooLarge {
            block_offset: u64::MAX
        }
        .to_string(),
        "block offset 18446744073709551615 is past the largest file offset, 9223372036854775807"
    );
    assert_eq!(builder.finish().unwrap(), bloom_block(&[(0, &[b"a"])]));
}

#[test]
fn block_keys_from_slices_read_as_a_builders() {
    let keys: [&[u8]; 3] = [b"apple", b"", b"cherry"];
    let ends = [5, 5, 11];
    let (given, packed) = (
        BlockKeys::new(&keys),
        BlockKeys::packed(b"applecherry", &ends),
    );
    for block_keys in [given, packed] {
        assert_eq!((block_keys.len(), block_keys.is_empty()), (3, false));
        assert_eq!(block_keys.iter().len(), 3);
        assert_eq!(block_keys.into_iter().collect::<Vec<_>>(), keys);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        FilterPolicy::create_filter(&BloomPolicy::new(10), block_keys, &mut a).unwrap();
        BloomPolicy::new(10).create_filter(&keys, &mut b);
        assert_eq!(a, b);
    }
    assert!(BlockKeys::new(&[]).is_empty());
}

#[test]
fn batches_answer_as_single_queries_in_any_order() {
    let keys: Vec<Vec<u8>> = (0..300u32)
        .map(|i| format!("key{i}").into_bytes())
        .collect();
    let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
    for (i, key) in keys.iter().enumerate() {
        if i % 10 == 0 {
            builder.start_block(i as u64 * 300).unwrap();
        }
        builder.add_key(key).unwrap();
    }
    let mut block = builder.finish().unwrap();
    // One offset pointing past the array: a few lookups answer without the policy.
    let policy = BloomPolicy::new(10);
    for corrupt in [false, true] {
        if corrupt {
            let at = Layout::parse(&block).num_filters() / 2;
            let array = block.len() - 5 - 4 * Layout::parse(&block).num_filters();
            block[array + 4 * at..array + 4 * at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        }
        let reader = FilterBlockReader::new(policy, &block);
        // Every key at its own block, then shuffled, with absent keys and offsets past the end.
        let mut queries: Vec<(u64, Vec<u8>)> = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            let offset = (i / 10) as u64 * 3000;
            queries.push((offset, key.clone()));
            queries.push((offset, format!("absent{i}").into_bytes()));
        }
        queries.push((u64::MAX, b"x".to_vec()));
        for in_order in [true, false] {
            if !in_order {
                // A fixed permutation.
                let n = queries.len();
                queries = (0..n).map(|i| queries[(i * 7919) % n].clone()).collect();
            }
            let offsets: Vec<u64> = queries.iter().map(|q| q.0).collect();
            let query_keys: Vec<&[u8]> = queries.iter().map(|q| q.1.as_slice()).collect();
            let mut results = vec![false; queries.len()];
            reader.key_may_match_batch(&offsets, &query_keys, &mut results);
            for ((offset, key), result) in queries.iter().zip(&results) {
                assert_eq!(*result, reader.key_may_match(*offset, key));
            }
        }
    }
}

#[test]
fn packed_keys_are_checked_and_build_the_builders_block() {
    // Ends that go back, run past the bytes, or leave a key shorter than its suffix.
    assert!(PackedKeys::new(b"abcdef", &[4, 2], 0).is_none());
    assert!(PackedKeys::new(b"abcdef", &[4, 7], 0).is_none());
    assert!(PackedKeys::new(b"abcdef", &[4, 5], 2).is_none());
    assert!(PackedKeys::new(b"", &[], 5).is_some_and(|keys| keys.is_empty()));
    let policy = BloomPolicy::new(10);
    let none = PackedKeys::new(b"", &[], 0).unwrap();
    assert_eq!(
        FilterBlockBuilder::build_packed(policy, none, []).unwrap(),
        [0, 0, 0, 0, 11]
    );
    // Keys before the first start, two blocks in one 2 KB range, ranges skipped, a key left
    // for finish: the builder's calls, in the same order.
    let bytes = b"foo#bar#box#box#hello#";
    let keys = PackedKeys::new(bytes, &[4, 8, 12, 16, 22], 1).unwrap();
    let starts = [(0, 1), (2000, 2), (3100, 3), (9000, 4)];
    let packed = FilterBlockBuilder::build_packed(policy, keys, starts).unwrap();
    let mut builder = FilterBlockBuilder::new(policy);
    builder.add_key(b"foo").unwrap();
    for (offset, key) in [(0, "bar"), (2000, "box"), (3100, "box"), (9000, "hello")] {
        builder.start_block(offset).unwrap();
        builder.add_key(key.as_bytes()).unwrap();
    }
    assert_eq!(packed, builder.finish().unwrap());
    assert_eq!(
        FilterBlockBuilder::build_packed(policy, keys, [(5000, 0), (1000, 1)]),
        Err(FilterBlockError::OffsetBackwards { block_offset: 1000 })
    );
}

#[test]
#[should_panic(expected = "build_packed: keys_before 1 is not in 2..=5")]
fn packed_starts_going_back_panic() {
    let keys = PackedKeys::new(b"abcde", &[1, 2, 3, 4, 5], 0).unwrap();
    let _ = FilterBlockBuilder::build_packed(BloomPolicy::new(10), keys, [(0, 2), (3000, 1)]);
}
