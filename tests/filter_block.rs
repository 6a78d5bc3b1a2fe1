//! leveldb's filter blocks through the Rust API: every vector leveldb 1.23's FilterBlockBuilder
//! and FilterBlockReader made (vectors/filterblock.txt), with the bloom policy and the vectors'
//! custom one; policies behind pointers, batch queries of any kind of key, and the one panic of
//! every batch query given results of the wrong length.

use leveldb_bloom::{
    BlockKeys, BloomPolicy, FilterBlockBuilder, FilterBlockError, FilterBlockReader, FilterPolicy,
    PackedKeys,
};
use leveldb_bloom_test_support::filterblock_vectors::{Call, Policy, Record, for_each_record};

/// The vectors' custom policy (vectors/README.md): two bytes per key.
struct TestPolicy;

fn pair(key: &[u8]) -> [u8; 2] {
    [key.len() as u8, key.iter().fold(0, |x, b| x ^ b)]
}

impl FilterPolicy for TestPolicy {
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        for key in keys.iter() {
            dst.extend_from_slice(&pair(key));
        }
        Ok(())
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        filter.is_empty() || filter.chunks_exact(2).any(|p| p == pair(key))
    }
}

fn build(policy: impl FilterPolicy, calls: &[Call]) -> Vec<u8> {
    let mut builder = FilterBlockBuilder::new(policy);
    for call in calls {
        match call {
            Call::StartBlock(offset) => builder.start_block(*offset).unwrap(),
            Call::AddKey(key) => builder.add_key(key).unwrap(),
        }
    }
    builder.finish().unwrap()
}

/// The block [`FilterBlockBuilder::build_packed`] makes for the same calls, each key packed
/// with 3 bytes after it that are not filtered.
fn build_packed(policy: impl FilterPolicy, calls: &[Call]) -> Vec<u8> {
    let (mut bytes, mut ends, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    for call in calls {
        match call {
            Call::StartBlock(offset) => starts.push((*offset, ends.len())),
            Call::AddKey(key) => {
                bytes.extend_from_slice(key);
                bytes.extend_from_slice(b"tag");
                ends.push(bytes.len());
            }
        }
    }
    let keys = PackedKeys::new(&bytes, &ends, 3).unwrap();
    FilterBlockBuilder::build_packed(policy, keys, starts).unwrap()
}

fn check_answers(policy: impl FilterPolicy, r: &Record<'_>) {
    let reader = FilterBlockReader::new(policy, &r.block);
    let single: Vec<bool> = r
        .queries
        .iter()
        .map(|(offset, key)| reader.key_may_match(*offset, key))
        .collect();
    assert!(
        single == r.answers,
        "answers differ on block {:02x?}",
        &r.block[..r.block.len().min(64)]
    );
    let offsets: Vec<u64> = r.queries.iter().map(|q| q.0).collect();
    let keys: Vec<&[u8]> = r.queries.iter().map(|q| q.1.as_slice()).collect();
    let mut batch = vec![false; keys.len()];
    reader.key_may_match_batch(&offsets, &keys, &mut batch);
    assert!(batch == r.answers, "batch answers differ");
}

#[test]
fn blocks_and_answers_equal_leveldb() {
    let (mut built, mut read) = (0, 0);
    let records = for_each_record(|r| {
        if let Some(calls) = r.calls {
            let (block, packed) = match r.policy {
                Policy::Bloom(bits) => (
                    build(BloomPolicy::new(bits), calls),
                    build_packed(BloomPolicy::new(bits), calls),
                ),
                Policy::Custom => (build(TestPolicy, calls), build_packed(TestPolicy, calls)),
            };
            assert!(
                block == r.block,
                "block differs for {} calls, {:?}",
                calls.len(),
                r.policy
            );
            assert!(
                packed == r.block,
                "packed keys' block differs for {} calls, {:?}",
                calls.len(),
                r.policy
            );
            built += 1;
        } else {
            read += 1;
        }
        match r.policy {
            Policy::Bloom(bits) => check_answers(BloomPolicy::new(bits), r),
            Policy::Custom => check_answers(TestPolicy, r),
        }
    });
    assert_eq!((built, read, records), (73, 1433, 1506));
}

#[test]
fn policies_behind_pointers_build_and_read_as_the_policy() {
    use std::rc::Rc;
    use std::sync::Arc;

    let calls = [
        Call::StartBlock(0),
        Call::AddKey(b"k".to_vec()),
        Call::StartBlock(5000),
        Call::AddKey(b"l".to_vec()),
    ];
    let bloom = BloomPolicy::new(10);
    let expected = build(bloom, &calls);
    let boxed: Box<dyn FilterPolicy + Send + Sync> = Box::new(bloom);
    let (reference, of_reference) = (&bloom, &&bloom);
    let blocks = [
        build(reference, &calls),
        build(of_reference, &calls),
        build(&bloom as &dyn FilterPolicy, &calls),
        build(Box::new(bloom), &calls),
        build(&boxed, &calls),
        build(boxed, &calls),
        build(Rc::new(bloom), &calls),
        build(Arc::new(bloom), &calls),
        build(Arc::new(TestPolicy) as Arc<dyn FilterPolicy>, &calls),
    ];
    assert!(blocks[..8].iter().all(|block| *block == expected));
    assert_eq!(blocks[8], build(TestPolicy, &calls));
    // A builder and readers sharing one policy, as threads would.
    let shared = Arc::new(bloom);
    let builder = FilterBlockBuilder::new(Arc::clone(&shared));
    assert_eq!(builder.finish().unwrap(), build(bloom, &[]));
    let reader = FilterBlockReader::new(Arc::clone(&shared), &expected);
    let mut results = [false; 2];
    reader.key_may_match_batch(&[0, 4096], &[b"k", b"l"], &mut results);
    assert_eq!(results, [true, true]);
}

#[test]
fn batch_queries_take_keys_of_any_kind() {
    // One filter of 1,000 keys, so that a run of the batch is longer than the reader's stack.
    let keys: Vec<Vec<u8>> = (0..1000u32)
        .map(|i| format!("key {i}").into_bytes())
        .collect();
    let calls: Vec<Call> = keys.iter().cloned().map(Call::AddKey).collect();
    let block = build(BloomPolicy::new(10), &calls);
    let reader = FilterBlockReader::new(BloomPolicy::new(10), &block);
    let queries: Vec<Vec<u8>> = keys
        .iter()
        .zip((0..).map(|i: u32| format!("absent {i}").into_bytes()))
        .flat_map(|(key, absent)| [key.clone(), absent])
        .collect();
    let expected: Vec<bool> = queries
        .iter()
        .map(|key| reader.key_may_match(0, key))
        .collect();
    assert!(expected.iter().any(|&found| !found));
    let offsets = vec![0; queries.len()];
    let slices: Vec<&[u8]> = queries.iter().map(Vec::as_slice).collect();
    let strings: Vec<String> = queries
        .iter()
        .map(|key| String::from_utf8(key.clone()).unwrap())
        .collect();
    for n in [queries.len(), 300, 256, 100] {
        let mut results = vec![false; n];
        reader.key_may_match_batch(&offsets[..n], &queries[..n], &mut results);
        assert!(results == expected[..n]);
        reader.key_may_match_batch(&offsets[..n], &slices[..n], &mut results);
        assert!(results == expected[..n]);
        reader.key_may_match_batch(&offsets[..n], &strings[..n], &mut results);
        assert!(results == expected[..n]);
    }
    let mut results = [false; 2];
    reader.key_may_match_batch(&[0, 0], &[*b"key 7", *b"key 8"], &mut results);
    assert_eq!(results, [true, true]);
}

/// The message a panic of `f` carries.
fn panic_message(f: impl FnOnce()) -> String {
    let payload = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).expect_err("a panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .expect("a message")
}

#[test]
fn every_batch_query_refuses_results_of_another_length_alike() {
    let policy = BloomPolicy::new(10);
    let mut filter = Vec::new();
    policy.create_filter(&[b"k"], &mut filter);
    let block = build(policy, &[Call::AddKey(b"k".to_vec())]);
    let keys: [&[u8]; 3] = [b"k", b"l", b"m"];
    let boxed: Box<dyn FilterPolicy> = Box::new(policy);
    let messages = [
        panic_message(|| leveldb_bloom::key_may_match_batch(&keys, &filter, &mut [false; 2])),
        panic_message(|| policy.key_may_match_batch(&keys, &filter, &mut [false; 2])),
        panic_message(|| {
            FilterPolicy::key_may_match_batch(&policy, &keys, &filter, &mut [false; 2])
        }),
        panic_message(|| boxed.key_may_match_batch(&keys, &filter, &mut [false; 2])),
        panic_message(|| TestPolicy.key_may_match_batch(&keys, &filter, &mut [false; 2])),
        panic_message(|| {
            FilterBlockReader::new(policy, &block).key_may_match_batch(
                &[0; 3],
                &keys,
                &mut [false; 2],
            );
        }),
    ];
    for message in messages {
        assert_eq!(
            message,
            "key_may_match_batch: 3 keys but 2 results; it needs one result per key"
        );
    }
    // Too many results, too: none is left stale.
    let message = panic_message(|| TestPolicy.key_may_match_batch(&keys, &filter, &mut [false; 4]));
    assert_eq!(
        message,
        "key_may_match_batch: 3 keys but 4 results; it needs one result per key"
    );
    let message = panic_message(|| {
        FilterBlockReader::new(policy, &block).key_may_match_batch(&[0; 2], &keys, &mut [false; 3]);
    });
    assert_eq!(
        message,
        "key_may_match_batch: 2 block offsets for 3 keys; it needs one per key"
    );
}

/// Every test above again on each slower path this CPU has, in a child process.
#[test]
fn on_every_path() {
    leveldb_bloom_test_support::isa::on_every_path(leveldb_bloom::isa());
}
