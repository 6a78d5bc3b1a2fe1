//! The kernels: the same bits and answers as [`crate::scalar`] (the tests compare them on every
//! path), computed faster; portable ones for any CPU and x86-64 ones for AVX2 and AVX-512, all
//! with one signature per operation, chosen by [`crate::dispatch`].
//!
//! Where leveldb's loop spends its time, and what replaces it here:
//! - a 64-bit division per probe (`h % bits`): an exact multiply-and-shift with a constant
//!   computed once per filter (from a table for block-sized ones), 8 or 16 probes at a time in
//!   vectors ([`positions::ProbePositions`]); an AVX-512 single query of a larger filter
//!   multiplies by a floating-point inverse instead (`InversePositions`, x86/avx512/positions.rs);
//! - one serial multiply chain per key hash: keys are hashed a chunk at a time so independent
//!   chains overlap, with AVX2 8 and AVX-512 16 keys per instruction;
//! - reading probed bits one by one: with AVX-512, 16 at a time, by byte permutes from registers
//!   holding a block's whole filter (larger ones are still read one probe at a time);
//! - cache misses in filters past the caches: on the AVX2 path a chunk's rows of probe positions
//!   are written first and their lines prefetched, so the misses overlap instead of queueing one
//!   after another; the AVX-512 path computes those of thousands of keys before reading or
//!   setting any (`ProbeBatch`, generic/engine.rs); the portable path's scalar hash leaves
//!   the core time to overlap them unaided;
//! - keys streaming from memory, whose loads the hash would wait on: calls of many keys prefetch
//!   them a few chunks ahead ([`keys::for_each_chunk`]), and a C caller's arrays of key pointers
//!   and lengths ahead of that (`KeyArrays`, src/ffi/key_arrays.rs);
//! - branch mispredictions: a row of probe positions is computed before any bit is touched, and
//!   batch queries test every probe instead of stopping at the first clear bit.

// The batch engine, written once; the x86 kernels supply its lane operations.
#[cfg(target_arch = "x86_64")]
pub(crate) mod generic;
pub(crate) mod keys;
pub(crate) mod portable;
pub(crate) mod positions;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

/// Keys hashed per step: enough to keep several hash chains and cache misses in flight, few
/// enough that the chunk's probe positions stay in L1.
pub(crate) const CHUNK: usize = 64;

/// Bit arrays at least this long (bytes) are past the core's L2 cache: probed through the
/// prefetching pipeline, or with AVX-512 a batch of keys at a time (`ProbeBatch`). Smaller
/// ones stay in the L2 cache, where both only cost time.
#[cfg(target_arch = "x86_64")]
pub(crate) const LARGE_ARRAY_BYTES: usize = 512 * 1024;

/// Starts loading the cache line holding `address` (which need not be valid).
#[inline(always)]
pub(crate) fn prefetch_line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache; it never faults and reads nothing for us.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
