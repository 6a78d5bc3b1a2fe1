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

pub mod bloom;
pub mod core_ffi;
mod fast;
#[cfg(feature = "leveldb-c-api")]
pub mod ffi;
pub mod hash;
pub mod scalar;

pub use bloom::{BloomPolicy, POLICY_NAME, key_may_match, key_may_match_batch};

// The README's Rust examples run as doctests, so the README cannot drift from the code.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
