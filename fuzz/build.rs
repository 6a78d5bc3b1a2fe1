//! Compiles the leveldb adapter (leveldb_adapter.cc) when the system leveldb is installed, and
//! sets cfg `has_leveldb` so the fuzz targets also compare against leveldb itself. Without
//! leveldb the crate still builds and compares against the scalar oracle only; the fuzz script
//! sets LEVELDB_BLOOM_REQUIRE_LEVELDB=1 in CI, which makes a missing leveldb an error instead.
//!
//! With a leveldb source tree too (LEVELDB_BLOOM_LEVELDB_SRC, as for the main crate's tests), it
//! compiles leveldb_filterblock_adapter.cc against leveldb's internal table/filter_block.h, links
//! Debian's static libleveldb.a (which has those classes; the shared library does not) in place of
//! the shared one, and sets cfg `has_leveldb_src`; LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC=1 makes a
//! missing tree an error.

use std::path::PathBuf;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(has_leveldb)");
    println!("cargo::rustc-check-cfg=cfg(has_leveldb_src)");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_LEVELDB_SRC");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC");
    println!("cargo::rerun-if-changed=leveldb_filterblock_adapter.cc");
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
    println!("cargo::rustc-cfg=has_leveldb");

    let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC").map(PathBuf::from);
    match src.filter(|src| src.join("table/filter_block.h").is_file()) {
        Some(src) => {
            cc::Build::new()
                .cpp(true)
                .std("c++17")
                .include(&src)
                .include(src.join("include"))
                .file("leveldb_filterblock_adapter.cc")
                .warnings_into_errors(true)
                .compile("leveldb_filterblock_adapter");
            // One leveldb, the static one, for both adapters, with snappy, which it needs. Last
            // on the link line (link arguments follow the crates), so that this library defines
            // the C API before the archive is searched, and the archive's own (c.cc.o) is not
            // taken: only the members the adapters use are.
            let archive = std::process::Command::new("c++")
                .arg("-print-file-name=libleveldb.a")
                .output()
                .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
                .expect("c++ starts");
            assert!(
                archive.is_absolute(),
                "libleveldb.a (libleveldb-dev) is not where the compiler looks"
            );
            println!("cargo::rustc-link-arg={}", archive.display());
            println!("cargo::rustc-link-arg=-lsnappy");
            println!("cargo::rustc-cfg=has_leveldb_src");
        }
        None => {
            if std::env::var_os("LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC").is_some_and(|v| v == "1") {
                panic!(
                    "LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC=1 but LEVELDB_BLOOM_LEVELDB_SRC names no \
                     leveldb source tree: see .ci/run for fetching Debian's"
                );
            }
            println!("cargo::rustc-link-lib=leveldb");
        }
    }
}
