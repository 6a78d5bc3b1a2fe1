//! One table's check: its blocks read and verified, its filter block rebuilt from its keys and
//! compared, the keys a differing filter hides found, its false-positive rate measured.

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;

use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, FilterBlockReader, FilterPolicy, PackedKeys};
use leveldb_bloom_reader::{Block, BlockHandle, Error, KeyBuffer, Table};

use crate::filters::{
    GOLEVELDB_POLICY, LEVELDB_POLICY, SignedCharBloom, filters, infer_bits_per_key,
    theoretical_rate,
};
use crate::inputs::Job;

/// How tables are checked.
pub struct Options {
    /// Filter the keys as stored (a TableBuilder's table), not less their 8-byte tag.
    pub raw_keys: bool,
    /// The bits per key to rebuild with; inferred per table when None.
    pub bits_per_key: Option<u32>,
    /// Only read, verify and decompress every block (the benchmark's floor).
    pub floor: bool,
}

/// Hidden keys listed per table; the rest are counted.
const HIDDEN_LISTED: usize = 100;

/// Absent keys asked per table, at least, for the false-positive rate: every key of a small
/// table, an evenly spread sample of a large one (docs/CHECK.md says why 1,024 are enough).
const ABSENT_QUERIES: usize = 1024;

/// What checking a table found.
pub struct TableReport {
    /// Its file.
    pub path: PathBuf,
    /// Its level, for a database's table.
    pub level: Option<u32>,
    /// Its database and file number, for a database's table.
    pub database: Option<(usize, u64)>,
    /// Its length, as read.
    pub bytes: u64,
    /// What was found.
    pub state: State,
}

/// Whether a table could be read, and what its check found.
pub enum State {
    /// The file was not there when opened: a compaction removed it meanwhile (its database's
    /// MANIFEST no longer lists it), or the file named on the command line was removed.
    Gone,
    /// The file was not there, but its database's current MANIFEST still lists it.
    Missing,
    /// The file could not be read.
    Unreadable(String),
    /// The file was read.
    Read(Checked),
}

/// What a read table holds.
pub struct Checked {
    /// Its data blocks, as its index lists them.
    pub data_blocks: u64,
    /// Its keys (entries of its data blocks).
    pub keys: u64,
    /// The compressions its blocks were stored with.
    pub compressions: BTreeSet<&'static str>,
    /// Its corrupt blocks and structures, each a message with the file offset.
    pub corruption: Vec<String>,
    /// Its filter block, and what comparing it found.
    pub filter: Filter,
}

/// A table's filter block.
pub enum Filter {
    /// The metaindex names none (leveldb writes none unless a policy is set).
    Absent,
    /// Not compared: the table's structure, data or filter block could not be read (its
    /// corruption says why); the policy name, if the metaindex was read.
    NotCompared(Option<String>),
    /// Compared with the block this library builds.
    Compared(FilterCheck),
}

/// What comparing a stored filter block with the rebuilt one found.
pub struct FilterCheck {
    /// The policy name the metaindex records it under.
    pub policy: String,
    /// The bits per key it was rebuilt with.
    pub bits_per_key: u32,
    /// Whether those were inferred from the filters' sizes and key counts (not given).
    pub inferred: bool,
    /// The probe count most of its filters carry.
    pub probes: Option<u8>,
    /// Its filters (the most of the stored and the rebuilt block's).
    pub filters: u64,
    /// Those equal byte for byte to the rebuilt ones.
    pub identical: u64,
    /// Whether the whole block is byte for byte the rebuilt one.
    pub block_identical: bool,
    /// Keys of the table its filters say are not in it.
    pub false_negatives: u64,
    /// The first of them.
    pub hidden: Vec<Hidden>,
    /// Another writer whose filters the stored ones are, if one is recognized.
    pub writer: Option<&'static str>,
    /// Keys not in the table asked of its filters.
    pub absent_queries: u64,
    /// Those the filters answered "may match".
    pub false_positives: u64,
    /// The sum of each query's theoretical false-positive rate.
    pub theoretical_positives: f64,
}

/// A key hidden by its filter.
pub struct Hidden {
    /// The offset of the data block holding it.
    pub block_offset: u64,
    /// The key, as the filter is asked for it (a user key, unless --raw-keys).
    pub key: Vec<u8>,
}

/// The keys of a table's data blocks as stored, each block's offset and first key: one per
/// thread, its room kept from table to table.
#[derive(Default)]
pub struct Keys {
    keys: KeyBuffer,
    /// Each data block's offset and the index of its first key.
    blocks: Vec<(u64, usize)>,
    /// Whether the user keys are in bytewise order (leveldb's default comparator's).
    sorted: bool,
}

impl Keys {
    fn clear(&mut self) {
        self.keys.clear();
        self.blocks.clear();
        self.sorted = true;
    }

    fn key(&self, i: usize) -> &[u8] {
        self.keys.key(i)
    }

    /// Each block's offset with the range of its keys' indices.
    fn block_ranges(&self) -> impl Iterator<Item = (u64, std::ops::Range<usize>)> + '_ {
        self.blocks.iter().enumerate().map(|(b, &(offset, first))| {
            let end = self
                .blocks
                .get(b + 1)
                .map_or(self.keys.len(), |next| next.1);
            (offset, first..end)
        })
    }
}

/// Checks the table `job` names, its keys decoded into `keys`.
pub fn check_table(job: &Job, options: &Options, keys: &mut Keys) -> TableReport {
    let mut report = TableReport {
        path: job.path.clone(),
        level: job.level,
        database: job.database,
        bytes: 0,
        state: State::Gone,
    };
    match std::fs::read(&job.path) {
        Ok(file) => {
            report.bytes = file.len() as u64;
            report.state = State::Read(check_bytes(&file, options, keys));
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => report.state = State::Unreadable(err.to_string()),
    }
    report
}

/// Checks the table whose file holds `file`.
fn check_bytes(file: &[u8], options: &Options, keys: &mut Keys) -> Checked {
    let mut checked = Checked {
        data_blocks: 0,
        keys: 0,
        compressions: BTreeSet::new(),
        corruption: Vec::new(),
        filter: Filter::NotCompared(None),
    };
    let table = match Table::open(file) {
        Ok(table) => table,
        Err(err) => {
            checked.corruption.push(err.to_string());
            return checked;
        }
    };
    let Some(handles) = block_handles(&table, table.index, "index block", &mut checked) else {
        return checked;
    };
    let handles: Vec<BlockHandle> = handles.into_iter().map(|(_, handle)| handle).collect();
    let filter_handle = block_handles(&table, table.metaindex, "metaindex block", &mut checked)
        .map(|entries| {
            entries.into_iter().find_map(|(key, handle)| {
                let name = key.strip_prefix(b"filter.")?;
                Some((String::from_utf8_lossy(name).into_owned(), handle))
            })
        });
    if options.floor {
        for handle in handles
            .iter()
            .chain(filter_handle.iter().flatten().map(|f| &f.1))
        {
            checked.data_blocks += 1;
            read_block(&table, *handle, "block", &mut checked);
        }
        return checked;
    }
    let strip = if options.raw_keys { 0 } else { 8 };
    let whole = data_keys(&table, &handles, strip, keys, &mut checked);
    checked.filter = match filter_handle {
        Some(None) => Filter::Absent,
        None => Filter::NotCompared(None),
        Some(Some((policy, handle))) => {
            let stored = read_block(&table, handle, "filter block", &mut checked);
            match stored {
                Some(stored) if whole => {
                    let data_end = handles.last().and_then(BlockHandle::end).unwrap_or(0);
                    let check = compare(policy.clone(), &stored, keys, data_end, strip, options);
                    check.map_or(Filter::NotCompared(Some(policy)), Filter::Compared)
                }
                _ => Filter::NotCompared(Some(policy)),
            }
        }
    };
    checked
}

/// The block at `handle`, called `what`: None, with the corruption noted, if it cannot be read;
/// a checksum that does not match is noted too, and the block used.
fn read_block<'a>(
    table: &Table<'a>,
    handle: BlockHandle,
    what: &'static str,
    checked: &mut Checked,
) -> Option<Block<'a>> {
    match table.block(handle, what) {
        Ok(block) => {
            checked.compressions.insert(block.compression.name());
            if !block.checksum_ok {
                checked.corruption.push(
                    Error {
                        offset: handle.offset,
                        message: format!("{what}: its checksum does not match its bytes"),
                    }
                    .to_string(),
                );
            }
            Some(block)
        }
        Err(err) => {
            checked.corruption.push(err.to_string());
            None
        }
    }
}

/// The entries of the index or metaindex block at `handle`: each key with the block handle its
/// value holds. None, with the corruption noted, if the block cannot be read.
fn block_handles(
    table: &Table<'_>,
    handle: BlockHandle,
    what: &'static str,
    checked: &mut Checked,
) -> Option<Vec<(Vec<u8>, BlockHandle)>> {
    let block = read_block(table, handle, what, checked)?;
    let mut entries = Vec::new();
    let mut bad_value = None;
    let result = block.entries(|key, value| match BlockHandle::from_value(value, what) {
        Ok(handle) => entries.push((key.to_vec(), handle)),
        Err(why) => {
            bad_value.get_or_insert(why);
        }
    });
    let error = result.err().or_else(|| {
        bad_value.map(|why| Error {
            offset: handle.offset,
            message: why,
        })
    });
    match error {
        Some(err) => {
            checked.corruption.push(err.to_string());
            None
        }
        None => Some(entries),
    }
}

/// Decodes the keys of every data block into `keys`, checking that each has its `strip` bytes
/// of tag: false, with the corruption noted, if any block cannot be read or is corrupt, as its
/// keys then say nothing of its filter.
fn data_keys(
    table: &Table<'_>,
    handles: &[BlockHandle],
    strip: usize,
    keys: &mut Keys,
    checked: &mut Checked,
) -> bool {
    keys.clear();
    let mut whole = true;
    for &handle in handles {
        checked.data_blocks += 1;
        let Some(block) = read_block(table, handle, "data block", checked) else {
            whole = false;
            continue;
        };
        whole &= block.checksum_ok;
        let first = keys.keys.len();
        keys.blocks.push((handle.offset, first));
        let result = block.append_keys(&mut keys.keys);
        if let Err(err) = result {
            checked.corruption.push(err.to_string());
            whole = false;
        }
        // The block's keys, still in cache: each long enough for its tag, and after the one
        // before it (the previous block's last, for the first).
        let mut short_key = None;
        let (bytes, ends) = (keys.keys.bytes(), keys.keys.ends());
        let mut start = first.checked_sub(1).map_or(0, |last| ends[last]);
        let mut previous = first.checked_sub(1).map(|last| {
            let key = keys.key(last);
            &key[..key.len().saturating_sub(strip)]
        });
        let mut sorted = keys.sorted;
        for &end in &ends[first..] {
            let key = &bytes[start..end];
            start = end;
            let Some(user_len) = key.len().checked_sub(strip) else {
                short_key.get_or_insert(key.len());
                continue;
            };
            let user = &key[..user_len];
            if let Some(previous) = previous.filter(|_| sorted) {
                sorted = bytewise(previous, user).is_le();
            }
            previous = Some(user);
        }
        keys.sorted = sorted;
        if let Some(len) = short_key {
            checked.corruption.push(
                Error {
                    offset: handle.offset,
                    message: format!(
                        "data block: a key of {len} bytes, shorter than an internal key's \
                         8-byte tag (a TableBuilder's table? check it with --raw-keys)"
                    ),
                }
                .to_string(),
            );
            whole = false;
        }
    }
    checked.keys = keys.keys.len() as u64;
    whole
}

/// The filter block `policy` builds for `keys`, each less `strip` bytes, at their blocks'
/// offsets, as leveldb's TableBuilder calls its FilterBlockBuilder; None if the offsets go
/// backwards, as no table leveldb writes has them, or a key is shorter than `strip`.
fn rebuild(policy: impl FilterPolicy, keys: &Keys, data_end: u64, strip: usize) -> Option<Vec<u8>> {
    let packed = PackedKeys::new(keys.keys.bytes(), keys.keys.ends(), strip)?;
    // After the last block, leveldb's TableBuilder starts one at the end of the data.
    let starts = keys.blocks.iter().copied();
    let starts = starts.chain([(data_end, keys.keys.len())]);
    FilterBlockBuilder::build_packed(policy, packed, starts).ok()
}

/// Compares the stored filter block with the one this library builds from the table's keys.
fn compare(
    policy: String,
    stored: &Block<'_>,
    keys: &Keys,
    data_end: u64,
    strip: usize,
    options: &Options,
) -> Option<FilterCheck> {
    let stored_filters = filters(&stored.contents);
    // Each filter's key count: the keys of the blocks starting in its 2 KB.
    let mut counts = vec![0u64; stored_filters.len()];
    for (offset, range) in keys.block_ranges() {
        if let Some(count) = usize::try_from(offset >> 11)
            .ok()
            .and_then(|i| counts.get_mut(i))
        {
            *count += range.len() as u64;
        }
    }
    let (bits_per_key, inferred) = match options.bits_per_key {
        Some(bits) => (bits, false),
        None => {
            let sized: Vec<(&[u8], u64)> = stored_filters
                .iter()
                .zip(&counts)
                .filter_map(|(filter, &count)| Some(((*filter)?, count)))
                .collect();
            (infer_bits_per_key(&sized), true)
        }
    };
    let bloom = BloomPolicy::new(bits_per_key);
    let rebuilt = rebuild(bloom, keys, data_end, strip)?;
    let block_identical = *stored.contents == rebuilt[..];
    // Identical blocks, the usual case, have identical filters: compared one by one otherwise.
    let (total, identical) = if block_identical {
        let total = stored_filters.len();
        (total, stored_filters.iter().flatten().count())
    } else {
        let rebuilt_filters = filters(&rebuilt);
        let total = stored_filters.len().max(rebuilt_filters.len());
        let identical = (0..total)
            .filter(|&i| {
                let stored = stored_filters.get(i).copied().flatten();
                stored.is_some() && stored == rebuilt_filters.get(i).copied().flatten()
            })
            .count();
        (total, identical)
    };
    let mut check = FilterCheck {
        probes: most_common_probes(&stored_filters),
        policy,
        bits_per_key,
        inferred,
        filters: total as u64,
        identical: identical as u64,
        block_identical,
        false_negatives: 0,
        hidden: Vec::new(),
        writer: None,
        absent_queries: 0,
        false_positives: 0,
        theoretical_positives: 0.0,
    };
    // leveldb's query, which only these policies' filters are read with.
    if check.policy != LEVELDB_POLICY && check.policy != GOLEVELDB_POLICY {
        return Some(check);
    }
    let reader = FilterBlockReader::new(bloom, &stored.contents);
    if !check.block_identical {
        find_hidden(&reader, keys, strip, &mut check);
        check.writer = other_writer(&stored.contents, bloom, keys, data_end, strip);
    }
    measure_false_positives(&reader, keys, strip, &stored_filters, &counts, &mut check);
    Some(check)
}

/// The probe count (last byte) most of `filters` carry.
fn most_common_probes(filters: &[Option<&[u8]>]) -> Option<u8> {
    let mut counts = [0usize; 256];
    for filter in filters.iter().flatten() {
        if let Some(&k) = filter.last() {
            counts[usize::from(k)] += 1;
        }
    }
    (0..=255u8)
        .max_by_key(|&k| counts[usize::from(k)])
        .filter(|&k| counts[usize::from(k)] > 0)
}

/// Asks the stored filters about every key of the table: each "no" is a key leveldb's Get
/// cannot find.
fn find_hidden(
    reader: &FilterBlockReader<'_, BloomPolicy>,
    keys: &Keys,
    strip: usize,
    check: &mut FilterCheck,
) {
    let mut results = Vec::new();
    for (offset, range) in keys.block_ranges() {
        let block_keys: Vec<&[u8]> = range
            .map(|i| {
                let key = keys.key(i);
                &key[..key.len() - strip]
            })
            .collect();
        results.clear();
        results.resize(block_keys.len(), false);
        reader.key_may_match_batch(&vec![offset; block_keys.len()], &block_keys, &mut results);
        for (key, _) in block_keys
            .iter()
            .zip(&results)
            .filter(|(_, found)| !**found)
        {
            check.false_negatives += 1;
            if check.hidden.len() < HIDDEN_LISTED {
                check.hidden.push(Hidden {
                    block_offset: offset,
                    key: key.to_vec(),
                });
            }
        }
    }
}

/// The writer whose filters the stored block holds, where it is one the check knows: leveldb
/// before 1.18's signed-char hash, or the other reading of the keys (whole keys for a
/// database's tables, user keys for --raw-keys).
fn other_writer(
    stored: &[u8],
    bloom: BloomPolicy,
    keys: &Keys,
    data_end: u64,
    strip: usize,
) -> Option<&'static str> {
    if rebuild(SignedCharBloom(bloom), keys, data_end, strip).as_deref() == Some(stored) {
        return Some(
            "leveldb before 1.18, or a port of its code: the last bytes of keys hashed as \
             signed chars",
        );
    }
    if strip == 0 {
        // None where a key is shorter than a tag: then they are no internal keys.
        if rebuild(bloom, keys, data_end, 8).as_deref() == Some(stored) {
            return Some("filters of user keys: a database's table (check it without --raw-keys)");
        }
    } else if rebuild(bloom, keys, data_end, 0).as_deref() == Some(stored) {
        return Some(
            "filters of whole keys: a table a TableBuilder wrote (check it with --raw-keys)",
        );
    }
    None
}

/// Asks the stored filters about keys not in the table: each key (of a sample, in a large
/// table) with its last byte changed, where that is no key of the table.
fn measure_false_positives(
    reader: &FilterBlockReader<'_, BloomPolicy>,
    keys: &Keys,
    strip: usize,
    stored_filters: &[Option<&[u8]>],
    counts: &[u64],
    check: &mut FilterCheck,
) {
    let user_key = |i: usize| {
        let key = keys.key(i);
        &key[..key.len() - strip]
    };
    let n = keys.keys.len();
    // A table's user keys are in order under leveldb's bytewise comparator, and a key with its
    // last byte raised sorts a step or two after the key it came from: a search galloping from
    // there finds it. Under another comparator they may be in no such order: a set of them.
    let set: HashSet<&[u8]> = if keys.sorted {
        HashSet::new()
    } else {
        (0..n).map(user_key).collect()
    };
    let in_table = |from: usize, key: &[u8]| {
        if !keys.sorted {
            return set.contains(key);
        }
        // Every key before `low` is below `key`; the one at `high` (or the end) is not.
        let (mut low, mut high, mut step) = (from, from, 1);
        while high < n && bytewise(user_key(high), key).is_lt() {
            low = high + 1;
            high = low + step;
            step *= 2;
        }
        let mut high = high.min(n);
        while low < high {
            let middle = low + (high - low) / 2;
            if bytewise(user_key(middle), key).is_lt() {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low < n && bytewise(user_key(low), key).is_eq()
    };
    let stride = (n / ABSENT_QUERIES).max(1);
    let mut absent = Vec::new();
    // Queries meet the filters in order: each one's rate is worked out once.
    let mut rate: Option<(usize, f64)> = None;
    for (offset, range) in keys.block_ranges() {
        for i in (range.start.next_multiple_of(stride)..range.end).step_by(stride) {
            absent.clear();
            absent.extend_from_slice(user_key(i));
            let Some(last) = absent.last_mut() else {
                continue;
            };
            *last = last.wrapping_add(1);
            // Raised, it sorts after key i; a last byte of 0xff wraps to 0, and that key sorts
            // before, found from the start.
            let from = if *last == 0 { 0 } else { i + 1 };
            if in_table(from, &absent) {
                continue;
            }
            check.absent_queries += 1;
            check.false_positives += u64::from(reader.key_may_match(offset, &absent));
            let index = usize::try_from(offset >> 11).unwrap_or(usize::MAX);
            if rate.is_none_or(|(of, _)| of != index) {
                let theory = match stored_filters.get(index) {
                    Some(Some(filter)) => theoretical_rate(filter, counts[index]).unwrap_or(0.0),
                    // No filter leveldb can read: it answers "may match".
                    _ => 1.0,
                };
                rate = Some((index, theory));
            }
            check.theoretical_positives += rate.map_or(1.0, |(_, theory)| theory);
        }
    }
}

/// leveldb's bytewise order of `a` and `b`. Most pairs differ in their first 8 bytes, told apart
/// here without a call to memcmp, which costs more than the comparing for short keys (the check
/// compares every key of a table with the one before it).
fn bytewise(a: &[u8], b: &[u8]) -> Ordering {
    match (a.first_chunk::<8>(), b.first_chunk::<8>()) {
        (Some(a8), Some(b8)) => u64::from_be_bytes(*a8)
            .cmp(&u64::from_be_bytes(*b8))
            .then_with(|| a.cmp(b)),
        _ => a.cmp(b),
    }
}
