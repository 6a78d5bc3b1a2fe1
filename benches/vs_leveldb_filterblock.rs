//! `cargo bench --bench vs_leveldb_filterblock`: compiles benches/vs_leveldb_filterblock.cc
//! against the optimised library cargo just built, leveldb's source headers
//! (LEVELDB_BLOOM_LEVELDB_SRC) and Debian's static libleveldb.a, and runs it: filter blocks built
//! and read by leveldb's own classes and by this library, side by side. `cargo test` runs the
//! same program in its --smoke mode.

use std::process::{Command, exit};

// The test programs' build and link logic, shared rather than repeated here.
use leveldb_bloom_test_support::c_harness::{FULL, Link, build, program};
use leveldb_bloom_test_support::tmp_dir;
use leveldb_bloom_test_support::tools::Tool;

fn main() {
    for tool in [Tool::Leveldb, Tool::LeveldbSource] {
        if let Some(missing) = tool.missing() {
            eprintln!("vs_leveldb_filterblock: {missing}");
            exit(1);
        }
    }
    // Linked shared, as the leveldb benchmark: timed calls into this library cross a library
    // boundary, as a program's would. -O2 for the timing loops.
    let exe = build(
        &program("benches/vs_leveldb_filterblock.cc", FULL),
        Link::Shared,
        &["-O2"],
        &tmp_dir!().program(),
    );
    let status = Command::new(&exe)
        .args(std::env::args().skip(1).filter(|arg| arg == "--smoke"))
        .env_remove("LEVELDB_BLOOM_LIBRARY")
        .env_remove("LD_LIBRARY_PATH")
        .status()
        .expect("benchmark starts");
    if !status.success() {
        eprintln!("{} failed: {status}", exe.display());
    }
    exit(status.code().unwrap_or(1));
}
