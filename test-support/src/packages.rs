//! The packages through which most users get leveldb, installed from PyPI and npm as users install
//! them, at pinned versions: pip's plyvel wheel (its own leveldb 1.22, built with the pre-C++11
//! string ABI) and npm's classic-level (leveldb 1.20 inside its prebuilt addon, and as source in
//! its package). Each is fetched once per test process, the first time a test asks, into the
//! test program's folder (scratch.rs), and shared read-only by its tests. A failed fetch is why
//! the tool that stands for the package is missing (tools.rs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::{process, scratch};

/// plyvel's manylinux wheel, as pip names it.
pub const PLYVEL_WHEEL: &str = "plyvel==1.5.1";
/// classic-level, as npm names it.
pub const CLASSIC_LEVEL: &str = "classic-level@3.0.0";

/// What a fetch gives: a folder, or why there is none.
type Fetched = Result<PathBuf, String>;

/// A venv (made by `python3`) into which pip installed plyvel's wheel: run its `bin/python`.
pub fn plyvel_venv() -> Result<&'static Path, &'static str> {
    static VENV: OnceLock<Fetched> = OnceLock::new();
    fetched(&VENV, || {
        let venv = scratch::shared("plyvel-venv");
        process::quietly(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
        process::quietly(
            Command::new(venv.join("bin/pip"))
                .args(["install", "--disable-pip-version-check", "--no-input"])
                .args(["--only-binary", "plyvel", PLYVEL_WHEEL]),
        )?;
        Ok(venv)
    })
}

/// npm's classic-level: `node_modules/classic-level` as `npm install` leaves it (loading its
/// prebuilt addon), and `package`, its source as `npm pack` gives it; both in the folder returned.
pub fn classic_level() -> Result<&'static Path, &'static str> {
    static PROJECT: OnceLock<Fetched> = OnceLock::new();
    fetched(&PROJECT, || {
        let project = scratch::shared("classic-level");
        // Its install script would only find the prebuilt addon that it then loads anyway.
        process::quietly(
            Command::new("npm")
                .args([
                    "install",
                    "--ignore-scripts",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                ])
                .arg(&project)
                .arg(CLASSIC_LEVEL),
        )?;
        process::quietly(
            Command::new("npm")
                .args(["pack", "--silent", CLASSIC_LEVEL])
                .current_dir(&project),
        )?;
        let tarball = format!("{}.tgz", CLASSIC_LEVEL.replace('@', "-"));
        process::quietly(
            Command::new("tar")
                .arg("xzf")
                .arg(&tarball)
                .current_dir(&project),
        )?;
        Ok(project)
    })
}

fn fetched(
    once: &'static OnceLock<Fetched>,
    fetch: impl FnOnce() -> Fetched,
) -> Result<&'static Path, &'static str> {
    once.get_or_init(fetch).as_deref().map_err(String::as_str)
}
