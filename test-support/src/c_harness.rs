//! Builds the C and C++ test programs in c_tests/ against the library cargo just built and runs
//! them, on each path the CPU has, requiring their "N passed, 0 failed" line and the path forced.
//! Shared by tests/c_tests.rs (plain builds, linked statically and dynamically),
//! tests/sanitizers.rs (ASan + UBSan, TSan, valgrind) and benches/vs_leveldb.rs (the benchmark
//! against leveldb, timed). Each build's output is claimed (crate::scratch): built twice in one
//! process, it fails.

use std::collections::HashMap;
use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::{lib_dir, root};
use crate::scratch::TmpDir;
use crate::{isa, process, scratch};

/// The Rust target the tests are built for, and the C test programs with them.
pub const TARGET: &str = env!("LEVELDB_BLOOM_TEST_TARGET");

/// What the static library needs from the system on [`TARGET`] (Rust's standard library,
/// mostly): the list `--print native-static-libs` gives less `-lgcc_s`, pinned per target in
/// cmake/native-static-libs/ and checked by `native_static_libs_are_pinned`. CMake, the
/// pkg-config file and docs/PLATFORMS.md use the same lists.
pub const NATIVE_STATIC_LIBS: &str = include_str!(concat!(
    "../../cmake/native-static-libs/",
    env!("LEVELDB_BLOOM_TEST_TARGET"),
    ".txt"
));

/// How a test program is linked to the library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link {
    /// With libleveldb_bloom.a and the system libraries it needs.
    Static,
    /// With libleveldb_bloom.so, found through the program's rpath.
    Shared,
}

/// One test program and how to run it.
#[derive(Clone)]
pub struct Program {
    /// Relative to the repository.
    pub source: &'static str,
    /// Its command line's arguments.
    pub args: Vec<String>,
    /// Linked after the library, e.g. `-lleveldb`.
    pub libs: &'static [&'static str],
    /// Uses the system leveldb's headers or library.
    pub needs_leveldb: bool,
    /// Uses leveldb's internal headers, from the source tree LEVELDB_BLOOM_LEVELDB_SRC names.
    pub needs_leveldb_src: bool,
    /// Limits its own address space (RLIMIT_AS) to make malloc fail, which AddressSanitizer's
    /// terabytes of shadow mappings cannot live with.
    pub limits_address_space: bool,
    /// Replaces `operator new`, which valgrind replaces with its own in every object, the
    /// program's too: its replacement never runs there.
    pub replaces_operator_new: bool,
}

impl Program {
    fn new(source: &'static str) -> Self {
        Program {
            source,
            args: Vec::new(),
            libs: &[],
            needs_leveldb: false,
            needs_leveldb_src: false,
            limits_address_space: false,
            replaces_operator_new: false,
        }
    }
}

/// How much work the programs that take a size do: less where they run slower (valgrind).
#[derive(Clone, Copy)]
pub struct Budget {
    /// Random cases of the live differential test.
    pub differential_cases: u32,
    /// Rounds each of the 8 threads runs in test_threads.
    pub thread_rounds: u32,
}

/// The plain runs' budget.
pub const FULL: Budget = Budget {
    differential_cases: 2000,
    thread_rounds: 50,
};

/// Every test program in c_tests/, and the two benchmarks' checks, each run on every path
/// ([`run_on`]). The sanitizer and valgrind runs take theirs from this list, so a program added
/// here (the shim's tests, say) runs under each of them too.
pub fn programs(budget: Budget) -> Vec<Program> {
    // A fresh seed each run (CI sets one) widens what the differential test explores.
    let seed = std::env::var("LEVELDB_BLOOM_DIFF_SEED").unwrap_or_else(|_| "20261122".into());
    let vs_leveldb = |options: &[&str]| Program {
        args: ["--smoke"]
            .iter()
            .chain(options)
            .map(|s| s.to_string())
            .collect(),
        libs: &["-lleveldb"],
        needs_leveldb: true,
        ..Program::new("benches/vs_leveldb.cc")
    };
    let shared_library = lib_dir().join(format!("{DLL_PREFIX}leveldb_bloom{DLL_SUFFIX}"));
    let shared_library = shared_library.display().to_string();
    let single_query_ab = |options: &[&str]| Program {
        args: options
            .iter()
            .copied()
            .chain(["--keys", "2000", "--queries", "4096"])
            .chain([shared_library.as_str(), shared_library.as_str()])
            .map(String::from)
            .collect(),
        libs: &["-ldl"],
        ..Program::new("benches/single_query_ab.c")
    };
    vec![
        Program {
            args: vec![root().join("vectors").display().to_string()],
            ..Program::new("c_tests/test_vectors.c")
        },
        Program {
            args: vec![root().join("vectors").display().to_string()],
            ..Program::new("c_tests/test_batch.c")
        },
        Program {
            args: vec![root().join("vectors").display().to_string()],
            ..Program::new("c_tests/test_filterblock.c")
        },
        Program::new("c_tests/test_core_abi.c"),
        Program::new("c_tests/test_bad_input.c"),
        Program::new("c_tests/test_custom_policy.c"),
        Program {
            args: vec![budget.thread_rounds.to_string()],
            ..Program::new("c_tests/test_threads.c")
        },
        // The same with leveldb's C API loaded: objects of leveldb's, looked behind by every call.
        Program {
            args: vec![budget.thread_rounds.to_string(), "libleveldb.so".into()],
            needs_leveldb: true,
            ..Program::new("c_tests/test_threads.c")
        },
        Program {
            limits_address_space: true,
            ..Program::new("c_tests/test_out_of_memory.c")
        },
        Program {
            needs_leveldb: true,
            ..Program::new("c_tests/test_with_leveldb_header.c")
        },
        // It loads leveldb's shared library itself, with dlopen.
        Program {
            args: vec![root().join("vectors").display().to_string()],
            needs_leveldb: true,
            ..Program::new("c_tests/test_leveldb_objects.c")
        },
        // It loads leveldb's shared library itself, with dlopen, and replaces operator new.
        Program {
            needs_leveldb: true,
            replaces_operator_new: true,
            ..Program::new("c_tests/test_leveldb_constructor.cc")
        },
        Program {
            args: vec![budget.differential_cases.to_string(), seed],
            libs: &["-lleveldb"],
            needs_leveldb: true,
            ..Program::new("c_tests/differential_leveldb.cc")
        },
        // The benchmark against leveldb at tiny sizes: its byte-for-byte checks, nothing timed;
        // with keys of 16 to 24 bytes, then all of 7; then all of 16 in strings of their own.
        vs_leveldb(&[]),
        vs_leveldb(&["--key-len=7"]),
        vs_leveldb(&["--key-len=16", "--heap-keys"]),
        // Ours by leveldb's names too, through objects of leveldb's: the block and 1M rows.
        vs_leveldb(&["--leveldb-names", "block", "1M"]),
        // The filter block benchmark against leveldb's own classes at tiny sizes: its byte and
        // answer checks, nothing timed.
        Program {
            args: vec!["--smoke".into()],
            libs: &["-l:libleveldb.a", "-lsnappy"],
            needs_leveldb: true,
            needs_leveldb_src: true,
            ..Program::new("benches/vs_leveldb_filterblock.cc")
        },
        // The single-query A/B tool at tiny sizes, the built library against itself: its answer
        // check and its cleanup, nothing timed; with hot keys of 16 to 24 bytes, then streaming
        // keys of one length, under 8 bytes; then batch queries in chunks of an odd size, hot
        // and streaming.
        single_query_ab(&[]),
        single_query_ab(&["--stream", "--key-len", "5"]),
        single_query_ab(&["--batch", "--chunk", "1500"]),
        single_query_ab(&["--batch", "--stream", "--chunk", "2000"]),
    ]
}

/// The program built from `source`, with `budget`'s arguments (the first set, where the list
/// runs it more than once).
pub fn program(source: &str, budget: Budget) -> Program {
    programs(budget)
        .into_iter()
        .find(|p| p.source == source)
        .unwrap_or_else(|| panic!("{source} is not in the program list"))
}

/// The compiler for `source` and its language standard: `$CC` (or `cc`) and C11, `$CXX` (or
/// `c++`) and C++17. Set them to build for another target: CC=musl-gcc for tests built for musl.
fn compiler_for(source: &Path) -> (String, &'static str) {
    let (variable, default, standard) = if source.extension().is_some_and(|ext| ext == "cc") {
        ("CXX", "c++", "-std=c++17")
    } else {
        ("CC", "cc", "-std=c11")
    };
    let compiler = std::env::var(variable).unwrap_or_else(|_| default.to_owned());
    (compiler, standard)
}

/// The compiler for `source` (repository-relative), with warnings as errors, `flags`
/// (sanitizers, defines) and the include folders of the header and of c_tests/: what every test
/// program is compiled with, its source given, nothing linked yet.
pub fn compiler(source: &str, flags: &[&str]) -> Command {
    let source = root().join(source);
    let (compiler, standard) = compiler_for(&source);
    let mut cmd = Command::new(compiler);
    cmd.args(["-O1", "-g", "-Wall", "-Wextra", "-Werror", "-pthread"])
        .args(flags)
        .arg(standard)
        .arg("-D_GNU_SOURCE")
        .arg(format!("-I{}", root().join("include").display()))
        .arg(format!("-I{}", root().join("c_tests").display()))
        .arg(source);
    cmd
}

/// The executable `program` linked as `link` is built to in `out_dir`, named after its source,
/// its link and `flavour`, and claimed.
fn output_for(program: &Program, link: Link, flavour: &str, out_dir: &Path) -> PathBuf {
    let stem = Path::new(program.source)
        .file_stem()
        .unwrap()
        .to_string_lossy();
    scratch::claim(out_dir.join(format!("{stem}-{link:?}{flavour}")))
}

/// Compiles `program` with warnings as errors and `flags` (sanitizers), links it with the
/// library and the program's libraries, and returns the executable, written in `out_dir` (the
/// trial's folder, `tmp_dir!().trial()`) under a name of its own, which it claims.
pub fn build(program: &Program, link: Link, flags: &[&str], out_dir: &Path) -> PathBuf {
    let flavour: String = flags
        .iter()
        .map(|f| f.replace(['-', '=', ','], "_"))
        .collect();
    let out = output_for(program, link, &flavour, out_dir);
    let mut cmd = compiler(program.source, flags);
    if program.needs_leveldb_src {
        let src = std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC")
            .map(PathBuf::from)
            .expect("LEVELDB_BLOOM_LEVELDB_SRC: a leveldb source tree");
        cmd.arg(format!("-I{}", src.display()))
            .arg(format!("-I{}", src.join("include").display()));
    }
    cmd.arg("-o").arg(&out);
    link_with(&mut cmd, &lib_dir(), "leveldb_bloom", program, link);
    process::run(&mut cmd);
    out
}

/// Links `cmd` with the library `lib<name>` in `dir` as `link` says (shared with an rpath to
/// `dir`), and the program's libraries after it.
fn link_with(cmd: &mut Command, dir: &Path, name: &str, program: &Program, link: Link) {
    // Anything else linked (leveldb) goes after us, so our symbols win where names are shared.
    match link {
        Link::Static => {
            cmd.arg(dir.join(format!("lib{name}.a")))
                .args(program.libs)
                .args(NATIVE_STATIC_LIBS.split_whitespace());
        }
        Link::Shared => {
            cmd.arg(format!("-L{}", dir.display()))
                .arg(format!("-l{name}"))
                .arg(format!("-Wl,-rpath,{}", dir.display()))
                .args(program.libs);
        }
    }
}

/// The soname CMake gives the build without leveldb's names: its major version's.
const PREFIXED_SONAME: &str = concat!(
    "libleveldb_bloom_prefixed.so.",
    env!("LEVELDB_BLOOM_VERSION_MAJOR")
);

/// The build without leveldb's names, as CMake makes and installs it (cargo's
/// `--no-default-features`): `libleveldb_bloom_prefixed.a`, and `.so` with its soname, in a
/// folder of the test program's own, built once per test process (cargo's target folder, which
/// cargo locks, is shared by every test program).
pub fn prefixed_library(tmp_dir: &TmpDir) -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let target = tmp_dir.cargo_target("prefixed-cargo");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        process::run(
            Command::new(cargo)
                .args(["rustc", "--locked", "--lib", "--no-default-features"])
                .args(["--crate-type", "cdylib,staticlib", "--target", TARGET])
                .arg("--target-dir")
                .arg(&target)
                .args(["--", "-C"])
                .arg(format!("link-arg=-Wl,-soname,{PREFIXED_SONAME}"))
                .current_dir(root()),
        );
        let built_dir = target.join(TARGET).join("debug");
        let dir = scratch::claim(scratch::fresh(tmp_dir.program().join("prefixed-lib")));
        for (built, name) in [
            ("libleveldb_bloom.a", "libleveldb_bloom_prefixed.a"),
            ("libleveldb_bloom.so", PREFIXED_SONAME),
            ("libleveldb_bloom.so", "libleveldb_bloom_prefixed.so"),
        ] {
            std::fs::copy(built_dir.join(built), dir.join(name)).expect("copy");
        }
        dir
    })
}

/// [`build`] against the build without leveldb's names ([`prefixed_library`] of `tmp_dir`), the
/// program calling this library by its own (c_tests/own_names.h, with LEVELDB_BLOOM_PREFIXED).
pub fn build_prefixed(program: &Program, link: Link, tmp_dir: &TmpDir, out_dir: &Path) -> PathBuf {
    let out = output_for(program, link, "-prefixed", out_dir);
    let lib_dir = prefixed_library(tmp_dir);
    let mut cmd = compiler(program.source, &["-DLEVELDB_BLOOM_PREFIXED"]);
    cmd.arg("-o").arg(&out);
    link_with(&mut cmd, lib_dir, "leveldb_bloom_prefixed", program, link);
    process::run(&mut cmd);
    out
}

/// Each of `programs` with its executable, [`build`] once per source (the list runs some
/// programs more than once, with other arguments).
pub fn build_each(
    programs: Vec<Program>,
    link: Link,
    flags: &[&str],
    out_dir: &Path,
) -> Vec<(Program, PathBuf)> {
    let mut built: HashMap<&str, PathBuf> = HashMap::new();
    programs
        .into_iter()
        .map(|program| {
            let exe = built
                .entry(program.source)
                .or_insert_with(|| build(&program, link, flags, out_dir))
                .clone();
            (program, exe)
        })
        .collect()
}

/// Runs `cmd` (a test program, possibly under a tool) on `path`, with LEVELDB_BLOOM_ISA set:
/// it must pass and report that path.
pub fn run_on(path: &str, mut cmd: Command) {
    cmd.env(isa::OVERRIDE, path);
    isa::check_reported(&run(cmd), path);
}

/// Runs `cmd` (a test program, possibly under a tool) and requires it to exit 0 and report no
/// failure; returns what it printed.
pub fn run(mut cmd: Command) -> String {
    let output = process::output(&mut cmd);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.ends_with(" failed"))
        .unwrap_or("");
    assert!(
        output.status.success(),
        "{cmd:?} failed ({}): {summary}",
        output.status
    );
    assert!(
        summary.ends_with(" 0 failed") && !summary.starts_with("0 passed"),
        "no passing summary from {cmd:?}"
    );
    stdout.into_owned()
}

/// The command that runs `exe` with the program's arguments.
pub fn command(program: &Program, exe: &Path) -> Command {
    let mut cmd = Command::new(exe);
    cmd.args(&program.args)
        // cargo's LD_LIBRARY_PATH names target/<profile>, where `cargo build` may have left an
        // older copy of the library: the programs must load the one their rpath names.
        .env_remove("LD_LIBRARY_PATH");
    cmd
}
