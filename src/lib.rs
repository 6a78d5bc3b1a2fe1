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

// Layers, each importing only from those below it (tests/layers.rs checks this): the format;
// the hash and the scalar oracle; the kernels; their dispatch; many keys at once and the single
// query that cannot unwind; the Rust API; the C ABI.
mod bulk;
mod dispatch;
pub mod ffi;
mod format;
pub mod hash;
mod kernels;
mod no_unwind;
#[cfg(test)]
mod path_tests;
mod policy;
pub mod scalar;

pub use format::POLICY_NAME;
pub use policy::{BloomPolicy, key_may_match, key_may_match_batch};

// The README's Rust examples run as doctests, so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
