//! The check tool's reader of leveldb's files on any bytes: no panic, hang or unjustified
//! allocation. Input format: `leveldb_bloom_fuzz::table_reader::run`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leveldb_bloom_fuzz::table_reader::run(data));
