//! The C test programs (test-support/src/c_harness.rs: every program in c_tests/) under
//! AddressSanitizer + UndefinedBehaviorSanitizer, under valgrind memcheck, and the threads test under
//! ThreadSanitizer, on each path the CPU has (valgrind's, which has no AVX-512): any memory error,
//! undefined behaviour, data race or definite leak fails.
//! Without the tools these tests are ignored, never passed; CI sets
//! LEVELDB_BLOOM_REQUIRE_SANITIZERS=1, which makes a missing tool a failure.
//!
//! Only the C side is instrumented: the Rust library is linked as built. The sanitizers still
//! see every allocation and free the library makes (it uses malloc), and valgrind sees all of it.

mod asan;

use std::path::Path;
use std::process::Command;

use leveldb_bloom_test_support::c_harness::{
    Budget, FULL, Link, Program, build_each, command, programs, run, run_on,
};
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{isa, tmp_dir, trial, trials};

fn main() {
    trials::run(vec![
        trial!(
            c_tests_under_address_and_undefined_behaviour_sanitizers,
            Asan
        ),
        trial!(c_tests_under_valgrind_memcheck, Valgrind),
        trial!(threads_test_under_thread_sanitizer, Tsan),
    ]);
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

/// The programs that can run here (leveldb installed or not needed), and that do not limit their
/// own address space, which sanitizer shadow memory and valgrind's allocator cannot live with.
fn runnable(budget: Budget) -> Vec<Program> {
    programs(budget)
        .into_iter()
        .filter(|p| !p.needs_leveldb || Tool::Leveldb.is_present())
        .filter(|p| !p.needs_leveldb_src || Tool::LeveldbSource.is_present())
        .filter(|p| !p.limits_address_space)
        .collect()
}

/// The programs that ask malloc for more than ASan's allocator gives on purpose, to see NULL
/// come back (test_bad_input.c asks for a 256 TiB filter): ASan would stop them with
/// allocation-size-too-big; told it may return NULL, it does what malloc does, so the path under
/// test runs. The others run under ASan's default options, where any such request stops the
/// program: test_filterblock.c's offsets past any file must be refused before any allocation.
const ASK_FOR_TOO_MUCH: &[&str] = &["c_tests/test_bad_input.c"];

fn c_tests_under_address_and_undefined_behaviour_sanitizers() {
    for (program, exe) in build_each(
        runnable(ASAN),
        Link::Static,
        asan::FLAGS,
        &tmp_dir!().trial(),
    ) {
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

fn c_tests_under_valgrind_memcheck() {
    let memcheck = |program: &Program, exe: &Path| {
        let mut cmd = Command::new("valgrind");
        cmd.args([
            "--tool=memcheck",
            "--error-exitcode=99",
            "--leak-check=full",
            "--errors-for-leak-kinds=definite",
            "--show-leak-kinds=definite",
            "--track-origins=yes",
        ])
        .arg(exe)
        .args(&program.args);
        cmd
    };
    let built = build_each(runnable(VALGRIND), Link::Static, &[], &tmp_dir!().trial());
    // valgrind's CPU lacks what the host's may have (AVX-512): its paths are those up to the one
    // the library picks under it, which test_core_abi reports.
    let (probe, probe_exe) = built
        .iter()
        .find(|(program, _)| program.source == "c_tests/test_core_abi.c")
        .expect("test_core_abi in the program list");
    let stdout = run(memcheck(probe, probe_exe));
    let paths = isa::up_to(isa::reported(&stdout).first().expect("a path reported"));
    for (program, exe) in &built {
        for path in paths {
            run_on(path, memcheck(program, exe));
        }
    }
}

/// The threads test, alone and with leveldb's C API loaded (8 threads querying by leveldb's names
/// through objects of leveldb's, while another makes and destroys them).
fn threads_test_under_thread_sanitizer() {
    let runs: Vec<Program> = runnable(FULL)
        .into_iter()
        .filter(|program| program.source == "c_tests/test_threads.c")
        .collect();
    assert_eq!(runs.len(), 1 + usize::from(Tool::Leveldb.is_present()));
    let flags = ["-fsanitize=thread"];
    for (program, exe) in build_each(runs, Link::Static, &flags, &tmp_dir!().trial()) {
        for path in isa::up_to(leveldb_bloom::isa()) {
            let mut cmd = command(&program, &exe);
            cmd.env("TSAN_OPTIONS", "halt_on_error=1");
            run_on(path, cmd);
        }
    }
}
