//! One key against one filter, the single-key query. Nothing overlaps across keys inside one call,
//! so what counts is the work per call and the branches that a key's length or bits decide.
//! With AVX-512 up to 8 probes are computed and tested in one vector (src/fast/avx512.rs), with
//! AVX2 4 per vector by gathers (src/fast/avx2.rs); the scalar path here serves every other CPU
//! and what those leave to it.

use super::Isa;
use crate::core_ffi::ffi_boundary;
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};

/// leveldb's `KeyMayMatch` for one key, on the fastest path this CPU has.
#[inline]
pub(crate) fn may_match_one(key: &[u8], filter: &[u8]) -> bool {
    may_match_one_c(key, filter) != 0
}

/// [`may_match_one`] as 0 or 1, for the C entries. It calls only C-ABI functions, from which no
/// call can unwind: the AVX-512 query, which has no path to a panic ([`super::CannotPanic`]), and
/// the other paths, which catch their own. So the C entry's `ffi_boundary!` needs no landing pad
/// around this, and the C entry reaches the AVX-512 query by a tail jump, without a stack frame
/// of its own.
#[inline(always)]
pub(crate) fn may_match_one_c(key: &[u8], filter: &[u8]) -> u8 {
    // Filters without a bit array or with a reserved k go the other way too: answered here, their
    // constant answer was set in the return register before the branch, on the query's path.
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx512.is_best_detected()
        && let Ok((array, k)) = super::parse(filter)
    {
        // SAFETY: `Isa::Avx512` is only detected on a CPU with its features.
        return unsafe { super::avx512::may_match_one(k.into(), key, array) };
    }
    may_match_one_elsewhere(key, filter)
}

/// [`may_match_one_c`] off the AVX-512 path: on other CPUs, on any before its instruction set is
/// detected (once per process), and for filters without a bit array or with a reserved k. Apart,
/// so that the AVX-512 path's code stays as short as it is and makes no call that would need the
/// key and filter saved across it.
#[inline(never)]
#[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
extern "C" fn may_match_one_elsewhere(key: &[u8], filter: &[u8]) -> u8 {
    ffi_boundary!(1, { may_match_one_on(Isa::best(), key, filter).into() })
}

/// [`may_match_one`] on the path of `isa`: the AVX-512 one, the AVX2 one, or the scalar one.
///
/// Every probe is tested, without branching on the bits: a query for an absent key would
/// otherwise mispredict its exit about once, and nothing of the next query could start before the
/// branch resolves. Without such a branch, consecutive queries overlap in the CPU.
pub(super) fn may_match_one_on(isa: Isa, key: &[u8], filter: &[u8]) -> bool {
    let (array, k) = match super::parse(filter) {
        Ok(parsed) => parsed,
        Err(answer) => return answer,
    };
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
        Isa::Avx512 => unsafe { super::avx512::may_match_one(k.into(), key, array) != 0 },
        // Past the L2, AVX2's gathers lost to the scalar path's plain loads, and under 4 bytes its
        // 4-byte reads do not fit (see avx2::may_match_one).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 if (4..super::LARGE_ARRAY_BYTES).contains(&array.len()) => {
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            unsafe { super::avx2::may_match_one(key, array, k) }
        }
        _ => may_match_one_scalar(key, array, k),
    }
}

/// The scalar path of [`may_match_one_on`], for a bit array and k.
#[inline]
fn may_match_one_scalar(key: &[u8], array: &[u8], k: u8) -> bool {
    let positions = Positions::new(array.len());
    let mut h = bloom_hash_one::<false>(key);
    let delta = h.rotate_right(17);
    let mut all_set = 1;
    for _ in 0..k {
        let pos = positions.of(h);
        // pos < bits, so the byte always exists; `get` states it without a panic path.
        let byte = array.get(pos >> 3).copied().unwrap_or(0xff);
        all_set &= byte >> (pos & 7);
        h = h.wrapping_add(delta);
    }
    all_set & 1 != 0
}

/// leveldb's probe position `h % bits` (64-bit) in a bit array, by Lemire's exact remainder
/// ("Faster Remainder by Direct Computation", 2019): for a < 2^32 and 1 < d <= 2^32, with
/// m = floor((2^64 - 1) / d) + 1, a % d is the high 64 bits of (m * a mod 2^64) * d. d is the bit
/// count clamped to 2^32: past that leveldb's position is h itself, and so is h % 2^32. Two
/// multiplies per probe; the one division, for m, depends only on the filter's length, so it runs
/// alongside the hash.
pub(super) struct Positions {
    m: u64,
    bits: u64,
}

impl Positions {
    #[inline(always)]
    pub(super) fn new(array_len: usize) -> Positions {
        let bits = (array_len as u64).saturating_mul(8).min(1 << 32);
        debug_assert!(bits >= 8);
        Positions {
            m: (u64::MAX / bits) + 1,
            bits,
        }
    }

    /// The bit index (byte * 8 + bit) of hash `h`.
    #[inline(always)]
    pub(super) fn of(&self, h: u32) -> usize {
        let low = self.m.wrapping_mul(u64::from(h));
        ((u128::from(low) * u128::from(self.bits)) >> 64) as usize
    }
}

/// [`bloom_hash`] for one key: 16 bytes per loop step and 8 if left, then the odd word and the
/// 1–3 tail bytes, the tail found from the length alone. Keys vary in length, so branches on it
/// mispredict; without `BRANCH_ON_LENGTH` the odd word is found from the length too, both last
/// steps are computed and kept or dropped by conditional moves, which instead put their 6 cycles
/// on every key's chain. Which costs less depends on what else the query waits for. Measured on
/// Zen 5 (`cargo bench --bench vs_leveldb -- block 1M`, ns per single query): a filter in
/// registers, where the query waits on nothing else, 9.3–9.8 without the branches against
/// 9.7–10.1 with them; a 1M-key filter in memory, whose loads a query waits for anyway,
/// 17.3–18.3 without against 16.5–17.3 with.
#[inline(always)]
pub(super) fn bloom_hash_one<const BRANCH_ON_LENGTH: bool>(key: &[u8]) -> u32 {
    let len = key.len();
    if len < 4 {
        return bloom_hash(key);
    }
    let mut h = BLOOM_SEED ^ (len as u32).wrapping_mul(MULTIPLIER);
    // 16 bytes per loop step, then 8 if left. Compiled, each word's load folds into its add;
    // 8-byte steps became a loop unrolled twice, of 8-byte loads split by shifts, which took 8
    // instructions more per block query and 0.6-0.8 ns (Zen 5).
    let mut rest = key;
    let sixteen_step = |h: u32, sixteen: &[u8; 16]| {
        let (first, second) = sixteen.split_at(8);
        mix_eight(mix_eight(h, first), second)
    };
    // The first step ahead of the loop, so that a key of 16 to 31 bytes takes no loop counter.
    if let Some((sixteen, after)) = rest.split_first_chunk::<16>() {
        h = sixteen_step(h, sixteen);
        rest = after;
    }
    while let Some((sixteen, after)) = rest.split_first_chunk::<16>() {
        h = sixteen_step(h, sixteen);
        rest = after;
    }
    if let Some((eight, after)) = rest.split_first_chunk::<8>() {
        h = mix_eight(h, eight);
        rest = after;
    }
    // The odd word, when len % 8 >= 4.
    if BRANCH_ON_LENGTH {
        // Where the loop stopped: a load folded into its add, with no address to compute.
        if let Some((word, _)) = rest.split_first_chunk::<4>() {
            h = mix(h, u32::from_le_bytes(*word));
        }
    } else {
        // Found from the length alone, so that its load does not wait for the loop: the key's
        // last whole word, read either way (len >= 4) and dropped when there is none. The
        // compiler would otherwise branch on it.
        let at = (len & !3) - 4;
        let word = u32::from_le_bytes(key[at..at + 4].try_into().expect("4 bytes"));
        h = std::hint::select_unpredictable(len & 4 != 0, mix(h, word), h);
    }
    // The tail bytes: the key's last 4 bytes shifted right by 32 - 8 * (len % 4) bits, a count
    // that wrapping_shr takes mod 32 (so without a tail this is dropped garbage).
    let last = u32::from_le_bytes(key[len - 4..].try_into().expect("4 bytes"));
    let tail_bytes = last.wrapping_shr((len as u32).wrapping_mul(8).wrapping_neg());
    let tail = |h: u32| {
        let h = h.wrapping_add(tail_bytes).wrapping_mul(MULTIPLIER);
        h ^ (h >> 24)
    };
    if BRANCH_ON_LENGTH {
        return if len.is_multiple_of(4) { h } else { tail(h) };
    }
    std::hint::select_unpredictable(len.is_multiple_of(4), h, tail(h))
}

/// [`mix`] for the two words of 8 bytes, each read on its own, so that its load folds into its
/// add: read as one 8-byte value, they took a shift to split and one register more, which the
/// AVX-512 query then saved on the stack.
#[inline(always)]
fn mix_eight(h: u32, eight: &[u8]) -> u32 {
    let (first, second) = eight.split_at(4);
    let h = mix(h, u32::from_le_bytes(first.try_into().expect("4 bytes")));
    mix(h, u32::from_le_bytes(second.try_into().expect("4 bytes")))
}

/// One word of leveldb's hash loop.
#[inline(always)]
fn mix(h: u32, word: u32) -> u32 {
    let h = h.wrapping_add(word).wrapping_mul(MULTIPLIER);
    h ^ (h >> 16)
}
