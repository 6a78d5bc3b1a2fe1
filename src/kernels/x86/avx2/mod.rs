//! The AVX2 kernels: leveldb's hash of 8 keys at once, one key per 32-bit lane; builds and batch
//! queries from rows of probe positions computed 8 per instruction and bounded once; and a
//! single query whose 8 probe positions come from one vector.
//!
//! Every step of the hash is `h = (h + w) * m; h ^= h >> s` with s = 16 for a whole word and
//! s = 24 for the zero-padded tail word, so keys of different lengths share the steps: a lane
//! takes its word or tail while it has one, and keeps its hash once its key has ended.

mod chunk;
pub(crate) mod hash;
mod single;

use std::arch::x86_64::*;

pub(crate) use chunk::{fill_chunk, test_chunk};
pub(crate) use single::may_match;

use crate::kernels::x86::features::avx2;

/// Lanes per AVX2 vector of 32-bit values.
const LANES: usize = 8;

avx2!(
    /// [`ProbePositions::position`]'s byte for each of 8 lanes of hashes, given the positions'
    /// magic (in 64-bit lanes), shift and length: the quotients of the even lanes and of the odd
    /// ones by 32 x 32 -> 64-bit multiplies.
    ///
    /// [`ProbePositions::position`]: crate::kernels::positions::ProbePositions::position
    #[inline]
    fn probe_bytes(h: __m256i, magic: __m256i, shift: __m128i, len: __m256i) -> __m256i {
        let a = _mm256_srli_epi32::<3>(h);
        let even = _mm256_srl_epi64(_mm256_mul_epu32(a, magic), shift);
        let odd = _mm256_srl_epi64(_mm256_mul_epu32(_mm256_srli_epi64::<32>(a), magic), shift);
        let quotient = _mm256_blend_epi32::<0b1010_1010>(even, _mm256_slli_epi64::<32>(odd));
        _mm256_sub_epi32(a, _mm256_mullo_epi32(quotient, len))
    }
);
