//! The tools some tests need, looked for when the tests run (never when the library is built):
//! each tool's probe is here once, with the CI variable that makes it required.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::paths::root;
use crate::{packages, process};

/// A tool some tests need beside cargo and a C/C++ compiler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// The system leveldb's headers and library (Debian's libleveldb-dev), which the
    /// differential tests compare against live.
    Leveldb,
    /// pytest, for `python3`: the Python binding's tests.
    Pytest,
    /// venv for `python3`, with pip (Debian's python3-venv): the Python package installed as the
    /// README installs it (pip then needs PyPI).
    Venv,
    /// CMake: the packaging flow and the shim's builds.
    Cmake,
    /// gcc's AddressSanitizer and UndefinedBehaviorSanitizer runtimes.
    Asan,
    /// gcc's ThreadSanitizer runtime.
    Tsan,
    /// valgrind, for memcheck.
    Valgrind,
    /// Debian's python3-plyvel, for Debian's python3 (/usr/bin), which it is installed for.
    Plyvel,
    /// A leveldb source tree (one with util/bloom.cc), named by LEVELDB_BLOOM_LEVELDB_SRC.
    LeveldbSource,
    /// Node.js and npm: the Node.js example (examples/node), with koffi from npm.
    Node,
    /// pip's plyvel wheel, installed from PyPI into a venv (packages.rs).
    PlyvelWheel,
    /// npm's classic-level, installed and packed from npm's registry (packages.rs).
    ClassicLevel,
    /// Node.js's headers (in /usr/include/node, or npm_config_nodedir's), for node-gyp's builds.
    NodeHeaders,
    /// The standard library of every Rust target with a pinned list of system libraries
    /// (cmake/native-static-libs/): every target CI builds.
    RustTargets,
    /// Windows on Linux: MinGW-w64's gcc, wine and Rust's x86_64-pc-windows-gnu target.
    Wine,
    /// macOS on Linux: zig (PyPI's ziglang, for python3) with cargo-zigbuild as the linker and C
    /// compiler, Rust's aarch64-apple-darwin target, and LLVM 19's objdump to read Mach-O.
    Zig,
}

const TOOLS: usize = Tool::Zig as usize + 1;

impl Tool {
    /// Why this machine lacks the tool, with how to get it; None when it has it. Looked for once
    /// per process.
    pub fn missing(self) -> Option<&'static str> {
        static FOUND: [OnceLock<Option<String>>; TOOLS] = [const { OnceLock::new() }; TOOLS];
        FOUND[self as usize].get_or_init(|| self.probe()).as_deref()
    }

    /// Whether this machine has the tool.
    pub fn is_present(self) -> bool {
        self.missing().is_none()
    }

    /// The variable CI sets to 1 to make a missing tool fail the tests that need it.
    pub fn required_by(self) -> &'static str {
        match self {
            Tool::Leveldb => "LEVELDB_BLOOM_REQUIRE_LEVELDB",
            Tool::Pytest | Tool::Venv => "LEVELDB_BLOOM_REQUIRE_PYTHON",
            Tool::Cmake => "LEVELDB_BLOOM_REQUIRE_CMAKE",
            Tool::Asan | Tool::Tsan | Tool::Valgrind => "LEVELDB_BLOOM_REQUIRE_SANITIZERS",
            Tool::Plyvel | Tool::PlyvelWheel => "LEVELDB_BLOOM_REQUIRE_PLYVEL",
            Tool::LeveldbSource => "LEVELDB_BLOOM_REQUIRE_LEVELDB_SRC",
            Tool::Node | Tool::ClassicLevel | Tool::NodeHeaders => "LEVELDB_BLOOM_REQUIRE_NODE",
            Tool::RustTargets => "LEVELDB_BLOOM_REQUIRE_TARGETS",
            Tool::Wine => "LEVELDB_BLOOM_REQUIRE_WINE",
            Tool::Zig => "LEVELDB_BLOOM_REQUIRE_ZIG",
        }
    }

    /// Whether CI set [`Tool::required_by`] to 1.
    pub fn is_required(self) -> bool {
        std::env::var_os(self.required_by()).is_some_and(|v| v == "1")
    }

    fn probe(self) -> Option<String> {
        let missing = |present: bool, why: String| (!present).then_some(why);
        match self {
            // Where the header is looked for, as fuzz/build.rs does.
            Tool::Leveldb => header_missing(
                "LEVELDB_INCLUDE_DIR",
                "/usr/include",
                "leveldb/filter_policy.h",
                "apt-get install libleveldb-dev",
            ),
            Tool::Pytest => missing(
                runs(Command::new("python3").args(["-c", "import pytest"])),
                "python3 cannot import pytest: pip install pytest (in a venv: apt-get install \
                 python3-venv)"
                    .into(),
            ),
            Tool::Venv => missing(
                runs(Command::new("python3").args(["-c", "import ensurepip, venv"])),
                "python3 cannot make a venv with pip: apt-get install python3-venv".into(),
            ),
            Tool::Cmake => missing(
                runs(Command::new("cmake").arg("--version")),
                "cmake is not on PATH: apt-get install cmake".into(),
            ),
            Tool::Asan => missing(
                gcc_has("libasan.so") && gcc_has("libubsan.so"),
                "gcc's libasan/libubsan runtime is not installed: apt-get install g++".into(),
            ),
            Tool::Tsan => missing(
                gcc_has("libtsan.so"),
                "gcc's libtsan runtime is not installed: apt-get install g++".into(),
            ),
            Tool::Valgrind => missing(
                runs(Command::new("valgrind").arg("--version")),
                "valgrind is not on PATH: apt-get install valgrind".into(),
            ),
            Tool::Plyvel => missing(
                runs(Command::new("/usr/bin/python3").args(["-c", "import plyvel"])),
                "/usr/bin/python3 cannot import plyvel: apt-get install python3-plyvel".into(),
            ),
            Tool::LeveldbSource => match std::env::var_os("LEVELDB_BLOOM_LEVELDB_SRC") {
                None => Some(
                    "LEVELDB_BLOOM_LEVELDB_SRC, the leveldb source tree to build, is not set: \
                     .ci/run shows how to fetch Debian's"
                        .into(),
                ),
                Some(src) => missing(
                    Path::new(&src).join("util/bloom.cc").is_file(),
                    format!(
                        "LEVELDB_BLOOM_LEVELDB_SRC={} is not a leveldb source tree (no \
                         util/bloom.cc)",
                        src.to_string_lossy()
                    ),
                ),
            },
            Tool::Node => missing(
                runs(Command::new("node").arg("--version"))
                    && runs(Command::new("npm").arg("--version")),
                "node or npm is not on PATH: apt-get install nodejs npm".into(),
            ),
            Tool::PlyvelWheel => packages::plyvel_venv()
                .err()
                .map(|why| format!("pip could not install {}: {why}", packages::PLYVEL_WHEEL)),
            Tool::ClassicLevel => packages::classic_level()
                .err()
                .map(|why| format!("npm could not fetch {}: {why}", packages::CLASSIC_LEVEL)),
            // Where node-gyp takes them from in shim/build-classic-level.
            Tool::NodeHeaders => header_missing(
                "npm_config_nodedir",
                "/usr",
                "include/node/node_api.h",
                "apt-get install libnode-dev (Debian's npm brings it), or set npm_config_nodedir",
            ),
            Tool::RustTargets => {
                let lacking: Vec<String> = pinned_targets()
                    .into_iter()
                    .filter(|target| !has_rust_target(target))
                    .collect();
                missing(
                    lacking.is_empty(),
                    format!(
                        "rustc lacks targets: rustup target add {}",
                        lacking.join(" ")
                    ),
                )
            }
            Tool::Wine => missing(
                runs(Command::new("x86_64-w64-mingw32-gcc").arg("--version"))
                    && runs(Command::new("wine").arg("--version"))
                    && has_rust_target(WINDOWS_GNU),
                format!(
                    "MinGW-w64, wine or Rust's {WINDOWS_GNU} is missing: apt-get install \
                     gcc-mingw-w64-x86-64 wine wine64; rustup target add {WINDOWS_GNU}"
                ),
            ),
            Tool::Zig => missing(
                runs(Command::new("cargo-zigbuild").args(["zig", "cc", "--", "--version"]))
                    && runs(Command::new("llvm-objdump-19").arg("--version"))
                    && has_rust_target(APPLE_ARM),
                format!(
                    "zig, cargo-zigbuild, llvm-objdump-19 or Rust's {APPLE_ARM} is missing: pip \
                     install ziglang (in a venv); cargo install cargo-zigbuild; apt-get install \
                     llvm-19; rustup target add {APPLE_ARM}"
                ),
            ),
        }
    }
}

/// The Rust target of the macOS builds made with zig.
pub const APPLE_ARM: &str = "aarch64-apple-darwin";

/// The Rust target of Windows builds made with MinGW-w64 and run under wine.
const WINDOWS_GNU: &str = "x86_64-pc-windows-gnu";

/// Every Rust target with a pinned list of the system libraries the static library needs, by
/// name: the targets CI builds.
pub fn pinned_targets() -> Vec<String> {
    let mut targets: Vec<String> = std::fs::read_dir(root().join("cmake/native-static-libs"))
        .expect("cmake/native-static-libs/")
        .map(|entry| entry.expect("a pinned list").path())
        .filter_map(|path| Some(path.file_name()?.to_str()?.strip_suffix(".txt")?.to_owned()))
        .collect();
    targets.sort();
    targets
}

/// Whether rustc has the standard library of `target` (rustup installs one per target).
fn has_rust_target(target: &str) -> bool {
    let Ok(output) = Command::new("rustc")
        .args(["--print", "target-libdir", "--target", target])
        .output()
    else {
        return false;
    };
    let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    std::fs::read_dir(dir).is_ok_and(|mut files| {
        files.any(|file| {
            file.is_ok_and(|file| file.file_name().to_string_lossy().starts_with("libstd-"))
        })
    })
}

/// Why `header` is missing under the folder the variable `var` names (`default` without it), with
/// `how` to get it; None when it is there.
fn header_missing(var: &str, default: &str, header: &str, how: &str) -> Option<String> {
    let dir = std::env::var_os(var).map_or_else(|| PathBuf::from(default), PathBuf::from);
    let header = dir.join(header);
    (!header.is_file()).then(|| format!("{} is missing: {how}", header.display()))
}

/// Whether `cmd` starts and exits 0, its output discarded.
fn runs(cmd: &mut Command) -> bool {
    process::quietly(cmd).is_ok()
}

/// Whether gcc's library folder, where it links `-fsanitize=...` programs' runtimes from, holds
/// `lib`; a dangling link (its runtime package missing) does not count.
fn gcc_has(lib: &str) -> bool {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = Command::new("cc")
            .arg("-print-libgcc-file-name")
            .output()
            .ok()?;
        let libgcc = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        libgcc.parent().map(Path::to_path_buf)
    })
    .as_ref()
    .is_some_and(|dir| dir.join(lib).exists())
}
