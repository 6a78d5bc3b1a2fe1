//! Compiles the C and C++ programs in c_tests/ against the library cargo just built, links each
//! statically and dynamically, runs it on each path the CPU has and requires its "N passed,
//! 0 failed" line and the path it was given.

use std::path::Path;
use std::process::Command;

use leveldb_bloom_test_support::c_harness::{
    FULL, Link, NATIVE_STATIC_LIBS, TARGET, build, command, program, programs, run, run_on,
};
use leveldb_bloom_test_support::isa;
use leveldb_bloom_test_support::paths::{lib_dir, root};
use leveldb_bloom_test_support::readme::code_blocks;
use leveldb_bloom_test_support::tools::pinned_targets;
use leveldb_bloom_test_support::{trial, trials};

fn main() {
    trials::run(vec![
        trial!(vectors_through_c_abi),
        trial!(filter_blocks_through_c_abi),
        trial!(core_abi_bad_input),
        trial!(batch_query_through_c_abi),
        trial!(bad_input_through_c_abi),
        trial!(custom_policies_through_c_abi),
        trial!(threads_share_one_policy),
        trial!(differential_against_leveldb, Leveldb),
        trial!(out_of_memory_through_c_abi),
        trial!(one_file_includes_leveldb_c_h_and_our_header, Leveldb),
        trial!(header_compiles_as_c_and_cpp),
        trial!(readme_c_examples_compile_and_run),
        // Linux: LD_LIBRARY_PATH and readelf.
        #[cfg(target_os = "linux")]
        trial!(readme_link_line_from_the_build_tree),
        trial!(committed_vectors_regenerate_from_leveldb, Leveldb),
        trial!(benchmark_against_leveldb_checks_pass, Leveldb),
        trial!(
            filter_block_benchmark_against_leveldb_checks_pass,
            Leveldb,
            LeveldbSource
        ),
        trial!(benchmark_runs_every_path_in_turn, Leveldb),
        trial!(single_query_ab_tool_checks_pass),
        trial!(native_static_libs_are_pinned),
        trial!(native_static_libs_are_pinned_for_every_target, RustTargets),
    ]);
}

/// Builds the program from `source` linked statically and dynamically, and runs both on each
/// path this CPU has, with each set of arguments the program list gives it.
fn build_and_run_both(source: &str) {
    let runs: Vec<_> = programs(FULL)
        .into_iter()
        .filter(|program| program.source == source)
        .collect();
    assert!(!runs.is_empty(), "{source} is not in the program list");
    for program in runs {
        for link in [Link::Static, Link::Shared] {
            let exe = build(&program, link, &[], Path::new(env!("CARGO_TARGET_TMPDIR")));
            for path in isa::up_to(leveldb_bloom::isa()) {
                run_on(path, command(&program, &exe));
            }
        }
    }
}

fn vectors_through_c_abi() {
    build_and_run_both("c_tests/test_vectors.c");
}

/// Filter blocks: leveldb's vectors through the C ABI, and every bad-input row.
fn filter_blocks_through_c_abi() {
    build_and_run_both("c_tests/test_filterblock.c");
}

fn core_abi_bad_input() {
    build_and_run_both("c_tests/test_core_abi.c");
}

fn batch_query_through_c_abi() {
    build_and_run_both("c_tests/test_batch.c");
}

fn bad_input_through_c_abi() {
    build_and_run_both("c_tests/test_bad_input.c");
}

fn custom_policies_through_c_abi() {
    build_and_run_both("c_tests/test_custom_policy.c");
}

fn threads_share_one_policy() {
    build_and_run_both("c_tests/test_threads.c");
}

/// Live comparison with the system leveldb on random inputs, for a fixed number of cases. The
/// seed is fixed unless LEVELDB_BLOOM_DIFF_SEED is set (CI sets a fresh one each run).
fn differential_against_leveldb() {
    build_and_run_both("c_tests/differential_leveldb.cc");
}

/// Real allocation failure (address space limited): NULL, never an abort.
fn out_of_memory_through_c_abi() {
    build_and_run_both("c_tests/test_out_of_memory.c");
}

fn one_file_includes_leveldb_c_h_and_our_header() {
    build_and_run_both("c_tests/test_with_leveldb_header.c");
}

/// The header compiles on its own as C89 and later C, and as C++98 and later, with every warning
/// an error.
fn header_compiles_as_c_and_cpp() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    for (compiler, std, file) in [
        ("cc", "-std=c89", "header_only.c"),
        ("cc", "-std=c11", "header_only.c"),
        ("c++", "-std=c++98", "header_only.cc"),
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
fn readme_c_examples_compile_and_run() {
    let blocks = code_blocks("c");
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
        let output = Command::new(&exe)
            .env_remove("LD_LIBRARY_PATH")
            .output()
            .expect("example runs");
        assert!(
            output.status.success(),
            "README C example {i} fails: {output:?}"
        );
    }
}

/// The README's link line from the build tree, run as written: its C example compiled with
/// `-Iinclude -Ltarget/release -lleveldb_bloom` and started with `LD_LIBRARY_PATH=target/release`,
/// in a folder whose include/ is the repository's and whose target/release holds the libraries
/// this `cargo test` built (so the block's `cargo build` line is left out).
#[cfg(target_os = "linux")]
fn readme_link_line_from_the_build_tree() {
    let block = code_blocks("sh")
        .into_iter()
        .find(|b| b.contains("-Ltarget/release"))
        .expect("the README has a ```sh block linking with -Ltarget/release");
    let script: Vec<&str> = block
        .lines()
        .filter(|line| !line.starts_with("cargo build"))
        .collect();
    let example = code_blocks("c")
        .into_iter()
        .next()
        .expect("the README has a C example");

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("readme-link-line");
    let _ = std::fs::remove_dir_all(&dir);
    let release = dir.join("target/release");
    std::fs::create_dir_all(&release).unwrap();
    std::os::unix::fs::symlink(root().join("include"), dir.join("include")).unwrap();
    for library in ["libleveldb_bloom.so", "libleveldb_bloom.a"] {
        std::os::unix::fs::symlink(lib_dir().join(library), release.join(library)).unwrap();
    }
    std::fs::write(dir.join("app.c"), example).unwrap();

    let output = Command::new("sh")
        .arg("-ec")
        .arg(script.join("\n"))
        .current_dir(&dir)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("sh starts");
    assert!(
        output.status.success(),
        "the README's link line fails: {output:?}"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("banana may match: 1"), "{stdout}");
    let dynamic = Command::new("readelf")
        .args(["-d", "app"])
        .current_dir(&dir)
        .output()
        .expect("readelf starts");
    assert!(
        String::from_utf8_lossy(&dynamic.stdout).contains("[libleveldb_bloom.so]"),
        "the program must load libleveldb_bloom.so"
    );
}

/// The committed vectors are exactly what leveldb produces through tools/gen_vectors.cc now.
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

/// The benchmark against leveldb (`cargo bench --bench vs_leveldb`) at tiny sizes, once: its
/// byte-for-byte checks of every filter and answer must pass. Nothing is timed here.
fn benchmark_against_leveldb_checks_pass() {
    build_and_run_both("benches/vs_leveldb.cc");
}

/// The filter block benchmark against leveldb's own FilterBlockBuilder and FilterBlockReader
/// (`cargo bench --bench vs_leveldb_filterblock`) at tiny sizes, once: its byte-for-byte checks
/// of the block and its answer checks must pass. Nothing is timed here.
fn filter_block_benchmark_against_leveldb_checks_pass() {
    build_and_run_both("benches/vs_leveldb_filterblock.cc");
}

/// The benchmark's --isa=all: it runs each path this CPU has in turn, slowest first.
fn benchmark_runs_every_path_in_turn() {
    let mut program = program("benches/vs_leveldb.cc", FULL);
    program.args.push("--isa=all".into());
    let exe = build(
        &program,
        Link::Static,
        &[],
        Path::new(env!("CARGO_TARGET_TMPDIR")),
    );
    let stdout = run(command(&program, &exe));
    let reported = isa::reported(&stdout);
    let mut paths = reported.clone();
    paths.dedup();
    assert_eq!(paths, isa::up_to(leveldb_bloom::isa()), "{reported:?}");
}

/// The single-query A/B tool (benches/single_query_ab.c) at tiny sizes, the library against
/// itself, with hot keys and streaming ones, single and batch queries: its answer check and its
/// cleanup must pass. Nothing is timed here.
fn single_query_ab_tool_checks_pass() {
    build_and_run_both("benches/single_query_ab.c");
}

/// The system libraries the static library needs on the target these tests are built for are
/// exactly what rustc says.
fn native_static_libs_are_pinned() {
    check_pinned(TARGET, NATIVE_STATIC_LIBS);
}

/// The same for every other target with a pinned list (cmake/native-static-libs/): every target
/// CI builds, for CMake's package and pkg-config file there.
fn native_static_libs_are_pinned_for_every_target() {
    for target in pinned_targets().iter().filter(|target| *target != TARGET) {
        let file = root().join(format!("cmake/native-static-libs/{target}.txt"));
        check_pinned(
            target,
            &std::fs::read_to_string(file).expect("the pinned list"),
        );
    }
}

/// `pinned` is what rustc's `--print native-static-libs` says for a build of the library for
/// `target` (cargo builds into a folder of its own: the test's own target folder is locked), and
/// docs/PLATFORMS.md states it.
fn check_pinned(target: &str, pinned: &str) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["rustc", "--locked", "--lib", "--crate-type", "staticlib"])
        .args(["--target", target, "--target-dir"])
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
    let pinned = pinned.trim();
    assert_eq!(
        printed, pinned,
        "{target}: update cmake/native-static-libs/{target}.txt and docs/PLATFORMS.md"
    );
    let platforms = std::fs::read_to_string(root().join("docs/PLATFORMS.md")).expect("PLATFORMS");
    assert!(
        platforms.contains(&format!("`{pinned}`")),
        "docs/PLATFORMS.md must state `{pinned}` for {target}"
    );
}
