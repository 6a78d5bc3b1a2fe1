//! The CMake flow a C/C++ user follows, end to end, as the README's "From C" shows it:
//! configure, build and ctest this project and run its quickstart; install it to a temporary
//! prefix; build the downstream project in examples/cmake-consumer against that install with the
//! shared and the static target, and plain C with pkg-config, shared and static; run all four
//! programs and check with readelf which library each one needs.
//!
//! Needs cmake (looked for when the test runs; CI sets LEVELDB_BLOOM_REQUIRE_CMAKE=1 so it cannot
//! be skipped).

mod cmake_support;

use std::path::Path;
use std::process::Command;

use cmake_support::{cmake_build, dynamic_section};
use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::run;
use leveldb_bloom_test_support::scratch::fresh;
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{tmp_dir, trial, trials};

fn main() {
    trials::run(vec![trial!(
        configure_build_ctest_install_and_consume,
        Cmake
    )]);
}

const SONAME: &str = concat!("libleveldb_bloom.so.", env!("CARGO_PKG_VERSION_MAJOR"));

/// A shell command line, for the pkg-config builds, which need `$(...)` as users type them.
fn sh(script: &str, dir: &Path, prefix: &Path) -> String {
    run(Command::new("sh")
        .args(["-ec", script])
        .current_dir(dir)
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")))
}

fn needs_our_library(program: &Path) -> bool {
    dynamic_section(program).contains(&format!("Shared library: [{SONAME}]"))
}

/// Runs a consumer program and requires its line saying every key was found.
fn run_consumer(program: &Path) {
    let stdout = run(&mut Command::new(program));
    assert!(
        stdout.contains("3 of 3 keys found"),
        "{}: {stdout}",
        program.display()
    );
}

/// The ctest names this project must register: `<program>-static` and `<program>-shared` for
/// every program in c_tests/ (those using leveldb only when leveldb is installed).
fn expected_ctest_names() -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root().join("c_tests")).expect("c_tests/") {
        let path = entry.expect("c_tests entry").path();
        if !path
            .extension()
            .is_some_and(|ext| ext == "c" || ext == "cc")
        {
            continue;
        }
        let uses_leveldb = std::fs::read_to_string(&path)
            .expect("test source")
            .lines()
            .any(|line| line.starts_with("#include <leveldb/"));
        if uses_leveldb && !Tool::Leveldb.is_present() {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy();
        names.extend([format!("{stem}-static"), format!("{stem}-shared")]);
    }
    names.sort();
    names
}

fn configure_build_ctest_install_and_consume() {
    let work = tmp_dir!().trial();
    let build = work.join("build");
    // Fresh every run.
    let prefix = fresh(work.join("prefix"));
    let consumer = fresh(work.join("consumer"));

    // This project: configure, build, test; the README's main job, the C quickstart, too.
    cmake_build(&build, &[]);
    let quickstart = run(Command::new("cmake")
        .arg("--build")
        .arg(&build)
        .args(["--target", "run_quickstart"]));
    assert!(
        quickstart.contains("members found:   10000 of 10000"),
        "{quickstart}"
    );
    run(Command::new("ctest")
        .arg("--test-dir")
        .arg(&build)
        .arg("--output-on-failure"));
    let listed = run(Command::new("ctest")
        .arg("--test-dir")
        .arg(&build)
        .arg("-N"));
    let mut registered: Vec<String> = listed
        .lines()
        .filter_map(|line| {
            // "  Test  #1: name", padded to the width of the largest number.
            let numbered = line.trim_start().strip_prefix("Test")?.trim_start();
            numbered.strip_prefix('#')?.split_once(": ")
        })
        .map(|(_, name)| name.trim().to_owned())
        .collect();
    registered.sort();
    assert_eq!(
        registered,
        expected_ctest_names(),
        "ctest must run every program in c_tests/"
    );

    // Install, with the versioned soname.
    run(Command::new("cmake")
        .arg("--install")
        .arg(&build)
        .arg("--prefix")
        .arg(&prefix));
    let lib = prefix.join("lib");
    let real = format!("libleveldb_bloom.so.{}", env!("CARGO_PKG_VERSION"));
    assert!(
        dynamic_section(&lib.join(&real)).contains(&format!("Library soname: [{SONAME}]")),
        "the installed library must carry the soname {SONAME}"
    );
    for (link, target) in [(SONAME, real.as_str()), ("libleveldb_bloom.so", SONAME)] {
        let found = std::fs::read_link(lib.join(link)).expect("installed symlink");
        assert_eq!(found, Path::new(target), "{link} must point to {target}");
    }
    for file in [
        "include/leveldb_bloom.h",
        "lib/libleveldb_bloom.a",
        "lib/pkgconfig/leveldb_bloom.pc",
        "lib/cmake/leveldb_bloom/leveldb_bloomConfig.cmake",
        "lib/cmake/leveldb_bloom/leveldb_bloomConfigVersion.cmake",
    ] {
        assert!(prefix.join(file).is_file(), "{file} must be installed");
    }

    // 1 and 2: find_package with the shared and the static target.
    let consumer_build = consumer.join("build");
    run(Command::new("cmake")
        .arg("-S")
        .arg(root().join("examples/cmake-consumer"))
        .arg("-B")
        .arg(&consumer_build)
        .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display())));
    run(Command::new("cmake").arg("--build").arg(&consumer_build));
    let (cmake_shared, cmake_static) = (
        consumer_build.join("consumer_shared"),
        consumer_build.join("consumer_static"),
    );

    // pkg-config's flags name the install's folders as they are, with nothing to normalize, so
    // they can go into a program's rpath.
    let flags = sh(
        "pkg-config --cflags --libs leveldb_bloom",
        &consumer,
        &prefix,
    );
    let expected = format!(
        "-I{} -L{} -lleveldb_bloom",
        prefix.join("include").display(),
        lib.display()
    );
    assert_eq!(flags.trim(), expected, "pkg-config's flags");
    let libdir = sh(
        "pkg-config --variable=libdir leveldb_bloom",
        &consumer,
        &prefix,
    );
    assert_eq!(Path::new(libdir.trim()), lib, "pkg-config's libdir");

    // 3: plain pkg-config, shared, then static (the archive, then its Libs.private).
    let main_c = root().join("examples/cmake-consumer/main.c");
    let main_c = main_c.display();
    sh(
        &format!(
            "cc {main_c} $(pkg-config --cflags --libs leveldb_bloom) \
             -Wl,-rpath,\"$(pkg-config --variable=libdir leveldb_bloom)\" -o app-shared"
        ),
        &consumer,
        &prefix,
    );
    sh(
        &format!(
            "cc {main_c} $(pkg-config --cflags leveldb_bloom) -Wl,--as-needed \
             -Wl,-Bstatic $(pkg-config --libs leveldb_bloom) -Wl,-Bdynamic \
             $(pkg-config --libs --static leveldb_bloom) -o app-static"
        ),
        &consumer,
        &prefix,
    );
    let (pc_shared, pc_static) = (consumer.join("app-shared"), consumer.join("app-static"));

    for program in [&cmake_shared, &cmake_static, &pc_shared, &pc_static] {
        run_consumer(program);
    }
    for program in [&cmake_shared, &pc_shared] {
        assert!(
            needs_our_library(program),
            "{} must load {SONAME}",
            program.display()
        );
    }
    for program in [&cmake_static, &pc_static] {
        assert!(
            !needs_our_library(program),
            "{} must not load {SONAME}",
            program.display()
        );
    }
}
