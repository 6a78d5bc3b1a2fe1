//! The harness of the tests that need a tool (test-support/src/trials.rs), seen as `cargo test`
//! shows it: this program runs itself with a PATH that has no cmake, or a stand-in that succeeds,
//! and its one test needing cmake must run where cmake is, be reported ignored with the reason
//! where it is not, and fail instead when LEVELDB_BLOOM_REQUIRE_CMAKE=1.

#[cfg(unix)]
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use leveldb_bloom_test_support::{trial, trials};

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
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("tool-gate")
        .join(name);
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
    trials::print(&stdout);
    trials::print(&String::from_utf8_lossy(&output.stderr));
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
