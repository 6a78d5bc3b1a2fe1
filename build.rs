//! Turns on the proof that the AVX-512 single query cannot panic where asked (`prove_no_panic`),
//! and detects the tools some tests need: the
//! system leveldb (Debian's libleveldb-dev), which the differential tests compare against live;
//! pytest, for tests/python.rs (cfg `has_pytest`); CMake, which tests/cmake.rs and tests/shim.rs
//! drive (cfg `has_cmake`); gcc's sanitizer runtimes and valgrind, which tests/sanitizers.rs runs
//! the C tests under; Debian's python3-plyvel and a leveldb source tree, for the shim's tests
//! (tests/shim.rs, tests/leveldb_source.rs). Without them those tests are reported as ignored,
//! never as passed; CI sets LEVELDB_BLOOM_REQUIRE_{LEVELDB,PYTHON,CMAKE,SANITIZERS,PLYVEL,
//! LEVELDB_SRC}=1 so that a missing tool fails the build instead.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    prove_no_panic();
    detect_leveldb();
    detect_pytest();
    detect_cmake();
    detect_sanitizers();
    detect_plyvel();
    detect_leveldb_source();
}

/// Sets cfg `prove_no_panic` when LEVELDB_BLOOM_PROVE_NO_PANIC=1 (as CI sets it) in a build
/// optimized enough to drop every panic that cannot happen (opt-level 2 or 3): if a function that
/// must not panic (see `CannotPanic` in src/kernels/x86/avx512/single.rs) keeps a path to one, a
/// program linked with such a build fails to link (CI: the quickstart), and the shared library to
/// load (CI: the Python tests). Opt-in, so that no one else's build fails for it.
fn prove_no_panic() {
    println!("cargo::rustc-check-cfg=cfg(prove_no_panic)");
    let optimized = matches!(std::env::var("OPT_LEVEL").as_deref(), Ok("2" | "3"));
    if required("LEVELDB_BLOOM_PROVE_NO_PANIC") && optimized {
        println!("cargo::rustc-cfg=prove_no_panic");
    }
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

/// Whether `python3 -m pytest` can run the Python binding's tests.
fn detect_pytest() {
    println!("cargo::rustc-check-cfg=cfg(has_pytest)");
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
    if required("LEVELDB_BLOOM_REQUIRE_PYTHON") {
        panic!(
            "LEVELDB_BLOOM_REQUIRE_PYTHON=1 but `python3 -c 'import pytest'` fails: \
             python3 -m pip install pytest (in a venv: apt-get install python3-venv)"
        );
    }
}

fn detect_cmake() {
    println!("cargo::rustc-check-cfg=cfg(has_cmake)");
    println!("cargo::rerun-if-env-changed=PATH");

    let path = std::env::var_os("PATH").unwrap_or_default();
    match std::env::split_paths(&path).find(|dir| dir.join("cmake").is_file()) {
        Some(dir) => {
            println!("cargo::rerun-if-changed={}", dir.join("cmake").display());
            println!("cargo::rustc-cfg=has_cmake");
        }
        None => {
            // Installing cmake creates /usr/bin/cmake, which changes the folder and reruns this.
            println!("cargo::rerun-if-changed=/usr/bin");
            if required("LEVELDB_BLOOM_REQUIRE_CMAKE") {
                panic!(
                    "LEVELDB_BLOOM_REQUIRE_CMAKE=1 but cmake is not on PATH: apt-get install cmake"
                );
            }
        }
    }
}

/// Sets cfg `has_plyvel` when Debian's python3-plyvel imports in Debian's python3 (/usr/bin),
/// which it is installed for.
fn detect_plyvel() {
    println!("cargo::rustc-check-cfg=cfg(has_plyvel)");
    let imports = Command::new("/usr/bin/python3")
        .args(["-c", "import plyvel"])
        .output()
        .is_ok_and(|out| out.status.success());
    if imports {
        println!("cargo::rustc-cfg=has_plyvel");
        return;
    }
    // Installing it adds a folder here, which reruns this script.
    println!("cargo::rerun-if-changed=/usr/lib/python3/dist-packages");
    if required("LEVELDB_BLOOM_REQUIRE_PLYVEL") {
        panic!(
            "LEVELDB_BLOOM_REQUIRE_PLYVEL=1 but /usr/bin/python3 cannot import plyvel: \
             apt-get install python3-plyvel"
        );
    }
}

/// Sets cfg `has_leveldb_src` when LEVELDB_BLOOM_LEVELDB_SRC names a leveldb source tree (one
/// with util/bloom.cc), which tests/leveldb_source.rs builds with the shim.
fn detect_leveldb_source() {
    println!("cargo::rustc-check-cfg=cfg(has_leveldb_src)");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_LEVELDB_SRC");
    let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC").map(PathBuf::from);
    if src
        .as_ref()
        .is_some_and(|src| src.join("util/bloom.cc").is_file())
    {
        println!("cargo::rustc-cfg=has_leveldb_src");
    } else if required("LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC") {
        panic!(
            "LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC=1 but LEVELDB_BLOOM_LEVELDB_SRC ({src:?}) is not a \
             leveldb source tree: see .ci/run for fetching Debian's"
        );
    }
}

/// Whether CI set `var` to 1: the tool it names must be there.
fn required(var: &str) -> bool {
    println!("cargo::rerun-if-env-changed={var}");
    std::env::var_os(var).is_some_and(|v| v == "1")
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
