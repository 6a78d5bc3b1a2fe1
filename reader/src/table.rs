//! A table file's footer and blocks (table/format.cc, table/table.cc).

use std::borrow::Cow;

use crate::block::{BlockHandle, Compression, KeyBuffer, Stored, append_keys, decompress, entries};
use crate::coding::fixed64;
use crate::error::Error;

/// The magic number ending every table (`kTableMagicNumber`).
pub const TABLE_MAGIC: u64 = 0xdb47_7524_8b80_fb57;

/// A table's footer: the metaindex and index handles, padded to 40 bytes, then the magic number.
pub const FOOTER_LEN: usize = 48;

/// A table file's bytes, with the handles its footer holds.
#[derive(Clone, Copy, Debug)]
pub struct Table<'a> {
    file: &'a [u8],
    /// The metaindex block: the filter block's handle, under `filter.<policy name>`.
    pub metaindex: BlockHandle,
    /// The index block: a separator key and the handle of each data block, in file order.
    pub index: BlockHandle,
}

/// A block read from a table: its contents, decompressed, and what its trailer says.
#[derive(Clone, Debug)]
pub struct Block<'a> {
    /// Where it is.
    pub handle: BlockHandle,
    /// How it was stored.
    pub compression: Compression,
    /// Whether its trailer's CRC32C matches its stored bytes and type.
    pub checksum_ok: bool,
    /// Its contents, decompressed.
    pub contents: Cow<'a, [u8]>,
    what: &'static str,
}

impl<'a> Table<'a> {
    /// The table whose whole file is `file`, as far as its footer tells.
    ///
    /// # Errors
    /// If `file` is shorter than a footer, does not end with the magic number, or its footer's
    /// handles do not decode.
    pub fn open(file: &'a [u8]) -> Result<Table<'a>, Error> {
        let Some(footer_at) = file.len().checked_sub(FOOTER_LEN) else {
            return Err(Error::at(
                0,
                format!(
                    "{} bytes: shorter than a table's {FOOTER_LEN}-byte footer",
                    file.len()
                ),
            ));
        };
        let magic_at = file.len() - 8;
        let magic = fixed64(file, magic_at).unwrap_or_default();
        if magic != TABLE_MAGIC {
            return Err(Error::at(
                magic_at as u64,
                format!("not a leveldb table: magic number {magic:#018x}, not {TABLE_MAGIC:#018x}"),
            ));
        }
        let footer = &file[footer_at..magic_at];
        let mut at = 0;
        let handles = (
            BlockHandle::decode(footer, &mut at),
            BlockHandle::decode(footer, &mut at),
        );
        let (Some(metaindex), Some(index)) = handles else {
            return Err(Error::at(
                footer_at as u64,
                "bad block handle in the footer",
            ));
        };
        Ok(Table {
            file,
            metaindex,
            index,
        })
    }

    /// The file's length.
    pub fn len(&self) -> u64 {
        self.file.len() as u64
    }

    /// Whether the file is empty (never: [`Table::open`] needs a footer).
    pub fn is_empty(&self) -> bool {
        self.file.is_empty()
    }

    /// The block at `handle`, called `what` in errors: its checksum checked (the result says
    /// whether it matched) and its contents decompressed.
    ///
    /// # Errors
    /// If the block runs past the end of the file, its type is unknown, or it does not
    /// decompress.
    pub fn block(&self, handle: BlockHandle, what: &'static str) -> Result<Block<'a>, Error> {
        let stored = Stored::read(self.file, handle, what)?;
        let (compression, contents) = decompress(stored.bytes, stored.kind, handle.offset, what)
            .map_err(|mut err| {
                if !stored.checksum_ok {
                    err.message.push_str(" (and its checksum does not match)");
                }
                err
            })?;
        Ok(Block {
            handle,
            compression,
            checksum_ok: stored.checksum_ok,
            contents,
            what,
        })
    }
}

impl Block<'_> {
    /// Calls `entry(key, value)` for each of its entries, in order; see [`entries`].
    ///
    /// # Errors
    /// As [`entries`].
    pub fn entries(&self, entry: impl FnMut(&[u8], &[u8])) -> Result<(), Error> {
        entries(&self.contents, self.handle.offset, self.what, entry)
    }

    /// Appends its keys to `keys`; see [`append_keys`].
    ///
    /// # Errors
    /// As [`entries`].
    pub fn append_keys(&self, keys: &mut KeyBuffer) -> Result<(), Error> {
        append_keys(&self.contents, self.handle.offset, self.what, keys)
    }

    /// What it was called.
    pub fn what(&self) -> &'static str {
        self.what
    }
}
