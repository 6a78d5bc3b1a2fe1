//! leveldb's filter blocks against leveldb itself: its internal FilterBlockBuilder and
//! FilterBlockReader, whose header is in leveldb's source tree (LEVELDB_BLOOM_LEVELDB_SRC; CI
//! fetches Debian's) and whose code is in Debian's static libleveldb.a (libleveldb-dev).
//!
//! - The committed vectors/filterblock.txt is what tools/gen_filterblock_vectors.cc makes now.
//! - Real tables: databases written by leveldb (compression off, and snappy), each .ldb file's
//!   filter block found through its footer and metaindex, equal to the block this library builds
//!   from the table's user keys and data-block offsets (from its index block), and to the block
//!   a policy of ours wrapping the bloom policy as leveldb's InternalFilterPolicy wraps it builds
//!   from the table's internal keys, and to the block built from the internal keys packed in one
//!   buffer (FilterBlockBuilder::build_packed, less their tags); and this library's reader answers as leveldb's on that
//!   block for present and absent keys, through both policies.

use std::path::PathBuf;
use std::process::Command;

use leveldb_bloom::{
    BlockKeys, BloomPolicy, FilterBlockBuilder, FilterBlockError, FilterBlockReader, FilterPolicy,
    PackedKeys,
};
use leveldb_bloom_test_support::leveldb_tools::build_tool;
use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::{self, run};
use leveldb_bloom_test_support::scratch::fresh;
use leveldb_bloom_test_support::tables::{FilterCall, Table, tables, user_key};
use leveldb_bloom_test_support::vectors::to_hex;
use leveldb_bloom_test_support::{tmp_dir, trial, trials};

fn main() {
    trials::run(vec![
        trial!(
            committed_filterblock_vectors_regenerate_from_leveldb,
            Leveldb,
            LeveldbSource
        ),
        trial!(
            real_tables_hold_the_blocks_this_library_builds,
            Leveldb,
            LeveldbSource
        ),
    ]);
}

/// Compiles the program in tools/`name`.cc against leveldb's source headers and static library.
fn build_leveldb_tool(name: &str) -> PathBuf {
    let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC")
        .map(PathBuf::from)
        .expect("LEVELDB_BLOOM_LEVELDB_SRC: a leveldb source tree");
    let includes = [
        format!("-I{}", src.display()),
        format!("-I{}", src.join("include").display()),
    ];
    build_tool(
        name,
        &includes,
        &["-l:libleveldb.a", "-lsnappy", "-pthread"],
        &tmp_dir!().trial(),
    )
}

fn committed_filterblock_vectors_regenerate_from_leveldb() {
    let generator = build_leveldb_tool("gen_filterblock_vectors");
    let dir = tmp_dir!().trial();
    run(Command::new(&generator).arg(&dir));
    let committed = std::fs::read(root().join("vectors/filterblock.txt")).unwrap();
    let regenerated = std::fs::read(dir.join("filterblock.txt")).unwrap();
    assert!(
        committed == regenerated,
        "vectors/filterblock.txt differs from what leveldb generates now"
    );
}

/// leveldb's InternalFilterPolicy (db/dbformat.cc), written with this library's API: a table's
/// filters are its user policy's, of the user keys of the table's internal keys.
struct InternalFilterPolicy<P>(P);

impl<P: FilterPolicy> FilterPolicy for InternalFilterPolicy<P> {
    fn create_filter(
        &self,
        keys: BlockKeys<'_>,
        dst: &mut Vec<u8>,
    ) -> Result<(), FilterBlockError> {
        let user_keys: Vec<&[u8]> = keys.into_iter().map(user_key).collect();
        self.0.create_filter(BlockKeys::new(&user_keys), dst)
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        self.0.key_may_match(user_key(key), filter)
    }
}

/// The filter block `policy` builds for `table`'s keys, each passed through `keys`, as leveldb's
/// TableBuilder calls its FilterBlockBuilder.
fn filter_block(policy: impl FilterPolicy, table: &Table, keys: fn(&[u8]) -> &[u8]) -> Vec<u8> {
    let mut builder = FilterBlockBuilder::new(policy);
    for call in table.filter_calls() {
        match call {
            FilterCall::StartBlock(offset) => builder.start_block(offset),
            FilterCall::AddKey(key) => builder.add_key(keys(key)),
        }
        .unwrap();
    }
    builder.finish().unwrap()
}

/// The filter block the bloom `policy` builds for `table`'s internal keys packed in one buffer,
/// each filtered less its 8-byte tag, as the check tool builds it.
fn packed_filter_block(policy: BloomPolicy, table: &Table) -> Vec<u8> {
    let (mut bytes, mut ends, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    for call in table.filter_calls() {
        match call {
            FilterCall::StartBlock(offset) => starts.push((offset, ends.len())),
            FilterCall::AddKey(key) => {
                bytes.extend_from_slice(key);
                ends.push(bytes.len());
            }
        }
    }
    let keys = PackedKeys::new(&bytes, &ends, 8).unwrap();
    FilterBlockBuilder::build_packed(policy, keys, starts).unwrap()
}

fn real_tables_hold_the_blocks_this_library_builds() {
    let helper = build_leveldb_tool("leveldb_tables");
    let work = fresh(tmp_dir!().trial().join("tables"));
    let mut checked_tables = 0;
    for (compression, bits_per_key, seed) in [("none", 10, 1), ("snappy", 10, 2), ("none", 3, 3)] {
        let db = work.join(format!("{compression}-{bits_per_key}"));
        run(Command::new(&helper).arg("write").arg(&db).args([
            compression,
            &bits_per_key.to_string(),
            &seed.to_string(),
        ]));
        let policy = BloomPolicy::new(bits_per_key);
        let files = tables(&db);
        assert!(files.len() >= 2, "{compression}: {} tables", files.len());
        for (name, bytes) in files {
            let table = Table::read(&bytes);
            let leveldb_block = &table.filter_block;
            let internal_policy = InternalFilterPolicy(policy);
            assert!(
                filter_block(policy, &table, user_key) == *leveldb_block,
                "{compression} {name}: filter block differs"
            );
            assert!(
                filter_block(&internal_policy, &table, |key| key) == *leveldb_block,
                "{compression} {name}: InternalFilterPolicy's filter block differs"
            );
            assert!(
                packed_filter_block(policy, &table) == *leveldb_block,
                "{compression} {name}: the packed keys' filter block differs"
            );

            // Present keys at their block, absent keys at every block and past the end.
            let mut queries: Vec<(u64, Vec<u8>)> = Vec::new();
            for (i, block) in table.data_blocks.iter().enumerate() {
                for key in block.keys.iter().step_by(3) {
                    queries.push((block.offset, user_key(key).to_vec()));
                }
                for j in 0..20u32 {
                    queries.push((block.offset, format!("absent {i} {j}").into_bytes()));
                }
            }
            queries.push((table.data_end + 1_000_000, b"past the end".to_vec()));
            let query_file = work.join("queries.txt");
            let lines: String = queries
                .iter()
                .map(|(offset, key)| format!("{offset} {}\n", to_hex(key)))
                .collect();
            std::fs::write(&query_file, lines).unwrap();
            let block_file = work.join("block.bin");
            std::fs::write(&block_file, leveldb_block).unwrap();
            // Its answers are thousands of characters: kept out of the test's output.
            let mut answer = Command::new(&helper);
            answer
                .arg("answer")
                .arg(&block_file)
                .arg(&query_file)
                .arg(bits_per_key.to_string());
            let output = answer.output().expect("leveldb_tables starts");
            process::check(&answer, &output);
            let theirs: Vec<bool> = String::from_utf8(output.stdout)
                .unwrap()
                .trim()
                .bytes()
                .map(|b| b == b'1')
                .collect();
            let reader = FilterBlockReader::new(policy, leveldb_block);
            let single: Vec<bool> = queries
                .iter()
                .map(|(offset, key)| reader.key_may_match(*offset, key))
                .collect();
            assert!(single == theirs, "{compression} {name}: answers differ");
            let offsets: Vec<u64> = queries.iter().map(|q| q.0).collect();
            let keys: Vec<&[u8]> = queries.iter().map(|q| q.1.as_slice()).collect();
            let mut batch = vec![false; keys.len()];
            reader.key_may_match_batch(&offsets, &keys, &mut batch);
            assert!(
                batch == theirs,
                "{compression} {name}: batch answers differ"
            );
            // Through the InternalFilterPolicy, each key with a tag of its own (sequence number
            // and type), as a lookup gives it, and the batch with owned keys.
            let internal_keys: Vec<Vec<u8>> = keys
                .iter()
                .enumerate()
                .map(|(i, key)| [key, &((i as u64) << 8 | 1).to_le_bytes()[..]].concat())
                .collect();
            let reader = FilterBlockReader::new(&internal_policy, leveldb_block);
            let single: Vec<bool> = offsets
                .iter()
                .zip(&internal_keys)
                .map(|(offset, key)| reader.key_may_match(*offset, key))
                .collect();
            let mut internal_batch = vec![false; internal_keys.len()];
            reader.key_may_match_batch(&offsets, &internal_keys, &mut internal_batch);
            assert!(
                single == theirs && internal_batch == theirs,
                "{compression} {name}: InternalFilterPolicy's answers differ"
            );
            // Some absent keys must be told apart, or the test would pass a reader that always
            // says "may match".
            assert!(
                theirs.iter().any(|&a| !a),
                "{compression} {name}: no key ruled out"
            );
            checked_tables += 1;
        }
    }
    println!("{checked_tables} tables checked");
}
