//! Compiles the leveldb adapter (leveldb_adapter.cc) when the system leveldb is installed, and
//! sets cfg `has_leveldb` so the fuzz targets also compare against leveldb itself. Without
//! leveldb the crate still builds and compares against the scalar oracle only; the fuzz script
//! sets LEVELDB_BLOOM_REQUIRE_LEVELDB=1 in CI, which makes a missing leveldb an error instead.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_leveldb)");
    println!("cargo::rerun-if-env-changed=LEVELDB_INCLUDE_DIR");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_REQUIRE_LEVELDB");
    println!("cargo::rerun-if-changed=leveldb_adapter.cc");

    let include_dir = std::env::var_os("LEVELDB_INCLUDE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include"));
    if !include_dir.join("leveldb/filter_policy.h").exists() {
        println!("cargo::rerun-if-changed={}", include_dir.display());
        if std::env::var_os("LEVELDB_BLOOM_REQUIRE_LEVELDB").is_some_and(|v| v == "1") {
            panic!(
                "LEVELDB_BLOOM_REQUIRE_LEVELDB=1 but leveldb is missing: apt-get install libleveldb-dev"
            );
        }
        return;
    }
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .include(&include_dir)
        .file("leveldb_adapter.cc")
        .warnings_into_errors(true)
        .compile("leveldb_adapter");
    println!("cargo::rustc-link-lib=leveldb");
    println!("cargo::rustc-cfg=has_leveldb");
}
