//! leveldb's own build, with the shim in place of util/bloom.cc by shim/build-leveldb
//! (docs/SHIM.md's recipe), on the leveldb source tree LEVELDB_BLOOM_LEVELDB_SRC names (CI:
//! Debian's leveldb 1.23, fetched by .ci/run). Every test program that build makes passes; its
//! libleveldb.a has no bloom filter of its own; a build whose KeyMayMatch always answers false
//! fails bloom_test, db_test and c_test; and its db_bench writes the .ldb files a stock build of
//! the same source writes, byte for byte.
//!
//! Needs cmake, a C++ compiler and what leveldb's build needs (Debian: libgtest-dev,
//! libgmock-dev, libbenchmark-dev, libsnappy-dev). The builds stay in this program's folder
//! between runs, so a second run only rebuilds what changed.

mod cmake_support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Mutex, OnceLock};

use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::{self, run};
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tables::{has_bloom_filter, tables};
use leveldb_bloom_test_support::{capture, tmp_dir, trial, trials};

fn main() {
    trials::run(vec![
        trial!(leveldb_tests_pass_with_the_shim, LeveldbSource),
        trial!(the_shim_replaces_bloom_cc_in_libleveldb, LeveldbSource),
        trial!(a_shim_that_never_matches_fails_leveldb_tests, LeveldbSource),
        trial!(db_bench_fillseq_writes_stock_tables, LeveldbSource),
        trial!(
            db_bench_fillrandom_compact_writes_stock_tables,
            LeveldbSource
        ),
    ]);
}

/// A timing flake of leveldb's own (it fails about one run in five, stock or with the shim):
/// rerun alone when it is the only failure, never skipped.
const FLAKY_TEST: &str = "DBTest.HiddenValuesAreRemoved";
const FLAKY_RERUNS: usize = 5;
/// db_test's shards, run at once: each waits on its own database's disk writes much of the time.
const DB_TEST_SHARDS: usize = 2;

/// What the tests share, each built once: leveldb's builds.
fn work() -> PathBuf {
    tmp_dir!().program()
}

fn source() -> PathBuf {
    let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC")
        .expect("LEVELDB_BLOOM_LEVELDB_SRC: the leveldb source tree to build");
    PathBuf::from(src)
}

/// One build at a time: each already keeps both cores busy.
fn build_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// leveldb's build folder from `shim/build-leveldb SRC work/NAME [TARGET...]`, with `cxxflags`.
fn shim_build(name: &str, cxxflags: &str, targets: &[&str]) -> PathBuf {
    let _lock = build_lock();
    let out = claim(work().join(name));
    run(Command::new(root().join("shim/build-leveldb"))
        .arg(source())
        .arg(&out)
        .args(targets)
        .env("CXXFLAGS", cxxflags)
        // The core's cargo build in the folder every CMake build of the tests shares (its
        // CMakeLists.txt takes CARGO_TARGET_DIR): made once, not once per build here.
        .env("CARGO_TARGET_DIR", cmake_support::cargo_target_dir()));
    out.join("build")
}

/// The shim build of every target: the library, its tests, db_bench.
fn shim() -> &'static Path {
    static BUILD: OnceLock<PathBuf> = OnceLock::new();
    BUILD.get_or_init(|| shim_build("shim", "", &[]))
}

/// The stock build of the same source, as shim/build-leveldb configures leveldb: db_bench only.
fn stock() -> &'static Path {
    static BUILD: OnceLock<PathBuf> = OnceLock::new();
    BUILD.get_or_init(|| {
        let _lock = build_lock();
        let build = claim(work().join("stock"));
        run(Command::new("cmake")
            .arg("-S")
            .arg(source())
            .arg("-B")
            .arg(&build)
            .arg("-DCMAKE_BUILD_TYPE=Release"));
        run(Command::new("cmake")
            .arg("--build")
            .arg(&build)
            .args(["--target", "db_bench"])
            .env("CMAKE_BUILD_PARALLEL_LEVEL", parallel_level()));
        build
    })
}

fn parallel_level() -> String {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .to_string()
}

/// `cmd` with leveldb's test folder (TEST_TMPDIR) in the trial's folder, so that runs elsewhere
/// on the machine never share it, in a folder `dir` of its own, emptied first.
fn in_test_dir<'a>(cmd: &'a mut Command, dir: &str) -> &'a mut Command {
    cmd.env(
        "TEST_TMPDIR",
        fresh(tmp_dir!().trial().join("tmp").join(dir)),
    )
}

/// Runs `cmd` [`in_test_dir`] `dir`. Prints the program's output.
fn output_in_test_dir(cmd: &mut Command, dir: &str) -> Output {
    process::output(in_test_dir(cmd, dir))
}

/// The googletest cases a run reports as failed.
fn failed_cases(output: &Output) -> BTreeSet<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("[  FAILED  ] "))
        .filter_map(|rest| rest.split_whitespace().next())
        .filter(|case| case.contains('.') && !case.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_owned)
        .collect()
}

fn leveldb_tests_pass_with_the_shim() {
    let build = shim();
    // db_test, the longest by far, runs on its own so that its failures can be read case by
    // case, in shards (googletest's GTEST_TOTAL_SHARDS), as it waits on its disk much of the
    // time; ctest runs every other test program the build registered beside them.
    let mut ctest = Command::new("ctest");
    in_test_dir(&mut ctest, "ctest")
        .arg("--test-dir")
        .arg(build)
        .args(["--output-on-failure", "-E", "^db_test$"]);
    let mut shards: Vec<Command> = (0..DB_TEST_SHARDS)
        .map(|shard| {
            let mut db_test = Command::new(build.join("db_test"));
            in_test_dir(&mut db_test, &format!("db_test-{shard}"))
                .env("GTEST_TOTAL_SHARDS", DB_TEST_SHARDS.to_string())
                .env("GTEST_SHARD_INDEX", shard.to_string());
            db_test
        })
        .collect();
    let (db_test, others) = std::thread::scope(|scope| {
        let others = scope.spawn(|| ctest.output());
        let running: Vec<_> = shards
            .iter_mut()
            .map(|shard| scope.spawn(|| shard.output()))
            .collect();
        let db_test: Vec<_> = running
            .into_iter()
            .map(|shard| shard.join().expect("db_test's thread"))
            .collect();
        (db_test, others.join().expect("ctest's thread"))
    });
    let others = process::printed(&ctest, others);
    assert!(
        others.status.success(),
        "leveldb's tests failed: {}",
        others.status
    );
    let listed = String::from_utf8_lossy(&others.stdout);
    assert!(
        listed.contains("100% tests passed") && listed.contains("bloom_test"),
        "ctest ran no test"
    );

    let mut failed = BTreeSet::new();
    for (shard, output) in shards.iter().zip(db_test) {
        let output = process::printed(shard, output);
        if !output.status.success() {
            let cases = failed_cases(&output);
            assert!(!cases.is_empty(), "db_test failed: {}", output.status);
            failed.extend(cases);
        }
    }
    if !failed.is_empty() {
        assert_eq!(
            failed,
            BTreeSet::from([FLAKY_TEST.to_owned()]),
            "db_test failed"
        );
        let passed = (0..FLAKY_RERUNS).any(|_| {
            let mut rerun = Command::new(build.join("db_test"));
            rerun.arg(format!("--gtest_filter={FLAKY_TEST}"));
            output_in_test_dir(&mut rerun, "db_test").status.success()
        });
        assert!(passed, "{FLAKY_TEST} failed {} times more", FLAKY_RERUNS);
    }
}

/// What `nm` with `args` lists for `file`.
fn nm(args: &[&str], file: &Path) -> String {
    run(Command::new("nm").args(args).arg(file))
}

fn the_shim_replaces_bloom_cc_in_libleveldb() {
    let build = shim();
    let libleveldb = build.join("libleveldb.a");
    let members = run(Command::new("ar").arg("t").arg(&libleveldb));
    assert!(!members.lines().any(|m| m == "bloom.cc.o"), "{members}");
    assert!(members.lines().any(|m| m == "leveldb_bloom_shim.cc.o"));

    // NewBloomFilterPolicy is the shim's, and leveldb's own policy class is nowhere.
    let symbols = nm(&["-A", "-C", "--defined-only"], &libleveldb);
    let definitions: Vec<_> = symbols
        .lines()
        .filter(|l| l.ends_with(" leveldb::NewBloomFilterPolicy(int)"))
        .collect();
    assert_eq!(definitions.len(), 1, "{definitions:?}");
    assert!(definitions[0].contains(":leveldb_bloom_shim.cc.o:"));
    assert!(
        !symbols.contains("leveldb::(anonymous namespace)::BloomFilterPolicy"),
        "leveldb's own BloomFilterPolicy is in libleveldb.a"
    );

    // The core comes only where a filter is used: bloom_test has it, env_test (which uses
    // gtest's exceptions, but no filter) has nothing of the shim.
    let has_core = |program: &str| {
        nm(&["--defined-only"], &build.join(program)).contains(" leveldb_bloom_fill_filter\n")
    };
    assert!(has_core("bloom_test"));
    assert!(has_core("db_bench"));
    let env_test = nm(&["-C"], &build.join("env_test"));
    assert!(
        !env_test.contains("leveldb_bloom") && !env_test.contains("NewBloomFilterPolicy"),
        "env_test pulled in the shim"
    );
}

fn a_shim_that_never_matches_fails_leveldb_tests() {
    // The control for the test above: these tests pass with the shim, and fail when its
    // KeyMayMatch is broken, so they run the shim's code.
    let programs = ["bloom_test", "db_test", "c_test"];
    let build = shim_build("broken", "-DLEVELDB_BLOOM_SHIM_TEST_NO_MATCH", &programs);
    for program in programs {
        let mut cmd = Command::new(build.join(program));
        if program == "db_test" {
            // The bloom filter's own case; the whole of db_test takes a minute.
            cmd.arg("--gtest_filter=DBTest.BloomFilter");
        }
        let output = output_in_test_dir(&mut cmd, program);
        assert!(
            !output.status.success(),
            "{program} passed with a broken shim"
        );
    }
}

/// Runs `build`'s db_bench with `args` on a fresh database `name` and returns its tables.
fn db_bench(build: &Path, name: &str, args: &[&str]) -> Vec<(String, Vec<u8>)> {
    let db = fresh(tmp_dir!().trial().join("db_bench").join(name));
    // Its standard error only shows progress.
    let output = run(Command::new(build.join("db_bench"))
        .args(args)
        .arg(format!("--db={}", db.display()))
        .stderr(Stdio::null()));
    assert!(output.contains("micros/op"), "db_bench ran nothing");
    tables(&db)
}

/// db_bench `args` writes, with the shim, the tables two stock runs agree on. Tables are matched
/// by their bytes: a table's number counts every file written before it, which can vary.
fn assert_db_bench_writes_stock_tables(name: &str, args: &[&str]) {
    let args = [&["--bloom_bits=10"], args].concat();
    let stock_runs = [1, 2].map(|run| db_bench(stock(), &format!("{name}-stock-{run}"), &args));
    let shim_run = db_bench(shim(), &format!("{name}-shim"), &args);

    let bytes = |tables: &[(String, Vec<u8>)]| {
        let mut all: Vec<Vec<u8>> = tables.iter().map(|t| t.1.clone()).collect();
        all.sort();
        all
    };
    let (first, second) = (bytes(&stock_runs[0]), bytes(&stock_runs[1]));
    let agreed: Vec<&Vec<u8>> = first.iter().filter(|t| second.contains(t)).collect();
    let differing = first.len() + second.len() - 2 * agreed.len();
    if differing > 0 {
        capture::print(&format!(
            "{name}: {differing} tables differ between the two stock runs: not compared\n"
        ));
    }
    assert!(
        !agreed.is_empty(),
        "{name}: the stock runs agree on no table"
    );
    for table in &agreed {
        assert!(
            has_bloom_filter(table),
            "{name}: a stock table has no bloom filter"
        );
    }
    let shim = bytes(&shim_run);
    let missing = agreed.iter().filter(|t| !shim.contains(t)).count();
    assert_eq!(
        missing,
        0,
        "{name}: {missing} of the {} tables both stock runs wrote are not among the shim's {}",
        agreed.len(),
        shim.len()
    );
    capture::print(&format!(
        "{name}: {} tables byte-identical to both stock runs' ({:?} with the shim)\n",
        agreed.len(),
        shim_run.iter().map(|t| &t.0).collect::<Vec<_>>()
    ));
}

fn db_bench_fillseq_writes_stock_tables() {
    assert_db_bench_writes_stock_tables("fillseq", &["--benchmarks=fillseq"]);
}

fn db_bench_fillrandom_compact_writes_stock_tables() {
    // With 2 MB tables, which ones a compaction rewrites depends on when background compactions
    // ran, and two stock runs share only some of their tables. With tables of up to 1 GiB, the
    // full compaction writes one table of every key, the same in every run.
    assert_db_bench_writes_stock_tables(
        "fillrandom-compact",
        &[
            "--benchmarks=fillrandom,compact",
            "--max_file_size=1073741824",
        ],
    );
}
