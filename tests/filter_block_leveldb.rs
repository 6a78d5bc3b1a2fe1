//! leveldb's filter blocks against leveldb itself: its internal FilterBlockBuilder and
//! FilterBlockReader, whose header is in leveldb's source tree (LEVELDB_BLOOM_LEVELDB_SRC; CI
//! fetches Debian's) and whose code is in Debian's static libleveldb.a (libleveldb-dev).
//!
//! - The committed vectors/filterblock.txt is what tools/gen_filterblock_vectors.cc makes now.
//! - Real tables: databases written by leveldb (compression off, and snappy), each .ldb file's
//!   filter block found through its footer and metaindex, equal to the block this library builds
//!   from the table's user keys and data-block offsets (from its index block); and this library's
//!   reader answers as leveldb's on that block for present and absent keys.

use std::path::PathBuf;
use std::process::Command;

use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, FilterBlockReader};
use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::{self, run};
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tables::{FILTER_META_KEY, tables};
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
fn build_tool(name: &str) -> PathBuf {
    let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC")
        .map(PathBuf::from)
        .expect("LEVELDB_BLOOM_LEVELDB_SRC: a leveldb source tree");
    let exe = claim(tmp_dir!().trial().join(name));
    run(Command::new("c++")
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", src.display()))
        .arg(format!("-I{}", src.join("include").display()))
        .arg(root().join("tools").join(format!("{name}.cc")))
        .arg("-o")
        .arg(&exe)
        .args(["-l:libleveldb.a", "-lsnappy", "-pthread"]));
    exe
}

fn committed_filterblock_vectors_regenerate_from_leveldb() {
    let generator = build_tool("gen_filterblock_vectors");
    let dir = tmp_dir!().trial();
    run(Command::new(&generator).arg(&dir));
    let committed = std::fs::read(root().join("vectors/filterblock.txt")).unwrap();
    let regenerated = std::fs::read(dir.join("filterblock.txt")).unwrap();
    assert!(
        committed == regenerated,
        "vectors/filterblock.txt differs from what leveldb generates now"
    );
}

/// A table's parts, as leveldb's table/format.cc and table/block.cc lay them out.
mod table {
    /// The magic number ending every table.
    const MAGIC: u64 = 0xdb4775248b80fb57;
    /// A block's trailer: its type byte and CRC.
    pub const BLOCK_TRAILER: u64 = 5;

    #[derive(Clone, Copy, Debug)]
    pub struct Handle {
        pub offset: u64,
        pub size: u64,
    }

    fn varint(bytes: &[u8], at: &mut usize) -> u64 {
        let mut value = 0;
        for shift in (0..64).step_by(7) {
            let byte = bytes[*at];
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return value;
            }
        }
        panic!("varint too long");
    }

    fn handle(bytes: &[u8], at: &mut usize) -> Handle {
        Handle {
            offset: varint(bytes, at),
            size: varint(bytes, at),
        }
    }

    /// The metaindex and index handles from the footer (the last 48 bytes).
    pub fn footer(table: &[u8]) -> (Handle, Handle) {
        let footer = &table[table.len() - 48..];
        let magic = u64::from_le_bytes(footer[40..].try_into().unwrap());
        assert_eq!(magic, MAGIC, "not a leveldb table");
        let mut at = 0;
        (handle(footer, &mut at), handle(footer, &mut at))
    }

    /// A block's contents, decompressed if its type byte says snappy.
    pub fn block(table: &[u8], h: Handle) -> Vec<u8> {
        let (start, end) = (h.offset as usize, (h.offset + h.size) as usize);
        match table[end] {
            0 => table[start..end].to_vec(),
            1 => snap::raw::Decoder::new()
                .decompress_vec(&table[start..end])
                .expect("snappy block"),
            kind => panic!("unknown block type {kind}"),
        }
    }

    /// A block's entries: (key, value), prefix compression undone.
    pub fn entries(block: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let n = block.len();
        let restarts = u32::from_le_bytes(block[n - 4..].try_into().unwrap()) as usize;
        let end = n - 4 - 4 * restarts;
        let (mut at, mut key, mut out) = (0, Vec::new(), Vec::new());
        while at < end {
            let shared = varint(block, &mut at) as usize;
            let non_shared = varint(block, &mut at) as usize;
            let value_len = varint(block, &mut at) as usize;
            key.truncate(shared);
            key.extend_from_slice(&block[at..at + non_shared]);
            at += non_shared;
            out.push((key.clone(), block[at..at + value_len].to_vec()));
            at += value_len;
        }
        out
    }

    pub fn decode_handle(value: &[u8]) -> Handle {
        handle(value, &mut 0)
    }
}

type DataBlocks = Vec<(table::Handle, Vec<Vec<u8>>)>;

/// Each data block's handle and user keys (its internal keys less their 8-byte sequence and
/// type, as leveldb's InternalFilterPolicy passes them), and the filter block, of one table.
fn read_table(bytes: &[u8]) -> (DataBlocks, Vec<u8>) {
    let (metaindex, index) = table::footer(bytes);
    let filter = table::entries(&table::block(bytes, metaindex))
        .into_iter()
        .find(|(key, _)| key == FILTER_META_KEY)
        .map(|(_, value)| table::block(bytes, table::decode_handle(&value)))
        .expect("the table has a bloom filter block");
    let data = table::entries(&table::block(bytes, index))
        .into_iter()
        .map(|(_, value)| {
            let handle = table::decode_handle(&value);
            let keys = table::entries(&table::block(bytes, handle))
                .into_iter()
                .map(|(key, _)| key[..key.len() - 8].to_vec())
                .collect();
            (handle, keys)
        })
        .collect();
    (data, filter)
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn real_tables_hold_the_blocks_this_library_builds() {
    let helper = build_tool("leveldb_tables");
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
            let (data_blocks, leveldb_block) = read_table(&bytes);
            // leveldb's TableBuilder: StartBlock(0), each block's keys, StartBlock at the end of
            // each block (where the next starts), Finish.
            let mut builder = FilterBlockBuilder::new(policy);
            for (handle, keys) in &data_blocks {
                builder.start_block(handle.offset).unwrap();
                for key in keys {
                    builder.add_key(key).unwrap();
                }
            }
            let last = data_blocks.last().expect("data blocks").0;
            builder
                .start_block(last.offset + last.size + table::BLOCK_TRAILER)
                .unwrap();
            let ours = builder.finish().unwrap();
            assert!(
                ours == leveldb_block,
                "{compression} {name}: filter block differs"
            );

            // Present keys at their block, absent keys at every block and past the end.
            let mut queries: Vec<(u64, Vec<u8>)> = Vec::new();
            for (i, (handle, keys)) in data_blocks.iter().enumerate() {
                for key in keys.iter().step_by(3) {
                    queries.push((handle.offset, key.clone()));
                }
                for j in 0..20u32 {
                    queries.push((handle.offset, format!("absent {i} {j}").into_bytes()));
                }
            }
            queries.push((last.offset + 1_000_000, b"past the end".to_vec()));
            let query_file = work.join("queries.txt");
            let lines: String = queries
                .iter()
                .map(|(offset, key)| format!("{offset} {}\n", hex(key)))
                .collect();
            std::fs::write(&query_file, lines).unwrap();
            let block_file = work.join("block.bin");
            std::fs::write(&block_file, &leveldb_block).unwrap();
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
            let reader = FilterBlockReader::new(policy, &leveldb_block);
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
