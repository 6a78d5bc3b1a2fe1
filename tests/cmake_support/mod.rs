//! Helpers shared by the tests that drive CMake and the compiler (tests/cmake.rs, tests/shim.rs,
//! tests/leveldb_source.rs, and the tool's install in tests/check.rs).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::run;
use leveldb_bloom_test_support::tmp_dir;

/// The options giving CMake the cargo that runs these tests and one cargo target folder for every
/// CMake build of them, kept between runs, so that only the first build compiles the crate.
pub fn cargo_options() -> [String; 2] {
    let cargo: PathBuf = std::env::var_os("CARGO")
        .unwrap_or_else(|| "cargo".into())
        .into();
    [
        format!("-DCARGO_EXECUTABLE={}", cargo.display()),
        format!(
            "-DLEVELDB_BLOOM_CARGO_TARGET_DIR={}",
            cargo_target_dir().display()
        ),
    ]
}

/// Configures and builds this project in `build` (removed first, so every run starts fresh)
/// with `options`, in Release, with [`cargo_options`].
pub fn cmake_build(build: &Path, options: &[&str]) {
    let _ = std::fs::remove_dir_all(build);
    run(Command::new("cmake")
        .arg("-S")
        .arg(root())
        .arg("-B")
        .arg(build)
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .args(cargo_options())
        .args(options));
    run(Command::new("cmake")
        .arg("--build")
        .arg(build)
        .arg("--parallel"));
}

/// cargo's target folder for every CMake build of the tests (LEVELDB_BLOOM_CARGO_TARGET_DIR), in
/// every test program: cargo locks it while it builds there.
pub fn cargo_target_dir() -> PathBuf {
    tmp_dir!().cargo_target("cmake-cargo")
}

/// `readelf -d`: the dynamic section, with its NEEDED and SONAME entries.
pub fn dynamic_section(file: &Path) -> String {
    run(Command::new("readelf").arg("-d").arg(file))
}
