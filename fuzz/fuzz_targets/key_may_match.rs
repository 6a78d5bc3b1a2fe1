//! KeyMayMatch on arbitrary filter bytes and keys: every matcher answers as the oracle (and
//! leveldb). Input format: `leveldb_bloom_fuzz::key_may_match_on_any_bytes`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| leveldb_bloom_fuzz::key_may_match_on_any_bytes(data));
