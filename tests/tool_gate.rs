//! The harness of the tests (test-support/src/trials.rs, capture.rs, scratch.rs, c_harness.rs),
//! seen as `cargo test` shows it.
//!
//! - The tests that need a tool: this program runs itself with a PATH that has no cmake, or a
//!   stand-in that succeeds, and its one test needing cmake must run where cmake is, be reported
//!   ignored with the reason where it is not, and fail instead when
//!   LEVELDB_BLOOM_REQUIRE_CMAKE=1.
//! - No two tests write one file: a second build to one output fails, and no test names a
//!   folder to write in but through `tmp_dir!`.
//! - A test program killed by a signal is reported with the signal's name.

use std::any::Any;
#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::Command;

use leveldb_bloom_test_support::c_harness::{self, FULL, Link};
use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::{capture, tmp_dir, trial, trials};

/// Set in the child: it runs [`needs_cmake`] alone.
const CHILD: &str = "LEVELDB_BLOOM_TOOL_GATE_CHILD";
const REQUIRE_CMAKE: &str = "LEVELDB_BLOOM_REQUIRE_CMAKE";

fn main() {
    if std::env::var_os(CHILD).is_some() {
        trials::run(vec![trial!(needs_cmake, Cmake)]);
    }
    trials::run(vec![
        trial!(a_test_whose_tool_is_there_runs),
        trial!(a_missing_tool_is_reported_ignored_with_the_reason),
        trial!(a_missing_required_tool_fails),
        trial!(a_second_build_to_one_output_fails),
        trial!(tests_write_only_in_their_own_folders),
        trial!(a_program_killed_by_a_signal_is_reported_by_name),
    ]);
}

fn needs_cmake() {
    println!("needs_cmake ran");
}

/// A folder for PATH: empty, or with a `cmake` that succeeds.
fn path_dir(with_cmake: bool) -> PathBuf {
    let name = if with_cmake {
        "cmake-stand-in"
    } else {
        "empty"
    };
    let dir = tmp_dir!().trial().join(name);
    std::fs::create_dir_all(&dir).expect("PATH folder");
    if with_cmake {
        let cmake = dir.join("cmake");
        std::fs::write(&cmake, "#!/bin/sh\nexit 0\n").expect("cmake stand-in");
        // A shell script: the stand-in runs on unix only, as this test does.
        #[cfg(unix)]
        std::fs::set_permissions(&cmake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    dir
}

/// Runs this program as the child with PATH `dir`, cmake required or not; returns whether it
/// succeeded and its standard output.
fn child(dir: &Path, require: bool) -> (bool, String) {
    let mut cmd = Command::new(std::env::current_exe().expect("this test program"));
    cmd.args(["--color", "never", "--nocapture"])
        .env(CHILD, "1")
        .env("PATH", dir)
        .env_remove(REQUIRE_CMAKE);
    if require {
        cmd.env(REQUIRE_CMAKE, "1");
    }
    let output = cmd.output().expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    capture::print(&stdout);
    capture::print(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), stdout)
}

fn a_test_whose_tool_is_there_runs() {
    let (passed, stdout) = child(&path_dir(true), true);
    assert!(passed);
    assert!(stdout.contains("needs_cmake ran\n"), "{stdout}");
    assert!(stdout.contains("1 passed; 0 failed; 0 ignored"), "{stdout}");
}

fn a_missing_tool_is_reported_ignored_with_the_reason() {
    let (passed, stdout) = child(&path_dir(false), false);
    assert!(passed);
    assert!(
        stdout.contains(
            "test needs_cmake ... ignored (cmake is not on PATH: apt-get install cmake)\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("needs_cmake ran"), "{stdout}");
    assert!(stdout.contains("0 passed; 0 failed; 1 ignored"), "{stdout}");
}

fn a_missing_required_tool_fails() {
    let (passed, stdout) = child(&path_dir(false), true);
    assert!(!passed);
    assert!(stdout.contains("test needs_cmake ... FAILED\n"), "{stdout}");
    assert!(
        stdout.contains(&format!(
            "{REQUIRE_CMAKE}=1 but cmake is not on PATH: apt-get install cmake"
        )),
        "{stdout}"
    );
    assert!(!stdout.contains("needs_cmake ran"), "{stdout}");
}

/// What a caught panic said.
fn panic_message(payload: Box<dyn Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map_or_else(String::new, |s| (*s).to_owned()),
    }
}

/// Two builds to one output (two trials building one program at once would be two claimants):
/// the second fails before its compiler starts, naming the output and both claimants.
fn a_second_build_to_one_output_fails() {
    let program = c_harness::program("c_tests/test_core_abi.c", FULL);
    let dir = tmp_dir!().trial();
    let exe = c_harness::build(&program, Link::Static, &[], &dir);
    let second = catch_unwind(|| c_harness::build(&program, Link::Static, &[], &dir));
    let message = panic_message(second.expect_err("a second build to one output must fail"));
    let claimant = "`a_second_build_to_one_output_fails`";
    assert!(
        message.contains(&format!(
            "{} is written twice: claimed by {claimant}, then by {claimant}",
            exe.display()
        )),
        "{message}"
    );
}

/// The Rust files of tests/, benches/, src/ and test-support/src/ that name cargo's temporary
/// folder for tests or the system's: only scratch.rs, which gives each test its folder.
fn tests_write_only_in_their_own_folders() {
    fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("source folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                rust_files(&path, found);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                found.push(path);
            }
        }
    }
    let mut files = Vec::new();
    for dir in ["tests", "benches", "src", "test-support/src"] {
        rust_files(&root().join(dir), &mut files);
    }
    let scratch = root().join("test-support/src/scratch.rs");
    // Split, so that this file does not name them.
    let needles = [
        ["CARGO_", "TARGET_TMPDIR"].concat(),
        ["temp_", "dir()"].concat(),
        ["\"/", "tmp"].concat(),
    ];
    let offending: Vec<String> = files
        .iter()
        .filter(|file| **file != scratch)
        .filter(|file| {
            let text = std::fs::read_to_string(file).expect("source");
            needles.iter().any(|needle| text.contains(needle.as_str()))
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        offending.is_empty(),
        "write in tmp_dir!().trial() (or .program() for what is built once): {offending:?}"
    );
}

fn a_program_killed_by_a_signal_is_reported_by_name() {
    let mut cmd = Command::new("sh");
    cmd.args(["-c", "kill -SEGV $$"]);
    let killed = catch_unwind(AssertUnwindSafe(|| c_harness::run(cmd)));
    let message = panic_message(killed.expect_err("a program killed must fail"));
    assert!(message.contains("(SIGSEGV)"), "{message}");
}
