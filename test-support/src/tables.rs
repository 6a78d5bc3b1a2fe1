//! The table files of a leveldb database, as the tests compare them between stock leveldb and
//! leveldb with this library's filter (tests/shim.rs, tests/leveldb_source.rs, tests/c_tests.rs);
//! and a table's data blocks and filter block, as the filter block tests
//! (tests/filter_block_leveldb.rs, tests/rusty_leveldb.rs) rebuild its filter block from its keys.

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

/// A table's data blocks and filter block, found through its footer, metaindex and index block
/// as leveldb lays them out (table/format.cc, table/block.cc).
pub struct Table {
    /// Its data blocks, in the order of the file.
    pub data_blocks: Vec<DataBlock>,
    /// Where the last data block's trailer ends: leveldb's TableBuilder starts a block there
    /// after the last one, so its filter block gets the last block's keys.
    pub data_end: u64,
    /// Its filter block, as stored (filters, their offsets, the offsets' start and base lg).
    pub filter_block: Vec<u8>,
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

impl Table {
    /// Reads the table in `bytes`, which must have a bloom filter block.
    pub fn read(bytes: &[u8]) -> Table {
        let (metaindex, index) = layout::footer(bytes);
        let filter_block = layout::entries(&layout::block(bytes, metaindex))
            .into_iter()
            .find(|(key, _)| key == FILTER_META_KEY)
            .map(|(_, value)| layout::block(bytes, layout::decode_handle(&value)))
            .expect("the table has a bloom filter block");
        let handles: Vec<layout::Handle> = layout::entries(&layout::block(bytes, index))
            .into_iter()
            .map(|(_, value)| layout::decode_handle(&value))
            .collect();
        let last = handles.last().expect("data blocks");
        let data_end = last.offset + last.size + layout::BLOCK_TRAILER;
        let data_blocks = handles
            .iter()
            .map(|&handle| DataBlock {
                offset: handle.offset,
                keys: layout::entries(&layout::block(bytes, handle))
                    .into_iter()
                    .map(|(key, _)| key)
                    .collect(),
            })
            .collect();
        Table {
            data_blocks,
            data_end,
            filter_block,
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

/// A table's parts, as leveldb's table/format.cc and table/block.cc lay them out.
mod layout {
    /// The magic number ending every table.
    const MAGIC: u64 = 0xdb4775248b80fb57;
    /// A block's trailer: its type byte and CRC.
    pub const BLOCK_TRAILER: u64 = 5;

    #[derive(Clone, Copy, Debug)]
    pub struct Handle {
        pub offset: u64,
        pub size: u64,
    }

    fn varint(bytes: &[u8], at: &mut usize) -> u64 {
        let mut value = 0;
        for shift in (0..64).step_by(7) {
            let byte = bytes[*at];
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return value;
            }
        }
        panic!("varint too long");
    }

    fn handle(bytes: &[u8], at: &mut usize) -> Handle {
        Handle {
            offset: varint(bytes, at),
            size: varint(bytes, at),
        }
    }

    /// The metaindex and index handles from the footer (the last 48 bytes).
    pub fn footer(table: &[u8]) -> (Handle, Handle) {
        let footer = &table[table.len() - 48..];
        let magic = u64::from_le_bytes(footer[40..].try_into().unwrap());
        assert_eq!(magic, MAGIC, "not a leveldb table");
        let mut at = 0;
        (handle(footer, &mut at), handle(footer, &mut at))
    }

    /// A block's contents, decompressed if its type byte says snappy.
    pub fn block(table: &[u8], h: Handle) -> Vec<u8> {
        let (start, end) = (h.offset as usize, (h.offset + h.size) as usize);
        match table[end] {
            0 => table[start..end].to_vec(),
            1 => snap::raw::Decoder::new()
                .decompress_vec(&table[start..end])
                .expect("snappy block"),
            kind => panic!("unknown block type {kind}"),
        }
    }

    /// A block's entries: (key, value), prefix compression undone.
    pub fn entries(block: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
        let n = block.len();
        let restarts = u32::from_le_bytes(block[n - 4..].try_into().unwrap()) as usize;
        let end = n - 4 - 4 * restarts;
        let (mut at, mut key, mut out) = (0, Vec::new(), Vec::new());
        while at < end {
            let shared = varint(block, &mut at) as usize;
            let non_shared = varint(block, &mut at) as usize;
            let value_len = varint(block, &mut at) as usize;
            key.truncate(shared);
            key.extend_from_slice(&block[at..at + non_shared]);
            at += non_shared;
            out.push((key.clone(), block[at..at + value_len].to_vec()));
            at += value_len;
        }
        out
    }

    pub fn decode_handle(value: &[u8]) -> Handle {
        handle(value, &mut 0)
    }
}
