//! The batch engine, written once for every vector instruction set: a chunk's keys hashed in
//! lanes ([`hash`]), each probe of every key written out as rows of bytes and bit masks
//! ([`rows`]), then the bits set or tested with plain loads and stores ([`engine`]). Each
//! instruction set supplies its lane operations by implementing [`Vector`]
//! (kernels/x86/avx2/lanes.rs, kernels/x86/avx512/lanes.rs); the portable kernels are scalar code
//! of their own (kernels/portable.rs).

pub(crate) mod engine;
pub(crate) mod hash;
pub(crate) mod rows;

use crate::kernels::CHUNK;
use crate::kernels::positions::ProbePositions;
use rows::ProbeRow;

/// `std::array::from_fn` that is sure to inline: the engine and its lane operations carry no
/// target features of their own, so every function between the instruction set's entry (compiled
/// for its features) and an intrinsic must inline into that entry, or the intrinsic becomes a
/// call. The closures given to it and to the engine's loops are `#[inline(always)]` for the same
/// reason. All of these inline only where `debug_assertions` is off: an unoptimised build gives
/// every inlined copy stack slots of its own, which made the debug engine's frame outgrow musl's
/// 128 KB thread stacks.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn array_of<T: Copy, const N: usize>(mut f: impl FnMut(usize) -> T) -> [T; N] {
    let mut out = [std::mem::MaybeUninit::<T>::uninit(); N];
    for (i, slot) in out.iter_mut().enumerate() {
        slot.write(f(i));
    }
    // SAFETY: every element was written above; `[MaybeUninit<T>; N]` and `[T; N]` have one
    // layout.
    unsafe { std::mem::transmute_copy(&out) }
}

/// Groups of a row computed and written together: enough for AVX2 to turn 32 lanes of masks into
/// bytes with three packs, few enough to keep them in registers.
pub(crate) const ROW_PART: usize = 4;

/// How an instruction set handles a bit array past the L2 cache, where setting and testing bits
/// waits on memory.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum LargeArrays {
    /// Each chunk's k rows written first and the lines they touch prefetched, so that the
    /// misses overlap.
    PrefetchRows,
    /// The rows of thousands of keys written before any bit is set or tested
    /// ([`engine::ProbeBatch`]).
    Batches,
}

/// A vector of `LANES` 32-bit lanes, and the operations the engine needs of it.
///
/// # Safety
/// The methods run the instruction set's own instructions: they are sound only on a CPU that has
/// its features. The engine's functions, generic over it, carry the same contract; they are
/// called from functions compiled for those features (`#[target_feature]`), into which the
/// methods, all `#[inline(always)]`, inline.
pub(crate) unsafe trait Vector<const LANES: usize>: Copy {
    /// Eight 32-bit words of one key, as [`Vector::transpose`] takes them.
    type Row: Copy;
    /// A filter's [`ProbePositions`] as [`Vector::byte_and_bit`] reads it.
    type Positions: Copy;
    /// Whether each key of a chunk has had every probe set so far.
    type AllSet: Copy;

    /// How bit arrays past the L2 cache are handled.
    const LARGE_ARRAYS: LargeArrays;
    /// Keys longer than this are hashed one at a time: every lane of a chunk takes as many steps
    /// as its longest key, so one long key would make the others wait.
    const MAX_LANE_KEY_LEN: usize;
    /// Whether a chunk's groups of keys are hashed side by side, which keeps the multiplier busy
    /// through each step's latency but needs a register per word of every group.
    const HASH_GROUPS_SIDE_BY_SIDE: bool;

    /// `x` in every lane.
    unsafe fn splat(x: u32) -> Self;
    /// Lanes from `LANES` values at the start of `from`.
    unsafe fn load(from: &[u32]) -> Self;
    /// Lanes to the first `LANES` values of `to`.
    unsafe fn store(self, to: &mut [u32]);
    /// Lane by lane: `self + other` (wrapping).
    unsafe fn add(self, other: Self) -> Self;
    /// Lane by lane: `self ^ other`.
    unsafe fn xor(self, other: Self) -> Self;
    /// Lane by lane: the low 32 bits of `self * other`.
    unsafe fn mul(self, other: Self) -> Self;
    /// Lane by lane: `self >> 16`.
    unsafe fn shift_right_16(self) -> Self;
    /// Lane by lane: the smaller, unsigned.
    unsafe fn min(self, other: Self) -> Self;
    /// Lane by lane: `self` rotated right by 17 bits.
    unsafe fn rotate_right_17(self) -> Self;

    /// The words of `key` (`len` bytes of it: its length, or 0 to read nothing) from byte `from`
    /// on, as leveldb's hash reads them: whole little-endian words, the zero-padded tail word,
    /// then zeros. It reads no byte outside the key's first `len`.
    ///
    /// # Safety
    /// Also: `len` must be at most `key.len()`.
    unsafe fn key_row(key: &[u8], len: u32, from: usize) -> Self::Row;
    /// Transposes `LANES` rows: vector j holds word j of every row, row i in lane i.
    unsafe fn transpose(rows: [Self::Row; LANES]) -> [Self; 8];
    /// One step of leveldb's hash in each lane whose key has bytes from `start` on:
    /// `h = (h + w) * m; h ^= h >> s`, s = 16 for a whole word and 24 for the zero-padded tail
    /// word; a lane whose key has ended keeps its hash.
    unsafe fn hash_step(h: Self, word: Self, lens: Self, start: u32) -> Self;

    /// `positions` in vectors.
    unsafe fn positions(positions: &ProbePositions) -> Self::Positions;
    /// Each lane's probe for hash `h`: the byte ([`ProbePositions::position`]'s) and the bit.
    unsafe fn byte_and_bit(positions: &Self::Positions, h: Self) -> (Self, Self);
    /// Writes [`ROW_PART`] groups of a row, from group `first` on: the bytes as they are, and
    /// each bit as a one-bit mask byte.
    ///
    /// # Safety
    /// Also: `row` must be valid for writes, and `first + ROW_PART` at most the chunk's groups.
    unsafe fn store_row_part(
        bytes: [Self; ROW_PART],
        bits: [Self; ROW_PART],
        row: *mut ProbeRow,
        first: usize,
    );

    /// Every key of a chunk's first `n` set so far, none after.
    unsafe fn all_set(n: usize) -> Self::AllSet;
    /// Clears the keys whose probed byte of this row lacks its mask's bit.
    unsafe fn test_row(set: &mut Self::AllSet, probed: &[u8; CHUNK], masks: &[u8; CHUNK]);
    /// Writes the answers of the first `out.len()` keys.
    unsafe fn store_answers(set: Self::AllSet, out: &mut [bool]);

    /// Writes the answers of a chunk's first `out.len()` keys, hashed, if the instruction set
    /// has a faster way than rows for this array: true if it did.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn test_small_array<const GROUPS: usize>(
        positions: &ProbePositions,
        hashes: &[Self; GROUPS],
        array: &[u8],
        out: &mut [bool],
    ) -> bool {
        let _ = (positions, hashes, array, out);
        false
    }
}
