//! Filter blocks from arbitrary call sequences and bytes: every builder and reader answers as
//! the others (and leveldb's own classes). Input format: `leveldb_bloom_fuzz::filter_block::run`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leveldb_bloom_fuzz::filter_block::run(data));
