//! `cargo bench --bench vs_leveldb`: compiles benches/vs_leveldb.cc against the optimised
//! library cargo just built and the system leveldb 1.23, and runs it: the side-by-side table of
//! the README's "Speed" section. `cargo test` runs the same program in its --smoke mode.

use std::path::Path;
use std::process::{Command, exit};

fn main() {
    if !cfg!(has_leveldb) {
        eprintln!("vs_leveldb needs the system leveldb: apt-get install libleveldb-dev");
        exit(1);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // target/release/deps, where cargo built the library for this run, next to this runner.
    let exe = std::env::current_exe().expect("runner path");
    let lib_dir = exe.parent().expect("target/release/deps");
    let program = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vs_leveldb");
    // The program asks for the library by its soname (build.rs): link that name to this build's.
    let soname_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("vs_leveldb_lib");
    let soname = soname_dir.join(concat!(
        "libleveldb_bloom.so.",
        env!("CARGO_PKG_VERSION_MAJOR")
    ));
    std::fs::create_dir_all(&soname_dir).expect("library folder");
    let _ = std::fs::remove_file(&soname);
    std::os::unix::fs::symlink(lib_dir.join("libleveldb_bloom.so"), &soname).expect("soname link");
    // Linked shared, ours first: leveldb's C API has functions of the same names, and ours must
    // win. Timed calls cross one library boundary on either side.
    let status = Command::new("c++")
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{}", root.join("include").display()))
        .arg(format!("-I{}", root.join("c_tests").display()))
        .arg(root.join("benches/vs_leveldb.cc"))
        .arg("-o")
        .arg(&program)
        .arg(format!("-L{}", lib_dir.display()))
        .arg("-lleveldb_bloom")
        .arg(format!("-Wl,-rpath,{}", soname_dir.display()))
        .arg("-lleveldb")
        .status()
        .expect("c++ starts");
    assert!(status.success(), "benches/vs_leveldb.cc does not compile");
    // Workload names pass through; cargo's own flags (--bench) are ignored by the program.
    let status = Command::new(&program)
        .args(std::env::args().skip(1))
        // cargo's LD_LIBRARY_PATH may name an older copy of the library: use the rpath's.
        .env_remove("LD_LIBRARY_PATH")
        .status()
        .expect("benchmark starts");
    exit(status.code().unwrap_or(1));
}
