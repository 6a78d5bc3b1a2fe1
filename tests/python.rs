//! Runs the Python binding's pytest suite (bindings/python/tests) on the package's source, against
//! the library built for the tests, on each path the CPU has, a test per path; and the README's
//! "Python" commands as a user pastes them: a venv, `pip install ./bindings/python` (which builds
//! the library into the package, with setuptools-rust from PyPI), examples/quickstart.py, then the
//! suite again in that venv against the package installed there, none skipped. Ignored when
//! `python3` cannot import pytest or make a venv; CI sets LEVELDB_BLOOM_REQUIRE_PYTHON=1, which
//! turns that into a failure instead. (.ci/python-package installs and tests the sdist and the
//! wheel.)

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::process::Command;

use leveldb_bloom_test_support::docs::UserShell;
use leveldb_bloom_test_support::paths::{lib_dir, root};
use leveldb_bloom_test_support::scratch::claim;
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{isa, process, tmp_dir, trial, trials};

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
    let mut tests: Vec<_> = per_path.collect();
    tests.push(trial!(
        readme_python_commands_install_the_package,
        Pytest,
        Venv
    ));
    trials::run(tests);
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

fn readme_python_commands_install_the_package() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("readme")))
        .shared_target(&tmp_dir!().cargo_target("readme-cargo"));
    let output = shell.run("python");
    assert!(
        output.contains("members found:   10000 of 10000"),
        "{output}"
    );

    // The package imported is the venv's, and loads the library pip built into it.
    let venv = shell.home.join(".venvs/leveldb-bloom");
    let python = venv.join("bin/python");
    let installed = process::run(shell.command(&python).args([
        "-B",
        "-c",
        "import leveldb_bloom, sys\n\
         from leveldb_bloom import _native\n\
         print(leveldb_bloom.__file__)\n\
         print(_native.library().path == str(_native.PACKAGE_DIR / _native.LIBRARY_FILE))",
    ]));
    let site_packages = installed.lines().next().unwrap_or_default();
    assert!(
        site_packages.starts_with(&venv.display().to_string()) && installed.ends_with("True\n"),
        "the package and its library must be the venv's: {installed}"
    );
    // A wheel for this platform and any Python 3, not pure Python.
    let wheel = process::run(shell.command("sh").arg("-c").arg(format!(
        "cat {}/lib/python3*/site-packages/leveldb_bloom-*.dist-info/WHEEL",
        venv.display()
    )));
    let arch = std::env::consts::ARCH;
    for line in [
        "Root-Is-Purelib: false".to_owned(),
        format!("Tag: py3-none-linux_{arch}"),
    ] {
        assert!(
            wheel.lines().any(|have| have == line),
            "WHEEL lacks `{line}`: {wheel}"
        );
    }

    // The suite, against the installed package, with none of the tests' variables: none skipped.
    process::run(shell.command(venv.join("bin/pip")).args([
        "install",
        "-q",
        "--disable-pip-version-check",
        "pytest",
    ]));
    let tests = shell.checkout.join("bindings/python/tests");
    let summary = process::run(
        shell
            .command(&python)
            .args(["-B", "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rs"])
            .arg(format!(
                "--basetemp={}",
                shell.home.join("pytest").display()
            ))
            .arg(&tests),
    );
    let last = summary
        .lines()
        .rev()
        .find(|line| !line.is_empty())
        .unwrap_or_default();
    assert!(
        last.contains(" passed") && !last.contains("skipped"),
        "pytest in the venv: {last}"
    );
}
