//! Detects the system leveldb (Debian's libleveldb-dev), which the differential tests compare
//! against live. Without it those tests are reported as ignored, never as passed; CI sets
//! LEVELDB_BLOOM_REQUIRE_LEVELDB=1 so that a missing leveldb fails the build instead.
//!
//! Likewise detects pytest for tests/python.rs (cfg `has_pytest`), required by
//! LEVELDB_BLOOM_REQUIRE_PYTHON=1.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    detect_leveldb();
    detect_pytest();
}

fn detect_leveldb() {
    println!("cargo::rustc-check-cfg=cfg(has_leveldb)");
    println!("cargo::rerun-if-env-changed=LEVELDB_INCLUDE_DIR");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_REQUIRE_LEVELDB");

    let include_dir = std::env::var_os("LEVELDB_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include"));
    let header = include_dir.join("leveldb/filter_policy.h");
    if header.exists() {
        println!("cargo::rerun-if-changed={}", header.display());
        println!("cargo::rustc-cfg=has_leveldb");
    } else {
        // Installing leveldb adds a folder here, which reruns this script.
        println!("cargo::rerun-if-changed={}", include_dir.display());
        if std::env::var_os("LEVELDB_BLOOM_REQUIRE_LEVELDB").is_some_and(|v| v == "1") {
            panic!(
                "LEVELDB_BLOOM_REQUIRE_LEVELDB=1 but {} is missing: apt-get install libleveldb-dev",
                header.display()
            );
        }
    }
}

/// Whether `python3 -m pytest` can run the Python binding's tests.
fn detect_pytest() {
    println!("cargo::rustc-check-cfg=cfg(has_pytest)");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_REQUIRE_PYTHON");
    // Which python3 runs, and what it imports, follow these.
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=PYTHONPATH");
    // Prints where pip installs (so that installing pytest there reruns this script), then
    // fails if pytest cannot be imported.
    let probe = "import site, sysconfig\n\
                 print(sysconfig.get_paths()['purelib']); print(site.getusersitepackages())\n\
                 import pytest";
    let output = Command::new("python3").args(["-c", probe]).output();
    if output.as_ref().is_ok_and(|o| o.status.success()) {
        println!("cargo::rustc-cfg=has_pytest");
        return;
    }
    if let Ok(output) = &output {
        let site_dirs = String::from_utf8_lossy(&output.stdout);
        for dir in site_dirs
            .lines()
            .map(PathBuf::from)
            .filter(|dir| dir.is_dir())
        {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    if std::env::var_os("LEVELDB_BLOOM_REQUIRE_PYTHON").is_some_and(|v| v == "1") {
        panic!(
            "LEVELDB_BLOOM_REQUIRE_PYTHON=1 but `python3 -c 'import pytest'` fails: \
             python3 -m pip install pytest (in a venv: apt-get install python3-venv)"
        );
    }
}
