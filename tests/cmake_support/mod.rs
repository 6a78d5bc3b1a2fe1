//! Helpers shared by the tests that drive CMake and the compiler (tests/cmake.rs, tests/shim.rs).

#![allow(dead_code)] // each test binary uses its own subset

use std::path::{Path, PathBuf};
use std::process::Command;

use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::run;
use leveldb_bloom_test_support::tmp_dir;

/// Configures and builds this project in `build` (removed first, so every run starts fresh)
/// with `options`, in Release. cargo's target folder is shared by every such build, in every
/// test program, and kept between runs, so only the first build compiles the crate; cargo locks
/// it while it builds there.
pub fn cmake_build(build: &Path, options: &[&str]) {
    let _ = std::fs::remove_dir_all(build);
    let cargo: PathBuf = std::env::var_os("CARGO")
        .unwrap_or_else(|| "cargo".into())
        .into();
    let cargo_target = tmp_dir!().cargo_target("cmake-cargo");
    run(Command::new("cmake")
        .arg("-S")
        .arg(root())
        .arg("-B")
        .arg(build)
        .arg("-DCMAKE_BUILD_TYPE=Release")
        .arg(format!("-DCARGO_EXECUTABLE={}", cargo.display()))
        .arg(format!(
            "-DLEVELDB_BLOOM_CARGO_TARGET_DIR={}",
            cargo_target.display()
        ))
        .args(options));
    run(Command::new("cmake")
        .arg("--build")
        .arg(build)
        .arg("--parallel"));
}

/// `readelf -d`: the dynamic section, with its NEEDED and SONAME entries.
pub fn dynamic_section(file: &Path) -> String {
    run(Command::new("readelf").arg("-d").arg(file))
}
