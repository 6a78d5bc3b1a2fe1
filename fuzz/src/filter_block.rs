//! Target `filter_block`: leveldb's filter blocks from arbitrary call sequences and arbitrary
//! bytes. Every builder (the Rust API, the C ABI and, when leveldb's source tree was there to
//! build the adapter, leveldb's own `FilterBlockBuilder`) must give the same block, and refuse
//! exactly the calls leveldb asserts on; every reader (Rust single and batch, C single and batch,
//! leveldb's `FilterBlockReader`) must answer alike, on the built block, on it corrupted, and on
//! the input's last bytes as a block.
//!
//! Input: u8 bits per key (modulo 51), u8 count of calls, then the calls: a u8 operation
//! (modulo 4: 0 start a block a u16 past the last offset, 1 far past it (u16 x 2 KB), 2 a u16
//! before it, 3 add a key, a byte string), then a u16 position and u8 mask to corrupt the block
//! with, then the rest of the input as arbitrary block contents.

use std::ffi::c_char;

use leveldb_bloom::ffi::{
    leveldb_filterblock_builder_add_key, leveldb_filterblock_builder_create,
    leveldb_filterblock_builder_destroy, leveldb_filterblock_builder_finish,
    leveldb_filterblock_builder_start_block, leveldb_filterblock_key_may_match,
    leveldb_filterblock_key_may_match_batch, leveldb_filterpolicy_create_bloom,
    leveldb_filterpolicy_destroy,
};
use leveldb_bloom::{BloomPolicy, FilterBlockBuilder, FilterBlockError, FilterBlockReader};

use crate::Reader;

/// Offsets stay below this: past it, a block's offset array alone (4 bytes per 2 KB) slows the
/// fuzzer without reaching new code (offsets past 2^32 are in the vectors).
const MAX_OFFSET: u64 = 1 << 26;
const MAX_CALLS: usize = 64;
const MAX_QUERIES: usize = 256;

#[cfg(has_leveldb_src)]
mod leveldb {
    use std::ffi::{c_char, c_int, c_void};

    unsafe extern "C" {
        fn leveldb_adapter_filterblock_builder(bits_per_key: c_int) -> *mut c_void;
        fn leveldb_adapter_filterblock_start(builder: *mut c_void, block_offset: u64);
        fn leveldb_adapter_filterblock_add(builder: *mut c_void, key: *const c_char, len: usize);
        fn leveldb_adapter_filterblock_finish(builder: *mut c_void, len: *mut usize)
        -> *mut c_char;
        fn leveldb_adapter_filterblock_key_may_match(
            contents: *const c_char,
            contents_length: usize,
            block_offset: u64,
            key: *const c_char,
            length: usize,
        ) -> c_int;
    }

    /// leveldb's block for `calls`, none of which it asserts on.
    pub fn build(bits_per_key: u32, calls: &[super::Call<'_>]) -> Vec<u8> {
        // SAFETY: the adapter's builder is used until finish, which frees it; keys live.
        unsafe {
            let builder = leveldb_adapter_filterblock_builder(bits_per_key.try_into().unwrap());
            for call in calls {
                match call {
                    super::Call::Start(offset) => {
                        leveldb_adapter_filterblock_start(builder, *offset)
                    }
                    super::Call::Key(key) => {
                        leveldb_adapter_filterblock_add(builder, key.as_ptr().cast(), key.len());
                    }
                }
            }
            let mut len = 0;
            let block = leveldb_adapter_filterblock_finish(builder, &mut len);
            crate::take_filter(block, len, "the leveldb filter block adapter")
        }
    }

    pub fn key_may_match(contents: &[u8], block_offset: u64, key: &[u8]) -> bool {
        // SAFETY: both slices live for the call.
        unsafe {
            leveldb_adapter_filterblock_key_may_match(
                contents.as_ptr().cast(),
                contents.len(),
                block_offset,
                key.as_ptr().cast(),
                key.len(),
            ) != 0
        }
    }
}

/// A builder call.
#[derive(Clone, Copy, Debug)]
pub enum Call<'a> {
    Start(u64),
    Key(&'a [u8]),
}

/// The block through the C ABI's builder, checking each call's answer against `accepted`.
fn c_build(bits_per_key: u32, calls: &[(Call<'_>, bool)]) -> Vec<u8> {
    let policy = leveldb_filterpolicy_create_bloom(bits_per_key.try_into().unwrap());
    // SAFETY: the policy outlives the builder; keys live for each call.
    unsafe {
        let builder = leveldb_filterblock_builder_create(policy);
        for &(call, accepted) in calls {
            let answer = match call {
                Call::Start(offset) => leveldb_filterblock_builder_start_block(builder, offset),
                Call::Key(key) => {
                    leveldb_filterblock_builder_add_key(builder, key.as_ptr().cast(), key.len())
                }
            };
            assert_eq!(
                answer,
                u8::from(accepted),
                "the C builder's answer to {call:?}"
            );
        }
        let mut len = 0;
        let block = leveldb_filterblock_builder_finish(builder, &mut len);
        let mut again = 1;
        assert!(leveldb_filterblock_builder_finish(builder, &mut again).is_null() && again == 0);
        leveldb_filterblock_builder_destroy(builder);
        leveldb_filterpolicy_destroy(policy);
        crate::take_filter(block, len, "the C filter block builder")
    }
}

/// Every reader's answers to `queries` on `contents`, required equal; leveldb's when it is there.
fn agreed_answers(contents: &[u8], queries: &[(u64, &[u8])]) {
    let reader = FilterBlockReader::new(BloomPolicy::new(10), contents);
    let expected: Vec<bool> = queries
        .iter()
        .map(|&(offset, key)| reader.key_may_match(offset, key))
        .collect();
    #[cfg(has_leveldb_src)]
    for (&(offset, key), &answer) in queries.iter().zip(&expected) {
        assert_eq!(
            leveldb::key_may_match(contents, offset, key),
            answer,
            "leveldb answers differently at offset {offset} for key {key:02x?}"
        );
    }
    let offsets: Vec<u64> = queries.iter().map(|q| q.0).collect();
    let keys: Vec<&[u8]> = queries.iter().map(|q| q.1).collect();
    let mut batch = vec![false; keys.len()];
    reader.key_may_match_batch(&offsets, &keys, &mut batch);
    assert_eq!(batch, expected, "the Rust batch reader");

    let policy = leveldb_filterpolicy_create_bloom(10);
    let pointers: Vec<*const c_char> = keys.iter().map(|k| k.as_ptr().cast()).collect();
    let lengths: Vec<usize> = keys.iter().map(|k| k.len()).collect();
    let mut c_batch = vec![7u8; keys.len()];
    // SAFETY: every array holds keys.len() entries describing live keys; the policy is live.
    unsafe {
        leveldb_filterblock_key_may_match_batch(
            policy,
            contents.as_ptr().cast(),
            contents.len(),
            offsets.as_ptr(),
            pointers.as_ptr(),
            lengths.as_ptr(),
            keys.len(),
            c_batch.as_mut_ptr(),
        );
        for (i, &answer) in expected.iter().enumerate() {
            let single = leveldb_filterblock_key_may_match(
                policy,
                contents.as_ptr().cast(),
                contents.len(),
                offsets[i],
                pointers[i],
                lengths[i],
            );
            assert_eq!(single, u8::from(answer), "the C reader");
            assert_eq!(c_batch[i], u8::from(answer), "the C batch reader");
        }
        leveldb_filterpolicy_destroy(policy);
    }
}

pub fn run(data: &[u8]) {
    let mut input = Reader::new(data);
    let bits_per_key = u32::from(input.u8() % 51);
    let num_calls = usize::from(input.u8()).min(MAX_CALLS);
    let mut builder = FilterBlockBuilder::new(BloomPolicy::new(bits_per_key));
    // Each call with whether it was accepted; and leveldb's range count, as a model.
    let mut calls: Vec<(Call<'_>, bool)> = Vec::new();
    let (mut last, mut filters) = (0u64, 0u64);
    for _ in 0..num_calls {
        let call = match input.u8() % 4 {
            0 => Call::Start((last + u64::from(input.u16())) % MAX_OFFSET),
            1 => Call::Start((last + (u64::from(input.u16()) << 11)) % MAX_OFFSET),
            2 => Call::Start(last.saturating_sub(u64::from(input.u16()))),
            _ => Call::Key(input.bytes()),
        };
        let accepted = match call {
            Call::Start(offset) => {
                let result = builder.start_block(offset);
                let backwards = offset >> 11 < filters;
                if backwards {
                    assert_eq!(
                        result,
                        Err(FilterBlockError::OffsetBackwards {
                            block_offset: offset
                        })
                    );
                } else {
                    result.expect("a start_block leveldb takes");
                    last = offset;
                    filters = filters.max(offset >> 11);
                }
                !backwards
            }
            Call::Key(key) => {
                builder.add_key(key).expect("add_key");
                true
            }
        };
        calls.push((call, accepted));
    }
    let block = builder.finish().expect("finish");
    assert_eq!(
        c_build(bits_per_key, &calls),
        block,
        "the C builder's block"
    );
    #[cfg(has_leveldb_src)]
    {
        let taken: Vec<Call<'_>> = calls.iter().filter(|c| c.1).map(|c| c.0).collect();
        assert_eq!(
            leveldb::build(bits_per_key, &taken),
            block,
            "leveldb's block"
        );
    }

    // Queries: each key at the offset it was added under and the next range's, near misses,
    // and offsets around and past the block's filters.
    let mut queries: Vec<(u64, &[u8])> = Vec::new();
    let mut offset = 0;
    for &(call, accepted) in &calls {
        match call {
            Call::Start(o) if accepted => offset = o,
            Call::Key(key) => {
                queries.push((offset, key));
                queries.push((offset + 2048, key));
                queries.push((offset, &key[..key.len() / 2]));
            }
            _ => {}
        }
    }
    for offset in [
        0,
        2047,
        2048,
        filters << 11,
        (filters + 1) << 11,
        1 << 32,
        u64::MAX,
    ] {
        queries.push((offset, b"probe"));
    }
    queries.truncate(MAX_QUERIES);
    agreed_answers(&block, &queries);

    let (at, mask) = (usize::from(input.u16()), input.u8());
    let mut corrupt = block;
    if !corrupt.is_empty() {
        let at = at % corrupt.len();
        corrupt[at] ^= mask;
    }
    agreed_answers(&corrupt, &queries);

    // The rest of the input as a block, probed at offsets its own base lg spreads over filters.
    let contents = input.rest();
    let shift = contents.last().map_or(11, |b| b & 63);
    let mut raw_queries = queries.clone();
    for i in 0..8u64 {
        raw_queries.push((i << shift, b""));
    }
    raw_queries.truncate(MAX_QUERIES);
    agreed_answers(contents, &raw_queries);
}
