//! The AVX-512 kernels: leveldb's filter 16 keys at a time, one key per 32-bit lane. One job per
//! file: the hash ([`hash`]), probe positions in vectors ([`positions`]), rows of probes written
//! out for plain loads and stores ([`rows`]), a chunk's build and batch query ([`chunk`]), batches
//! of probes for arrays past the L2 cache ([`batch`]), a bit array held in registers
//! ([`registers`]), and the single query ([`single`]).
//!
//! - Hashing: each key is read with a byte-masked load, which touches only the key's own bytes
//!   and zeroes the rest, so its tail word comes out zero-padded as leveldb's hash wants it;
//!   16 such rows are transposed into words, and every word is one step for all 16 lanes.
//! - Probe positions: the exact multiply-shift of
//!   [`ProbePositions`](crate::kernels::positions::ProbePositions), 16 lanes per instruction.
//! - Batch queries of a bit array of at most 256 bytes (a block's filter) read the probed bytes
//!   16 at a time from registers holding the whole array. Larger arrays are read with plain
//!   loads, one probe at a time, from rows of positions the vectors wrote out: faster than 16-lane
//!   gathers (see docs/PERFORMANCE.md, AVX-512: plain loads, not gathers).
//! - A single key's probes are computed 8 at a time, one per 64-bit lane, and read from
//!   registers or with one gather of the 4 bytes up to each probed one. For a bit array past the
//!   registers, its positions come from a floating-point inverse of its length
//!   ([`positions::InversePositions`]) instead of the multiply-shift, whose constants would take
//!   a division.
//! - Building sets the bits one by one: AVX-512 has no scatter that ORs, and colliding lanes
//!   would lose bits.
//! - No prefetching pass, unlike the other paths: out-of-order execution overlaps the misses
//!   anyway (see docs/PERFORMANCE.md, AVX-512: no prefetching pass). Arrays past the L2 cache
//!   gain from computing the probes of thousands of keys before reading or setting any of them
//!   ([`batch::ProbeBatch`]).

pub(crate) mod batch;
pub(crate) mod chunk;
pub(crate) mod hash;
pub(crate) mod positions;
pub(crate) mod registers;
pub(crate) mod rows;
pub(crate) mod single;

use crate::kernels::CHUNK;

/// Keys per vector.
pub(crate) const LANES: usize = 16;

/// Vectors per chunk.
pub(crate) const GROUPS: usize = CHUNK / LANES;
