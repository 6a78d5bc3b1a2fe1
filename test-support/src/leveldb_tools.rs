//! The C++ programs in tools/ that make and read test data with leveldb itself, compiled for the
//! tests that run them.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths::root;
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
