//! Names the target the tests are built for, whose pinned list of system libraries
//! (cmake/native-static-libs/) the C test programs link the static library with.

fn main() {
    let target = std::env::var("TARGET").expect("cargo sets TARGET for build scripts");
    println!("cargo::rustc-env=LEVELDB_BLOOM_TEST_TARGET={target}");
}
