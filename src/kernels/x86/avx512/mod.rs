//! The AVX-512 kernels: the batch engine (kernels/generic) with 16 keys per vector ([`lanes`]),
//! and a single query with 8 probes per vector ([`single`]). One job per file: the lane
//! operations ([`lanes`]), probe positions in vectors ([`positions`]), a bit array held in
//! registers ([`registers`]), the single query ([`single`]) and the check of a C caller's key
//! arrays ([`entries`]).
//!
//! - Batch queries of a bit array of at most 256 bytes (a block's filter) read the probed bytes
//!   16 at a time from registers holding the whole array. Larger arrays are read with plain
//!   loads, one probe at a time, from rows of positions the vectors wrote out: faster than
//!   16-lane gathers.
//! - A single key's probes are computed 8 at a time, one per 64-bit lane, and read from
//!   registers or with one gather of the 4 bytes up to each probed one. For a bit array past the
//!   registers, its positions come from a floating-point inverse of its length
//!   ([`positions::InversePositions`]) instead of the multiply-shift, whose constants would take
//!   a division.

pub(crate) mod entries;
mod lanes;
pub(crate) mod positions;
pub(crate) mod registers;
pub(crate) mod single;

use std::arch::x86_64::__m512i;

use crate::kernels::generic::engine::engine_entries;
use crate::kernels::x86::features::avx512;
use lanes::{GROUPS, LANES};

engine_entries!(
    avx512,
    __m512i,
    "The CPU must support the features of [`crate::dispatch::Isa::Avx512`]."
);
