//! The table files of a leveldb database, as the tests compare them between stock leveldb and
//! leveldb with this library's filter (tests/shim.rs, tests/leveldb_source.rs, tests/c_tests.rs);
//! and a table's data blocks and filter block, as the filter block tests
//! (tests/filter_block_leveldb.rs, tests/rusty_leveldb.rs) rebuild its filter block from its keys
//! and tests/check.rs changes it.

use std::path::Path;

use leveldb_bloom_reader::BlockHandle;

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

/// A table's data blocks and filter block, found through its footer, metaindex and index block
/// as leveldb lays them out (table/format.cc, table/block.cc), read by the check tool's reader.
pub struct Table {
    /// Its data blocks, in the order of the file.
    pub data_blocks: Vec<DataBlock>,
    /// Where the last data block's trailer ends: leveldb's TableBuilder starts a block there
    /// after the last one, so its filter block gets the last block's keys.
    pub data_end: u64,
    /// Its filter block, as stored (filters, their offsets, the offsets' start and base lg).
    pub filter_block: Vec<u8>,
    /// Where the filter block is in the file.
    pub filter_handle: BlockHandle,
}

/// A data block of a table.
pub struct DataBlock {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its internal keys: user keys followed by their 8-byte sequence number and type.
    pub keys: Vec<Vec<u8>>,
}

/// An internal key's user key, as leveldb's InternalFilterPolicy passes it to the filter policy:
/// the key less its 8-byte sequence number and type.
pub fn user_key(internal_key: &[u8]) -> &[u8] {
    &internal_key[..internal_key.len() - 8]
}

/// A call of leveldb's TableBuilder to its FilterBlockBuilder, with an internal key.
pub enum FilterCall<'a> {
    /// `StartBlock(block_offset)`, before a data block's keys.
    StartBlock(u64),
    /// `AddKey(key)`, with the internal key.
    AddKey(&'a [u8]),
}

/// A block's entries, (key, value), of a table leveldb wrote: panics on any error.
fn entries(
    table: &leveldb_bloom_reader::Table<'_>,
    handle: BlockHandle,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let block = table.block(handle, "block").expect("a block");
    assert!(
        block.checksum_ok,
        "block at {}: bad checksum",
        handle.offset
    );
    let mut entries = Vec::new();
    block
        .entries(|key, value| entries.push((key.to_vec(), value.to_vec())))
        .expect("a block's entries");
    entries
}

/// The block handle an index or metaindex entry holds.
fn handle(value: &[u8]) -> BlockHandle {
    BlockHandle::from_value(value, "entry").expect("a block handle")
}

impl Table {
    /// Reads the table in `bytes`, which must have a bloom filter block.
    pub fn read(bytes: &[u8]) -> Table {
        let table = leveldb_bloom_reader::Table::open(bytes).expect("a leveldb table");
        let filter_handle = entries(&table, table.metaindex)
            .into_iter()
            .find(|(key, _)| key == FILTER_META_KEY)
            .map(|(_, value)| handle(&value))
            .expect("the table has a bloom filter block");
        let handles: Vec<BlockHandle> = entries(&table, table.index)
            .into_iter()
            .map(|(_, value)| handle(&value))
            .collect();
        let data_end = handles.last().expect("data blocks").end().unwrap();
        let data_blocks = handles
            .iter()
            .map(|&handle| DataBlock {
                offset: handle.offset,
                keys: entries(&table, handle)
                    .into_iter()
                    .map(|(key, _)| key)
                    .collect(),
            })
            .collect();
        let filter_block = table
            .block(filter_handle, "filter block")
            .unwrap()
            .contents
            .into_owned();
        Table {
            data_blocks,
            data_end,
            filter_block,
            filter_handle,
        }
    }

    /// What leveldb's TableBuilder calls its FilterBlockBuilder with for this table, in order:
    /// StartBlock at each data block's offset, then its keys; StartBlock at the end of the data.
    pub fn filter_calls(&self) -> impl Iterator<Item = FilterCall<'_>> {
        self.data_blocks
            .iter()
            .flat_map(|block| {
                std::iter::once(FilterCall::StartBlock(block.offset)).chain(
                    block
                        .keys
                        .iter()
                        .map(|key| FilterCall::AddKey(key.as_slice())),
                )
            })
            .chain(std::iter::once(FilterCall::StartBlock(self.data_end)))
    }
}
