//! Compiles the C and C++ programs in c_tests/ against the library cargo just built, links each
//! statically and dynamically, runs it and requires its "N passed, 0 failed" line.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What Rust's standard library needs from the system when linked statically (see README).
const NATIVE_STATIC_LIBS: &[&str] = &["-lgcc_s", "-lutil", "-lrt", "-lpthread", "-lm", "-ldl", "-lc"];

#[derive(Clone, Copy, Debug)]
enum Link {
    Static,
    Shared,
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// target/<profile>, where cargo leaves libleveldb_bloom.a and .so: this test runs from its deps/.
fn lib_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf()
}

fn compiler_for(source: &Path) -> &'static str {
    if source.extension().is_some_and(|ext| ext == "cc") { "c++" } else { "cc" }
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
        .arg(if compiler == "cc" { "-std=c11" } else { "-std=c++17" })
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
            cmd.arg(lib_dir.join("libleveldb_bloom.a")).args(extra_libs).args(NATIVE_STATIC_LIBS);
        }
        Link::Shared => {
            cmd.arg(format!("-L{}", lib_dir.display()))
                .arg("-lleveldb_bloom")
                .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
                .args(extra_libs);
        }
    }
    let status = cmd.status().unwrap_or_else(|e| panic!("{compiler} could not start: {e}"));
    assert!(status.success(), "compiling {} failed: {cmd:?}", source.display());
    out
}

/// Runs a test program and requires it to exit 0 and report no failure.
fn run(exe: &Path, args: &[&str]) {
    let output = Command::new(exe).args(args).output().expect("test program starts");
    let stdout = String::from_utf8_lossy(&output.stdout);
    print!("{stdout}");
    eprint!("{}", String::from_utf8_lossy(&output.stderr));
    let summary = stdout.lines().rev().find(|l| l.ends_with(" failed")).unwrap_or("");
    assert!(output.status.success(), "{} failed ({}): {summary}", exe.display(), output.status);
    assert!(summary.ends_with(" 0 failed") && !summary.starts_with("0 passed"), "no passing summary");
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
