//! rusty-leveldb (crates.io `rusty-leveldb`) with this library's `BloomPolicy` as its filter
//! policy (cargo feature `rusty-leveldb`), against C++ leveldb on real databases, both ways, and
//! rusty-leveldb's own `BloomPolicy` against leveldb's answers:
//!
//! - A database rusty-leveldb writes with this policy (tables at several levels, snappy) is read
//!   by C++ leveldb (the system libleveldb, through tools/leveldb_db.cc) with its own
//!   `NewBloomFilterPolicy(10)`: every key is found with its value, no absent key is. The
//!   control: written with a policy whose filters rule out every key, C++ leveldb loses them, so
//!   it does read the filters rusty-leveldb writes.
//! - Each of that database's tables holds the filter block this library's `FilterBlockBuilder`
//!   builds from the table's keys and data-block offsets (read with test-support's tables.rs).
//! - A database C++ leveldb writes is read by rusty-leveldb with this policy: every key found,
//!   and the filters, counted through a wrapper, rule out absent keys. The control: with a policy
//!   that rules out every key, rusty-leveldb loses them.
//! - On every filter and probe of vectors/ (from leveldb 1.23): this policy, through
//!   rusty-leveldb's trait, builds leveldb's filters and gives leveldb's answers; rusty-leveldb's
//!   own policy builds the same filters but answers otherwise on every filter shorter than 2
//!   bytes, and only there.
//! - Key offsets out of order or past the keys (rusty-leveldb passes none) panic: rusty-leveldb's
//!   trait has no error to return them as.
//! - `leveldb-bloom check` (cli/) on rusty-leveldb's databases: with this policy and with
//!   rusty-leveldb's own, every filter is leveldb's; with filters that rule out every key, every
//!   key is found hidden.
//!
//! Run with: cargo test --features rusty-leveldb --test rusty_leveldb.

use std::cell::Cell;
use std::panic::catch_unwind;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;
use std::sync::OnceLock;

use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, POLICY_NAME};
use leveldb_bloom_test_support::check_tool::leveldb_bloom;
use leveldb_bloom_test_support::leveldb_tools::{self, write_key_file};
use leveldb_bloom_test_support::process;
use leveldb_bloom_test_support::random::random_strings;
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tables::{FilterCall, Table, tables, user_key};
use leveldb_bloom_test_support::vectors::for_each_record;
use leveldb_bloom_test_support::{capture, tmp_dir, trial, trials};
use rusty_leveldb::compressor::SnappyCompressor;
use rusty_leveldb::{CompressorId, DB, FilterPolicy, Options};

fn main() {
    trials::run(vec![
        trial!(cxx_leveldb_reads_a_database_rusty_leveldb_writes, Leveldb),
        trial!(rusty_leveldb_tables_hold_the_filter_blocks_this_library_builds),
        trial!(rusty_leveldb_reads_a_database_cxx_leveldb_writes, Leveldb),
        trial!(rusty_leveldbs_own_policy_differs_from_leveldb_on_filters_under_2_bytes),
        trial!(offsets_out_of_order_or_past_the_keys_panic),
        trial!(leveldb_bloom_check_reads_rusty_leveldbs_databases),
    ]);
}

/// Keys in the databases: enough for tables at several levels with the small sizes below.
const KEYS: usize = 24_000;

/// An empty folder `name` in the running trial's folder, for a database.
fn db_dir(name: &str) -> PathBuf {
    fresh(tmp_dir!().trial().join(name))
}

/// The databases' keys (16 to 24 random bytes) and values (0 to 100).
fn pairs() -> &'static [(Vec<u8>, Vec<u8>)] {
    static PAIRS: OnceLock<Vec<(Vec<u8>, Vec<u8>)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let keys = random_strings(KEYS, 16, 24, 1);
        keys.into_iter()
            .zip(random_strings(KEYS, 0, 100, 2))
            .collect()
    })
}

/// Keys in no database: random, of the same lengths.
fn absent_keys() -> Vec<Vec<u8>> {
    random_strings(KEYS / 4, 16, 24, 3)
}

/// A policy under leveldb's bloom name that rules out every key: its filters are 64 zero bits
/// (and k = 6), which leveldb's bloom filter reads as "no key", and it answers "no" to any filter.
struct RulesOutEverything;

impl FilterPolicy for RulesOutEverything {
    fn name(&self) -> &'static str {
        POLICY_NAME
    }

    fn create_filter(&self, _: &[u8], _: &[usize]) -> Vec<u8> {
        vec![0, 0, 0, 0, 0, 0, 0, 0, 6]
    }

    fn key_may_match(&self, _: &[u8], _: &[u8]) -> bool {
        false
    }
}

/// This library's policy, counting rusty-leveldb's queries and the keys they rule out.
struct Counting {
    queries: Rc<Cell<usize>>,
    ruled_out: Rc<Cell<usize>>,
}

impl FilterPolicy for Counting {
    fn name(&self) -> &'static str {
        FilterPolicy::name(&BloomPolicy::new(10))
    }

    fn create_filter(&self, keys: &[u8], key_offsets: &[usize]) -> Vec<u8> {
        FilterPolicy::create_filter(&BloomPolicy::new(10), keys, key_offsets)
    }

    fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        let answer = FilterPolicy::key_may_match(&BloomPolicy::new(10), key, filter);
        self.queries.set(self.queries.get() + 1);
        self.ruled_out
            .set(self.ruled_out.get() + usize::from(!answer));
        answer
    }
}

/// rusty-leveldb's options with `policy`, and small blocks, write buffers and tables, as
/// tools/leveldb_db.cc sets leveldb's: many of each, at several levels.
fn options(policy: impl FilterPolicy + 'static) -> Options {
    Options {
        filter_policy: Rc::new(Box::new(policy)),
        block_size: 1024,
        write_buffer_size: 64 * 1024,
        max_file_size: 64 * 1024,
        ..Options::default()
    }
}

/// Writes [`pairs`] into a new database in `dir` with rusty-leveldb, as tools/leveldb_db.cc
/// writes with leveldb: the first half compacted down, the second flushed to tables on top.
fn rusty_write(dir: &Path, policy: impl FilterPolicy + 'static) {
    let mut options = options(policy);
    options.compressor = SnappyCompressor::ID;
    let mut db = DB::open(dir, options).expect("rusty-leveldb opens a new database");
    for (i, (key, value)) in pairs().iter().enumerate() {
        db.put(key, value).unwrap();
        if i + 1 == pairs().len() / 2 {
            db.compact_range(&[], &[0xff; 25]).unwrap();
        }
    }
    // The memtable into a table (a range that holds no key compacts nothing else).
    db.compact_range(&[], &[]).unwrap();
    db.close().unwrap();
}

/// The database rusty-leveldb writes with this library's policy, written once for the tests
/// that read it.
fn rusty_database() -> &'static Path {
    static DB: OnceLock<PathBuf> = OnceLock::new();
    DB.get_or_init(|| {
        let dir = claim(fresh(tmp_dir!().program().join("written-by-rusty-leveldb")));
        rusty_write(&dir, BloomPolicy::new(10));
        dir
    })
}

/// A copy of the database in `db`, for a reader that may change it (by compacting).
fn copy(db: &Path, name: &str) -> PathBuf {
    let dir = db_dir(name);
    for entry in std::fs::read_dir(db).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// tools/leveldb_db.cc, built against the system leveldb once.
fn leveldb_db() -> &'static Path {
    leveldb_tools::leveldb_db(&tmp_dir!().program())
}

/// Writes the pairs `HEX_KEY HEX_VALUE` that tools/leveldb_db.cc reads, in the trial's folder.
fn key_file(name: &str, pairs: &[(&[u8], &[u8])]) -> PathBuf {
    let path = tmp_dir!().trial().join(name);
    write_key_file(&path, pairs);
    path
}

/// What C++ leveldb found of [`pairs`] in `db`, then of [`absent_keys`] (1 found with its value,
/// 0 not found), and the number of table files at each level as it opened the database.
fn cxx_read(db: &Path) -> (String, String, Vec<usize>) {
    let absent = absent_keys();
    let mut queries: Vec<(&[u8], &[u8])> = pairs().iter().map(|(k, v)| (&k[..], &v[..])).collect();
    queries.extend(absent.iter().map(|key| (&key[..], &[][..])));
    let name = db.file_name().expect("a database folder").to_string_lossy();
    let file = key_file(&format!("{name}.keys"), &queries);
    // Its answers are tens of thousands of characters: kept out of the test's output.
    let mut read = Command::new(leveldb_db());
    read.arg("read").arg(db).arg(file);
    let output = read.output().expect("leveldb_db starts");
    process::check(&read, &output);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let mut lines = stdout.lines();
    let levels = lines
        .next()
        .unwrap()
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    let answers = lines.next().unwrap();
    let (present, absent) = answers.split_at(pairs().len());
    (present.to_owned(), absent.to_owned(), levels)
}

fn cxx_leveldb_reads_a_database_rusty_leveldb_writes() {
    let db = copy(rusty_database(), "rusty-read-by-cxx");
    let (present, absent, levels) = cxx_read(&db);
    let found = present.bytes().filter(|&a| a == b'1').count();
    assert_eq!(found, pairs().len(), "C++ leveldb found {found} keys");
    assert!(absent.bytes().all(|a| a == b'0'), "C++ found absent keys");
    let at_levels = levels.iter().filter(|&&n| n > 0).count();
    let files: usize = levels.iter().sum();
    assert!(
        at_levels >= 2 && files >= 10,
        "tables at each level: {levels:?}"
    );
    capture::print(&format!("tables at each level: {levels:?}\n"));

    // The control: filters that rule out every key lose them, so the filters are read.
    let broken = db_dir("rusty-rules-out-everything");
    rusty_write(&broken, RulesOutEverything);
    let (present, _, _) = cxx_read(&broken);
    let lost = present.bytes().filter(|&a| a == b'0').count();
    assert!(
        lost > pairs().len() / 2,
        "C++ leveldb lost only {lost} keys to filters that rule out every key"
    );
    capture::print(&format!("control: C++ leveldb lost {lost} keys\n"));
}

fn rusty_leveldb_tables_hold_the_filter_blocks_this_library_builds() {
    let files = tables(rusty_database());
    assert!(files.len() >= 10, "{} tables", files.len());
    for (name, bytes) in &files {
        let table = Table::read(bytes);
        let mut builder = FilterBlockBuilder::new(BloomPolicy::new(10));
        for call in table.filter_calls() {
            match call {
                FilterCall::StartBlock(offset) => builder.start_block(offset),
                FilterCall::AddKey(key) => builder.add_key(user_key(key)),
            }
            .unwrap();
        }
        assert!(
            builder.finish().unwrap() == table.filter_block,
            "{name}: filter block differs"
        );
    }
    capture::print(&format!("{} tables checked\n", files.len()));
}

/// Reads the database C++ leveldb wrote in `db` with rusty-leveldb and `policy`: how many of
/// [`pairs`] it found with their values, and how many of [`absent_keys`] it found.
fn rusty_read(db: &Path, policy: impl FilterPolicy + 'static) -> (usize, usize) {
    let mut db = DB::open(db, options(policy)).expect("rusty-leveldb opens the database");
    let found = pairs()
        .iter()
        .filter(|(key, value)| db.get(key).as_deref() == Some(&value[..]))
        .count();
    let absent_found = absent_keys()
        .iter()
        .filter(|key| db.get(key).is_some())
        .count();
    (found, absent_found)
}

fn rusty_leveldb_reads_a_database_cxx_leveldb_writes() {
    let pairs: Vec<(&[u8], &[u8])> = pairs().iter().map(|(k, v)| (&k[..], &v[..])).collect();
    let written = db_dir("written-by-cxx");
    let keys = key_file("written-by-cxx.keys", &pairs);
    process::run(
        Command::new(leveldb_db())
            .arg("write")
            .arg(&written)
            .arg(keys),
    );

    let (queries, ruled_out) = (Rc::new(Cell::new(0)), Rc::new(Cell::new(0)));
    let counting = Counting {
        queries: queries.clone(),
        ruled_out: ruled_out.clone(),
    };
    let (found, absent_found) = rusty_read(&copy(&written, "cxx-read-by-rusty"), counting);
    assert_eq!(found, pairs.len(), "rusty-leveldb found {found} keys");
    assert_eq!(absent_found, 0, "rusty-leveldb found absent keys");
    // Every present key is read from a table whose filter is asked first; most absent keys are
    // ruled out by a filter (those past a table's last key are ruled out by its index).
    let absent = absent_keys().len();
    assert!(
        queries.get() >= pairs.len() && ruled_out.get() >= absent / 2,
        "{} filter queries, {} keys ruled out",
        queries.get(),
        ruled_out.get()
    );
    capture::print(&format!(
        "{} filter queries, {} ruled out, for {} present and {absent} absent keys\n",
        queries.get(),
        ruled_out.get(),
        pairs.len()
    ));

    // The control: a policy that rules out every key loses them.
    let (found, _) = rusty_read(&copy(&written, "cxx-read-rules-out"), RulesOutEverything);
    assert!(
        found < pairs.len() / 2,
        "rusty-leveldb found {found} keys through filters that rule out every key"
    );
}

/// rusty-leveldb's keys end to end, with where each starts, as its filter block builder holds
/// them.
fn end_to_end(keys: &[Vec<u8>]) -> (Vec<u8>, Vec<usize>) {
    let mut offsets = Vec::with_capacity(keys.len());
    let mut bytes = Vec::new();
    for key in keys {
        offsets.push(bytes.len());
        bytes.extend_from_slice(key);
    }
    (bytes, offsets)
}

fn rusty_leveldbs_own_policy_differs_from_leveldb_on_filters_under_2_bytes() {
    let ours: Box<dyn FilterPolicy> = Box::new(BloomPolicy::new(10));
    let theirs = rusty_leveldb::BloomPolicy::new(10);
    // Each filter on which rusty-leveldb's policy answers a probe otherwise than leveldb, with
    // its answer: None where it panics.
    let mut differ: Vec<(Vec<u8>, Option<bool>)> = Vec::new();
    let mut probes = 0;
    for file in ["build.txt", "match.txt"] {
        for_each_record(file, |record| {
            if let Some(bits_per_key) = record.bits_per_key {
                let (keys, offsets) = end_to_end(record.keys);
                let built =
                    FilterPolicy::create_filter(&BloomPolicy::new(bits_per_key), &keys, &offsets);
                assert!(built == record.filter, "ours: not leveldb's filter");
                let built =
                    rusty_leveldb::BloomPolicy::new(bits_per_key).create_filter(&keys, &offsets);
                assert!(
                    built == record.filter,
                    "rusty-leveldb: not leveldb's filter"
                );
            }
            for (probe, &leveldb) in record.probes.iter().zip(&record.answers) {
                assert_eq!(ours.key_may_match(probe, &record.filter), leveldb);
                probes += 1;
                let answer = catch_unwind(|| theirs.key_may_match(probe, &record.filter)).ok();
                if answer != Some(leveldb) {
                    differ.push((record.filter.clone(), answer));
                    // One panic, or one answer, a filter is enough.
                    break;
                }
            }
        });
    }
    // leveldb answers "no" for every filter shorter than 2 bytes; rusty-leveldb "may match" for
    // the empty one and those whose byte (k) is 0 or above 30, and divides by a bit count of zero
    // for the others.
    let mut expected = vec![(Vec::new(), Some(true))];
    expected.extend((0..=255u8).map(|k| (vec![k], (k == 0 || k > 30).then_some(true))));
    differ.sort();
    differ.dedup();
    expected.sort();
    assert!(
        differ == expected,
        "rusty-leveldb's policy differs from leveldb on {differ:?}"
    );
    capture::print(&format!(
        "{probes} probes: rusty-leveldb's policy differs on {} filters, all under 2 bytes\n",
        differ.len()
    ));
}

fn offsets_out_of_order_or_past_the_keys_panic() {
    // rusty-leveldb never passes such offsets, and its trait has no way to report an error: a
    // filter built from other keys than the caller's would lose them, so the policy panics.
    let policy = BloomPolicy::new(10);
    for offsets in [&[2, 1][..], &[0, 4], &[4]] {
        let built = catch_unwind(|| FilterPolicy::create_filter(&policy, b"abc", offsets));
        assert!(
            built.is_err(),
            "offsets {offsets:?} of 3 bytes built a filter"
        );
    }
    let empty_keys = FilterPolicy::create_filter(&policy, b"", &[0, 0, 0]);
    let mut expected = Vec::new();
    policy.create_filter(&[b"", b"", b""], &mut expected);
    assert_eq!(empty_keys, expected);
}

/// `leveldb-bloom check --json DB`'s exit code and report.
fn check(db: &Path) -> (i32, serde_json::Value) {
    let mut cmd = Command::new(leveldb_bloom(&tmp_dir!()));
    cmd.args(["check", "--json"]).arg(db);
    let output = process::output(&mut cmd);
    let report = serde_json::from_slice(&output.stdout).expect("a JSON report");
    (output.status.code().expect("an exit code"), report)
}

fn leveldb_bloom_check_reads_rusty_leveldbs_databases() {
    let own = db_dir("rusty-own-policy");
    rusty_write(&own, rusty_leveldb::BloomPolicy::new(10));
    for db in [rusty_database(), own.as_path()] {
        let (code, report) = check(db);
        assert_eq!(code, 0, "{}: {report:#}", db.display());
        let totals = &report["policies"][POLICY_NAME];
        assert_eq!(totals["filters_identical"], totals["filters"], "{totals:#}");
        assert!(totals["tables"].as_u64().unwrap() >= 10, "{totals:#}");
    }
    // Filters that rule out every key hide every key, each named.
    let broken = db_dir("rusty-rules-out-everything-checked");
    rusty_write(&broken, RulesOutEverything);
    let (code, report) = check(&broken);
    assert_eq!(code, 1, "{report:#}");
    let keys: u64 = report["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|table| table["keys"].as_u64().unwrap())
        .sum();
    assert!(keys > 0);
    assert_eq!(report["false_negatives"], keys);
}
