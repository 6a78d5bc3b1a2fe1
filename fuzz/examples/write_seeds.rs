//! Writes the committed seed corpora, fuzz/seeds/<target>/, from the reference vectors leveldb
//! made, so fuzzing starts from real filters, real key sets and leveldb's corrupt-filter cases:
//!
//!     cargo run --manifest-path fuzz/Cargo.toml --example write_seeds
//!
//! The output is deterministic; a few hundred small files.

use std::path::{Path, PathBuf};

use leveldb_bloom_fuzz::Writer;
use leveldb_bloom_test_support::filterblock_vectors;
use leveldb_bloom_test_support::vectors::for_each_record;

/// Key sets larger than this (and keys beyond it in a seed) make slow inputs, not new paths.
const MAX_SEED_KEYS: usize = 300;
const MAX_SEED_BYTES: usize = 16 * 1024;
/// bits_per_key values the build seeds take from the vectors (k = 1, 4, 6, 15, 30 and clamps).
const SEED_BITS: &[u32] = &[0, 1, 6, 10, 23, 50, 1000];
/// The c_api script's operation bytes (see `leveldb_bloom_fuzz::c_api::run`).
const CREATE_BLOOM: u8 = 0;
const CREATE_CUSTOM: u8 = 1;
const CREATE_FILTER: u8 = 2;
const KEY_MAY_MATCH: u8 = 3;
const NAME: u8 = 4;
const DESTROY: u8 = 5;

fn write(dir: &Path, name: String, seed: &Writer) {
    std::fs::write(dir.join(name), &seed.0).expect("seed written");
}

/// Appends keys as byte strings until the seed reaches its size limit.
fn push_keys(seed: &mut Writer, keys: &[Vec<u8>]) {
    for key in keys.iter().take(MAX_SEED_KEYS) {
        if seed.0.len() + key.len() + 2 > MAX_SEED_BYTES {
            break;
        }
        seed.bytes(key);
    }
}

/// A c_api script: a bloom policy and a custom one, a filter built by each (with the key shapes
/// `shape` selects), queries of the first keys against both, names, then a destroy.
fn c_api_script(bits: i32, keys: &[Vec<u8>], shape: u8) -> Writer {
    let keys = &keys[..keys.len().min(8)];
    let mut seed = Writer::default();
    seed.u8(CREATE_BLOOM).i32(bits);
    seed.u8(CREATE_CUSTOM).u8(0);
    for policy in [0, 1] {
        seed.u8(CREATE_FILTER)
            .u8(policy)
            .u8(shape)
            .u8(keys.len() as u8);
        for key in keys {
            seed.u8(0).bytes(key);
        }
        seed.u8(0); // num_keys: all of them
    }
    for (i, key) in keys.iter().take(3).enumerate() {
        // key_may_match: a stored filter, then garbage of the vectors' keys as filter bytes.
        seed.u8(KEY_MAY_MATCH)
            .u8(i as u8 % 2)
            .u8(0)
            .bytes(key)
            .u8(1)
            .bytes(&[]);
        seed.u8(KEY_MAY_MATCH)
            .u8(1)
            .u8(0)
            .bytes(key)
            .u8(2)
            .bytes(key);
    }
    seed.u8(NAME).u8(0).u8(NAME).u8(1).u8(NAME).u8(255);
    seed.u8(DESTROY).u8(1);
    seed
}

/// A filter_block script (see `leveldb_bloom_fuzz::filter_block::run`) making `calls`, then
/// `contents` as the raw block; None if the calls do not fit the script.
fn filter_block_script(
    bits: u32,
    calls: &[filterblock_vectors::Call],
    contents: &[u8],
) -> Option<Writer> {
    use filterblock_vectors::Call;
    let mut seed = Writer::default();
    seed.u8(u8::try_from(bits).ok().filter(|&b| b <= 50)?)
        .u8(u8::try_from(calls.len()).ok().filter(|&n| n <= 64)?);
    let mut last = 0u64;
    for call in calls {
        match call {
            Call::StartBlock(offset) if *offset >= last => {
                seed.u8(0).u16(u16::try_from(offset - last).ok()?);
                last = *offset;
            }
            Call::StartBlock(offset) => {
                seed.u8(2).u16(u16::try_from(last - offset).ok()?);
                last = *offset;
            }
            Call::AddKey(key) => {
                seed.u8(3).bytes(key);
            }
        }
    }
    // No corruption, then the block itself as the raw contents.
    seed.u16(0).u8(0);
    seed.0.extend_from_slice(contents);
    (seed.0.len() <= MAX_SEED_BYTES).then_some(seed)
}

fn main() {
    let fuzz_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let seeds = |target: &str| -> PathBuf {
        let dir = fuzz_dir.join("seeds").join(target);
        // Regenerated whole, so a changed writer leaves no stale seed behind.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("seed folder created");
        dir
    };
    let (build_dir, match_dir, c_api_dir, block_dir) = (
        seeds("build_filter"),
        seeds("key_may_match"),
        seeds("c_api"),
        seeds("filter_block"),
    );

    let mut set = 0;
    let mut last_keys: Option<Vec<Vec<u8>>> = None;
    for_each_record("build.txt", |record| {
        let Some(bits) = record.bits_per_key else {
            return;
        };
        if record.keys.len() > MAX_SEED_KEYS {
            return;
        }
        if last_keys.as_deref() != Some(record.keys) {
            set += 1;
            last_keys = Some(record.keys.to_vec());
            // Once per key set: its filter at 10 bits with its keys, and two c_api scripts.
            write(
                &c_api_dir,
                format!("set{set}-valid"),
                &c_api_script(10, record.keys, 0),
            );
            write(
                &c_api_dir,
                format!("set{set}-null-lengths"),
                &c_api_script(-1, record.keys, 2),
            );
        }
        if bits == 10 {
            let mut seed = Writer::default();
            seed.bytes(&record.filter);
            push_keys(&mut seed, record.keys);
            write(&match_dir, format!("set{set}-members"), &seed);
        }
        if SEED_BITS.contains(&bits) {
            let mut seed = Writer::default();
            seed.u16(bits as u16);
            push_keys(&mut seed, record.keys);
            write(&build_dir, format!("set{set}-bits{bits}"), &seed);
        }
    });

    // filter_block: each bloom build record's calls as a script, then its block as the raw
    // contents; those with offsets past the target's limit are left out.
    let mut index = 0;
    filterblock_vectors::for_each_record(|record| {
        index += 1;
        let (filterblock_vectors::Policy::Bloom(bits), Some(calls)) = (record.policy, record.calls)
        else {
            return;
        };
        if let Some(seed) = filter_block_script(bits, calls, &record.block) {
            write(&block_dir, format!("build{index}-bits{bits}"), &seed);
        }
    });

    let mut index = 0;
    for_each_record("match.txt", |record| {
        // Every 16th of leveldb's arbitrary and corrupt filters, with 8 of its probes.
        if index % 16 == 0 {
            let mut seed = Writer::default();
            seed.bytes(&record.filter);
            push_keys(&mut seed, &record.probes[..record.probes.len().min(8)]);
            write(&match_dir, format!("match{index}"), &seed);
        }
        index += 1;
    });
}
