//! leveldb's files, read for `leveldb-bloom check` (cli/): a table's footer, metaindex, index,
//! data and filter blocks (table/format.cc, table/block.cc), and a database's CURRENT file and
//! MANIFEST (db/log_reader.cc, db/version_edit.cc), as leveldb 1.23 and the forks the check
//! meets write them.
//!
//! Every read takes bytes the caller has read with ordinary reads, and survives any bytes: a
//! truncated file, a wrong magic number, a handle past the end, a huge length, a restart array
//! pointing outside its block give an [`Error`] naming the offset, never a panic, a hang or an
//! allocation the bytes' length does not justify (fuzz/fuzz_targets/table_reader.rs).

mod block;
mod coding;
mod error;
pub mod manifest;
mod table;

pub use block::{
    BLOCK_TRAILER, BlockHandle, Compression, KeyBuffer, append_keys, block_crc, entries, masked_crc,
};
pub use error::Error;
pub use table::{Block, FOOTER_LEN, TABLE_MAGIC, Table};
