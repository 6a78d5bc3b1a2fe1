//! Detects the system leveldb (Debian's libleveldb-dev), which the differential tests compare
//! against live. Without it those tests are reported as ignored, never as passed; CI sets
//! LEVELDB_BLOOM_REQUIRE_LEVELDB=1 so that a missing leveldb fails the build instead.

use std::path::PathBuf;

fn main() {
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
