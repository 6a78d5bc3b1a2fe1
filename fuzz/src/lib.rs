//! What the fuzz targets check, kept out of fuzz_targets/ so the seed writer shares the input
//! format. Every implementation of a function (the scalar oracle in `leveldb_bloom::scalar`, the
//! public Rust API, the C ABI and, when installed, leveldb itself) is listed once in
//! [`builders`] or [`matchers`]; a target requires all of them to give the oracle's answer. A new
//! fast path or export is tested by adding one line to a list.

use std::ffi::c_char;

use leveldb_bloom::ffi::{
    leveldb_filterpolicy_create_bloom, leveldb_filterpolicy_create_filter,
    leveldb_filterpolicy_destroy, leveldb_filterpolicy_key_may_match, leveldb_free,
};
use leveldb_bloom::{BloomPolicy, key_may_match, key_may_match_batch, scalar};

pub mod c_api;
pub mod filter_block;
pub mod table_reader;
#[cfg(has_leveldb)]
mod leveldb;

/// Filters above this many bits only slow the fuzzer down without reaching new code; larger
/// requests are folded back below it (filters of 2^32 bits are tested in tests/).
const MAX_FILTER_BITS: u64 = 1 << 23;

/// Reads a fuzz input as a few typed fields. Missing bytes read as zeros, so every input decodes.
pub struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    #[must_use]
    pub fn new(data: &'a [u8]) -> Self {
        Reader(data)
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.0.split_at(n.min(self.0.len()));
        self.0 = tail;
        head
    }

    pub fn u8(&mut self) -> u8 {
        self.take(1).first().copied().unwrap_or(0)
    }

    pub fn u16(&mut self) -> u16 {
        let mut le = [0; 2];
        let got = self.take(2);
        le[..got.len()].copy_from_slice(got);
        u16::from_le_bytes(le)
    }

    pub fn i32(&mut self) -> i32 {
        let mut le = [0; 4];
        let got = self.take(4);
        le[..got.len()].copy_from_slice(got);
        i32::from_le_bytes(le)
    }

    /// A byte string: a u16 length, then that many bytes (fewer if the input ends first).
    pub fn bytes(&mut self) -> &'a [u8] {
        let len = self.u16();
        self.take(len.into())
    }

    /// Everything not read yet.
    pub fn rest(&mut self) -> &'a [u8] {
        self.take(self.0.len())
    }
}

/// Writes what [`Reader`] reads; used to turn the reference vectors into seeds.
#[derive(Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }

    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }

    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend(v.to_le_bytes());
        self
    }

    /// # Panics
    /// If `v` is longer than a u16 length can say.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.u16(u16::try_from(v.len()).expect("byte string under 64 KiB"));
        self.0.extend(v);
        self
    }
}

/// Builds the filter for keys with `NewBloomFilterPolicy(bits_per_key)`.
pub type Build = fn(u32, &[&[u8]]) -> Vec<u8>;
/// `KeyMayMatch(key, filter)`.
pub type Match = fn(&[u8], &[u8]) -> bool;

/// Every way to build a filter; the first is the oracle.
#[must_use]
pub fn builders() -> Vec<(&'static str, Build)> {
    let mut list: Vec<(&'static str, Build)> = vec![
        ("scalar oracle (scalar::fill_filter)", |bits, keys| {
            let policy = BloomPolicy::new(bits);
            let mut filter = vec![0xa5; policy.filter_len(keys.len()).unwrap()];
            scalar::fill_filter(policy.num_probes(), keys.iter().copied(), &mut filter);
            filter
        }),
        ("BloomPolicy::create_filter", |bits, keys| {
            let mut filter = Vec::new();
            BloomPolicy::new(bits).create_filter(keys, &mut filter);
            filter
        }),
        ("BloomPolicy::create_filter appending", |bits, keys| {
            let mut filter = b"prefix".to_vec();
            BloomPolicy::new(bits).create_filter(keys, &mut filter);
            filter.split_off(6)
        }),
        ("BloomPolicy::fill_filter", |bits, keys| {
            let policy = BloomPolicy::new(bits);
            let mut filter = vec![0xa5; policy.filter_len(keys.len()).unwrap()];
            policy.fill_filter(keys.iter().copied(), &mut filter);
            filter
        }),
        ("C leveldb_filterpolicy_create_filter", c_create_filter),
    ];
    #[cfg(has_leveldb)]
    list.push(("leveldb", leveldb::create_filter));
    list
}

/// Every way to query a filter; the first is the oracle.
#[must_use]
pub fn matchers() -> Vec<(&'static str, Match)> {
    let mut list: Vec<(&'static str, Match)> = vec![
        (
            "scalar oracle (scalar::key_may_match)",
            scalar::key_may_match,
        ),
        ("key_may_match", key_may_match),
        ("key_may_match_batch", |key, filter| {
            let mut result = [false];
            key_may_match_batch(&[key], filter, &mut result);
            result[0]
        }),
        ("BloomPolicy::key_may_match", |key, filter| {
            BloomPolicy::new(10).key_may_match(key, filter)
        }),
        ("C leveldb_filterpolicy_key_may_match", c_key_may_match),
    ];
    #[cfg(has_leveldb)]
    list.push(("leveldb", leveldb::key_may_match));
    list
}

/// Keys as the C calls take them: an array of pointers and one of lengths.
fn c_key_arrays(keys: &[&[u8]]) -> (Vec<*const c_char>, Vec<usize>) {
    keys.iter().map(|k| (k.as_ptr().cast(), k.len())).unzip()
}

/// Copies a malloc'ed filter of `len` bytes and frees it.
///
/// # Safety
/// `filter` is a malloc'ed buffer of `len` bytes, not used again.
unsafe fn take_filter(filter: *mut c_char, len: usize, who: &str) -> Vec<u8> {
    assert!(!filter.is_null(), "{who} returned NULL for valid keys");
    let copy = unsafe { std::slice::from_raw_parts(filter.cast::<u8>(), len) }.to_vec();
    // leveldb_free is libc free, for any malloc'ed buffer.
    unsafe { leveldb_free(filter.cast()) };
    copy
}

fn c_create_filter(bits: u32, keys: &[&[u8]]) -> Vec<u8> {
    let (ptrs, lens) = c_key_arrays(keys);
    let policy = leveldb_filterpolicy_create_bloom(bits.try_into().unwrap());
    let mut len = 0;
    // SAFETY: both arrays hold keys.len() entries describing live keys; the policy is live.
    let filter = unsafe {
        leveldb_filterpolicy_create_filter(
            policy,
            ptrs.as_ptr(),
            lens.as_ptr(),
            keys.len().try_into().unwrap(),
            &mut len,
        )
    };
    unsafe { leveldb_filterpolicy_destroy(policy) };
    // SAFETY: the C ABI's filters are malloc'ed, `len` bytes long.
    unsafe { take_filter(filter, len, "the C ABI") }
}

fn c_key_may_match(key: &[u8], filter: &[u8]) -> bool {
    let policy = leveldb_filterpolicy_create_bloom(10);
    // SAFETY: the slices are live for the call; the policy is live until destroyed below.
    let answer = unsafe {
        leveldb_filterpolicy_key_may_match(
            policy,
            key.as_ptr().cast(),
            key.len(),
            filter.as_ptr().cast(),
            filter.len(),
        )
    };
    unsafe { leveldb_filterpolicy_destroy(policy) };
    assert!(answer <= 1, "the C ABI answered {answer}, not 0 or 1");
    answer == 1
}

/// The filter every builder makes for `keys`, after requiring them all to be the oracle's.
///
/// # Panics
/// On the first builder that differs from the oracle.
#[must_use]
pub fn agreed_filter(bits_per_key: u32, keys: &[&[u8]]) -> Vec<u8> {
    let builders = builders();
    let (_, oracle) = builders[0];
    let expected = oracle(bits_per_key, keys);
    for (name, build) in &builders[1..] {
        assert!(
            build(bits_per_key, keys) == expected,
            "{name} builds a different filter for {} keys at {bits_per_key} bits per key",
            keys.len()
        );
    }
    expected
}

/// The answer every matcher gives, after requiring them all to be the oracle's.
///
/// # Panics
/// On the first matcher that differs from the oracle.
#[must_use]
pub fn agreed_answer(key: &[u8], filter: &[u8]) -> bool {
    let matchers = matchers();
    let (_, oracle) = matchers[0];
    let expected = oracle(key, filter);
    for (name, matches) in &matchers[1..] {
        assert_eq!(
            matches(key, filter),
            expected,
            "{name} answers differently for key {key:02x?} on a {}-byte filter",
            filter.len()
        );
    }
    expected
}

/// `bits_per_key` folded so that the filter for `num_keys` keys stays below [`MAX_FILTER_BITS`].
fn bounded_bits_per_key(bits_per_key: u32, num_keys: usize) -> u32 {
    if u64::from(bits_per_key) * num_keys as u64 > MAX_FILTER_BITS {
        bits_per_key % 101
    } else {
        bits_per_key
    }
}

/// Target `build_filter`. Input: u16 bits per key, then keys (byte strings) to the end.
pub fn build_filter(data: &[u8]) {
    let mut input = Reader::new(data);
    let bits_per_key = input.u16().into();
    let mut keys = Vec::new();
    while !input.is_empty() {
        keys.push(input.bytes());
    }
    let bits_per_key = bounded_bits_per_key(bits_per_key, keys.len());
    let filter = agreed_filter(bits_per_key, &keys);
    for key in &keys {
        assert!(agreed_answer(key, &filter), "false negative for {key:02x?}");
        // A near miss, usually not a member: its answer must agree too.
        let reversed: Vec<u8> = key.iter().rev().copied().collect();
        let _ = agreed_answer(&reversed, &filter);
    }
}

/// Target `key_may_match`. Input: filter bytes (a byte string), then keys to the end; the empty
/// key is always probed.
pub fn key_may_match_on_any_bytes(data: &[u8]) {
    let mut input = Reader::new(data);
    let filter = input.bytes();
    let _ = agreed_answer(b"", filter);
    while !input.is_empty() {
        let _ = agreed_answer(input.bytes(), filter);
    }
}
