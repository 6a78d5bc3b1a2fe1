//! leveldb's filter blocks through the Rust API: every vector leveldb 1.23's FilterBlockBuilder
//! and FilterBlockReader made (vectors/filterblock.txt), with the bloom policy and the vectors'
//! custom one.

use leveldb_bloom::{
    BlockKeys, BloomPolicy, FilterBlockBuilder, FilterBlockError, FilterBlockReader, FilterPolicy,
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
            let block = match r.policy {
                Policy::Bloom(bits) => build(BloomPolicy::new(bits), calls),
                Policy::Custom => build(TestPolicy, calls),
            };
            assert!(
                block == r.block,
                "block differs for {} calls, {:?}",
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
fn a_policy_behind_a_reference_builds_the_same_block() {
    let calls = [
        Call::StartBlock(0),
        Call::AddKey(b"k".to_vec()),
        Call::StartBlock(5000),
    ];
    let policy: &dyn FilterPolicy = &BloomPolicy::new(10);
    assert_eq!(build(policy, &calls), build(BloomPolicy::new(10), &calls));
}

/// Every test above again on each slower path this CPU has, in a child process.
#[test]
fn on_every_path() {
    leveldb_bloom_test_support::isa::on_every_path(leveldb_bloom::isa());
}
