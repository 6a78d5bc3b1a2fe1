//! The C entry points with arbitrary argument shapes: each call gets its documented result.
//! Input format: `leveldb_bloom_fuzz::c_api::run`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leveldb_bloom_fuzz::c_api::run(data));
