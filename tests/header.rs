//! The committed C header must be exactly what the pinned cbindgen generates from the source.

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let crate_dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(Path::new(crate_dir).join("cbindgen.toml"))
        .expect("cbindgen.toml parses");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);

    let header = Path::new(crate_dir).join("include/leveldb_bloom.h");
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&header, &generated).expect("header written");
    }
    let committed = std::fs::read(&header).unwrap_or_default();
    assert!(
        committed == generated,
        "include/leveldb_bloom.h is stale: regenerate it with `UPDATE_HEADER=1 cargo test --test header`"
    );
}
