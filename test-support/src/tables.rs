//! The table files of a leveldb database, as the shim's tests (tests/shim.rs,
//! tests/leveldb_source.rs) compare them between stock leveldb and the shim.

use std::path::Path;

/// What a filter block is recorded under in a table's metaindex.
pub const FILTER_META_KEY: &[u8] = b"filter.leveldb.BuiltinBloomFilter2";

/// The .ldb files of a database, by name, with their bytes.
pub fn tables(db: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(db)
        .expect("database folder")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ldb"))
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("table"))
        })
        .collect();
    files.sort();
    files
}

/// Whether a table's bytes hold a filter block of leveldb's bloom policy.
pub fn has_bloom_filter(table: &[u8]) -> bool {
    table
        .windows(FILTER_META_KEY.len())
        .any(|w| w == FILTER_META_KEY)
}
