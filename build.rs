//! Turns on the proof that the single query's kernels and the C++ shim's core cannot panic, where
//! asked: the library's build needs nothing else from here (which tests can run is decided by the
//! tests when they run).

fn main() {
    prove_no_panic();
}

/// Sets cfg `prove_no_panic` when LEVELDB_BLOOM_PROVE_NO_PANIC=1 (as CI sets it) in a build
/// optimized enough to drop every panic that cannot happen (opt-level 2 or 3): if a function that
/// must not panic (see `CannotPanic` in src/cannot_panic.rs) keeps a path to one, a program
/// linked with such a build fails to link (CI: the quickstart, the C++ shim's builds), and the
/// shared library to load (CI: the Python tests). Opt-in, so that no one else's build fails for
/// it.
///
/// The exports the shim calls are under the proof only in a build compiled as one unit, cfg
/// `one_unit`, which CMake passes with the `shim-core` profile (fat LTO, one codegen unit):
/// split into codegen units, a call to another unit is taken to possibly unwind.
fn prove_no_panic() {
    println!("cargo::rustc-check-cfg=cfg(prove_no_panic)");
    println!("cargo::rustc-check-cfg=cfg(one_unit)");
    println!("cargo::rerun-if-env-changed=LEVELDB_BLOOM_PROVE_NO_PANIC");
    let optimized = matches!(std::env::var("OPT_LEVEL").as_deref(), Ok("2" | "3"));
    let asked = std::env::var_os("LEVELDB_BLOOM_PROVE_NO_PANIC").is_some_and(|v| v == "1");
    if asked && optimized {
        println!("cargo::rustc-cfg=prove_no_panic");
    }
}
