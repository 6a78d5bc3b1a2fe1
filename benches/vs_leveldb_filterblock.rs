//! `cargo bench --bench vs_leveldb_filterblock`: compiles benches/vs_leveldb_filterblock.cc
//! against the optimised library cargo just built, leveldb's source headers
//! (LEVELDB_BLOOM_LEVELDB_SRC) and Debian's static libleveldb.a, and runs it: filter blocks built
//! and read by leveldb's own classes and by this library, side by side. `cargo test` runs the
//! same program in its --smoke mode.

// The test programs' build and link logic (tests/c_harness), shared rather than repeated here.
#[path = "../tests/c_harness/mod.rs"]
mod c_harness;
#[path = "../tests/paths/mod.rs"]
mod paths;

use std::process::{Command, exit};

use c_harness::{FULL, Link, build, program};

fn main() {
    if !cfg!(all(has_leveldb, has_leveldb_src)) {
        eprintln!(
            "vs_leveldb_filterblock needs libleveldb-dev and a leveldb source tree in \
             LEVELDB_BLOOM_LEVELDB_SRC (see .ci/run)"
        );
        exit(1);
    }
    // Linked shared, as the leveldb benchmark: timed calls into this library cross a library
    // boundary, as a program's would. -O2 for the timing loops.
    let exe = build(
        &program("benches/vs_leveldb_filterblock.cc", FULL),
        Link::Shared,
        &["-O2"],
    );
    let status = Command::new(&exe)
        .args(std::env::args().skip(1).filter(|arg| arg == "--smoke"))
        .env_remove("LEVELDB_BLOOM_LIBRARY")
        .env_remove("LD_LIBRARY_PATH")
        .status()
        .expect("benchmark starts");
    exit(status.code().unwrap_or(1));
}
