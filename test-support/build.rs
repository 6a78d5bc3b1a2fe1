//! Names the target the tests are built for, whose pinned list of system libraries
//! (cmake/native-static-libs/) the C test programs link the static library with, and the
//! library's major version, which its soname carries (this crate's own version is not it).

fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo::rustc-env=LEVELDB_BLOOM_TEST_TARGET={target}");
    println!("cargo::rerun-if-changed=../Cargo.toml");
    let manifest = std::fs::read_to_string("../Cargo.toml").expect("the library's Cargo.toml");
    let major = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|version| version.split('.').next())
        .expect("Cargo.toml has a version line");
    println!("cargo::rustc-env=LEVELDB_BLOOM_VERSION_MAJOR={major}");
}
