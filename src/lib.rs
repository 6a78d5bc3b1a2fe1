//! A byte-identical, fast replacement for LevelDB's built-in bloom filter
//! (`leveldb.BuiltinBloomFilter2`, leveldb 1.23 `util/bloom.cc`), for Rust and, through a C ABI
//! that mirrors leveldb's C API, for C, C++ and any language with a C FFI.
//!
//! ```
//! use leveldb_bloom::BloomPolicy;
//!
//! let policy = BloomPolicy::new(10);
//! let mut filter = Vec::new();
//! policy.create_filter(&[b"hello".as_slice(), b"world"], &mut filter);
//! assert!(policy.key_may_match(b"hello", &filter));
//! ```

// The layers, each importing only from those below it (tests/layers.rs checks this).
// The proof that code has no path to a panic: the single query's kernels, and the exports of the
// shim's core.
mod cannot_panic;
// leveldb's filter format, and its filter block's.
mod block_format;
mod format;
// leveldb's hash, and the scalar filter every kernel is tested against.
pub mod hash;
pub mod scalar;
// Portable, AVX2 and AVX-512 kernels, one signature per operation.
mod kernels;
// Which kernels run: one `match` per operation.
mod dispatch;
// Many keys at once, and the single query that cannot unwind.
mod bulk;
mod no_unwind;
// The Rust API.
mod filter_block;
mod policy;
// rusty-leveldb's FilterPolicy for BloomPolicy.
#[cfg(feature = "rusty-leveldb")]
mod rusty;
// The C ABI.
pub mod ffi;
// Every path through every layer against the oracle and leveldb's vectors.
#[cfg(test)]
mod path_tests;

pub use filter_block::{
    BlockKeys, BlockKeysIter, FilterBlockBuilder, FilterBlockError, FilterBlockReader, FilterPolicy,
};
pub use format::POLICY_NAME;
pub use policy::{BloomPolicy, isa, key_may_match, key_may_match_batch};

// The README's Rust examples run as doctests, so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
