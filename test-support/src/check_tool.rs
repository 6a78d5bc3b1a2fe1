//! The `leveldb-bloom` tool (cli/), built for the tests that run it: a workspace member of its
//! own, which `cargo test` of the library does not build.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::root;
use crate::process;
use crate::scratch::TmpDir;

/// The tool's executable, built once per test program with the cargo that runs the tests, in the
/// same profile, in a target folder of its own that the test programs running the tool share
/// (`tmp_dir`'s `check-tool-cargo`): cargo locks a target folder while it builds there, so in
/// the tests' own folder this build would wait, idle, for any other cargo building there.
pub fn leveldb_bloom(tmp_dir: &TmpDir) -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(root())
            .args(["build", "--locked", "--package", "leveldb-bloom-cli"])
            .args(["--bin", "leveldb-bloom", "--message-format=json"])
            .arg("--target-dir")
            .arg(tmp_dir.cargo_target("check-tool-cargo"));
        if !cfg!(debug_assertions) {
            build.arg("--release");
        }
        let stdout = process::run(&mut build);
        // The artifact message names the executable: "executable":"<path>".
        let path = stdout
            .lines()
            .filter(|line| line.contains("\"reason\":\"compiler-artifact\""))
            .find_map(|line| line.split_once("\"executable\":\"")?.1.split_once('"'))
            .map(|(path, _)| PathBuf::from(path))
            .unwrap_or_else(|| panic!("cargo named no executable for leveldb-bloom:\n{stdout}"));
        assert!(path.is_file(), "{} is not there", path.display());
        path
    })
}
