//! Compiles the C and C++ programs in c_tests/ against the library cargo just built, links each
//! statically and dynamically, runs it and requires its "N passed, 0 failed" line.

mod paths;

use std::path::{Path, PathBuf};
use std::process::Command;

use paths::{lib_dir, root};

/// What the static library needs from the system (Rust's standard library, mostly): the list
/// `--print native-static-libs` gives, pinned by `native_static_libs_are_pinned`. CMake, the
/// pkg-config file and the README use the same list.
const NATIVE_STATIC_LIBS: &str = include_str!("../cmake/native-static-libs.txt");

#[derive(Clone, Copy, Debug)]
enum Link {
    Static,
    Shared,
}

/// A folder holding `libleveldb_bloom.so.0` (the soname, which programs linked with the shared
/// library ask for) pointing to cargo's `libleveldb_bloom.so`: the programs' rpath.
fn soname_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("soname");
    std::fs::create_dir_all(&dir).expect("soname folder");
    let soname = format!("libleveldb_bloom.so.{}", env!("CARGO_PKG_VERSION_MAJOR"));
    // Several tests may get here at once: each makes its own link and renames it into place.
    let thread = std::thread::current().id();
    let tmp = dir.join(format!("{soname}.{}.{thread:?}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(lib_dir().join("libleveldb_bloom.so"), &tmp).expect("symlink");
    std::fs::rename(&tmp, dir.join(soname)).expect("soname link");
    dir
}

fn compiler_for(source: &Path) -> &'static str {
    if source.extension().is_some_and(|ext| ext == "cc") {
        "c++"
    } else {
        "cc"
    }
}

/// Compiles `source` (relative to the repository) with warnings as errors and links it with the
/// library and `extra_libs`, returning the executable.
fn build(source: &str, link: Link, extra_libs: &[&str]) -> PathBuf {
    let source = root().join(source);
    let stem = source.file_stem().unwrap().to_string_lossy();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{stem}-{link:?}"));
    let compiler = compiler_for(&source);
    let mut cmd = Command::new(compiler);
    cmd.args(["-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread"])
        .arg(if compiler == "cc" {
            "-std=c11"
        } else {
            "-std=c++17"
        })
        .arg("-D_GNU_SOURCE")
        .arg(format!("-I{}", root().join("include").display()))
        .arg(format!("-I{}", root().join("c_tests").display()))
        .arg(&source)
        .arg("-o")
        .arg(&out);
    let lib_dir = lib_dir();
    // Anything else linked (leveldb) goes after us, so our symbols win where names are shared.
    match link {
        Link::Static => {
            cmd.arg(lib_dir.join("libleveldb_bloom.a"))
                .args(extra_libs)
                .args(NATIVE_STATIC_LIBS.split_whitespace());
        }
        Link::Shared => {
            cmd.arg(format!("-L{}", lib_dir.display()))
                .arg("-lleveldb_bloom")
                .arg(format!("-Wl,-rpath,{}", soname_dir().display()))
                .args(extra_libs);
        }
    }
    let status = cmd
        .status()
        .unwrap_or_else(|e| panic!("{compiler} could not start: {e}"));
    assert!(
        status.success(),
        "compiling {} failed: {cmd:?}",
        source.display()
    );
    out
}

/// Runs a test program and requires it to exit 0 and report no failure.
fn run(exe: &Path, args: &[&str]) {
    let output = Command::new(exe)
        .args(args)
        // cargo's LD_LIBRARY_PATH names target/<profile>, where `cargo build` may have left an
        // older copy of the library: the programs must load the one their rpath names.
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("test program starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.ends_with(" failed"))
        .unwrap_or("");
    assert!(
        output.status.success(),
        "{} failed ({}): {summary}",
        exe.display(),
        output.status
    );
    assert!(
        summary.ends_with(" 0 failed") && !summary.starts_with("0 passed"),
        "no passing summary"
    );
}

fn build_and_run_both(source: &str, args: &[&str]) {
    for link in [Link::Static, Link::Shared] {
        run(&build(source, link, &[]), args);
    }
}

#[test]
fn vectors_through_c_abi() {
    let vectors = root().join("vectors");
    build_and_run_both("c_tests/test_vectors.c", &[vectors.to_str().unwrap()]);
}

#[test]
fn core_abi_bad_input() {
    build_and_run_both("c_tests/test_core_abi.c", &[]);
}

#[test]
fn bad_input_through_c_abi() {
    build_and_run_both("c_tests/test_bad_input.c", &[]);
}

#[test]
fn custom_policies_through_c_abi() {
    build_and_run_both("c_tests/test_custom_policy.c", &[]);
}

#[test]
fn threads_share_one_policy() {
    build_and_run_both("c_tests/test_threads.c", &[]);
}

/// Live comparison with the system leveldb on random inputs, for a fixed number of cases. The
/// seed is fixed unless LEVELDB_BLOOM_DIFF_SEED is set (CI sets a fresh one each run).
#[test]
#[cfg_attr(not(has_leveldb), ignore = "libleveldb-dev is not installed")]
fn differential_against_leveldb() {
    let seed = std::env::var("LEVELDB_BLOOM_DIFF_SEED").unwrap_or_else(|_| "20261122".into());
    for link in [Link::Static, Link::Shared] {
        run(
            &build("c_tests/differential_leveldb.cc", link, &["-lleveldb"]),
            &["2000", &seed],
        );
    }
}

#[test]
#[cfg_attr(not(has_leveldb), ignore = "libleveldb-dev is not installed")]
fn one_file_includes_leveldb_c_h_and_our_header() {
    build_and_run_both("c_tests/test_with_leveldb_header.c", &[]);
}

/// The header compiles on its own as C and as C++ with every warning an error.
#[test]
fn header_compiles_as_c_and_cpp() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (compiler, std, file) in [
        ("cc", "-std=c11", "header_only.c"),
        ("c++", "-std=c++11", "header_only.cc"),
    ] {
        let source = dir.join(file);
        std::fs::write(
            &source,
            "#include \"leveldb_bloom.h\"\n#include \"leveldb_bloom.h\"\n",
        )
        .unwrap();
        let status = Command::new(compiler)
            .args([
                std,
                "-Wall",
                "-Wextra",
                "-Werror",
                "-pedantic",
                "-fsyntax-only",
            ])
            .arg(format!("-I{}", root().join("include").display()))
            .arg(&source)
            .status()
            .expect("compiler starts");
        assert!(
            status.success(),
            "{compiler} {std} rejects include/leveldb_bloom.h"
        );
    }
}

/// Every ```c block of the README is a complete program: it must compile and run.
#[test]
fn readme_c_examples_compile_and_run() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```c\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    assert!(!blocks.is_empty(), "the README has no C example");
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (i, block) in blocks.iter().enumerate() {
        let source = dir.join(format!("readme_example_{i}.c"));
        std::fs::write(&source, block).unwrap();
        let exe = dir.join(format!("readme_example_{i}"));
        let status = Command::new("cc")
            .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-I{}", root().join("include").display()))
            .arg(&source)
            .arg(lib_dir().join("libleveldb_bloom.a"))
            .args(NATIVE_STATIC_LIBS.split_whitespace())
            .arg("-o")
            .arg(&exe)
            .status()
            .expect("cc starts");
        assert!(status.success(), "README C example {i} does not compile");
        let output = Command::new(&exe).output().expect("example runs");
        assert!(
            output.status.success(),
            "README C example {i} fails: {output:?}"
        );
    }
}

/// The committed vectors are exactly what leveldb produces through tools/gen_vectors.cc now.
#[test]
#[cfg_attr(not(has_leveldb), ignore = "libleveldb-dev is not installed")]
fn committed_vectors_regenerate_from_leveldb() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regenerated-vectors");
    std::fs::create_dir_all(&dir).unwrap();
    let generator = dir.join("gen_vectors");
    let status = Command::new("c++")
        .args(["-std=c++17", "-O2", "-Wall", "-Wextra", "-Werror"])
        .arg(root().join("tools/gen_vectors.cc"))
        .arg("-o")
        .arg(&generator)
        .arg("-lleveldb")
        .status()
        .expect("c++ starts");
    assert!(status.success(), "tools/gen_vectors.cc does not compile");
    assert!(
        Command::new(&generator)
            .arg(&dir)
            .status()
            .unwrap()
            .success(),
        "gen_vectors failed"
    );
    for file in ["build.txt", "match.txt"] {
        let committed = std::fs::read(root().join("vectors").join(file)).unwrap();
        let regenerated = std::fs::read(dir.join(file)).unwrap();
        assert!(
            committed == regenerated,
            "vectors/{file} differs from what leveldb generates now"
        );
    }
}

#[test]
fn batch_query_through_c_abi() {
    let vectors = root().join("vectors");
    build_and_run_both("c_tests/test_batch.c", &[vectors.to_str().unwrap()]);
}

/// The benchmark against leveldb (`cargo bench --bench vs_leveldb`) at tiny sizes, once: its
/// byte-for-byte checks of every filter and answer must pass. Nothing is timed here.
#[test]
#[cfg_attr(not(has_leveldb), ignore = "libleveldb-dev is not installed")]
fn benchmark_against_leveldb_checks_pass() {
    run(
        &build("benches/vs_leveldb.cc", Link::Static, &["-lleveldb"]),
        &["--smoke"],
    );
}

/// The system libraries the static library needs are exactly what rustc says, and the README
/// states them. cargo builds into a folder of its own: the test's own target folder is locked.
#[test]
fn native_static_libs_are_pinned() {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "rustc",
            "--locked",
            "--lib",
            "--crate-type",
            "staticlib",
            "--target-dir",
        ])
        .arg(Path::new(env!("CARGO_TARGET_TMPDIR")).join("native-static-libs"))
        .args(["--", "--print", "native-static-libs"])
        .current_dir(root())
        .output()
        .expect("cargo starts");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "cargo rustc failed:\n{stderr}");
    let printed = stderr
        .lines()
        .find_map(|line| line.strip_prefix("note: native-static-libs: "))
        .unwrap_or_else(|| panic!("no native-static-libs note in:\n{stderr}"));
    let pinned = NATIVE_STATIC_LIBS.trim();
    assert_eq!(
        printed, pinned,
        "update cmake/native-static-libs.txt and the README"
    );
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README");
    assert!(readme.contains(pinned), "the README must state `{pinned}`");
}
