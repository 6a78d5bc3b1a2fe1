//! The AVX2 kernels: the batch engine (kernels/generic) with 8 keys per vector ([`lanes`]), and a
//! single query whose 8 probe positions come from one vector ([`single`]).

mod lanes;
mod single;

use crate::kernels::generic::engine;
use crate::kernels::keys::Keys;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx2;
use lanes::{GROUPS, LANES};
use std::arch::x86_64::__m256i;

pub(crate) use single::may_match_c_abi;

avx2!(
    /// [`engine::fill_bit_array`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(crate) unsafe fn fill_bit_array<'k>(
        positions: &ProbePositions,
        keys: impl Keys<'k>,
        array: &mut [u8],
    ) {
        // SAFETY: the CPU supports AVX2, by this function's contract.
        unsafe { engine::fill_bit_array::<__m256i, LANES, GROUPS>(positions, keys, array) }
    }
);

avx2!(
    /// [`engine::may_match_batch`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    pub(crate) unsafe fn may_match_batch<'k>(
        positions: &ProbePositions,
        keys: impl Keys<'k>,
        array: &[u8],
        results: &mut [bool],
    ) {
        // SAFETY: the CPU supports AVX2, by this function's contract.
        unsafe {
            engine::may_match_batch::<__m256i, LANES, GROUPS>(positions, keys, array, results)
        }
    }
);

avx2!(
    /// Writes `bloom_hash(keys[i])` to `hashes[i]`, as the kernels hash them (for the tests).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(test)]
    pub(crate) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
        // SAFETY: the CPU supports AVX2, by this function's contract.
        unsafe { crate::kernels::generic::hash::hash_keys::<__m256i, LANES, GROUPS>(keys, hashes) }
    }
);
