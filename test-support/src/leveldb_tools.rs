//! The C++ programs in tools/ that make and read test data with leveldb itself, compiled for the
//! tests that run them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::root;
use crate::vectors::to_hex;
use crate::{process, scratch};

/// Compiles tools/`name`.cc into `out_dir` (the trial's folder, or the program's for a tool its
/// trials share), with `flags` (include folders) before the source and `libs` after it; claims
/// the executable, and panics if it does not compile.
pub fn build_tool(name: &str, flags: &[String], libs: &[&str], out_dir: &Path) -> PathBuf {
    let exe = scratch::claim(out_dir.join(name));
    process::run(
        Command::new("c++")
            .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"])
            .args(flags)
            .arg(root().join("tools").join(format!("{name}.cc")))
            .arg("-o")
            .arg(&exe)
            .args(libs),
    );
    exe
}

/// tools/leveldb_db.cc, built against the system leveldb once per test program, in its folder
/// `program_dir`.
pub fn leveldb_db(program_dir: &Path) -> &'static Path {
    static TOOL: OnceLock<PathBuf> = OnceLock::new();
    TOOL.get_or_init(|| build_tool("leveldb_db", &[], &["-lleveldb"], program_dir))
}

/// Writes the pairs `HEX_KEY HEX_VALUE` that tools/leveldb_db.cc reads to `path`.
pub fn write_key_file(path: &Path, pairs: &[(&[u8], &[u8])]) {
    let lines: String = pairs
        .iter()
        .map(|(key, value)| format!("{} {}\n", to_hex(key), to_hex(value)))
        .collect();
    std::fs::write(path, lines).unwrap();
}
