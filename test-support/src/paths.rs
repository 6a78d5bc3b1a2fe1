//! Paths for the tests that drive code outside Rust (C compilers, pytest).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::process;

/// The repository root, the folder above this crate's.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support/ is in the repository")
}

/// target/<profile>/deps, where `cargo test` leaves the libleveldb_bloom.a and .so it built for
/// this run (only `cargo build` copies them up to target/<profile>), next to the test executable.
pub fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().expect("target/<profile>/deps").to_path_buf()
}

/// Where the compiler finds the library file `name` (`libleveldb.a`...), as `c++
/// -print-file-name` says.
pub fn system_library(name: &str) -> PathBuf {
    let path = process::run(Command::new("c++").arg(format!("-print-file-name={name}")));
    PathBuf::from(path.trim())
}
