//! What leveldb-bloom's tests, benchmarks and fuzz seed writer share: where the repository and
//! the built library are, leveldb's reference vectors, and the C test programs' build and run.

pub mod c_harness;
pub mod paths;
pub mod vectors;
