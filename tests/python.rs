//! Runs the Python binding's pytest suite (bindings/python/tests) on the package's source, against
//! the library cargo just built, on each path the CPU has, a test per path. Ignored when `python3`
//! cannot import pytest; CI sets LEVELDB_BLOOM_REQUIRE_PYTHON=1, which turns that into a failure
//! instead.

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::process::Command;

use leveldb_bloom_test_support::paths::{lib_dir, root};
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{isa, process, tmp_dir, trials};

fn main() {
    // A test per path, as libtest runs tests on every core at once and pytest keeps to one.
    let per_path = isa::up_to(leveldb_bloom::isa()).iter().map(|path| {
        trials::trial(
            &format!("python_binding::{path}"),
            &[Tool::Pytest],
            move || python_binding(path),
            tmp_dir!(),
        )
    });
    trials::run(per_path.collect());
}

/// The pytest suite on `path`.
fn python_binding(path: &str) {
    let library = lib_dir().join(format!("{DLL_PREFIX}leveldb_bloom{DLL_SUFFIX}"));
    assert!(library.is_file(), "{} is missing", library.display());
    let package = root().join("bindings/python");
    // The source first, so that a copy pip installed earlier is not what gets tested.
    let python_path = std::iter::once(package.join("src"))
        .chain(
            std::env::var_os("PYTHONPATH")
                .iter()
                .flat_map(std::env::split_paths),
        )
        .collect::<Vec<_>>();
    let output = process::output(
        Command::new("python3")
            // No .pytest_cache or __pycache__ left in the source tree.
            // Its tests' tmp_path stays pytest's own: a numbered folder per pytest run, made
            // and pruned under a lock, outside any checkout as test_library.py needs.
            .args(["-B", "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs"])
            .arg(&package)
            .env("LEVELDB_BLOOM_LIBRARY", &library)
            .env(
                "PYTHONPATH",
                std::env::join_paths(&python_path).expect("PYTHONPATH"),
            )
            .env(isa::OVERRIDE, path),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Every non-zero status fails, 5 ("no tests were collected") included.
    assert!(
        output.status.success(),
        "pytest failed on the {path} path ({}); 5 means no tests ran",
        output.status
    );
    isa::check_reported(&stdout, path);
}
