//! What leveldb-bloom's tests, benchmarks and fuzz seed writer share: where the repository and
//! the built library and tool are, the README's and docs' code blocks and a user's machine to run
//! them on, where each test writes and what it prints, leveldb's reference vectors, random test
//! data, leveldb's tables, the build of tools/ and of the C test programs and the runs of
//! programs, running test programs on each path the CPU has, the databases of leveldb's C API next
//! to this library, the leveldb packages some tests install from PyPI and npm, and which tools
//! this machine has for the tests that need one, decided when the tests run. Its modules import
//! in layers, without a circle (tests/layers.rs).

pub mod c_harness;
pub mod capture;
pub mod check_tool;
pub mod docs;
pub mod filterblock_vectors;
pub mod isa;
pub mod leveldb_tools;
pub mod packages;
pub mod paths;
pub mod process;
pub mod random;
pub mod scratch;
pub mod tables;
pub mod tools;
pub mod trials;
pub mod vectors;
pub mod with_leveldb;
