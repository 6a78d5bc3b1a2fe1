//! The Node.js example (examples/node): `npm ci` installs koffi, `node check_vectors.mjs` checks
//! every reference vector through the C ABI (on every path) and that the helpers refuse what is
//! not a byte buffer, and `node quickstart.mjs` builds and queries a filter, against the library
//! built for the tests; and the README's "Node.js" commands as a user pastes them, the helpers
//! copied into a project of one's own. Needs node and npm (CI sets LEVELDB_BLOOM_REQUIRE_NODE=1)
//! and npm's registry.

use std::env::consts::{DLL_PREFIX, DLL_SUFFIX};
use std::path::Path;
use std::process::Command;

use leveldb_bloom_test_support::docs::{UserShell, code_blocks};
use leveldb_bloom_test_support::paths::{lib_dir, root};
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::{isa, process, tmp_dir, trial, trials};

fn main() {
    trials::run(vec![
        trial!(node_example_checks_the_vectors, Node),
        trial!(readme_node_commands_run_the_quickstart, Node),
        trial!(readme_javascript_comes_from_the_example),
    ]);
}

/// Runs `cmd` in `dir`, requires success, returns its standard output.
fn run(cmd: &mut Command, dir: &Path) -> String {
    let library = lib_dir().join(format!("{DLL_PREFIX}leveldb_bloom{DLL_SUFFIX}"));
    process::run(cmd.current_dir(dir).env("LEVELDB_BLOOM_LIBRARY", &library))
}

/// The example's files, without what `npm ci` writes, copied where `npm ci` may write.
fn example_copy() -> std::path::PathBuf {
    let copy = fresh(tmp_dir!().trial().join("node-example"));
    for entry in std::fs::read_dir(root().join("examples/node")).expect("examples/node") {
        let path = entry.expect("examples/node entry").path();
        if path.is_file() {
            std::fs::copy(&path, copy.join(path.file_name().unwrap())).expect("copied");
        }
    }
    copy
}

fn node_example_checks_the_vectors() {
    let dir = example_copy();
    run(
        Command::new("npm").args(["ci", "--ignore-scripts", "--no-audit", "--no-fund"]),
        &dir,
    );
    // Every reference vector on every path this CPU has, each forced in a process of its own.
    for path in isa::up_to(leveldb_bloom::isa()) {
        let vectors = run(
            Command::new("node")
                .arg("check_vectors.mjs")
                .arg(root().join("vectors"))
                .env(isa::OVERRIDE, path),
            &dir,
        );
        isa::check_reported(&vectors, path);
        assert!(
            vectors.contains(" passed, 0 failed") && !vectors.starts_with("0 passed"),
            "check_vectors.mjs on the {path} path: {vectors}"
        );
    }
    let quickstart = run(Command::new("node").arg("quickstart.mjs"), &dir);
    assert!(
        quickstart.contains("banana may match: true"),
        "quickstart.mjs: {quickstart}"
    );
}

/// The README's "Node.js" commands, with cargo's release build shared with the other tests that
/// run the README's commands.
fn readme_node_commands_run_the_quickstart() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("readme")))
        .shared_target(&tmp_dir!().cargo_target("readme-cargo"));
    let output = shell.run("node");
    assert!(output.contains("banana may match: true"), "{output}");
}

/// Every ```js block of the README is part of the example the test above runs.
fn readme_javascript_comes_from_the_example() {
    let blocks = code_blocks("js");
    assert!(!blocks.is_empty(), "the README has no ```js block");
    let mut example = String::new();
    for file in ["leveldb_bloom.mjs", "quickstart.mjs"] {
        example += &std::fs::read_to_string(root().join("examples/node").join(file)).unwrap();
    }
    for block in blocks {
        for line in block.lines().filter(|line| !line.trim().is_empty()) {
            assert!(
                example.lines().any(|have| have == line),
                "README's `{line}` is not in examples/node"
            );
        }
    }
}
