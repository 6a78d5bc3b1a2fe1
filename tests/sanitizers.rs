//! The C test programs (test-support/src/c_harness.rs: every program in c_tests/) under
//! AddressSanitizer + UndefinedBehaviorSanitizer and the threads test under ThreadSanitizer, on
//! each path the CPU has, and under valgrind memcheck on one path, the best valgrind's CPU has
//! (see [`valgrind_path`]): any memory error, undefined behaviour, data race or definite leak
//! fails.
//! Without the tools these tests are ignored, never passed; CI sets
//! LEVELDB_BLOOM_REQUIRE_SANITIZERS=1, which makes a missing tool a failure.
//!
//! Only the C side is instrumented: the Rust library is linked as built. The sanitizers still
//! see every allocation and free the library makes (it uses malloc), and valgrind sees all of it.
//!
//! Each program is a test of its own under ASan and under memcheck, the longest under memcheck a
//! test per vector file or per run: libtest runs tests on every core at once, and memcheck's
//! runs, each on one core, are most of this program's time.

mod asan;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use leveldb_bloom_test_support::c_harness::{
    self, Budget, FULL, Link, Program, build, build_each, command, programs, run, run_on,
};
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{isa, tmp_dir, trial, trials};

fn main() {
    let mut all = vec![
        trial!(threads_test_under_thread_sanitizer, Tsan),
        trial!(
            threads_through_leveldbs_objects_under_thread_sanitizer,
            Tsan,
            Leveldb
        ),
        trial!(valgrind_runs_the_path_tested_under_it, Valgrind),
    ];
    for program in sanitized(FULL) {
        let stem = Path::new(program.source).file_stem().unwrap();
        let stem = stem.to_string_lossy();
        let tools = |tool| {
            let mut tools = vec![tool];
            tools.extend(program.needs_leveldb.then_some(Tool::Leveldb));
            tools.extend(program.needs_leveldb_src.then_some(Tool::LeveldbSource));
            tools
        };
        let source = program.source;
        all.push(trials::trial(
            &format!("c_tests_under_address_and_undefined_behaviour_sanitizers::{stem}"),
            &tools(Tool::Asan),
            move || asan(source),
            tmp_dir!(),
        ));
        // valgrind's operator new would stand in for the program's own.
        if program.replaces_operator_new {
            continue;
        }
        // The longest under memcheck, one run per vector file, or per set of arguments the list
        // gives, so that both cores work.
        let parts = if BY_VECTOR_FILE.contains(&source) {
            VECTOR_FILES.map(Part::File).to_vec()
        } else if BY_RUN.contains(&source) {
            (0..runs_of(source, VALGRIND).len())
                .map(Part::Run)
                .collect()
        } else {
            vec![Part::All]
        };
        for part in parts {
            let name = match part {
                Part::File(file) => format!("c_tests_under_valgrind_memcheck::{stem}::{file}"),
                Part::Run(run) => format!("c_tests_under_valgrind_memcheck::{stem}::run{run}"),
                Part::All => format!("c_tests_under_valgrind_memcheck::{stem}"),
            };
            all.push(trials::trial(
                &name,
                &tools(Tool::Valgrind),
                move || memcheck(source, part),
                tmp_dir!(),
            ));
        }
    }
    trials::run(all);
}

/// ASan and UBSan slow the C side only: a quarter of the differential cases.
const ASAN: Budget = Budget {
    differential_cases: 500,
    ..FULL
};
/// valgrind runs everything, threads one at a time, some 50 times slower: enough to cross every
/// path (the differential test's 2^32-bit filter included) in a few minutes.
const VALGRIND: Budget = Budget {
    differential_cases: 20,
    thread_rounds: 4,
};

/// Each program of the list once (the list runs some more than once, with other arguments),
/// less those that limit their own address space, which sanitizer shadow memory and valgrind's
/// allocator cannot live with.
fn sanitized(budget: Budget) -> Vec<Program> {
    let mut seen = BTreeSet::new();
    programs(budget)
        .into_iter()
        .filter(|p| !p.limits_address_space && seen.insert(p.source))
        .collect()
}

/// Every run of the program built from `source` that the list with `budget` has.
fn runs_of(source: &str, budget: Budget) -> Vec<Program> {
    programs(budget)
        .into_iter()
        .filter(|p| p.source == source)
        .collect()
}

/// The programs that ask malloc for more than ASan's allocator gives on purpose, to see NULL
/// come back (test_bad_input.c asks for a 256 TiB filter): ASan would stop them with
/// allocation-size-too-big; told it may return NULL, it does what malloc does, so the path under
/// test runs. The others run under ASan's default options, where any such request stops the
/// program: test_filterblock.c's offsets past any file must be refused before any allocation.
const ASK_FOR_TOO_MUCH: &[&str] = &["c_tests/test_bad_input.c"];

/// The program built from `source` under ASan + UBSan, on every path this CPU has.
fn asan(source: &str) {
    let runs = runs_of(source, ASAN);
    for (program, exe) in build_each(runs, Link::Static, asan::FLAGS, &tmp_dir!().trial()) {
        for path in isa::up_to(leveldb_bloom::isa()) {
            let mut cmd = command(&program, &exe);
            // Leak checking stays on either way.
            if ASK_FOR_TOO_MUCH.contains(&program.source) {
                asan::set_options(&mut cmd, ":allocator_may_return_null=1");
            } else {
                asan::set_options(&mut cmd, "");
            }
            run_on(path, cmd);
        }
    }
}

/// The command that runs `exe`, built from `program`, under memcheck. Without
/// `--track-origins=yes`, which finds no more errors (it only tells where an uninitialised value
/// came from, for reading a report: add it by hand then) and slows memcheck more than twofold.
fn under_memcheck(program: &Program, exe: &Path) -> Command {
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--tool=memcheck",
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite",
        "--show-leak-kinds=definite",
    ])
    .arg(exe)
    .args(&program.args);
    cmd
}

/// The best path of valgrind's CPU, which emulates no AVX-512.
const VALGRIND_BEST: &str = "avx2";

/// The one path memcheck runs the programs on: this CPU's best, up to [`VALGRIND_BEST`]. It runs
/// the most unsafe code: AVX2's kernels read keys and probe rows by masked and unaligned vector
/// loads bounded by hand, which memcheck alone sees (only the C side is built with ASan), and
/// on Intel its single query is the portable kernel's. The rest of the library is the same code
/// on every path, and the portable kernels index through checks (bounds checks, and debug
/// assertions in the debug library these programs link). Every path still runs every program
/// under ASan + UBSan and plainly (tests/c_tests.rs), and the threads test under TSan.
fn valgrind_path() -> &'static str {
    let host = leveldb_bloom::isa();
    if isa::up_to(host).len() < isa::up_to(VALGRIND_BEST).len() {
        host
    } else {
        VALGRIND_BEST
    }
}

/// The library under valgrind, unforced, runs [`valgrind_path`]: the path memcheck's tests force
/// is the one valgrind's CPU runs (the library lowers a path forced above it, which the tests
/// would fail on).
fn valgrind_runs_the_path_tested_under_it() {
    let probe = c_harness::program("c_tests/test_core_abi.c", VALGRIND);
    let exe = build(&probe, Link::Static, &[], &tmp_dir!().trial());
    let stdout = run(under_memcheck(&probe, &exe));
    assert_eq!(
        isa::reported(&stdout),
        [valgrind_path()],
        "the path the library picks under valgrind"
    );
}

/// The programs taking VECTORS_DIR [FILE] (c_tests/vectors.h) whose memcheck runs are split by
/// vector file, and the files.
const BY_VECTOR_FILE: &[&str] = &["c_tests/test_vectors.c", "c_tests/test_batch.c"];
const VECTOR_FILES: [&str; 2] = ["build.txt", "match.txt"];
/// The programs the list runs more than once whose memcheck runs are a test each: the
/// benchmark's four checks take minutes each under memcheck.
const BY_RUN: &[&str] = &["benches/vs_leveldb.cc"];

/// What one memcheck test of a program runs.
#[derive(Clone, Copy)]
enum Part {
    /// Every run the list has, reading only this vector file.
    File(&'static str),
    /// The list's run with this index.
    Run(usize),
    /// Every run the list has.
    All,
}

/// The program built from `source` under memcheck, on [`valgrind_path`]: the runs `part` picks.
fn memcheck(source: &str, part: Part) {
    let mut runs = runs_of(source, VALGRIND);
    match part {
        Part::File(file) => runs.iter_mut().for_each(|run| run.args.push(file.into())),
        Part::Run(index) => runs = vec![runs.swap_remove(index)],
        Part::All => {}
    }
    for (program, exe) in build_each(runs, Link::Static, &[], &tmp_dir!().trial()) {
        run_on(valgrind_path(), under_memcheck(&program, &exe));
    }
}

/// The threads test under TSan, on every path this CPU has: the run of the program list that
/// `leveldb` picks (with leveldb's C API loaded or not).
fn threads_under_thread_sanitizer(leveldb: bool) {
    let runs: Vec<Program> = runs_of("c_tests/test_threads.c", FULL)
        .into_iter()
        .filter(|program| program.needs_leveldb == leveldb)
        .collect();
    assert_eq!(
        runs.len(),
        1,
        "one run of test_threads.c with leveldb: {leveldb}"
    );
    let flags = ["-fsanitize=thread"];
    for (program, exe) in build_each(runs, Link::Static, &flags, &tmp_dir!().trial()) {
        for path in isa::up_to(leveldb_bloom::isa()) {
            let mut cmd = command(&program, &exe);
            cmd.env("TSAN_OPTIONS", "halt_on_error=1");
            run_on(path, cmd);
        }
    }
}

/// 8 threads on one policy of this library's.
fn threads_test_under_thread_sanitizer() {
    threads_under_thread_sanitizer(false);
}

/// 8 threads querying by leveldb's names through an object of leveldb's, while another thread
/// makes and destroys others.
fn threads_through_leveldbs_objects_under_thread_sanitizer() {
    threads_under_thread_sanitizer(true);
}
