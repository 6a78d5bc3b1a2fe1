//! The C++ shim (shim/) in place of leveldb's util/bloom.cc, against the system leveldb, following
//! the README's "Replacing bloom.cc in your leveldb build" command by command: the shim built with
//! CMake; a leveldb program (shim/tests/shim_db.cc) linked with the shim archive ahead of
//! libleveldb.a, linked with libleveldb.a minus bloom.cc.o plus the shim, and run unmodified with
//! the shim preloaded. Each writes 120,000 keys, compacts and closes; every table must be byte for
//! byte what stock leveldb writes, and the shim's counters prove it did the work. Databases are
//! also read across: written stock and read with the shim, and the reverse. The static link also
//! runs with the shim and the program under AddressSanitizer + UndefinedBehaviorSanitizer.
//!
//! Needs cmake, libleveldb-dev and libsnappy-dev (for the static links), and gcc's sanitizer
//! runtimes; CI requires them.

mod asan;
mod cmake_support;
#[allow(dead_code)] // lib_dir: for the tests that link what cargo builds
mod paths;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use cmake_support::{cmake_build, run, run_with_errors};
use paths::root;

/// leveldb's mangled `leveldb::NewBloomFilterPolicy(int)`.
const NEW_BLOOM_FILTER_POLICY: &str = "_ZN7leveldb20NewBloomFilterPolicyEi";

/// What a filter block is recorded under in a table's metaindex.
const FILTER_META_KEY: &[u8] = b"filter.leveldb.BuiltinBloomFilter2";

fn work() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("shim-flow")
}

/// build/lib of a CMake build with -DLEVELDB_BLOOM_SHIM=ON: libleveldb_bloom_shim.a and .so,
/// the shim compiled with the sanitizers when `sanitized`.
fn shim_lib_dir(sanitized: bool) -> &'static Path {
    static DIRS: [OnceLock<PathBuf>; 2] = [OnceLock::new(), OnceLock::new()];
    DIRS[usize::from(sanitized)].get_or_init(|| {
        let (folder, flags) = if sanitized {
            ("build-asan", asan::FLAGS)
        } else {
            ("build", &[][..])
        };
        let build = work().join(folder);
        cmake_build(
            &build,
            &[
                "-DLEVELDB_BLOOM_SHIM=ON",
                "-DLEVELDB_BLOOM_BUILD_TESTS=OFF",
                &format!("-DCMAKE_CXX_FLAGS=-Werror {}", flags.join(" ")),
            ],
        );
        build.join("lib")
    })
}

/// Where the compiler finds a library file, as `c++ -print-file-name` says.
fn library_path(name: &str) -> PathBuf {
    let path = run(Command::new("c++").arg(format!("-print-file-name={name}")));
    PathBuf::from(path.trim())
}

/// What the static library needs from the system (cmake/native-static-libs.txt).
fn native_static_libs() -> Vec<String> {
    let list = std::fs::read_to_string(root().join("cmake/native-static-libs.txt")).expect("list");
    list.split_whitespace().map(str::to_owned).collect()
}

/// How the test program is linked to leveldb and the shim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Build {
    /// `-lleveldb`: the user's unmodified program, stock, or with the shim preloaded.
    Dynamic,
    /// The shim archive ahead of libleveldb.a.
    StaticAhead,
    /// libleveldb.a without bloom.cc.o, then the shim archive: what leveldb's own build gives
    /// once util/bloom.cc is replaced by the shim.
    WithoutBloomCc,
    /// As `StaticAhead`, the shim and the program built with AddressSanitizer +
    /// UndefinedBehaviorSanitizer (leveldb and the Rust core as installed and built).
    SanitizedStaticAhead,
}

impl Build {
    fn sanitized(self) -> bool {
        self == Build::SanitizedStaticAhead
    }
}

/// Compiles shim/tests/shim_db.cc as `build` says, once per run.
fn program(build: Build) -> &'static Path {
    static PROGRAMS: [OnceLock<PathBuf>; 4] = [const { OnceLock::new() }; 4];
    PROGRAMS[build as usize].get_or_init(|| {
        let out = work().join(format!("shim_db-{build:?}"));
        let mut cmd = Command::new("c++");
        cmd.args(["-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror"])
            .arg(format!("-I{}", root().join("shim").display()))
            .arg(root().join("shim/tests/shim_db.cc"))
            .arg("-o")
            .arg(&out);
        if build.sanitized() {
            // UBSan's vptr check reads the type info of an object's dynamic type, and the shim's
            // policy has none: it is built without RTTI, as leveldb is by default (shim/). The
            // check would report every call the program makes on it; every other check stays.
            cmd.args(asan::FLAGS).arg("-fno-sanitize=vptr");
        }
        let shim_archive = shim_lib_dir(build.sanitized()).join("libleveldb_bloom_shim.a");
        match build {
            Build::Dynamic => {
                cmd.arg("-lleveldb");
            }
            Build::StaticAhead | Build::SanitizedStaticAhead => {
                // -u: the shim's member is taken before libleveldb.a is read, so leveldb's own
                // bloom.cc.o is never needed, even when only leveldb's C API names the function.
                cmd.arg(format!("-Wl,-u,{NEW_BLOOM_FILTER_POLICY}"))
                    .arg(&shim_archive)
                    .arg(library_path("libleveldb.a"));
            }
            Build::WithoutBloomCc => {
                let archive = work().join("libleveldb_without_bloom.a");
                std::fs::copy(library_path("libleveldb.a"), &archive).expect("copy libleveldb.a");
                run(Command::new("ar").arg("d").arg(&archive).arg("bloom.cc.o"));
                cmd.arg(&archive).arg(&shim_archive);
            }
        }
        if build != Build::Dynamic {
            cmd.args(["-lsnappy", "-pthread"])
                .args(native_static_libs());
        }
        run(&mut cmd);
        out
    })
}

/// What a run of the program said about the shim: its counters, or `None` if it was not in use.
#[derive(Debug)]
struct ShimUse {
    filters_built: u64,
    keys_tested: u64,
}

/// Runs the program (with the shim preloaded when `preload`), requiring its passing summary, and
/// no sanitizer report when it is sanitized.
fn run_program(build: Build, args: &[&Path], preload: bool) -> Option<ShimUse> {
    let mut cmd = Command::new(program(build));
    cmd.args(args);
    if preload {
        cmd.env(
            "LD_PRELOAD",
            shim_lib_dir(false).join("libleveldb_bloom_shim.so"),
        );
    }
    if build.sanitized() {
        asan::set_options(&mut cmd, "");
    }
    let (stdout, stderr) = run_with_errors(&mut cmd);
    // Every report stops the program (exit status checked above): this catches a report the
    // options failed to make fatal.
    assert!(
        !stderr.contains("Sanitizer") && !stderr.contains("runtime error"),
        "sanitizer report from {cmd:?}"
    );
    let summary = stdout.lines().last().unwrap_or("");
    assert!(
        summary.ends_with(" 0 failed") && !summary.starts_with("0 passed"),
        "{stdout}"
    );
    let shim = stdout
        .lines()
        .find_map(|l| l.strip_prefix("shim: "))
        .expect("shim line");
    let counts: Vec<u64> = shim
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    match counts[..] {
        [filters_built, keys_tested] => Some(ShimUse {
            filters_built,
            keys_tested,
        }),
        _ => {
            assert_eq!(shim, "not in use");
            None
        }
    }
}

/// A fresh folder for one test's databases.
fn dbs(test: &str) -> PathBuf {
    let dir = work().join(test);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("test folder");
    dir
}

/// Writes a database with `api` ("cxx" or "c") and returns whether and how the shim ran.
fn write(build: Build, db: &Path, api: &str, preload: bool) -> Option<ShimUse> {
    run_program(build, &[Path::new("write"), db, Path::new(api)], preload)
}

fn write_stock(db: &Path, api: &str) {
    let shim = write(Build::Dynamic, db, api, false);
    assert!(
        shim.is_none(),
        "stock leveldb must not use the shim: {shim:?}"
    );
}

/// Writes with the shim and requires that it built the filters.
fn write_with_shim(build: Build, db: &Path, api: &str, preload: bool) {
    let shim = write(build, db, api, preload).expect("the shim must be in use");
    assert!(shim.filters_built > 0, "the shim built no filter: {shim:?}");
}

/// The .ldb files of two databases: same names, same bytes, and filters in them.
fn assert_same_tables(stock: &Path, shim: &Path) {
    let tables = |db: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(db)
            .expect("database folder")
            .map(|entry| entry.expect("entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "ldb"))
            .map(|path| {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read(&path).expect("table"))
            })
            .collect();
        files.sort();
        files
    };
    let (expected, got) = (tables(stock), tables(shim));
    assert!(!expected.is_empty(), "no table in {}", stock.display());
    for (name, bytes) in &expected {
        let has_filter = bytes
            .windows(FILTER_META_KEY.len())
            .any(|w| w == FILTER_META_KEY);
        assert!(has_filter, "{name} has no bloom filter block");
    }
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&expected), names(&got), "table files differ");
    for ((name, stock_bytes), (_, shim_bytes)) in expected.iter().zip(&got) {
        assert!(
            stock_bytes == shim_bytes,
            "{name} differs between stock and shim"
        );
    }
}

/// Writes a database through each of `apis` with stock leveldb, and again with the shim linked as
/// `build` (and preloaded when `preload`): the tables must be the same. Returns the folder holding
/// the databases, `stock-API` and `shim-API`.
fn assert_writes_stock_tables(test: &str, build: Build, apis: &[&str], preload: bool) -> PathBuf {
    let dir = dbs(test);
    for api in apis {
        let (stock, shim) = (
            dir.join(format!("stock-{api}")),
            dir.join(format!("shim-{api}")),
        );
        write_stock(&stock, api);
        write_with_shim(build, &shim, api, preload);
        assert_same_tables(&stock, &shim);
    }
    dir
}

/// Runs `shim_db read`: every key found, no absent key found.
fn read(build: Build, db: &Path, preload: bool) -> Option<ShimUse> {
    run_program(build, &[Path::new("read"), db], preload)
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn shim_libraries_leave_leveldb_c_api_alone() {
    let lib = shim_lib_dir(false);
    let nm = |args: &[&str], file: &Path| run(Command::new("nm").args(args).arg(file));
    let is_leveldb_c_symbol =
        |name: &str| name.starts_with("leveldb_filterpolicy_") || name == "leveldb_free";
    let defined = |listing: &str| -> Vec<String> {
        listing
            .lines()
            .filter_map(|line| line.split_whitespace().nth(2).map(str::to_owned))
            .collect()
    };

    let archive = defined(&nm(
        &["--defined-only"],
        &lib.join("libleveldb_bloom_shim.a"),
    ));
    assert!(archive.iter().any(|s| s == NEW_BLOOM_FILTER_POLICY));
    assert!(archive.iter().any(|s| s == "leveldb_bloom_fill_filter"));
    let clashes: Vec<_> = archive.iter().filter(|s| is_leveldb_c_symbol(s)).collect();
    assert!(
        clashes.is_empty(),
        "the archive defines leveldb's {clashes:?}"
    );

    // The preloadable library exports exactly the function it replaces and its counters.
    let mut exported = defined(&nm(
        &["-D", "--defined-only"],
        &lib.join("libleveldb_bloom_shim.so"),
    ));
    exported.sort();
    assert_eq!(
        exported,
        [
            NEW_BLOOM_FILTER_POLICY,
            "leveldb_bloom_shim_filters_built",
            "leveldb_bloom_shim_keys_tested"
        ]
    );

    // Preloading reaches C callers too because leveldb's C API calls NewBloomFilterPolicy through
    // the PLT, where the dynamic linker can bind it to the preloaded definition.
    let create_bloom = run(Command::new("objdump")
        .args(["-d", "--disassemble=leveldb_filterpolicy_create_bloom"])
        .arg(library_path("libleveldb.so")));
    let target = format!("<{NEW_BLOOM_FILTER_POLICY}@plt>");
    assert!(
        create_bloom
            .lines()
            .any(|l| l.contains("call") && l.contains(&target)),
        "leveldb_filterpolicy_create_bloom must call {target}"
    );
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn cxx_api_preloaded_shim_writes_stock_tables() {
    assert_writes_stock_tables("cxx-preload", Build::Dynamic, &["cxx"], true);
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn c_api_preloaded_shim_writes_stock_tables() {
    assert_writes_stock_tables("c-preload", Build::Dynamic, &["c"], true);
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn shim_and_stock_read_each_others_databases() {
    let dir = dbs("cross-read");
    let (stock, shim) = (dir.join("stock"), dir.join("shim"));
    write_stock(&stock, "cxx");
    write_with_shim(Build::Dynamic, &shim, "cxx", true);

    let reader = read(Build::Dynamic, &stock, true).expect("the shim must be in use");
    assert!(reader.keys_tested > 0, "the shim tested no key: {reader:?}");
    assert!(
        read(Build::Dynamic, &shim, false).is_none(),
        "the stock reader must be stock"
    );
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn static_shim_ahead_of_libleveldb_a_writes_stock_tables() {
    assert_writes_stock_tables("static-ahead", Build::StaticAhead, &["cxx", "c"], false);
}

#[test]
#[cfg_attr(
    not(all(has_cmake, has_leveldb)),
    ignore = "needs cmake and libleveldb-dev"
)]
fn shim_in_place_of_bloom_cc_writes_stock_tables() {
    assert_writes_stock_tables(
        "without-bloom-cc",
        Build::WithoutBloomCc,
        &["cxx", "c"],
        false,
    );
}

#[test]
#[cfg_attr(
    not(all(has_asan, has_cmake, has_leveldb)),
    ignore = "needs gcc's libasan/libubsan, cmake and libleveldb-dev"
)]
fn static_shim_under_address_and_undefined_behaviour_sanitizers() {
    let dir = assert_writes_stock_tables(
        "sanitized-static-ahead",
        Build::SanitizedStaticAhead,
        &["cxx", "c"],
        false,
    );
    let reader = read(Build::SanitizedStaticAhead, &dir.join("stock-cxx"), false)
        .expect("the shim must be in use");
    assert!(reader.keys_tested > 0, "the shim tested no key: {reader:?}");
}
