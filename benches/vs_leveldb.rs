//! `cargo bench --bench vs_leveldb`: compiles benches/vs_leveldb.cc against the optimised
//! library cargo just built and the system leveldb 1.23, and runs it: the side-by-side table of
//! the README's "Speed" section. `cargo test` runs the same program in its --smoke mode.

use std::process::{Command, exit};

// The test programs' build and link logic, shared rather than repeated here.
use leveldb_bloom_test_support::c_harness::{FULL, Link, build, program};
use leveldb_bloom_test_support::tmp_dir;
use leveldb_bloom_test_support::tools::Tool;

fn main() {
    if let Some(missing) = Tool::Leveldb.missing() {
        eprintln!("vs_leveldb needs the system leveldb: {missing}");
        exit(1);
    }
    // Linked shared; the program calls this library by its own names, as a program that links
    // leveldb must (leveldb's C API defines some of leveldb's names for itself). Timed calls
    // cross one library boundary on either side. -O2 for the timing loops; each loop starts a
    // cache line, so that sides with the same loop also lay it out the same (on Intel, a loop
    // across two lines made one side's 1M single query a third slower).
    let exe = build(
        &program("benches/vs_leveldb.cc", FULL),
        Link::Shared,
        &["-O2", "-falign-loops=64"],
        &tmp_dir!().program(),
    );
    // Workload names pass through; cargo's own flags (--bench) are ignored by the program.
    let status = Command::new(&exe)
        .args(std::env::args().skip(1))
        // cargo's LD_LIBRARY_PATH may name an older copy of the library: use the rpath's.
        .env_remove("LD_LIBRARY_PATH")
        .status()
        .expect("benchmark starts");
    if !status.success() {
        eprintln!("{} failed: {status}", exe.display());
    }
    exit(status.code().unwrap_or(1));
}
