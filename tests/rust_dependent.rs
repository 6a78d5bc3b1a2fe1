//! The README's "Rust" and "Rust with rusty-leveldb" commands as a user pastes them: a crate of
//! one's own, depending on this checkout by its path, with examples/quickstart.rs and
//! examples/rusty_leveldb.rs as its program, built and run by cargo (which fetches what its
//! cache lacks from crates.io). A dependent builds this library as a Rust library only: no C
//! library of it (`.so`, `.a`, `.dylib`, `.dll`, `.lib`) is made, which it would never use.

use std::path::{Path, PathBuf};

use leveldb_bloom_test_support::docs::UserShell;
use leveldb_bloom_test_support::scratch::claim;
use leveldb_bloom_test_support::tmp_dir;

/// Every file under `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn readme_rust_commands_build_this_library_as_rlib_only() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("rust")));
    let output = shell.run("rust");
    assert!(
        output.contains("members found:   10000 of 10000"),
        "{output}"
    );
    assert!(output.contains("filter block: "), "{output}");

    let built = files(&shell.home.join("bloom-demo/target"));
    let name = |path: &PathBuf| path.file_name().unwrap().to_string_lossy().into_owned();
    let c_libraries: Vec<String> = built
        .iter()
        .map(name)
        .filter(|file| file.starts_with("libleveldb_bloom") || file.starts_with("leveldb_bloom"))
        .filter(|file| {
            [".so", ".a", ".dylib", ".dll", ".lib"]
                .iter()
                .any(|ext| file.ends_with(ext))
        })
        .collect();
    assert!(
        c_libraries.is_empty(),
        "a crate depending on this one built its C libraries: {c_libraries:?}"
    );
    assert!(
        built
            .iter()
            .map(name)
            .any(|file| file.starts_with("libleveldb_bloom-") && file.ends_with(".rlib")),
        "no rlib of this library among {} files built",
        built.len()
    );
}

#[test]
fn readme_rusty_leveldb_commands_run_the_example() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("rusty-leveldb")));
    let output = shell.run("rusty-leveldb");
    assert!(output.contains("banana: yellow; kiwi: absent"), "{output}");
}
