//! Paths for the tests that drive code outside Rust (C compilers, pytest).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::process;

/// The repository root, the folder above this crate's.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support/ is in the repository")
}

/// The folder of the C libraries (`libleveldb_bloom.a` and `.so`, `leveldb_bloom.dll`...) for the
/// tests: target/<profile>/deps (target/<triple>/<profile>/deps when built for a target), next to
/// the test executable. The crate builds only its Rust library, so they are made here as CMake
/// makes them, by `cargo rustc --crate-type cdylib,staticlib`, in the same target folder and
/// profile, where cargo keeps them beside the Rust library and reuses the built dependencies;
/// once per test process, then only if the sources changed.
pub fn lib_dir() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test executable path");
            let deps = exe.parent().expect("target/<profile>/deps");
            let profile_dir = deps.parent().expect("target/<profile>");
            let profile = match profile_dir.file_name().and_then(|name| name.to_str()) {
                Some("debug") => "dev",
                Some(name) => name,
                None => panic!("no profile folder above {}", exe.display()),
            };
            let above = profile_dir.parent().expect("the target folder");
            let target = env!("LEVELDB_BLOOM_TEST_TARGET");
            let cross = above.file_name().is_some_and(|name| name == target);
            let target_dir = if cross {
                above.parent().expect("the target folder")
            } else {
                above
            };
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let mut cmd = Command::new(cargo);
            cmd.args([
                "rustc",
                "--locked",
                "--lib",
                "--crate-type",
                "cdylib,staticlib",
            ])
            .args(["--profile", profile])
            .arg("--target-dir")
            .arg(target_dir)
            .current_dir(root());
            if cross {
                cmd.args(["--target", target]);
            }
            process::run(&mut cmd);
            deps.to_path_buf()
        })
        .clone()
}

/// Where the compiler finds the library file `name` (`libleveldb.a`...), as `c++
/// -print-file-name` says.
pub fn system_library(name: &str) -> PathBuf {
    let path = process::run(Command::new("c++").arg(format!("-print-file-name={name}")));
    PathBuf::from(path.trim())
}
