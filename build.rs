//! Detects the system leveldb (Debian's libleveldb-dev), which the differential tests compare
//! against live, and the tools tests/sanitizers.rs runs the C tests under (gcc's sanitizer
//! runtimes, valgrind). Without them those tests are reported as ignored, never as passed; CI sets
//! LEVELDB_BLOOM_REQUIRE_LEVELDB=1 and LEVELDB_BLOOM_REQUIRE_SANITIZERS=1 so that anything
//! missing fails the build instead.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    detect_leveldb();
    detect_sanitizers();
}

fn required(var: &str) -> bool {
    println!("cargo::rerun-if-env-changed={var}");
    std::env::var_os(var).is_some_and(|v| v == "1")
}

fn detect_leveldb() {
    println!("cargo::rustc-check-cfg=cfg(has_leveldb)");
    println!("cargo::rerun-if-env-changed=LEVELDB_INCLUDE_DIR");

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
        if required("LEVELDB_BLOOM_REQUIRE_LEVELDB") {
            panic!(
                "LEVELDB_BLOOM_REQUIRE_LEVELDB=1 but {} is missing: apt-get install libleveldb-dev",
                header.display()
            );
        }
    }
}

/// Sets cfg `has_asan` (gcc's AddressSanitizer and UndefinedBehaviorSanitizer runtimes), `has_tsan`
/// (ThreadSanitizer) and `has_valgrind`.
fn detect_sanitizers() {
    let require = required("LEVELDB_BLOOM_REQUIRE_SANITIZERS");
    // gcc links `-fsanitize=...` programs against the runtimes in its own library folder.
    let gcc_dir = Command::new("cc")
        .arg("-print-libgcc-file-name")
        .output()
        .ok()
        .and_then(|out| Some(PathBuf::from(String::from_utf8(out.stdout).ok()?.trim())))
        .and_then(|libgcc| libgcc.parent().map(Path::to_path_buf))
        .unwrap_or_default();
    // A dangling link (runtime package missing) does not count: exists() follows it.
    let gcc_has = |lib: &str| gcc_dir.join(lib).exists();
    let path_dirs: Vec<PathBuf> =
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .filter(|dir| dir.is_dir())
            .collect();
    let found = [
        (
            "has_asan",
            gcc_has("libasan.so") && gcc_has("libubsan.so"),
            "gcc's libasan and libubsan",
            vec![gcc_dir.clone()],
        ),
        (
            "has_tsan",
            gcc_has("libtsan.so"),
            "gcc's libtsan",
            vec![gcc_dir.clone()],
        ),
        (
            "has_valgrind",
            path_dirs.iter().any(|dir| dir.join("valgrind").exists()),
            "valgrind",
            path_dirs.clone(),
        ),
    ];
    for (cfg, present, what, install_dirs) in found {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
        if present {
            println!("cargo::rustc-cfg={cfg}");
            continue;
        }
        if require {
            panic!(
                "LEVELDB_BLOOM_REQUIRE_SANITIZERS=1 but {what} is missing: apt-get install gcc valgrind"
            );
        }
        // Installing it changes one of these folders, which reruns this script.
        for dir in install_dirs {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
}
