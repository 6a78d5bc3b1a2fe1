//! A database's live tables: the CURRENT file names the MANIFEST, a log (db/log_format.h) of
//! version edits (db/version_edit.cc) whose sum is the current version.

use std::collections::BTreeMap;

use crate::block::masked_crc;
use crate::coding::{fixed32, length_prefixed, varint32, varint64};
use crate::error::Error;

/// The log's blocks: a record never straddles one's end (`kBlockSize`).
const LOG_BLOCK: usize = 32768;
/// A record fragment's header: masked CRC32C, length (fixed16), type.
const LOG_HEADER: usize = 7;
/// leveldb's `config::kNumLevels`: a level past it is a corrupt edit.
const NUM_LEVELS: u32 = 7;

/// The MANIFEST's file name the contents of a CURRENT file give.
///
/// # Errors
/// If it is not one line naming a MANIFEST file in the same folder.
pub fn current_manifest(current: &[u8]) -> Result<String, String> {
    let name = current
        .strip_suffix(b"\n")
        .and_then(|name| std::str::from_utf8(name).ok())
        .filter(|name| {
            name.strip_prefix("MANIFEST-")
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .ok_or_else(|| {
            format!(
                "CURRENT does not name a MANIFEST file: {:?}",
                String::from_utf8_lossy(&current[..current.len().min(80)])
            )
        })?;
    Ok(name.to_owned())
}

/// A table of the current version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LiveTable {
    /// Its file number: the file is `<number>.ldb` (`.sst` for leveldb before 1.14).
    pub number: u64,
    /// Its level.
    pub level: u32,
    /// Its length, as the MANIFEST records it.
    pub size: u64,
}

/// What a MANIFEST says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Version {
    /// The live tables, by file number.
    pub tables: Vec<LiveTable>,
    /// The comparator's name, if an edit records it.
    pub comparator: Option<String>,
}

/// The version the MANIFEST `log` describes; with the error that stopped its reading, if one
/// did (the version then holds the edits before it). A record cut short at the end is the
/// edit being written, as leveldb's reader takes it: not an error.
pub fn read_manifest(log: &[u8]) -> (Version, Option<Error>) {
    let mut live: BTreeMap<(u32, u64), u64> = BTreeMap::new();
    let mut comparator = None;
    let mut error = None;
    let mut records = Records { log, at: 0 };
    loop {
        match records.next_record() {
            Ok(Some((offset, record))) => {
                if let Err(why) = apply(&record, &mut live, &mut comparator) {
                    error = Some(Error::at(offset, format!("MANIFEST: version edit: {why}")));
                    break;
                }
            }
            Ok(None) => break,
            Err(err) => {
                error = Some(err);
                break;
            }
        }
    }
    let mut tables: Vec<LiveTable> = live
        .into_iter()
        .map(|((level, number), size)| LiveTable {
            number,
            level,
            size,
        })
        .collect();
    tables.sort();
    (Version { tables, comparator }, error)
}

/// The records of a log, fragments joined (db/log_reader.cc).
struct Records<'a> {
    log: &'a [u8],
    at: usize,
}

impl Records<'_> {
    /// The next record and the offset of its first fragment; None at the end.
    fn next_record(&mut self) -> Result<Option<(u64, Vec<u8>)>, Error> {
        let mut record: Option<(u64, Vec<u8>)> = None;
        loop {
            let left_in_block = LOG_BLOCK - self.at % LOG_BLOCK;
            if left_in_block < LOG_HEADER {
                // The block's tail, too short for a header, is padding.
                self.at += left_in_block;
            }
            let at = self.at;
            let Some(header) = self.log.get(at..at + LOG_HEADER) else {
                // The end, or a header cut short by a writer that stopped: the end.
                return Ok(None);
            };
            let len = usize::from(u16::from_le_bytes([header[4], header[5]]));
            let kind = header[6];
            let fail = |why: &str| Error::at(at as u64, format!("MANIFEST: {why}"));
            if kind == 0 && len == 0 {
                // Preallocated, never written: the rest of the block is empty.
                self.at += LOG_BLOCK - at % LOG_BLOCK;
                continue;
            }
            if LOG_HEADER + len > LOG_BLOCK - at % LOG_BLOCK {
                return Err(fail("log record runs past its 32 KB block"));
            }
            let Some(data) = self.log.get(at + LOG_HEADER..at + LOG_HEADER + len) else {
                return Ok(None);
            };
            let crc = crc32c::crc32c_append(crc32c::crc32c(&[kind]), data);
            if masked_crc(crc) != fixed32(header, 0).unwrap_or_default() {
                return Err(fail("log record's checksum does not match"));
            }
            self.at += LOG_HEADER + len;
            match (kind, &mut record) {
                (1, None) => return Ok(Some((at as u64, data.to_vec()))),
                (2, None) => record = Some((at as u64, data.to_vec())),
                (3, Some((_, bytes))) => bytes.extend_from_slice(data),
                (4, Some((start, bytes))) => {
                    bytes.extend_from_slice(data);
                    return Ok(Some((*start, std::mem::take(bytes))));
                }
                (1..=4, _) => return Err(fail("log record fragment out of order")),
                _ => return Err(fail(&format!("unknown log record type {kind}"))),
            }
        }
    }
}

/// Applies the version edit `edit` to the live tables (by level and number, with their sizes)
/// as leveldb's VersionSet::Builder does: its deletions, then its new files.
fn apply(
    edit: &[u8],
    live: &mut BTreeMap<(u32, u64), u64>,
    comparator: &mut Option<String>,
) -> Result<(), String> {
    let mut deleted = Vec::new();
    let mut added = Vec::new();
    let mut at = 0;
    let level = |at: &mut usize| varint32(edit, at).filter(|&level| level < NUM_LEVELS);
    while at < edit.len() {
        let tag = varint32(edit, &mut at).ok_or("bad tag")?;
        let field = match tag {
            1 => length_prefixed(edit, &mut at)
                .map(|name| *comparator = Some(String::from_utf8_lossy(name).into_owned())),
            // Log number, next file number, last sequence, previous log number.
            2 | 3 | 4 | 9 => varint64(edit, &mut at).map(drop),
            // A compaction pointer: a level and an internal key.
            5 => level(&mut at)
                .and_then(|_| length_prefixed(edit, &mut at))
                .map(drop),
            6 => level(&mut at)
                .zip(varint64(edit, &mut at))
                .map(|file| deleted.push(file)),
            7 => (|| {
                let file = (level(&mut at)?, varint64(edit, &mut at)?);
                let size = varint64(edit, &mut at)?;
                // The smallest and largest internal keys.
                length_prefixed(edit, &mut at)?;
                length_prefixed(edit, &mut at)?;
                added.push((file, size));
                Some(())
            })(),
            _ => return Err(format!("unknown tag {tag}")),
        };
        field.ok_or_else(|| format!("bad field of tag {tag}"))?;
    }
    for file in deleted {
        live.remove(&file);
    }
    live.extend(added);
    Ok(())
}
