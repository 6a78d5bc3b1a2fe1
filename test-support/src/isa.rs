//! The library's paths (`LEVELDB_BLOOM_ISA`'s values), and running test programs once per path
//! this CPU has, each in a process of its own, as the path is chosen once per process. A program
//! run on a path prints `path: NAME` (the C tests' `finish`, the Python tests' summary), and the
//! run requires NAME to be the path it forced.

use std::path::Path;
use std::process::Command;

/// The variable that lowers the library's path.
pub const OVERRIDE: &str = "LEVELDB_BLOOM_ISA";

/// Every path's name, slowest first.
pub const NAMES: [&str; 3] = ["portable", "avx2", "avx512"];

/// Set, with the path forced, in a test program that [`on_every_path`] runs again.
const CHILD: &str = "LEVELDB_BLOOM_TEST_PATH_CHILD";

/// Names the emulator that runs the tests (.ci/cross-test sets it to qemu-user's): a program the
/// tests start that is built for the target, as they are, must run under it too, since qemu-user
/// runs one program and not those it starts.
pub const RUNNER: &str = "LEVELDB_BLOOM_TEST_RUNNER";

/// The paths up to `best` (the one the library runs here, unforced), slowest first: every path
/// this CPU has, as a CPU with a path has every slower one too.
pub fn up_to(best: &str) -> &'static [&'static str] {
    let rank = NAMES
        .iter()
        .position(|name| *name == best)
        .unwrap_or_else(|| panic!("{best:?} is not a path"));
    &NAMES[..=rank]
}

/// The command that runs `exe`, a program built for the target as the running tests are: under
/// [`RUNNER`] when it is set.
pub fn target_command(exe: &Path) -> Command {
    match std::env::var_os(RUNNER) {
        Some(runner) => {
            let mut cmd = Command::new(runner);
            cmd.arg(exe);
            cmd
        }
        None => Command::new(exe),
    }
}

/// The paths the output `stdout` of a program reports, in its `path: NAME` lines.
pub fn reported(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("path: "))
        .map(|rest| rest.split_whitespace().next().unwrap_or(""))
        .collect()
}

/// Checks the output `stdout` of a program run on `path`: it reports a path, and only `path`.
pub fn check_reported(stdout: &str, path: &str) {
    let reported = reported(stdout);
    assert!(
        !reported.is_empty() && reported.iter().all(|name| *name == path),
        "{OVERRIDE}={path}, but the program reports the paths {reported:?}"
    );
}

/// The body of a test that runs all the tests of its test program again on each path slower
/// than `isa`, the one this process runs (`leveldb_bloom::isa()`), each time in a child process
/// with [`OVERRIDE`] set. In such a child it checks instead that `isa` is the path forced.
pub fn on_every_path(isa: &str) {
    if let Some(forced) = std::env::var_os(CHILD) {
        assert_eq!(Some(isa), forced.to_str(), "{OVERRIDE} was not obeyed");
        return;
    }
    let exe = std::env::current_exe().expect("the test program");
    for path in up_to(isa).iter().filter(|path| **path != isa) {
        let output = target_command(&exe)
            .env(OVERRIDE, path)
            .env(CHILD, path)
            .output()
            .expect("the test program runs again");
        assert!(
            output.status.success(),
            "the tests fail on the {path} path ({}):\n{}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
