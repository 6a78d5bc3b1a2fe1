//! c_tests/with_leveldb/db.c: databases through leveldb's C API next to this library. Its
//! arguments, and what its runs must show, for the tests that build it each way a program can
//! have both (tests/c_tests.rs; tests/cmake.rs, against the install).

use std::path::Path;
use std::process::Command;

use crate::c_harness::run;
use crate::paths::system_library;
use crate::tables::assert_same_tables;
use crate::vectors::for_each_record;
use crate::{process, scratch};

/// The program's source, relative to the repository.
pub const SOURCE: &str = "c_tests/with_leveldb/db.c";

/// Whose policy the program's own `leveldb_filterpolicy_create_bloom` gives.
#[derive(Clone, Copy, Debug)]
pub enum Policy {
    /// This library's (an object of leveldb's over its filter, where leveldb's C API is loaded).
    Ours,
    /// leveldb's own.
    Leveldbs,
}

impl Policy {
    /// What the program prints for it.
    fn line(self) -> &'static str {
        match self {
            Policy::Ours => "policy: this library's",
            Policy::Leveldbs => "policy: leveldb's",
        }
    }
}

/// The system leveldb's shared library by its soname: what dlopen finds, and the name a program
/// linked with it loaded it by.
pub fn leveldb_soname() -> String {
    let dynamic = process::run(
        Command::new("readelf")
            .arg("-d")
            .arg(system_library("libleveldb.so")),
    );
    let soname = dynamic
        .lines()
        .find_map(|line| line.split_once("Library soname: [")?.1.split_once(']'))
        .unwrap_or_else(|| panic!("libleveldb.so has no soname:\n{dynamic}"));
    soname.0.to_owned()
}

/// The program's FILTER KEY... arguments: leveldb's filter with 10 bits per key for a few keys,
/// from the reference vectors.
fn reference_filter() -> Vec<String> {
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let mut args = Vec::new();
    for_each_record("build.txt", |record| {
        let few = (10..=64).contains(&record.keys.len());
        if args.is_empty() && record.bits_per_key == Some(10) && few {
            args.push(hex(&record.filter));
            args.extend(record.keys.iter().map(|key| hex(key)));
        }
    });
    assert!(
        !args.is_empty(),
        "no filter of 10 bits per key for 10 to 64 keys"
    );
    args
}

/// Runs the program `exe`, with this library at `library` for it to dlopen: databases with
/// leveldb's own policy, then with the program's, which must be `expected`'s; both kinds of its
/// databases must have stock leveldb's tables, and every key must be read back.
pub fn check(exe: &Path, library: Option<&Path>, expected: Policy) {
    let library = library.map_or_else(|| "-".to_owned(), |l| l.display().to_string());
    let dir = scratch::claim(scratch::fresh(exe.with_extension("databases")));
    let mut stdout = String::new();
    for mode in ["stock", "program"] {
        std::fs::create_dir_all(dir.join(mode)).expect("database folder");
        let mut cmd = Command::new(exe);
        cmd.arg(dir.join(mode))
            .arg(mode)
            .arg(leveldb_soname())
            .arg(&library)
            .args(reference_filter())
            .env_remove("LD_LIBRARY_PATH");
        stdout = run(cmd);
    }
    assert!(
        stdout.lines().any(|line| line == expected.line()),
        "{}: expected {expected:?}'s policy:\n{stdout}",
        exe.display()
    );
    for db in ["bloom", "custom"] {
        assert_same_tables(&dir.join("stock/bloom"), &dir.join("program").join(db));
    }
}
