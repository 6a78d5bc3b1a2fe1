//! A table's blocks (table/format.cc, table/block.cc): where one is (its handle), its trailer
//! (compression type and masked CRC32C), its decompression, and its entries.

use crate::coding::{fixed32, varint32, varint64};
use crate::error::Error;

/// A block's trailer: its compression type byte and the masked CRC32C of its contents and type.
pub const BLOCK_TRAILER: u64 = 5;

/// Where a block is in its file: leveldb's `BlockHandle`, its trailer not counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockHandle {
    /// Where the block's stored bytes start.
    pub offset: u64,
    /// How many stored bytes it has, before its trailer.
    pub size: u64,
}

impl BlockHandle {
    /// The handle encoded at `bytes[*at..]` (two varint64s), advancing `at` past it.
    pub(crate) fn decode(bytes: &[u8], at: &mut usize) -> Option<BlockHandle> {
        Some(BlockHandle {
            offset: varint64(bytes, at)?,
            size: varint64(bytes, at)?,
        })
    }

    /// The handle that a block entry's value holds (an index or metaindex entry's), which
    /// `origin` names in an error.
    pub fn from_value(value: &[u8], origin: &str) -> Result<BlockHandle, String> {
        BlockHandle::decode(value, &mut 0).ok_or_else(|| format!("{origin}: bad block handle"))
    }

    /// Where its trailer ends, if that is a file offset.
    pub fn end(&self) -> Option<u64> {
        self.offset
            .checked_add(self.size)?
            .checked_add(BLOCK_TRAILER)
    }
}

/// How a block's stored bytes are compressed: its trailer's type byte, and for type 2, which
/// writer's meaning of it the stream's header shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Compression {
    /// Type 0: stored as they are.
    None,
    /// Type 1: snappy, as leveldb writes it.
    Snappy,
    /// Type 2 with a zlib header: Mojang's leveldb (`kZlibCompression`).
    Zlib,
    /// Type 2 with a zstd frame's magic number: leveldb after 1.23 (`kZstdCompression`).
    Zstd,
    /// Type 4: raw deflate, Mojang's leveldb (`kZlibRawCompression`), Minecraft's worlds.
    RawDeflate,
}

/// A zstd frame's first four bytes (its magic number, little-endian).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

impl Compression {
    /// The meaning of the trailer's type byte `kind` for a block whose stored bytes are
    /// `stored`: type 2 is zstd or zlib by the stream's header.
    fn of(kind: u8, stored: &[u8]) -> Result<Compression, String> {
        match kind {
            0 => Ok(Compression::None),
            1 => Ok(Compression::Snappy),
            2 if stored.starts_with(&ZSTD_MAGIC) => Ok(Compression::Zstd),
            // RFC 1950: deflate (8) in the low bits, and the two bytes a multiple of 31.
            2 if stored.len() >= 2
                && stored[0] & 0x0f == 8
                && u16::from_be_bytes([stored[0], stored[1]]).is_multiple_of(31) =>
            {
                Ok(Compression::Zlib)
            }
            2 => Err("compression type 2 with neither a zstd nor a zlib header".into()),
            4 => Ok(Compression::RawDeflate),
            _ => Err(format!("unknown compression type {kind}")),
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Snappy => "snappy",
            Compression::Zlib => "zlib (type 2, Mojang's)",
            Compression::Zstd => "zstd (type 2)",
            Compression::RawDeflate => "raw deflate (type 4, Mojang's)",
        }
    }
}

/// leveldb's mask of a CRC stored in a file (util/crc32c.h): a CRC of bytes that hold CRCs is
/// otherwise prone to be one of them.
pub fn masked_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(0xa282_ead8)
}

/// The masked CRC32C a block's trailer holds for its stored bytes and type byte.
pub fn block_crc(stored: &[u8], kind: u8) -> u32 {
    masked_crc(crc32c::crc32c_append(crc32c::crc32c(stored), &[kind]))
}

/// A block's stored bytes and trailer, as [`crate::Table::block`] hands them to
/// [`decompress`]: `file` holds the whole table, `handle` is inside it (checked).
pub(crate) struct Stored<'a> {
    pub bytes: &'a [u8],
    pub kind: u8,
    pub checksum_ok: bool,
}

impl<'a> Stored<'a> {
    pub(crate) fn read(file: &'a [u8], handle: BlockHandle, what: &str) -> Result<Self, Error> {
        let past_end = || {
            Error::at(
                handle.offset,
                format!(
                    "{what} of {} bytes runs past the end of the file ({} bytes)",
                    handle.size,
                    file.len()
                ),
            )
        };
        let end = handle.end().ok_or_else(past_end)?;
        if end > file.len() as u64 {
            return Err(past_end());
        }
        let (start, end) = (handle.offset as usize, end as usize);
        let bytes = &file[start..end - BLOCK_TRAILER as usize];
        let kind = file[end - 5];
        let stored_crc = fixed32(file, end - 4).unwrap_or_default();
        Ok(Stored {
            bytes,
            kind,
            checksum_ok: block_crc(bytes, kind) == stored_crc,
        })
    }
}

/// The contents of a block stored as `stored` with type byte `kind`, found at file offset
/// `origin`: borrowed when uncompressed. The output is never longer than the stored bytes can
/// decompress to.
pub(crate) fn decompress<'a>(
    stored: &'a [u8],
    kind: u8,
    origin: u64,
    what: &str,
) -> Result<(Compression, std::borrow::Cow<'a, [u8]>), Error> {
    let fail = |why: String| Error::at(origin, format!("{what}: {why}"));
    let compression = Compression::of(kind, stored).map_err(fail)?;
    let contents = match compression {
        Compression::None => std::borrow::Cow::Borrowed(stored),
        Compression::Zlib => std::borrow::Cow::Owned(
            bounded(flate2::read::ZlibDecoder::new(stored), stored.len(), 1032)
                .map_err(|why| fail(format!("zlib: {why}")))?,
        ),
        Compression::RawDeflate => std::borrow::Cow::Owned(
            bounded(
                flate2::read::DeflateDecoder::new(stored),
                stored.len(),
                1032,
            )
            .map_err(|why| fail(format!("raw deflate: {why}")))?,
        ),
        Compression::Zstd => {
            // The frame's window is reserved as it starts: no larger than its bytes could fill.
            let window = zstd_limit(stored.len());
            let decoder =
                ruzstd::decoding::StreamingDecoder::new_with_max_window_size(stored, window)
                    .map_err(|err| fail(format!("zstd: {err}")))?;
            std::borrow::Cow::Owned(
                bounded(decoder, stored.len(), ZSTD_RATIO)
                    .map_err(|why| fail(format!("zstd: {why}")))?,
            )
        }
        Compression::Snappy => {
            let len =
                snap::raw::decompress_len(stored).map_err(|err| fail(format!("snappy: {err}")))?;
            // A snappy element of n bytes makes at most 64 / 3 times as many: a longer length
            // in the header is a lie, which would otherwise be allocated.
            if len > stored.len().saturating_mul(22) {
                return Err(fail(format!(
                    "snappy header claims {len} bytes from {} stored",
                    stored.len()
                )));
            }
            let mut out = vec![0; len];
            snap::raw::Decoder::new()
                .decompress(stored, &mut out)
                .map_err(|err| fail(format!("snappy: {err}")))?;
            std::borrow::Cow::Owned(out)
        }
    };
    Ok((compression, contents))
}

/// The most a zstd frame makes of each of its bytes: an RLE block of 4 bytes makes 128 KiB.
const ZSTD_RATIO: usize = 32768;

/// The largest window or output a zstd frame of `len` bytes is allowed: what its bytes could
/// make, at least 1 MiB, at most 128 MiB (ruzstd's own default limit).
fn zstd_limit(len: usize) -> u64 {
    (len as u64)
        .saturating_mul(ZSTD_RATIO as u64)
        .clamp(1 << 20, 128 << 20)
}

/// Everything `decoder` makes of `len` stored bytes, refused past `ratio` bytes per stored byte
/// (at least 1 MiB), which no honest stream of its kind exceeds: the output grows only as it is
/// made, never by a length a header claims.
fn bounded(decoder: impl std::io::Read, len: usize, ratio: usize) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = len.saturating_mul(ratio).max(1 << 20);
    let mut out = Vec::new();
    decoder
        .take(limit as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|err| err.to_string())?;
    if out.len() > limit {
        return Err(format!("makes more than {limit} bytes of {len}"));
    }
    Ok(out)
}

/// Calls `entry(key, value)` for each entry of the block `contents` (restart array included),
/// keys whole (their shared prefixes restored), in order. `origin` (the block's file offset) and
/// `what` name the block in an error, which says where in the contents it is.
///
/// # Errors
/// If the restart array does not fit, a restart points outside the entries, an entry runs past
/// them or shares more of the previous key than there is, or the keys take more than 64 bytes
/// for each byte of the block (far more than leveldb's prefix compression makes).
pub fn entries(
    contents: &[u8],
    origin: u64,
    what: &str,
    mut entry: impl FnMut(&[u8], &[u8]),
) -> Result<(), Error> {
    let mut key = Vec::new();
    walk(contents, origin, what, |shared, at, non_shared, value| {
        key.truncate(shared);
        key.extend_from_slice(&contents[at..at + non_shared]);
        entry(&key, value);
    })
}

/// Keys back to back in one buffer, as [`append_keys`] decodes them: a table's keys, its room
/// kept from table to table.
#[derive(Clone, Debug, Default)]
pub struct KeyBuffer {
    /// The keys, then slack that a key is copied into in whole chunks before it is cut: kept
    /// initialized, so that the chunks are copied with no unsafe code.
    bytes: Vec<u8>,
    /// Where each key ends in `bytes`.
    ends: Vec<usize>,
}

impl KeyBuffer {
    /// Forgets the keys, keeping the room.
    pub fn clear(&mut self) {
        self.ends.clear();
    }

    /// How many keys it holds.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// Whether it holds no key.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The keys, back to back.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes[..self.ends.last().copied().unwrap_or(0)]
    }

    /// Where each key ends in [`KeyBuffer::bytes`].
    pub fn ends(&self) -> &[usize] {
        &self.ends
    }

    /// Key `i`; panics if there is no such key.
    pub fn key(&self, i: usize) -> &[u8] {
        let start = i.checked_sub(1).map_or(0, |before| self.ends[before]);
        &self.bytes[start..self.ends[i]]
    }
}

/// The first bytes of a key that are built in registers: the previous key's shared prefix
/// blended with the stored bytes that follow, so that no key is read back from the buffer just
/// written (a load spanning two recent stores stalls), and no call to memcpy is made for the
/// short keys leveldb's tables mostly hold.
const CHUNK: usize = 32;

/// `MASKS[CHUNK - n..][..CHUNK]` has its first n bytes set: the shared prefix's bytes.
static MASKS: [u8; 2 * CHUNK] = {
    let mut masks = [0; 2 * CHUNK];
    let mut i = 0;
    while i < CHUNK {
        masks[i] = 0xff;
        i += 1;
    }
    masks
};

/// Appends the key of each entry of the block `contents` to `keys`, whole, in order: a block's
/// keys decoded with no allocation or call per key, for a caller that keeps them all. On an
/// error (as [`entries`]'), the keys of the entries before it are appended.
///
/// # Errors
/// As [`entries`].
pub fn append_keys(
    contents: &[u8],
    origin: u64,
    what: &str,
    keys: &mut KeyBuffer,
) -> Result<(), Error> {
    let KeyBuffer { bytes, ends } = keys;
    let mut end = ends.last().copied().unwrap_or(0);
    // The previous key's first CHUNK bytes (past its end, anything) and where it starts. A
    // block's first key shares nothing.
    let (mut head, mut previous) = ([0u8; CHUNK], end);
    walk(contents, origin, what, |shared, at, non_shared, _| {
        let start = end;
        end = start + shared + non_shared;
        // Room for the key's first chunk, whatever its length: walk bounds what the keys take.
        if bytes.len() < end.max(start + CHUNK) {
            bytes.resize((end + CHUNK).max(2 * bytes.len()), 0);
        }
        // The stored bytes the key's own start at, as if the prefix were stored before them.
        let stored = at
            .checked_sub(shared)
            .and_then(|from| contents.get(from..)?.first_chunk::<CHUNK>());
        let mask = MASKS.get(CHUNK.wrapping_sub(shared)..);
        match (mask.and_then(<[u8]>::first_chunk::<CHUNK>), stored) {
            (Some(mask), Some(stored)) => {
                for i in 0..CHUNK {
                    head[i] = (head[i] & mask[i]) | (stored[i] & !mask[i]);
                }
                bytes[start..start + CHUNK].copy_from_slice(&head);
                if let Some(tail) = (end - start).checked_sub(CHUNK) {
                    bytes[start + CHUNK..end]
                        .copy_from_slice(&contents[at + non_shared - tail..at + non_shared]);
                }
            }
            // A prefix longer than a chunk, or bytes near the block's start or end.
            _ => {
                bytes.copy_within(previous..previous + shared, start);
                bytes[start + shared..end].copy_from_slice(&contents[at..at + non_shared]);
                head.copy_from_slice(&bytes[start..start + CHUNK]);
            }
        }
        ends.push(end);
        previous = start;
    })
}

/// The most bytes a block's keys may take together for each byte of the block. leveldb's
/// prefix compression makes fewer than one key's worth per entry of a restart interval (16 by
/// default); a block of n bytes whose entries share long prefixes could make about n²/12.
const KEY_BYTES_PER_BYTE: usize = 64;

/// Calls `entry(shared, at, non_shared, value)` for each entry of the block `contents`: its key
/// is the previous key's first `shared` bytes (no more than that key has, checked) and then
/// `contents[at..at + non_shared]`. Errors as [`entries`].
#[inline(always)]
fn walk(
    contents: &[u8],
    origin: u64,
    what: &str,
    mut entry: impl FnMut(usize, usize, usize, &[u8]),
) -> Result<(), Error> {
    let fail = |at: usize, why: &str| {
        Error::at(
            origin,
            format!(
                "{what}: {why}, at byte {at} of its {} bytes",
                contents.len()
            ),
        )
    };
    let Some(count_at) = contents.len().checked_sub(4) else {
        return Err(fail(0, "too short for a restart count"));
    };
    let num_restarts = fixed32(contents, count_at).unwrap_or_default() as usize;
    // leveldb's Block: the array must fit before the count.
    if num_restarts > count_at / 4 {
        return Err(fail(
            count_at,
            &format!("{num_restarts} restart points do not fit"),
        ));
    }
    let entries_end = count_at - 4 * num_restarts;
    for i in 0..num_restarts {
        let at = entries_end + 4 * i;
        let restart = fixed32(contents, at).unwrap_or_default() as usize;
        // An empty block's one restart is at its end; any other there points at nothing.
        if restart > entries_end || (restart == entries_end && entries_end > 0) {
            return Err(fail(
                at,
                &format!("restart point {i} ({restart}) points outside the entries"),
            ));
        }
    }
    let mut key_len = 0;
    // What the keys may take together, less what they have taken so far.
    let mut key_bytes_left = contents.len().saturating_mul(KEY_BYTES_PER_BYTE);
    let mut at = 0;
    while at < entries_end {
        let entry_at = at;
        let bad = |why: &str| fail(entry_at, why);
        // leveldb's DecodeEntry: three one-byte varints, the usual case, read at once.
        let header = match contents.get(at..at + 3) {
            Some(&[a, b, c]) if (a | b | c) < 0x80 => {
                at += 3;
                (Some(u32::from(a)), Some(u32::from(b)), Some(u32::from(c)))
            }
            _ => (
                varint32(contents, &mut at),
                varint32(contents, &mut at),
                varint32(contents, &mut at),
            ),
        };
        let (Some(shared), Some(non_shared), Some(value_len)) = header else {
            return Err(bad("bad entry header"));
        };
        let (shared, non_shared, value_len) =
            (shared as usize, non_shared as usize, value_len as usize);
        if shared > key_len {
            return Err(bad("entry shares more bytes than the previous key has"));
        }
        let room = entries_end.saturating_sub(at);
        if non_shared
            .checked_add(value_len)
            .is_none_or(|len| len > room)
        {
            return Err(bad("entry runs past the block's entries"));
        }
        key_len = shared + non_shared;
        key_bytes_left = key_bytes_left.checked_sub(key_len).ok_or_else(|| {
            bad(&format!(
                "its keys take more than {KEY_BYTES_PER_BYTE} bytes for each of its bytes, \
                 more than leveldb's prefix compression makes"
            ))
        })?;
        let key_at = at;
        at += non_shared;
        entry(shared, key_at, non_shared, &contents[at..at + value_len]);
        at += value_len;
    }
    Ok(())
}
