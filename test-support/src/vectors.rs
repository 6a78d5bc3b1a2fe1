//! Reader for the reference vectors in vectors/ (format: vectors/README.md), for the Rust tests
//! and the fuzz seed writer (fuzz/examples/write_seeds.rs).

use crate::paths::root;

/// One `filter` or `match` record with the key and probe sets current at that point.
pub struct Record<'a> {
    /// `Some(bits_per_key)` for a `filter` record (built by leveldb from `keys`), `None` for `match`.
    pub bits_per_key: Option<u32>,
    /// The key set current at the record.
    pub keys: &'a [Vec<u8>],
    /// The probe set current at the record.
    pub probes: &'a [Vec<u8>],
    /// The filter: what leveldb built from `keys`, or the bytes a `match` record queries.
    pub filter: Vec<u8>,
    /// leveldb's `KeyMayMatch` for each probe.
    pub answers: Vec<bool>,
}

/// Bytes from plain hex; `-` is empty.
fn hex(field: &str) -> Vec<u8> {
    if field == "-" {
        return Vec::new();
    }
    hex_digits(field)
}

/// Plain hex of `bytes`, as the vectors and the tools' input files write them; `-` if empty.
pub fn to_hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex digits, two per byte.
pub(crate) fn hex_digits(digits: &str) -> Vec<u8> {
    assert!(digits.len().is_multiple_of(2), "odd hex field");
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).expect("hex digit"))
        .collect()
}

/// leveldb's answers from a field of `0`s and `1`s; `-` is none.
pub(crate) fn answer_bits(field: &str) -> Vec<bool> {
    if field == "-" {
        Vec::new()
    } else {
        field.bytes().map(|b| b == b'1').collect()
    }
}

/// Calls `check` on every record of `vectors/<name>` and returns how many there were.
pub fn for_each_record(name: &str, mut check: impl FnMut(&Record<'_>)) -> usize {
    let text =
        std::fs::read_to_string(root().join("vectors").join(name)).expect("vector file readable");
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("leveldb-bloom vectors v1"));
    let (mut keys, mut probes) = (Vec::new(), Vec::new());
    let mut records = 0;
    while let Some(line) = lines.next() {
        let fields: Vec<&str> = line.split(' ').collect();
        let mut list = |count: &str| -> Vec<Vec<u8>> {
            let n: usize = count.parse().expect("count");
            (0..n)
                .map(|_| hex(lines.next().expect("list line")))
                .collect()
        };
        let (bits_per_key, filter, answers) = match fields.as_slice() {
            [comment, ..] if comment.starts_with('#') => continue,
            ["keys", n] => {
                keys = list(n);
                continue;
            }
            ["probes", n] => {
                probes = list(n);
                continue;
            }
            ["filter", bpk, filter, answers] => {
                (Some(bpk.parse().expect("bpk")), *filter, *answers)
            }
            ["match", filter, answers] => (None, *filter, *answers),
            _ => panic!("malformed vector line: {line:.80}"),
        };
        let answers = answer_bits(answers);
        assert_eq!(answers.len(), probes.len(), "one answer per probe");
        check(&Record {
            bits_per_key,
            keys: &keys,
            probes: &probes,
            filter: hex(filter),
            answers,
        });
        records += 1;
    }
    records
}
