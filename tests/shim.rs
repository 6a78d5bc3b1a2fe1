//! The C++ shim (shim/) in place of leveldb's util/bloom.cc, following docs/SHIM.md: the shim
//! built with CMake; a leveldb program (shim/tests/shim_db.cc) linked with the shim archive ahead
//! of libleveldb.a, linked with libleveldb.a minus bloom.cc.o plus the shim, and run unmodified
//! with the shim preloaded (also with LD_BIND_NOW=1); a C program using leveldb's C API alone
//! (c_tests/with_leveldb/db.c), preloaded and with the archive ahead; and, preloaded, the leveldb
//! users' packages where most users get leveldb: Debian's python3-plyvel, which dlopens the
//! system leveldb privately, and pip's plyvel wheel (shim/tests/plyvel_db.py), whose own leveldb
//! 1.22 has the pre-C++11 std::string, and npm's classic-level (shim/tests/classic_level_db.js),
//! whose prebuilt addon has leveldb 1.20 inside; classic-level is also built from its source with
//! the shim (shim/build-classic-level). Each writes its keys, compacts and closes; every table
//! must be byte for byte what stock leveldb writes. Databases are also read across: written stock
//! and read with the shim, and the reverse. The static link also runs with the shim and the
//! program under AddressSanitizer + UndefinedBehaviorSanitizer. A preload changes nothing where it
//! must not: in a program with leveldb linked in statically, and where it cannot tell which
//! std::string a leveldb has, which it then leaves that leveldb's own policy.
//!
//! The shim keeps no count of its calls; what ran is proven from outside: for a preload, by the
//! dynamic linker's own report of where it bound NewBloomFilterPolicy (LD_DEBUG=bindings), with
//! stock runs as the control, and by what the shim says it did (LEVELDB_BLOOM_SHIM_DEBUG=1); for
//! a static link, by the program's symbols; and by a build whose KeyMayMatch always answers
//! false, with which every read of a database fails.
//!
//! Needs cmake, libleveldb-dev and libsnappy-dev (for the static links), gcc's sanitizer runtimes,
//! python3-plyvel, pip's plyvel wheel (python3-venv and PyPI), and node, npm, npm's registry and
//! Node.js's headers for classic-level; CI requires them.

mod asan;
mod cmake_support;

use std::collections::HashMap;
#[cfg(unix)]
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::{Mutex, OnceLock};

use cmake_support::{cargo_target_dir, cmake_build};
use leveldb_bloom_test_support::c_harness::NATIVE_STATIC_LIBS;
use leveldb_bloom_test_support::docs::UserShell;
use leveldb_bloom_test_support::packages;
use leveldb_bloom_test_support::paths::{root, system_library};
use leveldb_bloom_test_support::process::run;
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tables::assert_same_tables;
use leveldb_bloom_test_support::{capture, tmp_dir, trial, trials, with_leveldb};

fn main() {
    trials::run(vec![
        trial!(readme_shim_commands_run_the_example, Cmake, Leveldb),
        trial!(shim_libraries_define_only_what_they_replace, Cmake, Leveldb),
        trial!(shim_defines_no_exception_type_information, Cmake, Leveldb),
        trial!(an_unused_shim_archive_adds_nothing, Cmake, Leveldb),
        trial!(cxx_api_preloaded_shim_writes_stock_tables, Cmake, Leveldb),
        trial!(c_api_preloaded_shim_writes_stock_tables, Cmake, Leveldb),
        trial!(preloaded_shim_binds_now, Cmake, Leveldb),
        trial!(shim_and_stock_read_each_others_databases, Cmake, Leveldb),
        trial!(a_shim_that_never_matches_fails_every_read, Cmake, Leveldb),
        trial!(
            static_shim_ahead_of_libleveldb_a_writes_stock_tables,
            Cmake,
            Leveldb
        ),
        trial!(
            shim_in_place_of_bloom_cc_writes_stock_tables,
            Cmake,
            Leveldb
        ),
        trial!(c_program_with_the_shim_writes_stock_tables, Cmake, Leveldb),
        trial!(
            shim_built_with_rtti_supports_typeid_and_dynamic_cast,
            Cmake,
            Leveldb
        ),
        #[cfg(unix)]
        trial!(negative_bits_per_key_aborts_with_a_message, Cmake, Leveldb),
        trial!(
            static_shim_under_address_and_undefined_behaviour_sanitizers,
            Asan,
            Cmake,
            Leveldb
        ),
        trial!(
            plyvel_with_the_shim_preloaded_writes_and_reads_stock_databases,
            Cmake,
            Leveldb,
            Plyvel
        ),
        trial!(
            pip_plyvel_wheel_with_the_shim_preloaded_writes_and_reads_stock_databases,
            Cmake,
            Leveldb,
            PlyvelWheel
        ),
        trial!(
            classic_level_with_the_shim_preloaded_writes_and_reads_stock_databases,
            Cmake,
            Leveldb,
            Node,
            ClassicLevel
        ),
        trial!(
            classic_level_built_with_the_shim_writes_and_reads_stock_databases,
            Cmake,
            Leveldb,
            Node,
            ClassicLevel,
            NodeHeaders
        ),
        trial!(
            a_preload_leaves_a_statically_linked_leveldb_alone,
            Cmake,
            Leveldb
        ),
        trial!(
            a_preload_leaves_a_leveldb_of_unknown_string_abi_its_own_policy,
            Cmake,
            Leveldb
        ),
        #[cfg(unix)]
        trial!(a_preload_stops_a_call_no_leveldb_can_answer, Cmake, Leveldb),
    ]);
}

/// leveldb's mangled `leveldb::NewBloomFilterPolicy(int)`.
const NEW_BLOOM_FILTER_POLICY: &str = "_ZN7leveldb20NewBloomFilterPolicyEi";

/// What the core defines for the shim, and nothing else.
const CORE_FUNCTIONS: [&str; 4] = [
    "leveldb_bloom_fill_filter",
    "leveldb_bloom_filter_length",
    "leveldb_bloom_key_may_match",
    "leveldb_bloom_policy_name",
];

/// leveldb's own policy class, which no build with the shim may hold.
const STOCK_POLICY_CLASS: &str = "leveldb::(anonymous namespace)::BloomFilterPolicy";

/// How the dynamic linker's report names Debian's libleveldb (the end of its path).
const SYSTEM_LIBLEVELDB: &str = "libleveldb.so.1d";

/// What the preloaded shim says when it serves a leveldb with each std::string, and when it leaves
/// a leveldb its own policy (shim/leveldb_bloom_preload.cc).
const SHIM_SERVED: &str = ": the shim's policy, for ";
const CXX11_STRING: &str = " (C++11 std::string)";
const COW_STRING: &str = " (pre-C++11 copy-on-write std::string)";
const LEFT_ITS_OWN: &str = ": leveldb's own policy, from ";

/// What the tests share, each built once: the shim's builds, the test program's and what it
/// links, and classic-level's build with the shim.
fn work() -> PathBuf {
    tmp_dir!().program()
}

/// The shim's CMake builds (-DLEVELDB_BLOOM_SHIM=ON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Shim {
    /// Without RTTI, as upstream leveldb's own build is (docs/SHIM.md).
    Plain,
    /// -DLEVELDB_BLOOM_SHIM_RTTI=ON, as Debian's leveldb is built.
    Rtti,
    /// With RTTI, compiled with the sanitizers.
    Sanitized,
    /// The control: KeyMayMatch always answers false (LEVELDB_BLOOM_SHIM_TEST_NO_MATCH).
    NeverMatches,
}

impl Shim {
    /// build/lib, holding libleveldb_bloom_shim.a and .so.
    fn lib_dir(self) -> &'static Path {
        static DIRS: [OnceLock<PathBuf>; 4] = [const { OnceLock::new() }; 4];
        DIRS[self as usize].get_or_init(|| {
            let (folder, rtti, flags) = match self {
                Shim::Plain => ("build", false, &[][..]),
                Shim::Rtti => ("build-rtti", true, &[][..]),
                Shim::Sanitized => ("build-asan", true, asan::FLAGS),
                Shim::NeverMatches => (
                    "build-never-matches",
                    false,
                    &["-DLEVELDB_BLOOM_SHIM_TEST_NO_MATCH"][..],
                ),
            };
            let build = claim(work().join(folder));
            cmake_build(
                &build,
                &[
                    "-DLEVELDB_BLOOM_SHIM=ON",
                    &format!(
                        "-DLEVELDB_BLOOM_SHIM_RTTI={}",
                        if rtti { "ON" } else { "OFF" }
                    ),
                    "-DLEVELDB_BLOOM_BUILD_TESTS=OFF",
                    &format!("-DCMAKE_CXX_FLAGS=-Werror {}", flags.join(" ")),
                ],
            );
            build.join("lib")
        })
    }

    fn archive(self) -> PathBuf {
        self.lib_dir().join("libleveldb_bloom_shim.a")
    }

    fn preload(self) -> PathBuf {
        self.lib_dir().join("libleveldb_bloom_shim.so")
    }
}

/// How the test program is linked to leveldb and the shim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Build {
    /// `-lleveldb`: the user's unmodified program, stock, or with a shim preloaded.
    Dynamic,
    /// The shim archive ahead of libleveldb.a (the program built with the sanitizers for
    /// `Shim::Sanitized`; leveldb and the Rust core as installed and built).
    StaticAhead(Shim),
    /// A copy of libleveldb.a without bloom.cc.o, then the shim archive.
    WithoutBloomCc,
    /// libleveldb.a alone: leveldb inside the program, none of it exported.
    StaticStock,
    /// shim/tests/unknown_abi.cc's library ahead of `-lleveldb`: a NewBloomFilterPolicy from a
    /// leveldb whose std::string the preloaded shim cannot tell.
    UnknownAbi,
}

/// Compiles shim/tests/shim_db.cc as `build` says, once per run.
fn program(build: Build) -> PathBuf {
    static PROGRAMS: Mutex<Option<HashMap<Build, PathBuf>>> = Mutex::new(None);
    let mut programs = PROGRAMS.lock().unwrap_or_else(|e| e.into_inner());
    let programs = programs.get_or_insert_with(HashMap::new);
    if let Some(path) = programs.get(&build) {
        return path.clone();
    }
    let out = claim(
        work().join(
            format!("shim_db-{build:?}")
                .replace('(', "-")
                .replace(')', ""),
        ),
    );
    let mut cmd = Command::new("c++");
    cmd.args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"])
        .arg(root().join("shim/tests/shim_db.cc"));
    link(cmd, build, &out);
    programs.insert(build, out.clone());
    out
}

/// Runs `cmd`, a compiler command with its source, to write `out`, linked with leveldb (and the
/// shim) as `build` says.
fn link(mut cmd: Command, build: Build, out: &Path) {
    cmd.arg("-o").arg(out);
    match build {
        Build::Dynamic => {
            cmd.arg("-lleveldb");
        }
        Build::UnknownAbi => {
            let library = claim(work().join("libunknown_abi.so"));
            run(Command::new("c++")
                .args([
                    "-std=c++17",
                    "-O1",
                    "-shared",
                    "-fPIC",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                ])
                .arg(root().join("shim/tests/unknown_abi.cc"))
                .arg("-o")
                .arg(&library)
                .arg("-lleveldb"));
            cmd.arg(&library)
                .arg(format!("-Wl,-rpath,{}", work().display()))
                .arg("-lleveldb");
        }
        Build::StaticStock => {
            cmd.arg(system_library("libleveldb.a"));
        }
        Build::StaticAhead(shim) => {
            if shim == Shim::Sanitized {
                cmd.args(asan::FLAGS);
            }
            // -u: the shim's member is taken before libleveldb.a is read, so leveldb's own
            // bloom.cc.o is never needed, even when only leveldb's C API names the function.
            cmd.arg(format!("-Wl,-u,{NEW_BLOOM_FILTER_POLICY}"))
                .arg(shim.archive())
                .arg(system_library("libleveldb.a"));
        }
        Build::WithoutBloomCc => {
            let archive = claim(work().join("libleveldb_without_bloom.a"));
            std::fs::copy(system_library("libleveldb.a"), &archive).expect("copy libleveldb.a");
            run(Command::new("ar").arg("d").arg(&archive).arg("bloom.cc.o"));
            cmd.arg(&archive).arg(Shim::Plain.archive());
        }
    }
    // libstdc++ for leveldb's archive when a C compiler links it.
    if !matches!(build, Build::Dynamic | Build::UnknownAbi) {
        cmd.args(["-lsnappy", "-lstdc++", "-pthread"])
            .args(NATIVE_STATIC_LIBS.split_whitespace());
    }
    run(&mut cmd);
}

/// How a program is run: which shim is preloaded, if any, and how symbols are bound.
#[derive(Clone, Copy)]
struct Env {
    preload: Option<Shim>,
    bind_now: bool,
}

const STOCK: Env = Env {
    preload: None,
    bind_now: false,
};
const PRELOADED: Env = Env {
    preload: Some(Shim::Plain),
    bind_now: false,
};

impl Env {
    /// Sets the environment on `cmd`; with LD_DEBUG=bindings, so that its standard error says
    /// where each symbol was bound, and LEVELDB_BLOOM_SHIM_DEBUG=1, so that a preloaded shim says
    /// what it did.
    fn apply(self, cmd: &mut Command) {
        if let Some(shim) = self.preload {
            cmd.env("LD_PRELOAD", shim.preload())
                .env("LEVELDB_BLOOM_SHIM_DEBUG", "1");
        }
        if self.bind_now {
            cmd.env("LD_BIND_NOW", "1");
        }
        cmd.env("LD_DEBUG", "bindings");
    }
}

/// The files that, by the LD_DEBUG=bindings report `loader`, had their references to `symbol`
/// bound, each with the file it was bound to.
fn bindings(loader: &str, symbol: &str) -> Vec<(String, String)> {
    let file = |f: &str| f.split_once(" [").map_or(f, |s| s.0).to_owned();
    loader
        .lines()
        .filter_map(|line| line.split_once("binding file ").map(|s| s.1))
        .filter_map(|rest| rest.split_once(": normal symbol `"))
        .filter(|(_, name)| name.split('\'').next() == Some(symbol))
        .filter_map(|(files, _)| files.split_once(" to "))
        .map(|(from, to)| (file(from), file(to)))
        .collect()
}

/// Requires that references to NewBloomFilterPolicy from the file whose name contains `caller`
/// were bound to the shim when `env` preloads one, and to the system's libleveldb otherwise, by
/// the dynamic linker's report `loader`.
fn assert_bound(loader: &str, caller: &str, env: Env) {
    assert_bound_to(loader, caller, env, SYSTEM_LIBLEVELDB);
}

/// [`assert_bound`], for calls that reach the file whose name contains `stock` without a preload.
/// The preloaded shim's own look-ups (dlsym in the caller's scope) are reported as bindings from
/// the caller too, to the leveldb the call would reach without it: with a preload, the bindings
/// are to the shim (the call's, as the shim never finds itself) and to that leveldb.
fn assert_bound_to(loader: &str, caller: &str, env: Env, stock: &str) {
    let found = bindings(loader, NEW_BLOOM_FILTER_POLICY);
    let targets: Vec<_> = found
        .iter()
        .filter(|(from, _)| from.contains(caller))
        .map(|(_, to)| to.as_str())
        .collect();
    let (expected, bound) = match env.preload {
        Some(shim) => {
            let shim = shim.preload().display().to_string();
            let bound = targets.iter().any(|to| *to == shim)
                && targets.iter().all(|to| *to == shim || to.contains(stock));
            (shim, bound)
        }
        None => {
            let bound = !targets.is_empty() && targets.iter().all(|to| to.contains(stock));
            (stock.to_owned(), bound)
        }
    };
    assert!(
        bound,
        "NewBloomFilterPolicy from {caller}: bound to {targets:?}, expected {expected}; \
         every binding of it: {found:?}"
    );
}

/// Whether `text` names a leveldb library (the shim's own files start with libleveldb_bloom).
fn names_libleveldb(text: &str) -> bool {
    text.contains("libleveldb.") || text.contains("libleveldb-")
}

/// What a preloaded shim said it did (LEVELDB_BLOOM_SHIM_DEBUG=1), a line per call, in a
/// program's standard error.
fn shim_said(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.starts_with("leveldb-bloom: NewBloomFilterPolicy("))
        .collect()
}

/// Requires that the preloaded shim said, for each call, that it served a leveldb with `string`.
fn assert_shim_served(stderr: &str, string: &str) {
    let said = shim_said(stderr);
    assert!(
        !said.is_empty()
            && said
                .iter()
                .all(|line| line.contains(SHIM_SERVED) && line.ends_with(string)),
        "the shim said {said:?}, expected lines ending{string}"
    );
}

/// What a program run printed, and how it ended.
struct Ran {
    status: ExitStatus,
    stdout: String,
    /// The program's own standard error.
    stderr: String,
    /// What the dynamic linker reported on standard error (LD_DEBUG), each line starting with
    /// the process id and a colon.
    loader: String,
}

/// Runs `cmd`, printing its output but not the dynamic linker's report (thousands of lines).
fn run_quietly(cmd: &mut Command) -> Ran {
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} could not start: {e}"));
    let is_loader_line = |line: &&str| {
        line.trim_start()
            .split_once(':')
            .is_some_and(|(pid, _)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()))
    };
    let all_errors = String::from_utf8_lossy(&output.stderr);
    let (loader, own): (Vec<&str>, Vec<&str>) = all_errors.lines().partition(is_loader_line);
    let ran = Ran {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: own.iter().map(|l| format!("{l}\n")).collect(),
        loader: loader.iter().map(|l| format!("{l}\n")).collect(),
    };
    capture::print(&ran.stdout);
    capture::eprint(&ran.stderr);
    ran
}

/// [`run_quietly`], requiring success.
fn run_passing(cmd: &mut Command) -> Ran {
    let ran = run_quietly(cmd);
    assert!(ran.status.success(), "{cmd:?} failed: {}", ran.status);
    ran
}

/// Runs the program with `args` in `env`, requiring its passing summary and, when sanitized, no
/// sanitizer report.
fn run_program(build: Build, args: &[&Path], env: Env) -> Ran {
    let sanitized = build == Build::StaticAhead(Shim::Sanitized);
    run_executable(&program(build), sanitized, args, env)
}

/// [`run_program`] for the executable `exe`, built with the sanitizers if `sanitized`.
fn run_executable(exe: &Path, sanitized: bool, args: &[&Path], env: Env) -> Ran {
    let mut cmd = Command::new(exe);
    cmd.args(args);
    env.apply(&mut cmd);
    if sanitized {
        asan::set_options(&mut cmd, "");
    }
    let ran = run_passing(&mut cmd);
    // Every report stops the program (exit status checked above): this catches a report the
    // options failed to make fatal.
    assert!(
        !ran.stderr.contains("Sanitizer") && !ran.stderr.contains("runtime error"),
        "sanitizer report from {cmd:?}"
    );
    let summary = ran.stdout.lines().last().unwrap_or("");
    assert!(
        summary.ends_with(" 0 failed") && !summary.starts_with("0 passed"),
        "{}",
        ran.stdout
    );
    ran
}

/// A fresh folder for one test's databases, in its trial's folder.
fn dbs(test: &str) -> PathBuf {
    fresh(tmp_dir!().trial().join(test))
}

/// Writes a database with `api` ("cxx" or "c") and requires that NewBloomFilterPolicy was the
/// shim's if `env` preloads one, leveldb's otherwise.
fn write(build: Build, db: &Path, api: &str, env: Env) {
    let ran = run_program(build, &[Path::new("write"), db, Path::new(api)], env);
    if build == Build::Dynamic {
        // leveldb's C API makes the policy inside libleveldb.so, its C++ users in the program.
        let caller = if api == "c" {
            SYSTEM_LIBLEVELDB.to_owned()
        } else {
            program(build).display().to_string()
        };
        assert_bound(&ran.loader, &caller, env);
        if env.preload.is_some() {
            assert_shim_served(&ran.stderr, CXX11_STRING);
        }
    }
}

/// Requires that a statically linked program holds the shim's core and not leveldb's own policy.
fn assert_static_shim(build: Build) {
    assert_holds_the_shim(&program(build));
}

/// The README's "Inside leveldb" commands as a user pastes them: the shim built with RTTI, as
/// Debian's leveldb is; examples/shim_example.cc, which knows nothing of this library, preloaded
/// with it and linked with its archive ahead of libleveldb.a. It must read every key back, and
/// take NewBloomFilterPolicy from the shim's library, or from itself holding the shim's core.
fn readme_shim_commands_run_the_example() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("readme")))
        .env("CARGO_TARGET_DIR", cargo_target_dir());
    let output = shell.run("shim");
    let from: Vec<&str> = output
        .lines()
        .filter_map(|line| line.strip_prefix("NewBloomFilterPolicy from "))
        .collect();
    assert!(
        matches!(from[..], [preloaded, linked]
            if preloaded.ends_with("/build/lib/libleveldb_bloom_shim.so")
                && linked.ends_with("shim_example_static")),
        "where the example's NewBloomFilterPolicy is, preloaded then linked: {output}"
    );
    let read_back = "leveldb.BuiltinBloomFilter2: 10000 of 10000 keys read back";
    assert_eq!(output.matches(read_back).count(), 2, "{output}");
    assert_holds_the_shim(&shell.checkout.join("shim_example_static"));
}

/// [`assert_static_shim`] for the executable `exe`.
fn assert_holds_the_shim(exe: &Path) {
    let symbols = run(Command::new("nm").arg("-C").arg(exe));
    let exe = exe.display();
    assert!(
        symbols.contains(" leveldb_bloom_fill_filter\n"),
        "no core in {exe}"
    );
    assert!(
        !symbols.contains(STOCK_POLICY_CLASS),
        "{exe} holds leveldb's own policy"
    );
}

/// Writes a database through each of `apis` with stock leveldb, and again with the shim linked as
/// `build` (and preloaded as `env` says): the tables must be the same. Returns the folder holding
/// the databases, `stock-API` and `shim-API`.
fn assert_writes_stock_tables(test: &str, build: Build, apis: &[&str], env: Env) -> PathBuf {
    if build != Build::Dynamic {
        assert_static_shim(build);
    }
    let dir = dbs(test);
    for api in apis {
        let (stock, shim) = (
            dir.join(format!("stock-{api}")),
            dir.join(format!("shim-{api}")),
        );
        write(Build::Dynamic, &stock, api, STOCK);
        write(build, &shim, api, env);
        assert_same_tables(&stock, &shim);
    }
    dir
}

/// Runs `shim_db read`: every key found, no absent key found.
fn read(build: Build, db: &Path, env: Env) {
    let ran = run_program(build, &[Path::new("read"), db], env);
    if build == Build::Dynamic {
        assert_bound(&ran.loader, &program(build).display().to_string(), env);
    }
}

/// `nm` of `file` with `args`: each line's symbol name (and, with -C, its demangled form).
fn defined(args: &[&str], file: &Path) -> Vec<String> {
    run(Command::new("nm").args(args).arg(file))
        .lines()
        .filter_map(|line| line.splitn(3, ' ').nth(2).map(str::to_owned))
        .collect()
}

fn shim_libraries_define_only_what_they_replace() {
    let shim = Shim::Plain;
    // The archive: NewBloomFilterPolicy and the core's functions it calls, nothing else global
    // (none of leveldb's C API, none of the standard library's or compiler_builtins' symbols).
    let mut global = defined(&["-g", "--defined-only"], &shim.archive());
    global.sort();
    let mut expected: Vec<_> = CORE_FUNCTIONS.to_vec();
    expected.insert(0, NEW_BLOOM_FILTER_POLICY);
    assert_eq!(global, expected);

    // The preloadable library exports exactly the function it replaces, and needs nothing from
    // leveldb: it names no libleveldb, which it would bring into every process, nor any leveldb
    // symbol, which would have to be found when it loads, before a program dlopens its leveldb.
    let exported = defined(&["-D", "--defined-only"], &shim.preload());
    assert_eq!(exported, [NEW_BLOOM_FILTER_POLICY]);
    let dynamic = cmake_support::dynamic_section(&shim.preload());
    assert!(!names_libleveldb(&dynamic), "{dynamic}");
    let undefined = run(Command::new("nm")
        .args(["-D", "-C", "--undefined-only"])
        .arg(shim.preload()));
    assert!(!undefined.contains("leveldb"), "{undefined}");

    // Preloading reaches C callers too because leveldb's C API calls NewBloomFilterPolicy through
    // the PLT, where the dynamic linker can bind it to the preloaded definition.
    let create_bloom = run(Command::new("objdump")
        .args(["-d", "--disassemble=leveldb_filterpolicy_create_bloom"])
        .arg(system_library("libleveldb.so")));
    let target = format!("<{NEW_BLOOM_FILTER_POLICY}@plt>");
    assert!(
        create_bloom
            .lines()
            .any(|l| l.contains("call") && l.contains(&target)),
        "leveldb_filterpolicy_create_bloom must call {target}"
    );
}

fn shim_defines_no_exception_type_information() {
    for shim in [Shim::Plain, Shim::Rtti] {
        let symbols = defined(&["-C", "--defined-only"], &shim.archive());
        let std_type_info: Vec<_> = symbols
            .iter()
            .filter(|s| {
                s.starts_with("typeinfo for std::") || s.starts_with("typeinfo name for std::")
            })
            .collect();
        assert!(std_type_info.is_empty(), "{shim:?}: {std_type_info:?}");
    }
}

fn an_unused_shim_archive_adds_nothing() {
    let dir = tmp_dir!().trial();
    let object = dir.join("no_filter.o");
    run(Command::new("c++")
        .args(["-std=c++17", "-O2", "-c"])
        .arg(root().join("shim/tests/no_filter.cc"))
        .arg("-o")
        .arg(&object));
    let link = |name: &str, archive: Option<PathBuf>| {
        let out = dir.join(name);
        run(Command::new("c++")
            .arg(&object)
            .arg("-o")
            .arg(&out)
            .args(archive)
            .arg(system_library("libleveldb.a"))
            .args(["-lsnappy", "-pthread"])
            .args(NATIVE_STATIC_LIBS.split_whitespace()));
        std::fs::read(&out).expect("program")
    };
    let without = link("no_filter-without", None);
    let with = link("no_filter-with", Some(Shim::Plain.archive()));
    assert!(
        with == without,
        "linking the shim's archive changed the program"
    );
}

fn cxx_api_preloaded_shim_writes_stock_tables() {
    assert_writes_stock_tables("cxx-preload", Build::Dynamic, &["cxx"], PRELOADED);
}

fn c_api_preloaded_shim_writes_stock_tables() {
    assert_writes_stock_tables("c-preload", Build::Dynamic, &["c"], PRELOADED);
}

fn preloaded_shim_binds_now() {
    let env = Env {
        bind_now: true,
        ..PRELOADED
    };
    assert_writes_stock_tables("bind-now", Build::Dynamic, &["cxx", "c"], env);
    // A program that has nothing to do with leveldb: every symbol of the shim resolves at load.
    let ran = run_passing(
        Command::new("true")
            .env("LD_PRELOAD", Shim::Plain.preload())
            .env("LD_BIND_NOW", "1"),
    );
    assert!(ran.stderr.is_empty(), "{}", ran.stderr);
}

fn shim_and_stock_read_each_others_databases() {
    let dir = dbs("cross-read");
    let (stock, shim) = (dir.join("stock"), dir.join("shim"));
    write(Build::Dynamic, &stock, "cxx", STOCK);
    write(Build::Dynamic, &shim, "cxx", PRELOADED);
    read(Build::Dynamic, &stock, PRELOADED);
    read(Build::Dynamic, &shim, STOCK);
}

fn a_shim_that_never_matches_fails_every_read() {
    // The control for the tests above: with the shim's KeyMayMatch broken, reading a stock
    // database finds none of its keys, preloaded or linked, so the shim's is the one that runs.
    let dir = dbs("never-matches");
    let stock = dir.join("stock");
    write(Build::Dynamic, &stock, "cxx", STOCK);
    let preloaded = Env {
        preload: Some(Shim::NeverMatches),
        bind_now: false,
    };
    for (build, env) in [
        (Build::Dynamic, preloaded),
        (Build::StaticAhead(Shim::NeverMatches), STOCK),
    ] {
        let mut cmd = Command::new(program(build));
        cmd.arg("read").arg(&stock);
        env.apply(&mut cmd);
        let ran = run_quietly(&mut cmd);
        assert!(
            ran.stdout.contains("present keys found: 0 of "),
            "{build:?} found keys: {}",
            ran.stdout
        );
    }
}

fn static_shim_ahead_of_libleveldb_a_writes_stock_tables() {
    let build = Build::StaticAhead(Shim::Plain);
    assert_writes_stock_tables("static-ahead", build, &["cxx", "c"], STOCK);
}

fn shim_in_place_of_bloom_cc_writes_stock_tables() {
    assert_writes_stock_tables(
        "without-bloom-cc",
        Build::WithoutBloomCc,
        &["cxx", "c"],
        STOCK,
    );
}

/// c_tests/with_leveldb/db.c with leveldb's C API alone (-DLEVELDB_ONLY), compiled and linked
/// by cc as docs/WITH_LEVELDB.md shows: with -lleveldb, for a
/// preload; with the shim's archive ahead of libleveldb.a. Built once per run each.
fn c_program(build: Build) -> PathBuf {
    let out = claim(work().join(format!("db-c-{build:?}").replace('(', "-").replace(')', "")));
    let mut cmd = Command::new("cc");
    cmd.args([
        "-std=c11",
        "-O1",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-D_GNU_SOURCE",
    ])
    .arg("-DLEVELDB_ONLY")
    .arg(root().join(with_leveldb::SOURCE));
    link(cmd, build, &out);
    out
}

fn c_program_with_the_shim_writes_stock_tables() {
    // A C program that uses leveldb's C API alone: leveldb's leveldb_filterpolicy_create_bloom
    // calls NewBloomFilterPolicy, the shim's when preloaded or linked ahead of leveldb.
    let dir = dbs("c-program");
    let dynamic = c_program(Build::Dynamic);
    let stock = dir.join("stock");
    let ran = run_executable(&dynamic, false, &[&stock], STOCK);
    assert_bound(&ran.loader, SYSTEM_LIBLEVELDB, STOCK);
    let preloaded = dir.join("preloaded");
    let ran = run_executable(&dynamic, false, &[&preloaded], PRELOADED);
    assert_bound(&ran.loader, SYSTEM_LIBLEVELDB, PRELOADED);
    assert_shim_served(&ran.stderr, CXX11_STRING);
    assert_same_tables(&stock, &preloaded);
    let linked = dir.join("static");
    let static_ahead = c_program(Build::StaticAhead(Shim::Plain));
    assert_holds_the_shim(&static_ahead);
    run_executable(&static_ahead, false, &[&linked], STOCK);
    assert_same_tables(&stock, &linked);
}

fn shim_built_with_rtti_supports_typeid_and_dynamic_cast() {
    // Debian's leveldb has RTTI: its own policy answers typeid and dynamic_cast, and so does the
    // shim's archive built with LEVELDB_BLOOM_SHIM_RTTI, and the preload library, always.
    let rtti = Path::new("rtti");
    run_program(Build::Dynamic, &[rtti], STOCK);
    let ran = run_program(Build::Dynamic, &[rtti], PRELOADED);
    let caller = program(Build::Dynamic).display().to_string();
    assert_bound(&ran.loader, &caller, PRELOADED);
    let build = Build::StaticAhead(Shim::Rtti);
    assert_static_shim(build);
    run_program(build, &[rtti], STOCK);
}

/// An abort is a signal on unix (the only platforms the shim builds on).
#[cfg(unix)]
fn negative_bits_per_key_aborts_with_a_message() {
    let ran = run_quietly(Command::new(program(Build::StaticAhead(Shim::Plain))).arg("negative"));
    assert_eq!(ran.status.signal(), Some(libc::SIGABRT), "{}", ran.status);
    assert!(
        ran.stderr
            .contains("leveldb-bloom: no bloom filter for a negative bits_per_key"),
        "{}",
        ran.stderr
    );
}

fn static_shim_under_address_and_undefined_behaviour_sanitizers() {
    let build = Build::StaticAhead(Shim::Sanitized);
    let dir = assert_writes_stock_tables("sanitized-static-ahead", build, &["cxx", "c"], STOCK);
    read(build, &dir.join("stock-cxx"), STOCK);
}

/// A leveldb user's package, run by its script in shim/tests, which writes or reads a database
/// (`write DIR`, `read DIR`) and prints "passed" last.
#[derive(Clone, Copy)]
enum Client {
    /// Debian's python3-plyvel, with Debian's python3 (it is installed for that one, not for
    /// another python3 first on PATH): the system leveldb, dlopened privately.
    DebianPlyvel,
    /// pip's plyvel wheel, in a venv: its own leveldb 1.22, with the pre-C++11 std::string.
    PlyvelWheel,
    /// npm's classic-level: leveldb 1.20 inside its prebuilt addon, which exports it.
    ClassicLevel,
    /// classic-level built from its source with the shim in place of bloom.cc.
    ClassicLevelWithShim,
}

impl Client {
    fn command(self, args: &[&Path]) -> Command {
        let script = |name: &str| root().join("shim/tests").join(name);
        let node = |package: &Path| {
            let mut cmd = Command::new("node");
            cmd.arg(script("classic_level_db.js")).arg(package);
            cmd
        };
        let mut cmd = match self {
            Client::DebianPlyvel => Command::new("/usr/bin/python3"),
            Client::PlyvelWheel => Command::new(plyvel_venv().join("bin/python")),
            Client::ClassicLevel => node(&classic_level().join("node_modules/classic-level")),
            Client::ClassicLevelWithShim => node(classic_level_with_shim()),
        };
        if matches!(self, Client::DebianPlyvel | Client::PlyvelWheel) {
            cmd.arg(script("plyvel_db.py"));
        }
        cmd.args(args);
        cmd
    }

    /// The file that calls NewBloomFilterPolicy, which the dynamic linker binds from there, and
    /// the leveldb it binds it to without a preload (parts of their paths).
    fn caller_and_leveldb(self) -> (&'static str, &'static str) {
        match self {
            Client::DebianPlyvel => ("/plyvel/_plyvel", SYSTEM_LIBLEVELDB),
            Client::PlyvelWheel => ("/plyvel/_plyvel", "/plyvel.libs/libleveldb-"),
            Client::ClassicLevel => {
                let addon = "/prebuilds/linux-x64/classic-level.node";
                (addon, addon)
            }
            Client::ClassicLevelWithShim => {
                let addon = "/build/Release/classic_level.node";
                (addon, addon)
            }
        }
    }

    /// How the preloaded shim names the std::string of this client's leveldb.
    fn string(self) -> &'static str {
        match self {
            Client::PlyvelWheel => COW_STRING,
            _ => CXX11_STRING,
        }
    }

    /// Runs the client's script with `args` in `env`.
    fn run(self, args: &[&Path], env: Env) -> Ran {
        let mut cmd = self.command(args);
        env.apply(&mut cmd);
        run_quietly(&mut cmd)
    }

    /// [`Client::run`], requiring that it passed, that NewBloomFilterPolicy was bound as `env`
    /// asks, and, when preloaded, that the shim served the client's leveldb.
    fn run_passing(self, args: &[&Path], env: Env) {
        let ran = self.run(args, env);
        assert!(
            ran.status.success(),
            "{:?} failed: {}",
            self.command(args),
            ran.status
        );
        assert_eq!(ran.stdout.lines().last(), Some("passed"), "{}", ran.stdout);
        let (caller, leveldb) = self.caller_and_leveldb();
        assert_bound_to(&ran.loader, caller, env, leveldb);
        if env.preload.is_some() {
            assert_shim_served(&ran.stderr, self.string());
        }
    }
}

/// The venv holding pip's plyvel wheel (the PlyvelWheel tool).
fn plyvel_venv() -> &'static Path {
    packages::plyvel_venv().expect("pip's plyvel wheel")
}

/// The folder holding npm's classic-level, installed and packed (the ClassicLevel tool).
fn classic_level() -> &'static Path {
    packages::classic_level().expect("npm's classic-level")
}

/// classic-level's package built from its source with the shim (shim/build-classic-level), once
/// per run. Its core's cargo build is the one every CMake build of the tests shares.
fn classic_level_with_shim() -> &'static Path {
    static PACKAGE: OnceLock<PathBuf> = OnceLock::new();
    PACKAGE.get_or_init(|| {
        let build = claim(work().join("classic-level-build"));
        run(Command::new(root().join("shim/build-classic-level"))
            .arg(classic_level().join("package"))
            .arg(&build)
            .env(
                "LEVELDB_BLOOM_CARGO_TARGET_DIR",
                cmake_support::cargo_target_dir(),
            ));
        build.join("package")
    })
}

const WRITE: &str = "write";
const READ: &str = "read";

/// Writes a database through `client` stock, and with the shim preloaded (also with
/// LD_BIND_NOW=1): the tables must be the same, and each database must read back through the
/// other. Reading with the never-matching shim preloaded must find no key: the shim's code ran.
fn assert_preloaded_client_writes_stock_tables(client: Client, test: &str) {
    let dir = dbs(test);
    let (write, read) = (Path::new(WRITE), Path::new(READ));
    let stock = dir.join("stock");
    client.run_passing(&[write, &stock], STOCK);
    let bind_now = Env {
        bind_now: true,
        ..PRELOADED
    };
    for (name, env) in [("shim", PRELOADED), ("shim-bind-now", bind_now)] {
        let shim = dir.join(name);
        client.run_passing(&[write, &shim], env);
        assert_same_tables(&stock, &shim);
        client.run_passing(&[read, &stock], env);
        client.run_passing(&[read, &shim], STOCK);
    }
    let never_matches = Env {
        preload: Some(Shim::NeverMatches),
        bind_now: false,
    };
    let ran = client.run(&[read, &stock], never_matches);
    assert!(
        ran.stdout.contains("present keys found: 0 of "),
        "read with the never-matching shim: {}",
        ran.stdout
    );
}

fn plyvel_with_the_shim_preloaded_writes_and_reads_stock_databases() {
    assert_preloaded_client_writes_stock_tables(Client::DebianPlyvel, "plyvel");
}

fn pip_plyvel_wheel_with_the_shim_preloaded_writes_and_reads_stock_databases() {
    // The wheel's leveldb has the pre-C++11 std::string: the shim built for it serves it.
    assert_preloaded_client_writes_stock_tables(Client::PlyvelWheel, "plyvel-wheel");
}

fn classic_level_with_the_shim_preloaded_writes_and_reads_stock_databases() {
    // The addon calls the NewBloomFilterPolicy it exports through its PLT: the shim serves it.
    assert_preloaded_client_writes_stock_tables(Client::ClassicLevel, "classic-level");
}

fn classic_level_built_with_the_shim_writes_and_reads_stock_databases() {
    // The addon holds the core, and not leveldb's own policy.
    let addon = classic_level_with_shim().join("build/Release/classic_level.node");
    let symbols = run(Command::new("nm").arg("-C").arg(&addon));
    assert!(
        symbols.contains(" leveldb_bloom_fill_filter\n"),
        "no core in {addon:?}"
    );
    assert!(
        !symbols.contains(STOCK_POLICY_CLASS),
        "{addon:?} holds leveldb's own policy"
    );

    // The prebuilt addon, a stock build of the same source, is the reference.
    let dir = dbs("classic-level-source");
    let (write, read) = (Path::new(WRITE), Path::new(READ));
    let (stock, shim) = (dir.join("stock"), dir.join("shim"));
    Client::ClassicLevel.run_passing(&[write, &stock], STOCK);
    Client::ClassicLevelWithShim.run_passing(&[write, &shim], STOCK);
    assert_same_tables(&stock, &shim);
    Client::ClassicLevelWithShim.run_passing(&[read, &stock], STOCK);
    Client::ClassicLevel.run_passing(&[read, &shim], STOCK);
}

fn a_preload_leaves_a_statically_linked_leveldb_alone() {
    // leveldb inside the program calls its own NewBloomFilterPolicy directly: the preloaded shim
    // is never called, brings no leveldb in, and the program runs as it does without it.
    let build = Build::StaticStock;
    let dir = dbs("static-stock");
    for api in ["cxx", "c"] {
        let (stock, preloaded) = (dir.join(format!("stock-{api}")), dir.join(api));
        write(Build::Dynamic, &stock, api, STOCK);
        let ran = run_program(
            build,
            &[Path::new(WRITE), &preloaded, Path::new(api)],
            PRELOADED,
        );
        assert!(!names_libleveldb(&ran.loader), "a libleveldb was loaded");
        let bound = bindings(&ran.loader, NEW_BLOOM_FILTER_POLICY);
        assert!(
            bound.is_empty(),
            "NewBloomFilterPolicy was bound: {bound:?}"
        );
        assert!(shim_said(&ran.stderr).is_empty(), "{}", ran.stderr);
        assert_same_tables(&stock, &preloaded);
        read(build, &preloaded, PRELOADED);
    }
}

fn a_preload_leaves_a_leveldb_of_unknown_string_abi_its_own_policy() {
    // The program's NewBloomFilterPolicy comes from a library that defines no leveldb::DB::Open:
    // the shim cannot tell its std::string, so it hands the call on, and the program gets that
    // library's policy, as it does without the preload.
    let build = Build::UnknownAbi;
    let name = Path::new("name");
    let own = "policy name: leveldb-bloom.test.UnknownAbi\n";
    let stock = run_program(build, &[name], STOCK);
    assert!(stock.stdout.contains(own), "{}", stock.stdout);
    let ran = run_program(build, &[name], PRELOADED);
    assert!(ran.stdout.contains(own), "{}", ran.stdout);
    let caller = program(build).display().to_string();
    assert_bound_to(&ran.loader, &caller, PRELOADED, "/libunknown_abi.so");
    let said = shim_said(&ran.stderr);
    assert!(
        said.len() == 1 && said[0].contains(LEFT_ITS_OWN) && said[0].contains("libunknown_abi.so"),
        "the shim said {said:?}"
    );
}

/// The shim stops a program calling it with no leveldb in the process: an abort, a signal on unix.
#[cfg(unix)]
fn a_preload_stops_a_call_no_leveldb_can_answer() {
    // Only through a weak reference can a program without leveldb call NewBloomFilterPolicy, and
    // only with the shim preloaded: no leveldb says which std::string the policy is for, so the
    // shim stops the program, saying why, rather than guess.
    let program = tmp_dir!().trial().join("weak_caller");
    run(Command::new("c++")
        .args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"])
        .arg(root().join("shim/tests/weak_caller.cc"))
        .arg("-o")
        .arg(&program));
    let stock = run_passing(&mut Command::new(&program));
    assert_eq!(stock.stdout, "no leveldb\n");
    let mut cmd = Command::new(&program);
    PRELOADED.apply(&mut cmd);
    let ran = run_quietly(&mut cmd);
    assert_eq!(ran.status.signal(), Some(libc::SIGABRT), "{}", ran.status);
    assert!(
        ran.stderr.contains(
            "leveldb-bloom: NewBloomFilterPolicy called from the program, which has no leveldb"
        ),
        "{}",
        ran.stderr
    );
}
