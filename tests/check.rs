//! `leveldb-bloom check` (cli/) on databases the system leveldb writes (tools/leveldb_db.cc),
//! the tool built as a user builds it and run as a program:
//!
//! - leveldb's own databases, snappy and uncompressed: every filter identical, no finding, exit
//!   0, whether given as a directory or as table files;
//! - a table whose filter bytes were changed after writing, its block's CRC made valid again:
//!   every key its filters now hide is found, as this library's reader (leveldb's answers, proven
//!   in tests/filter_block_leveldb.rs) says, exit 1;
//! - other writers: leveldb before 1.18's signed-char hash (named, with the keys it hides),
//!   leveldb's filters under goleveldb's name (ignored by C++ leveldb, exit 5), no filter (exit 0);
//! - damaged files: truncated, a wrong magic number, handles past the end, huge lengths, a restart
//!   array outside its block, a bad checksum, random bytes, and every byte of a small table
//!   changed in turn: a message naming the file and offset, never a crash;
//! - a database's paths: not a database, a MANIFEST that is gone, a table not listed (mentioned,
//!   not checked), a listed table missing;
//! - tables whose blocks a helper here re-compressed as Mojang's zlib and raw deflate and as zstd
//!   (type 2, told from zlib by the stream's header): every filter identical, the compression
//!   named;
//! - a database plyvel (Debian's python3-plyvel) writes, and one leveldb writes while it is
//!   checked again and again: never a finding.

mod cmake_support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, FilterBlockReader, POLICY_NAME};
use leveldb_bloom_reader::{BLOCK_TRAILER, BlockHandle, TABLE_MAGIC, block_crc};
use leveldb_bloom_test_support::c_harness::TARGET;
use leveldb_bloom_test_support::check_tool::leveldb_bloom;
use leveldb_bloom_test_support::docs::UserShell;
use leveldb_bloom_test_support::leveldb_tools::{leveldb_db, write_key_file};
use leveldb_bloom_test_support::process;
use leveldb_bloom_test_support::random::random_strings;
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tables::{FILTER_META_KEY, Table, tables, user_key};
use leveldb_bloom_test_support::vectors::to_hex;
use leveldb_bloom_test_support::{tmp_dir, trial, trials};
use serde_json::Value;

fn main() {
    trials::run(vec![
        trial!(databases_leveldb_writes_have_its_filters, Leveldb),
        trial!(changed_filters_are_found_with_the_keys_they_hide, Leveldb),
        trial!(other_writers_are_named, Leveldb),
        trial!(damaged_tables_are_reported_with_file_and_offset, Leveldb),
        trial!(database_paths_are_read_as_leveldb_reads_them, Leveldb),
        trial!(recompressed_tables_are_read, Leveldb),
        trial!(a_database_plyvel_writes_has_leveldbs_filters, Plyvel),
        trial!(a_database_being_written_is_checked_as_it_changes, Leveldb),
        trial!(docs_install_and_fpr_commands_run),
    ]);
}

/// Keys in the databases: tables at several levels with tools/leveldb_db.cc's small sizes.
const KEYS: usize = 20_000;

/// The exit codes docs/CHECK.md documents.
const CLEAN: i32 = 0;
const FALSE_NEGATIVES: i32 = 1;
const USAGE: i32 = 2;
const CORRUPTION: i32 = 3;
const IGNORED_POLICY: i32 = 5;

/// The goleveldb name of leveldb's bloom filter.
const GOLEVELDB_POLICY: &str = "leveldb.BuiltinBloomFilter";

/// A database tools/leveldb_db.cc writes with `policy` and `compression` (its arguments) of
/// [`KEYS`] random keys of 1 to 30 bytes (tails of every length), written once per program.
fn database(policy: &'static str, compression: &'static str) -> PathBuf {
    static KEY_FILE: OnceLock<PathBuf> = OnceLock::new();
    let key_file = KEY_FILE.get_or_init(|| {
        let keys = random_strings(KEYS, 1, 30, 50);
        let values = random_strings(KEYS, 0, 100, 51);
        let pairs: Vec<(&[u8], &[u8])> = keys
            .iter()
            .zip(&values)
            .map(|(k, v)| (&k[..], &v[..]))
            .collect();
        let path = claim(tmp_dir!().program().join("keys.txt"));
        write_key_file(&path, &pairs);
        path
    });
    let dir = claim(fresh(
        tmp_dir!().program().join(format!("{policy}-{compression}")),
    ));
    process::run(
        Command::new(leveldb_db(&tmp_dir!().program()))
            .arg("write")
            .arg(&dir)
            .arg(key_file)
            .args([policy, compression]),
    );
    dir
}

/// leveldb's own database with snappy, written once per program and only read.
fn leveldb_database() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| database("bloom", "snappy"))
}

/// leveldb's own database without compression, written once per program and only read.
fn uncompressed_database() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| database("bloom", "none"))
}

/// A copy of the database `db` in the trial's folder `name`, to change.
fn copy(db: &Path, name: &str) -> PathBuf {
    let dir = fresh(tmp_dir!().trial().join(name));
    for entry in std::fs::read_dir(db).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// What `leveldb-bloom check --json ARGS...` printed, and its exit code; it must have exited
/// (not crashed), printed a report of schema 1 whose exit code is its own, and nothing on stderr
/// (no progress bar where stderr is not a terminal).
fn check_json(args: &[&Path]) -> (i32, Value) {
    let mut cmd = Command::new(leveldb_bloom(&tmp_dir!()));
    cmd.args(["check", "--json"]).args(args);
    let output = process::output(&mut cmd);
    let code = output
        .status
        .code()
        .unwrap_or_else(|| panic!("{cmd:?} crashed: {}", output.status));
    assert!(output.stderr.is_empty(), "{cmd:?} wrote to stderr");
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|err| panic!("{cmd:?}: not JSON ({err})"));
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["exit_code"], code, "{cmd:?}: exit code");
    (code, report)
}

/// `leveldb-bloom check ARGS...`'s summary, exit code and errors.
fn check_summary(args: &[&Path]) -> (i32, String, String) {
    let mut cmd = Command::new(leveldb_bloom(&tmp_dir!()));
    cmd.arg("check").args(args);
    let output = process::output(&mut cmd);
    let code = output
        .status
        .code()
        .unwrap_or_else(|| panic!("{cmd:?} crashed: {}", output.status));
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (code, text(output.stdout), text(output.stderr))
}

/// The totals of the report's policy `name`.
fn policy<'a>(report: &'a Value, name: &str) -> &'a Value {
    let totals = &report["policies"][name];
    assert!(totals.is_object(), "no policy {name} in {report:#}");
    totals
}

/// The live tables of the database `db`, by path: those the check reads from its MANIFEST. A
/// database leveldb closed during a compaction also holds the compaction's unfinished output,
/// which no MANIFEST lists (and leveldb deletes when it next opens the database).
fn table_paths(db: &Path) -> Vec<PathBuf> {
    let (_, report) = check_json(&[db]);
    report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|table| PathBuf::from(table["path"].as_str().unwrap()))
        .collect()
}

/// How many table files the databases' folders hold.
fn table_files(dbs: &[&Path]) -> usize {
    dbs.iter().map(|db| tables(db).len()).sum()
}

/// How many table files the report's databases hold that their MANIFESTs do not list.
fn unlisted(report: &Value) -> usize {
    report["databases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|db| db["unlisted_tables"].as_array().unwrap().len())
        .sum()
}

fn databases_leveldb_writes_have_its_filters() {
    let dbs = [leveldb_database(), uncompressed_database()];
    let (code, report) = check_json(&dbs);
    assert_eq!(code, CLEAN, "{report:#}");
    let files: Vec<PathBuf> = dbs.iter().flat_map(|db| table_paths(db)).collect();
    assert!(files.len() >= 4, "{report:#}");
    assert_eq!(report["tables_checked"], files.len(), "{report:#}");
    assert_eq!(files.len() + unlisted(&report), table_files(&dbs));
    let totals = policy(&report, POLICY_NAME);
    assert_eq!(totals["tables"], files.len());
    assert!(totals["filters"].as_u64().unwrap() > 100, "{totals:#}");
    assert_eq!(totals["filters_identical"], totals["filters"]);
    assert_eq!(totals["tables_differing"], 0);
    assert_eq!(totals["false_negatives"], 0);
    assert_eq!(totals["bits_per_key"], serde_json::json!([10]));
    assert_eq!(totals["probes"], serde_json::json!([6]));
    // leveldb's filters of a few dozen keys each: above the theory, well under 5%.
    let rate = totals["false_positive_rate"].as_f64().unwrap();
    assert!(rate > 0.001 && rate < 0.05, "{totals:#}");
    assert_eq!(report["corruption"], serde_json::json!([]));
    let compressions: Vec<&Value> = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["compression"].as_array().unwrap())
        .collect();
    for kind in ["snappy", "none"] {
        assert!(compressions.iter().any(|c| *c == kind), "no {kind} block");
    }

    // The same tables named one by one, and the summary a person reads.
    let file_args: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let (code, report) = check_json(&file_args);
    assert_eq!(
        (code, &report["tables_checked"]),
        (CLEAN, &files.len().into())
    );
    let (code, summary, errors) = check_summary(&dbs);
    assert_eq!(code, CLEAN);
    assert!(errors.is_empty(), "{errors}");
    assert!(
        summary.ends_with("result: no filter differs from the one leveldb builds (exit 0)\n"),
        "{summary}"
    );
}

/// The keys of `table` (user keys) its filter block `block` hides, by leveldb's answers, with
/// their data blocks' offsets.
fn hidden_keys(table: &Table, block: &[u8]) -> Vec<(u64, Vec<u8>)> {
    let reader = FilterBlockReader::new(BloomPolicy::new(10), block);
    let mut hidden = Vec::new();
    for data in &table.data_blocks {
        for key in &data.keys {
            if !reader.key_may_match(data.offset, user_key(key)) {
                hidden.push((data.offset, user_key(key).to_vec()));
            }
        }
    }
    hidden
}

/// The hidden keys the report lists for the table `path`, and how many it counts.
fn reported_hidden(report: &Value, path: &Path) -> (u64, Vec<(u64, Vec<u8>)>) {
    let table = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["path"] == path.display().to_string())
        .unwrap_or_else(|| panic!("no table {} in the report", path.display()));
    let filter = &table["filter"];
    let listed = filter["hidden_keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            let hex = h["key_hex"].as_str().unwrap();
            let key = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (h["block_offset"].as_u64().unwrap(), key)
        })
        .collect();
    (filter["false_negatives"].as_u64().unwrap(), listed)
}

/// Writes `block` over the filter block of the table file `path`, read as `table`, with its
/// trailer's CRC made valid again: the change only the check can see.
fn replace_filter_block(path: &Path, table: &Table, block: &[u8]) {
    let mut file = std::fs::read(path).unwrap();
    let (offset, size) = (
        table.filter_handle.offset as usize,
        table.filter_handle.size as usize,
    );
    assert_eq!(block.len(), size);
    file[offset..offset + size].copy_from_slice(block);
    let kind = file[offset + size];
    let crc = block_crc(block, kind);
    file[offset + size + 1..offset + size + BLOCK_TRAILER as usize]
        .copy_from_slice(&crc.to_le_bytes());
    std::fs::write(path, file).unwrap();
}

fn changed_filters_are_found_with_the_keys_they_hide() {
    let db = copy(leveldb_database(), "changed");
    let path = table_paths(&db)
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let table = Table::read(&std::fs::read(&path).unwrap());
    // Filter 2's bits all cleared (its probe count kept): every key of its blocks is hidden.
    // Filter 5's first bytes inverted: some of its keys are.
    let stored = &table.filter_block;
    let fixed32 = |at: usize| u32::from_le_bytes(stored[at..at + 4].try_into().unwrap()) as usize;
    let array = fixed32(stored.len() - 5);
    let offset = |i: usize| fixed32(array + 4 * i);
    let mut block = stored.clone();
    let (start, limit) = (offset(2), offset(3));
    block[start..limit - 1].fill(0);
    let (start, limit) = (offset(5), offset(6));
    for byte in &mut block[start..(start + 8).min(limit - 1)] {
        *byte = !*byte;
    }
    replace_filter_block(&path, &table, &block);
    let expected = hidden_keys(&table, &block);
    assert!(expected.len() > 10, "{} keys hidden", expected.len());

    let (code, report) = check_json(&[&db]);
    assert_eq!(code, FALSE_NEGATIVES, "{report:#}");
    let (count, listed) = reported_hidden(&report, &path);
    assert_eq!(count, expected.len() as u64);
    assert_eq!(listed, expected[..expected.len().min(100)]);
    assert_eq!(report["false_negatives"], expected.len());
    let totals = policy(&report, POLICY_NAME);
    assert_eq!(totals["tables_differing"], 1);
    assert_eq!(
        totals["filters_differing"].as_u64().unwrap(),
        2,
        "{totals:#}"
    );
    assert_eq!(report["corruption"], serde_json::json!([]));
    // The summary names the table, a block and a key.
    let (code, summary, _) = check_summary(&[&db]);
    assert_eq!(code, FALSE_NEGATIVES);
    let (block_offset, key) = &expected[0];
    let line = format!(
        "{}: data block at {block_offset}: key {}",
        path.display(),
        to_hex(&key[..key.len().min(24)])
    );
    assert!(summary.contains(&line), "no line {line:?} in:\n{summary}");
}

fn other_writers_are_named() {
    // leveldb before 1.18: its filters differ, and hide the keys whose tails it hashed signed.
    let signed = database("signed-char", "snappy");
    let (code, report) = check_json(&[&signed]);
    assert_eq!(code, FALSE_NEGATIVES, "{report:#}");
    let totals = policy(&report, POLICY_NAME);
    let writers = totals["writers"].as_array().unwrap();
    assert!(
        writers.len() == 1 && writers[0].as_str().unwrap().contains("before 1.18"),
        "{totals:#}"
    );
    let mut expected_total = 0;
    for path in table_paths(&signed) {
        let table = Table::read(&std::fs::read(&path).unwrap());
        let expected = hidden_keys(&table, &table.filter_block);
        let (count, listed) = reported_hidden(&report, &path);
        assert_eq!(count, expected.len() as u64, "{}", path.display());
        assert_eq!(listed, expected[..expected.len().min(100)]);
        expected_total += expected.len();
    }
    assert!(expected_total > 1000, "{expected_total} keys hidden");

    // goleveldb's name: the same bits, which C++ leveldb ignores.
    let (code, report) = check_json(&[&database("goleveldb-name", "snappy")]);
    assert_eq!(code, IGNORED_POLICY, "{report:#}");
    let totals = policy(&report, GOLEVELDB_POLICY);
    assert_eq!(totals["filters_identical"], totals["filters"]);
    assert_eq!(totals["ignored_by_leveldb"], true);
    assert!(report["policies"].get(POLICY_NAME).is_none());

    // No filter: reported, not a finding.
    let none = database("none", "snappy");
    let (code, report) = check_json(&[&none]);
    assert_eq!(code, CLEAN, "{report:#}");
    assert_eq!(report["tables_without_filter"], report["tables_checked"]);
    assert_eq!(report["policies"], serde_json::json!({}));
}

/// `file` changed by `change`, written as the trial's `name`.ldb.
fn damaged(file: &[u8], name: &str, change: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = file.to_vec();
    change(&mut bytes);
    let path = tmp_dir!().trial().join(format!("{name}.ldb"));
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A varint64's bytes, as leveldb encodes a block handle's parts.
fn varint(mut value: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
    out
}

/// `file`'s footer with the index handle `offset`, `size` (the metaindex handle kept).
fn with_index_handle(file: &mut [u8], offset: u64, size: u64) {
    let footer = file.len() - 48;
    let table = leveldb_bloom_reader::Table::open(file).unwrap();
    let mut handles = [varint(table.metaindex.offset), varint(table.metaindex.size)].concat();
    handles.extend(varint(offset));
    handles.extend(varint(size));
    file[footer..footer + 40].fill(0);
    file[footer..footer + handles.len()].copy_from_slice(&handles);
}

/// Rewrites the block at `handle` of `file` with `change` applied to its stored bytes, its CRC
/// made valid again.
fn change_block(file: &mut [u8], offset: u64, size: u64, change: impl FnOnce(&mut [u8])) {
    let (start, end) = (offset as usize, (offset + size) as usize);
    change(&mut file[start..end]);
    let crc = block_crc(&file[start..end], file[end]);
    file[end + 1..end + 5].copy_from_slice(&crc.to_le_bytes());
}

/// A data block of about `len` bytes whose entries share long prefixes: a key of half of it,
/// then entries that each repeat it whole (shared, no bytes of their own, no value), about
/// `len`²/16 bytes of keys.
fn shared_prefix_block(len: usize) -> Vec<u8> {
    let half = varint(len as u64 / 2);
    let mut block = [&[0][..], &half, &[0]].concat();
    block.resize(block.len() + len / 2, b'k');
    let repeat = [&half[..], &[0, 0]].concat();
    while block.len() + repeat.len() <= len - 8 {
        block.extend_from_slice(&repeat);
    }
    // One restart point, at 0.
    block.extend([0, 0, 0, 0, 1, 0, 0, 0]);
    block
}

/// A table of the one data block `contents`, stored uncompressed, and no filter.
fn one_block_table(contents: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let data = write_block(&mut out, contents, 0);
    let metaindex = write_block(&mut out, &block_of(&[]), 0);
    let index = write_block(&mut out, &block_of(&[(b"k".to_vec(), encoded(data))]), 0);
    write_footer(&mut out, metaindex, index);
    out
}

fn damaged_tables_are_reported_with_file_and_offset() {
    let path = table_paths(uncompressed_database())
        .into_iter()
        .min_by_key(|p| std::fs::metadata(p).unwrap().len())
        .unwrap();
    let file = std::fs::read(&path).unwrap();
    let len = file.len() as u64;
    let reader = leveldb_bloom_reader::Table::open(&file).unwrap();
    let index = reader.index;
    let table = Table::read(&file);
    let first_data = table.data_blocks[0].offset;
    // Each damage, with the offset and words its message must have.
    let cases: Vec<(PathBuf, u64, &str)> = vec![
        (
            damaged(&file, "empty", Vec::clear),
            0,
            "shorter than a table's 48-byte footer",
        ),
        (
            damaged(&file, "truncated", |f| f.truncate(f.len() / 2)),
            len / 2 - 8,
            "magic number",
        ),
        (
            damaged(&file, "bad-magic", |f| *f.last_mut().unwrap() ^= 1),
            len - 8,
            "magic number",
        ),
        (
            damaged(&file, "index-past-the-end", |f| {
                with_index_handle(f, len, 100)
            }),
            len,
            "runs past the end of the file",
        ),
        (
            damaged(&file, "huge-index-length", |f| {
                with_index_handle(f, index.offset, u64::MAX - 3)
            }),
            index.offset,
            "runs past the end of the file",
        ),
        (
            damaged(&file, "restarts-outside", |f| {
                change_block(f, index.offset, index.size, |b| {
                    let n = b.len();
                    b[n - 8..n - 4].copy_from_slice(&u32::MAX.to_le_bytes());
                })
            }),
            index.offset,
            "points outside the entries",
        ),
        (
            damaged(&file, "huge-restart-count", |f| {
                change_block(f, index.offset, index.size, |b| {
                    let n = b.len();
                    b[n - 4..].copy_from_slice(&0x4000_0000u32.to_le_bytes());
                })
            }),
            index.offset,
            "restart points do not fit",
        ),
        (
            damaged(&file, "shared-prefixes", |f| {
                *f = one_block_table(&shared_prefix_block(8192))
            }),
            0,
            "its keys take more than 64 bytes for each of its bytes",
        ),
        (
            damaged(&file, "bad-checksum", |f| {
                f[first_data as usize + 3] ^= 0x40
            }),
            first_data,
            "checksum does not match",
        ),
    ];
    for (damaged, offset, words) in &cases {
        let (code, report) = check_json(&[damaged]);
        assert_eq!(code, CORRUPTION, "{}: {report:#}", damaged.display());
        let expected = format!("{}: at offset {offset}: ", damaged.display());
        let corruption = report["corruption"].as_array().unwrap();
        assert!(
            corruption.iter().any(|message| {
                let message = message.as_str().unwrap();
                message.starts_with(&expected) && message.contains(words)
            }),
            "no message {expected}...{words}... in {corruption:#?}"
        );
    }

    // Random bytes ending in the magic number, and every byte of the table changed in turn (a
    // step apart) or cut there: never a crash, whatever the message.
    let mut noise = random_strings(1, 20_000, 20_000, 7).remove(0);
    noise.extend_from_slice(&file[file.len() - 8..]);
    let noise_path = tmp_dir!().trial().join("noise.ldb");
    std::fs::write(&noise_path, noise).unwrap();
    let mut paths = vec![noise_path];
    for at in (0..file.len()).step_by(file.len() / 150 + 1) {
        paths.push(damaged(&file, &format!("byte-{at}"), |f| {
            f[at] = f[at].wrapping_add(0x55)
        }));
        paths.push(damaged(&file, &format!("cut-{at}"), |f| f.truncate(at)));
    }
    let args: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let (code, report) = check_json(&args);
    assert!(code != USAGE, "{report:#}");
    assert_eq!(report["tables_checked"], paths.len());
}

fn database_paths_are_read_as_leveldb_reads_them() {
    // Not a database, nothing there, a MANIFEST that is gone: a bad argument, with a message.
    let not_db = fresh(tmp_dir!().trial().join("not-a-database"));
    let (code, _, errors) = check_summary(&[&not_db]);
    assert_eq!(code, USAGE);
    assert!(
        errors.contains("not a leveldb database (it has no CURRENT file)"),
        "{errors}"
    );
    let (code, _, errors) = check_summary(&[&not_db.join("nothing")]);
    assert_eq!(code, USAGE);
    assert!(errors.contains("nothing"), "{errors}");
    let db = copy(leveldb_database(), "no-manifest");
    let current = std::fs::read_to_string(db.join("CURRENT")).unwrap();
    std::fs::remove_file(db.join(current.trim())).unwrap();
    let (code, _, errors) = check_summary(&[&db]);
    assert_eq!(code, USAGE);
    assert!(errors.contains(current.trim()), "{errors}");

    // A table file the MANIFEST does not list (one being written): mentioned, not checked; a
    // listed table missing: corruption.
    let db = copy(leveldb_database(), "unlisted");
    let live = table_paths(&db);
    std::fs::copy(&live[0], db.join("999999.ldb")).unwrap();
    let (code, report) = check_json(&[&db]);
    assert_eq!(code, CLEAN, "{report:#}");
    let unlisted_tables = report["databases"][0]["unlisted_tables"]
        .as_array()
        .unwrap();
    assert!(unlisted_tables.contains(&"999999.ldb".into()), "{report:#}");
    assert_eq!(report["tables_checked"], live.len());
    std::fs::remove_file(&live[0]).unwrap();
    let (code, report) = check_json(&[&db]);
    assert_eq!(code, CORRUPTION, "{report:#}");
    let missing = format!(
        "{}: listed in the MANIFEST but not on disk",
        live[0].display()
    );
    assert_eq!(report["corruption"], serde_json::json!([missing]));

    // A MANIFEST whose last record is cut short (an edit being written, its header claiming
    // 100 bytes where 10 are there yet): the edits before it.
    let db = copy(leveldb_database(), "manifest-cut");
    let live = table_paths(&db);
    let manifest = db.join(current.trim());
    let mut bytes = std::fs::read(&manifest).unwrap();
    bytes.extend_from_slice(&[0, 0, 0, 0, 100, 0, 1]);
    bytes.extend_from_slice(&[7; 10]);
    std::fs::write(&manifest, bytes).unwrap();
    let (code, report) = check_json(&[&db]);
    assert_eq!(code, CLEAN, "{report:#}");
    assert_eq!(report["tables_checked"], live.len());
}

/// `stored` appended to `file` as a block of compression type `kind`, with its trailer; its
/// handle.
fn write_block(file: &mut Vec<u8>, stored: &[u8], kind: u8) -> BlockHandle {
    let handle = BlockHandle {
        offset: file.len() as u64,
        size: stored.len() as u64,
    };
    file.extend_from_slice(stored);
    file.push(kind);
    file.extend(block_crc(stored, kind).to_le_bytes());
    handle
}

/// A block handle's encoding.
fn encoded(handle: BlockHandle) -> Vec<u8> {
    [varint(handle.offset), varint(handle.size)].concat()
}

/// The contents of a block of `entries`, each a restart point (no prefix shared), as leveldb's
/// BlockBuilder lays them out.
fn block_of(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut block = Vec::new();
    let mut restarts = Vec::new();
    for (key, value) in entries {
        restarts.push(block.len() as u32);
        block.extend(varint(0));
        block.extend(varint(key.len() as u64));
        block.extend(varint(value.len() as u64));
        block.extend_from_slice(key);
        block.extend_from_slice(value);
    }
    for restart in &restarts {
        block.extend(restart.to_le_bytes());
    }
    block.extend((restarts.len() as u32).to_le_bytes());
    block
}

/// The table `file` written again with its data blocks compressed by `compress` under type
/// `kind`: the data blocks at their new offsets, the filter block leveldb's policy builds for them
/// (this library's, which the other tests prove leveldb's), the metaindex, the index (each data
/// block's last key as its separator) and the footer.
fn recompressed(file: &[u8], kind: u8, compress: fn(&[u8]) -> Vec<u8>) -> Vec<u8> {
    let reader = leveldb_bloom_reader::Table::open(file).unwrap();
    let table = Table::read(file);
    let index = reader.block(reader.index, "index block").unwrap();
    let mut handles = Vec::new();
    index
        .entries(|_, value| handles.push(BlockHandle::from_value(value, "index").unwrap()))
        .unwrap();
    let mut out = Vec::new();
    let mut index_entries = Vec::new();
    let mut filters = FilterBlockBuilder::new(BloomPolicy::new(10));
    for (&handle, data) in handles.iter().zip(&table.data_blocks) {
        let contents = reader.block(handle, "data block").unwrap().contents;
        filters.start_block(out.len() as u64).unwrap();
        for key in &data.keys {
            filters.add_key(user_key(key)).unwrap();
        }
        let new = write_block(&mut out, &compress(&contents), kind);
        index_entries.push((data.keys.last().unwrap().clone(), encoded(new)));
    }
    filters.start_block(out.len() as u64).unwrap();
    let filter = write_block(&mut out, &filters.finish().unwrap(), 0);
    let meta = block_of(&[(FILTER_META_KEY.to_vec(), encoded(filter))]);
    let metaindex = write_block(&mut out, &meta, 0);
    let index = write_block(&mut out, &block_of(&index_entries), 0);
    write_footer(&mut out, metaindex, index);
    out
}

/// Appends a table's footer: the metaindex and index handles, padded, and the magic number.
fn write_footer(out: &mut Vec<u8>, metaindex: BlockHandle, index: BlockHandle) {
    let mut footer = [encoded(metaindex), encoded(index)].concat();
    footer.resize(40, 0);
    out.extend(footer);
    out.extend(TABLE_MAGIC.to_le_bytes());
}

fn recompressed_tables_are_read() {
    use std::io::Write;
    fn zlib(bytes: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }
    fn raw_deflate(bytes: &[u8]) -> Vec<u8> {
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }
    fn zstd(bytes: &[u8]) -> Vec<u8> {
        ruzstd::encoding::compress_to_vec(bytes, ruzstd::encoding::CompressionLevel::Fastest)
    }
    type Kind = (&'static str, u8, fn(&[u8]) -> Vec<u8>, &'static str);
    let kinds: [Kind; 3] = [
        ("zlib", 2, zlib, "zlib (type 2, Mojang's)"),
        (
            "raw-deflate",
            4,
            raw_deflate,
            "raw deflate (type 4, Mojang's)",
        ),
        ("zstd", 2, zstd, "zstd (type 2)"),
    ];
    for (name, kind, compress, reported) in kinds {
        let db = copy(uncompressed_database(), name);
        for path in table_paths(&db) {
            let file = std::fs::read(&path).unwrap();
            std::fs::write(&path, recompressed(&file, kind, compress)).unwrap();
        }
        let (code, report) = check_json(&[&db]);
        assert_eq!(code, CLEAN, "{name}: {report:#}");
        let totals = policy(&report, POLICY_NAME);
        assert_eq!(totals["filters_identical"], totals["filters"], "{name}");
        for table in report["tables"].as_array().unwrap() {
            assert_eq!(
                table["compression"],
                serde_json::json!(["none", reported]),
                "{name}"
            );
        }
    }
    // Type 2 with neither header: corruption, named.
    let path = table_paths(uncompressed_database())[0].clone();
    let garbage = recompressed(&std::fs::read(&path).unwrap(), 2, |bytes| bytes.to_vec());
    let garbage_path = tmp_dir!().trial().join("type-2-garbage.ldb");
    std::fs::write(&garbage_path, garbage).unwrap();
    let (code, report) = check_json(&[&garbage_path]);
    assert_eq!(code, CORRUPTION, "{report:#}");
    let first = report["corruption"][0].as_str().unwrap();
    assert!(
        first.contains("neither a zstd nor a zlib header"),
        "{first}"
    );
}

fn a_database_plyvel_writes_has_leveldbs_filters() {
    let db = fresh(tmp_dir!().trial().join("plyvel"));
    let script = "import sys, plyvel\n\
        db = plyvel.DB(sys.argv[1], create_if_missing=True, bloom_filter_bits=10,\n\
                       block_size=1024, write_buffer_size=65536)\n\
        [db.put(b'key %d' % (i * 7919 % 20000), b'value %d' % i) for i in range(20000)]\n\
        db.compact_range()\n\
        db.close()\n";
    process::run(
        Command::new("/usr/bin/python3")
            .args(["-c", script])
            .arg(&db),
    );
    let (code, report) = check_json(&[&db]);
    assert_eq!(code, CLEAN, "{report:#}");
    let totals = policy(&report, POLICY_NAME);
    assert_eq!(totals["filters_identical"], totals["filters"]);
    assert!(
        report["tables_checked"].as_u64().unwrap() >= 1,
        "{report:#}"
    );
}

fn a_database_being_written_is_checked_as_it_changes() {
    // leveldb writes 200,000 keys, compacting as it goes; the check runs again and again
    // meanwhile: each run finds nothing (tables a compaction removes are gone, not errors;
    // tables not yet in the MANIFEST are not checked).
    let keys = random_strings(200_000, 8, 24, 60);
    let pairs: Vec<(&[u8], &[u8])> = keys.iter().map(|k| (&k[..], &k[..])).collect();
    let key_file = tmp_dir!().trial().join("keys.txt");
    write_key_file(&key_file, &pairs);
    let db = fresh(tmp_dir!().trial().join("busy"));
    let mut writer = Command::new(leveldb_db(&tmp_dir!().program()))
        .arg("write")
        .arg(&db)
        .arg(&key_file)
        .spawn()
        .expect("leveldb_db starts");
    let mut runs = 0;
    while writer.try_wait().unwrap().is_none() {
        if db.join("CURRENT").exists() {
            let (code, report) = check_json(&[&db]);
            assert_eq!(code, CLEAN, "run {runs}: {report:#}");
            runs += 1;
        }
    }
    assert!(writer.wait().unwrap().success());
    let (code, report) = check_json(&[&db]);
    assert_eq!(code, CLEAN, "{report:#}");
    let checked = report["tables_checked"].as_u64().unwrap() as usize;
    assert_eq!(checked + unlisted(&report), table_files(&[&db]));
    assert!(runs > 0, "the check never ran while leveldb wrote");
}

/// docs/CHECK.md's install and fpr commands as a user pastes them: `cargo install` puts the tool
/// in the user's own cargo folder (here, in the user's home), on PATH first; the rate table has a
/// row for each of the 20 settings.
fn docs_install_and_fpr_commands_run() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("docs")));
    let cargo_root = shell.home.join(".cargo");
    let path = std::iter::once(cargo_root.join("bin"))
        .chain(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ))
        .collect::<Vec<_>>();
    // cargo's release build in the folder the tests' CMake builds share, for the target they
    // name: tests/cmake.rs builds the tool there too (-DLEVELDB_BLOOM_TOOL=ON), once for both.
    let shell = shell
        .env("CARGO_INSTALL_ROOT", &cargo_root)
        .env("PATH", std::env::join_paths(path).expect("PATH"))
        .env("CARGO_TARGET_DIR", cmake_support::cargo_target_dir())
        .env("CARGO_BUILD_TARGET", TARGET);
    shell.run("check-install");
    assert!(cargo_root.join("bin/leveldb-bloom").is_file());
    let table = shell.run("check-fpr");
    let rows: Vec<&str> = table.lines().skip(1).collect();
    assert!(table.starts_with("bits/key  probes"), "{table}");
    assert_eq!(rows.len(), 20, "{table}");
    assert!(rows[9].starts_with("10        6       10000"), "{table}");
}
