//! What leveldb-bloom's tests, benchmarks and fuzz seed writer share: where the repository and
//! the built library are, where each test writes, leveldb's reference vectors, the C test
//! programs' build and run, running test programs on each path the CPU has, and which tools this
//! machine has for the tests that need one, decided when the tests run.

pub mod c_harness;
pub mod filterblock_vectors;
pub mod isa;
pub mod paths;
pub mod process;
pub mod readme;
pub mod scratch;
pub mod tables;
pub mod tools;
pub mod trials;
pub mod vectors;
