//! Reader for vectors/filterblock.txt (format: vectors/README.md), leveldb's filter blocks, for
//! the Rust tests and the fuzz seed writer.

use std::path::Path;

use crate::paths::root;
use crate::vectors::{answer_bits, hex_digits};

/// A call to leveldb's `FilterBlockBuilder`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// `StartBlock(block_offset)`.
    StartBlock(u64),
    /// `AddKey(key)`.
    AddKey(Vec<u8>),
}

/// The policy a record names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// `NewBloomFilterPolicy(bits_per_key)`.
    Bloom(u32),
    /// The vectors' custom policy (vectors/README.md).
    Custom,
}

/// One `build` or `read` record, with the calls and queries current at that point.
pub struct Record<'a> {
    /// The policy whose filters the block holds.
    pub policy: Policy,
    /// `Some(calls)` for a `build` record (the block is what they build), `None` for `read`.
    pub calls: Option<&'a [Call]>,
    /// The block leveldb built, or the contents read.
    pub block: Vec<u8>,
    /// (block offset, key) pairs, and leveldb's `KeyMayMatch` for each.
    pub queries: &'a [(u64, Vec<u8>)],
    /// leveldb's answer to each query.
    pub answers: Vec<bool>,
}

/// Bytes from the file's hex: `-` is empty; parts joined by `.`, each plain hex or
/// `COUNTxHEX`, HEX repeated COUNT times.
pub fn hex(field: &str) -> Vec<u8> {
    let mut out = Vec::new();
    if field == "-" {
        return out;
    }
    for part in field.split('.') {
        let (count, digits) = match part.split_once('x') {
            Some((count, digits)) => (count.parse().expect("run count"), digits),
            None => (1, part),
        };
        let bytes = hex_digits(digits);
        for _ in 0..count {
            out.extend_from_slice(&bytes);
        }
    }
    out
}

fn policy(name: &str) -> Policy {
    match name.strip_prefix("bloom:") {
        Some(bits) => Policy::Bloom(bits.parse().expect("bits per key")),
        None if name == "custom" => Policy::Custom,
        None => panic!("unknown policy {name}"),
    }
}

/// Calls `check` on every record of vectors/filterblock.txt and returns how many there were.
pub fn for_each_record(check: impl FnMut(&Record<'_>)) -> usize {
    for_each_record_in(&root().join("vectors"), check)
}

/// [`for_each_record`] for a vectors folder given by path.
pub fn for_each_record_in(dir: &Path, mut check: impl FnMut(&Record<'_>)) -> usize {
    let text = std::fs::read_to_string(dir.join("filterblock.txt")).expect("vector file readable");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("leveldb-bloom filter block vectors v1"));
    let (mut calls, mut queries) = (Vec::new(), Vec::new());
    let mut records = 0;
    while let Some(line) = lines.next() {
        let fields: Vec<&str> = line.split(' ').collect();
        let (built, name, block, answers) = match fields.as_slice() {
            [comment, ..] if comment.starts_with('#') => continue,
            ["calls", n] => {
                let n: usize = n.parse().expect("count");
                calls = (0..n)
                    .map(|_| match lines.next().expect("call line").split_once(' ') {
                        Some(("start", offset)) => {
                            Call::StartBlock(offset.parse().expect("offset"))
                        }
                        Some(("key", key)) => Call::AddKey(hex(key)),
                        other => panic!("malformed call {other:?}"),
                    })
                    .collect();
                continue;
            }
            ["queries", n] => {
                let n: usize = n.parse().expect("count");
                queries = (0..n)
                    .map(|_| {
                        let (offset, key) = lines
                            .next()
                            .expect("query line")
                            .split_once(' ')
                            .expect("offset and key");
                        (offset.parse().expect("offset"), hex(key))
                    })
                    .collect();
                continue;
            }
            ["build", name, block, answers] => (true, *name, *block, *answers),
            ["read", name, block, answers] => (false, *name, *block, *answers),
            _ => panic!("malformed vector line: {line:.80}"),
        };
        let answers = answer_bits(answers);
        assert_eq!(answers.len(), queries.len(), "one answer per query");
        check(&Record {
            policy: policy(name),
            calls: built.then_some(calls.as_slice()),
            block: hex(block),
            queries: &queries,
            answers,
        });
        records += 1;
    }
    records
}
