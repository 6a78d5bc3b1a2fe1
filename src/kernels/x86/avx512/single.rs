//! The single query: one key against one filter, 8 probes per vector, in a C-ABI function with no
//! path to a panic ([`CannotPanic`]), which the C entries reach by a tail jump.

use std::arch::x86_64::*;

use super::positions::{InversePositions, VectorPositions};
use super::registers::{Lookup, Registers};
use crate::cannot_panic::CannotPanic;
use crate::kernels::portable::single_query_hash;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx512;

/// 64-bit lanes per vector, as the single-key query uses them.
const QWORD_LANES: u32 = 8;

avx512!(
    /// leveldb's `KeyMayMatch` for one key against a bit array and k (framing already checked):
    /// the hash in scalar code, then 8 probes at once, one per 64-bit lane, with no branch on the
    /// bits. 64-bit lanes need no slow `vpmulld` (the 32-bit multiplies here take the low half of
    /// each lane) and no permute to rejoin even and odd lanes; 8 lanes cover the usual k (6 at 10
    /// bits per key) in one pass.
    ///
    /// A C-ABI function returning 0 or 1, so that a call to it cannot unwind, and the C entries
    /// reach it by a tail jump (see [`crate::no_unwind::single_query`]); `k` comes first so that
    /// they pass the key and filter on in the registers they arrive in. A panic inside would abort
    /// the process, so there must be none to reach: [`CannotPanic`] proves it.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    #[inline]
    #[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
    pub(crate) unsafe extern "C" fn may_match_c_abi(k: u32, key: &[u8], array: &[u8]) -> u8 {
        let proof = CannotPanic;
        // Each kind of lookup compiled apart, with nothing left to dispatch on after the hash.
        let answer = match Lookup::new(array) {
            lookup @ Lookup::Registers(Registers::Two(_)) => {
                probe_one(single_query_hash::<false>(key), array, k, &lookup)
            }
            lookup @ Lookup::Registers(Registers::Four(_)) => {
                probe_one(single_query_hash::<false>(key), array, k, &lookup)
            }
            // Past the registers the query waits on memory anyway: branches on the key's length
            // cost less there than the conditional moves' longer chain (see single_query_hash).
            lookup @ Lookup::Memory(_) => {
                probe_one(single_query_hash::<true>(key), array, k, &lookup)
            }
        };
        proof.holds();
        answer
    }
);

avx512!(
    /// The probes of [`may_match_c_abi`] for hash `h`.
    ///
    /// Written with as few instructions that write a register, and as short a chain from the hash
    /// to the gather, as it can: a run of single queries is bound by how many of them the CPU
    /// holds in flight, and each such instruction and each cycle of the chain costs its share (see
    /// docs/PERFORMANCE.md, Single query: instruction count).
    #[inline]
    fn probe_one(h: u32, array: &[u8], k: u32, lookup: &Lookup) -> u8 {
        // Lane i probes h + i * delta (mod 2^32, in the low half of each 64-bit lane), as leveldb's
        // i-th probe; the positions ignore the high half.
        let (positions, hashes, delta) = match lookup {
            // Positions from a table: a query of a block's filter waits on nothing but its own
            // chain. Zero high halves: from a rotated 32-bit broadcast the compiler would emulate a
            // full 64-bit multiply.
            Lookup::Registers(_) => {
                let scalar = ProbePositions::new(array.len(), k as u8);
                let hashes = _mm512_set1_epi64(i64::from(h));
                let delta = _mm512_ror_epi32::<17>(hashes);
                (
                    SingleQueryPositions::Table(VectorPositions::new(&scalar)),
                    hashes,
                    delta,
                )
            }
            // Positions computed in vector registers, where a table has no entry. delta rotated in
            // a general-purpose register while `h` moves to the vector: a vector rotate, or a
            // zero-extending move, would lengthen the chain.
            Lookup::Memory(_) => (
                SingleQueryPositions::Inverse(InversePositions::new(array.len())),
                _mm512_set1_epi32(h as i32),
                _mm512_set1_epi32(h.rotate_right(17) as i32),
            ),
        };
        let iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
        let mut lanes = _mm512_add_epi64(hashes, _mm512_mul_epu32(iota, delta));
        let mut left = k;
        let mut wanted = _mm512_cmplt_epu64_mask(iota, _mm512_set1_epi64(i64::from(left)));
        loop {
            let (byte, bit) = positions.of_qwords(lanes);
            let clear = lookup.is_clear_qwords(byte, bit, wanted);
            // Only k > 8 (up to 30) takes another pass.
            if left <= QWORD_LANES || clear != 0 {
                break (clear == 0).into();
            }
            left -= QWORD_LANES;
            lanes = _mm512_add_epi64(lanes, _mm512_slli_epi64::<3>(delta));
            wanted = _mm512_cmplt_epu64_mask(iota, _mm512_set1_epi64(i64::from(left)));
        }
    }
);

/// How [`probe_one`] finds its positions: one way or the other for each kind of [`Lookup`].
enum SingleQueryPositions {
    Table(VectorPositions),
    Inverse(InversePositions),
}

impl SingleQueryPositions {
    avx512!(
        /// [`VectorPositions::of_qwords`].
        #[inline]
        fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
            match self {
                SingleQueryPositions::Table(positions) => positions.of_qwords(h),
                SingleQueryPositions::Inverse(positions) => positions.of_qwords(h),
            }
        }
    );
}
