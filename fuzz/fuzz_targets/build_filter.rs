//! Filters built from arbitrary key sets and bits per key: every builder equals the oracle (and
//! leveldb), and every key matches. Input format: `leveldb_bloom_fuzz::build_filter`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leveldb_bloom_fuzz::build_filter(data));
