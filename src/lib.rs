//! A byte-identical, fast replacement for LevelDB's built-in bloom filter
//! (`leveldb.BuiltinBloomFilter2`, leveldb 1.23 `util/bloom.cc`) and its filter blocks
//! (`table/filter_block.cc`): every filter built here is byte for byte what leveldb writes, and
//! every answer leveldb's, for any bytes.
//!
//! ```
//! use leveldb_bloom::BloomPolicy;
//!
//! let policy = BloomPolicy::new(10); // leveldb's NewBloomFilterPolicy(10)
//! let mut filter = Vec::new();
//! policy.create_filter(&[b"hello".as_slice(), b"world"], &mut filter);
//! assert!(policy.key_may_match(b"hello", &filter));
//! ```
//!
//! - [`BloomPolicy`] builds filters (into a `Vec`, or into a buffer of one's own with
//!   [`BloomPolicy::fill_filter`]) and answers single and batch queries; [`key_may_match`] and
//!   [`key_may_match_batch`] answer without a policy, as leveldb's reader does.
//! - [`FilterBlockBuilder`] and [`FilterBlockReader`] write and read a table's filter block, with
//!   the bloom policy or any [`FilterPolicy`] of one's own.
//! - [`isa`] names the kernels in use (`avx512`, `avx2` or `portable`), chosen once per process
//!   from the CPU; `LEVELDB_BLOOM_ISA` can only lower the choice.
//! - With the feature `rusty-leveldb`, [`BloomPolicy`] is a filter policy of
//!   [rusty-leveldb](https://crates.io/crates/rusty-leveldb) 4.x.
//!
//! The crate builds as a Rust library only. Its C ABI (`include/leveldb_bloom.h`, mirroring
//! leveldb's C API) is in the C libraries, which the repository's CMake build, Python package
//! and `cargo rustc --lib --crate-type cdylib,staticlib` make; it is not part of the Rust API.

// The layers, each importing only from those below it (tests/layers.rs checks this).
// The proof that code has no path to a panic: the single query's kernels, and the exports of the
// shim's core.
mod cannot_panic;
// leveldb's filter format, and its filter block's.
mod block_format;
mod format;
// leveldb's hash, and the scalar filter every kernel is tested against. Public, and hidden from
// the docs, for the tests, benchmarks and fuzz targets, which compare every path with them, and
// the workspace's check tool: not part of the API, which may change them in any release.
#[doc(hidden)]
pub mod hash;
#[doc(hidden)]
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
// The C ABI, exported by the C libraries. Public, and hidden from the docs, for the Rust tests
// and fuzz targets that call it as C does: not part of the Rust API.
#[doc(hidden)]
pub mod ffi;
// Every path through every layer against the oracle and leveldb's vectors.
#[cfg(test)]
mod path_tests;

pub use filter_block::{
    BlockKeys, BlockKeysIter, FilterBlockBuilder, FilterBlockError, FilterBlockReader,
    FilterPolicy, PackedKeys,
};
pub use format::POLICY_NAME;
pub use policy::{BloomPolicy, isa, key_may_match, key_may_match_batch};

// The README's Rust examples run as doctests, so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
