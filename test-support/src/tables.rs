//! The table files of a leveldb database, as the tests compare them between stock leveldb and
//! leveldb with this library's filter (tests/shim.rs, tests/leveldb_source.rs, tests/c_tests.rs).

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

/// Requires that two databases have the same .ldb files, by name and bytes, each with a filter
/// block: `stock`'s, written by stock leveldb, and `other`'s.
pub fn assert_same_tables(stock: &Path, other: &Path) {
    let (expected, got) = (tables(stock), tables(other));
    assert!(!expected.is_empty(), "no table in {}", stock.display());
    for (name, bytes) in &expected {
        assert!(has_bloom_filter(bytes), "{name} has no bloom filter block");
    }
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&expected), names(&got), "table files differ");
    for ((name, stock_bytes), (_, other_bytes)) in expected.iter().zip(&got) {
        assert!(
            stock_bytes == other_bytes,
            "{name} differs between {} and {}",
            stock.display(),
            other.display()
        );
    }
}
