//! Target `table_reader`: the check tool's reader of leveldb's files (reader/) on any bytes,
//! which must give a result or an error, never a panic, a hang or an allocation the bytes do
//! not justify (libFuzzer's -rss_limit_mb and -timeout catch the last two).
//!
//! Input: one byte saying what the rest is read as: 0, a table file (its footer, index and
//! metaindex blocks, and the blocks they point to, with their entries); 1, a block's stored bytes
//! whose compression type is the next byte, placed in a table of its own; 2, a block's contents
//! (its entries and restart array); 3, a MANIFEST; 4, a CURRENT file.

use leveldb_bloom_reader::manifest::{current_manifest, read_manifest};
use leveldb_bloom_reader::{
    Block, BlockHandle, FOOTER_LEN, KeyBuffer, TABLE_MAGIC, Table, append_keys, block_crc, entries,
};

/// Blocks a table's index or metaindex points to that are read, at most: more reach no new
/// code, only slow the fuzzer down.
const MAX_BLOCKS: usize = 64;

pub fn run(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    match kind % 5 {
        0 => table(rest),
        1 => {
            let Some((&compression, stored)) = rest.split_first() else {
                return;
            };
            table(&one_block_table(stored, compression));
        }
        2 => {
            let _ = entries(rest, 0, "block", |_, _| {});
            let _ = append_keys(rest, 0, "block", &mut KeyBuffer::default());
        }
        3 => {
            let _ = read_manifest(rest);
        }
        _ => {
            let _ = current_manifest(rest);
        }
    }
}

/// Reads the table `file` as the check does: every block its index and metaindex point to.
fn table(file: &[u8]) {
    let Ok(table) = Table::open(file) else {
        return;
    };
    for handle in [table.index, table.metaindex] {
        let Ok(block) = table.block(handle, "index block") else {
            continue;
        };
        let mut handles = Vec::new();
        let _ = block.entries(|_, value| {
            if let Ok(handle) = BlockHandle::from_value(value, "entry") {
                handles.push(handle);
            }
        });
        let mut keys = KeyBuffer::default();
        for handle in handles.into_iter().take(MAX_BLOCKS) {
            if let Ok(block) = table.block(handle, "data block") {
                same_keys(&block, &mut keys);
            }
        }
    }
}

/// Decodes `block`'s keys both ways, into `keys` (emptied first, its slack kept from the block
/// before): the keys that `append_keys` appends, and its error, must be those `entries` gives.
fn same_keys(block: &Block<'_>, keys: &mut KeyBuffer) {
    keys.clear();
    let appended = block.append_keys(keys);
    let mut found = (0..keys.len()).map(|i| keys.key(i));
    let mut count = 0;
    let walked = block.entries(|key, _| {
        assert_eq!(found.next(), Some(key), "key {count} differs");
        count += 1;
    });
    assert_eq!(found.next(), None, "append_keys appended more keys than entries gives");
    assert_eq!(appended, walked);
}

/// A table whose index block is `stored`, of compression type `compression`, with a valid
/// checksum: so that every decompressor meets any bytes.
fn one_block_table(stored: &[u8], compression: u8) -> Vec<u8> {
    let mut file = stored.to_vec();
    file.push(compression);
    file.extend(block_crc(stored, compression).to_le_bytes());
    let footer_at = file.len();
    // The metaindex and index handles: both the block, at 0 (varint64s; its length < 2^28).
    let mut handles = Vec::new();
    for _ in 0..2 {
        handles.push(0);
        let mut size = stored.len() as u64;
        while size >= 0x80 {
            handles.push(size as u8 | 0x80);
            size >>= 7;
        }
        handles.push(size as u8);
    }
    file.extend(&handles);
    file.resize(footer_at + FOOTER_LEN - 8, 0);
    file.extend(TABLE_MAGIC.to_le_bytes());
    file
}
