//! The packages through which most users get leveldb, installed from PyPI and npm as users install
//! them, at pinned versions: pip's plyvel wheel (its own leveldb 1.22, built with the pre-C++11
//! string ABI) and npm's classic-level (leveldb 1.20 inside its prebuilt addon, and as source in
//! its package). Each is fetched once per test process, the first time a test asks, into a
//! folder of that process's own under cargo's target/tmp, and shared read-only by its tests. A
//! failed fetch is why the tool that stands for the package is missing (tools.rs).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::lib_dir;

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
        let venv = scratch("plyvel-venv")?;
        succeeds(Command::new("python3").arg("-m").arg("venv").arg(&venv))?;
        succeeds(
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
        let project = scratch("classic-level")?;
        // Its install script would only find the prebuilt addon that it then loads anyway.
        succeeds(
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
        succeeds(
            Command::new("npm")
                .args(["pack", "--silent", CLASSIC_LEVEL])
                .current_dir(&project),
        )?;
        let tarball = format!("{}.tgz", CLASSIC_LEVEL.replace('@', "-"));
        succeeds(
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

/// A new folder `NAME-PID` under target/tmp/packages, where folders left by processes that have
/// ended are removed.
fn scratch(name: &str) -> Fetched {
    let target = lib_dir()
        .ancestors()
        .nth(2)
        .expect("target/<profile>/deps")
        .to_path_buf();
    let parent = target.join("tmp/packages");
    let ours = std::process::id().to_string();
    if let Ok(entries) = std::fs::read_dir(&parent) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let pid = file_name
                .to_str()
                .and_then(|f| f.strip_prefix(name)?.strip_prefix('-'));
            if pid.is_some_and(|pid| pid != ours && !Path::new("/proc").join(pid).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let dir = parent.join(format!("{name}-{ours}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// Runs `cmd`; an error naming it with the end of its output when it cannot start or fails.
fn succeeds(cmd: &mut Command) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("{cmd:?} could not start: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let errors = String::from_utf8_lossy(&output.stderr);
    let last: Vec<&str> = errors.lines().rev().take(5).collect();
    let tail: Vec<&str> = last.into_iter().rev().collect();
    Err(format!(
        "{cmd:?} failed ({}): {}",
        output.status,
        tail.join(" / ")
    ))
}
