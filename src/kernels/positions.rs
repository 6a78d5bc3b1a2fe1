//! Where leveldb's probes land in a bit array, computed without a division per probe.

use crate::format::MAX_PROBES;

/// Where leveldb's probes for a hash land in a bit array of `len` bytes, without dividing.
///
/// leveldb's position is `h % bits` in 64 bits, with bits = 8 * len. Writing h = q * bits + r
/// (r < bits): h >> 3 = q * len + (r >> 3) with r >> 3 < len, so the byte is `(h >> 3) % len` and
/// the bit in it is `h & 7`. As h >> 3 < 2^29, lengths of 2^29 or more (2^32 bits or more, where
/// leveldb's position is h itself) leave it unchanged: they are clamped to 2^29.
///
/// The remaining modulo of a < 2^29 by len <= 2^29 uses Granlund and Montgomery's exact quotient
/// ("Division by invariant integers using multiplication", 1994, Theorem 4.2): with
/// l = ceil(log2 len) and magic = ceil(2^(29 + l) / len), q = (a * magic) >> (29 + l) is a / len
/// rounded down for every a < 2^29. Why: magic * len = 2^(29 + l) + e with 0 <= e < len, so
/// a * magic / 2^(29 + l) = a / len + a * e / (len * 2^(29 + l)), and the second term is below
/// 1 / len, too little to reach the next integer. magic <= 2^30 and a * magic < 2^59: one
/// 32 x 32 -> 64-bit multiply, which SIMD units have (8 probes per AVX2 instruction pair).
#[derive(Clone, Copy)]
pub(crate) struct ProbePositions {
    pub(crate) len: u32,
    pub(crate) magic: u32,
    pub(crate) shift: u32,
    pub(crate) k: u8,
}

impl ProbePositions {
    pub(crate) fn new(array_len: usize, k: u8) -> ProbePositions {
        debug_assert!(array_len > 0 && k <= MAX_PROBES);
        let len = array_len.min(1 << 29) as u32;
        // A single query would spend as long on the division as on its probes; block-sized
        // arrays take their constants from a table instead.
        let (magic, shift) = match SMALL_ARRAY_MAGIC.get(len as usize) {
            Some(&constants) => constants,
            None => magic_and_shift(len),
        };
        ProbePositions {
            len,
            magic,
            shift,
            k,
        }
    }

    /// leveldb's bit position `h % bits` (as bit index: byte * 8 + bit).
    #[inline(always)]
    pub(crate) fn position(&self, h: u32) -> u32 {
        let a = h >> 3;
        let q = ((u64::from(a) * u64::from(self.magic)) >> self.shift) as u32;
        ((a - q * self.len) << 3) | (h & 7)
    }
}

/// [`ProbePositions`]' magic and shift for an array of `len` bytes, 1 <= len <= 2^29.
const fn magic_and_shift(len: u32) -> (u32, u32) {
    let shift = 29 + len.next_power_of_two().trailing_zeros();
    let magic = (1u64 << shift).div_ceil(len as u64) as u32;
    (magic, shift)
}

/// [`magic_and_shift`] of every array length up to 256 bytes (index 0 unused).
static SMALL_ARRAY_MAGIC: [(u32, u32); 257] = {
    let mut table = [(0, 0); 257];
    let mut len = 1;
    while len < table.len() {
        table[len] = magic_and_shift(len as u32);
        len += 1;
    }
    table
};

/// leveldb's probe position `h % bits` (64-bit) in a bit array, by Lemire's exact remainder
/// ("Faster Remainder by Direct Computation", 2019): for a < 2^32 and 1 < d <= 2^32, with
/// m = floor((2^64 - 1) / d) + 1, a % d is the high 64 bits of (m * a mod 2^64) * d. d is the bit
/// count clamped to 2^32: past that leveldb's position is h itself, and so is h % 2^32. Two
/// multiplies per probe; the one division, for m, depends only on the filter's length, so it runs
/// alongside the hash.
pub(crate) struct LemirePositions {
    m: u64,
    bits: u64,
}

impl LemirePositions {
    #[inline(always)]
    pub(crate) fn new(array_len: usize) -> LemirePositions {
        let bits = (array_len as u64).saturating_mul(8).min(1 << 32);
        debug_assert!(bits >= 8);
        LemirePositions {
            m: (u64::MAX / bits) + 1,
            bits,
        }
    }

    /// The bit index (byte * 8 + bit) of hash `h`.
    #[inline(always)]
    pub(crate) fn of(&self, h: u32) -> usize {
        let low = self.m.wrapping_mul(u64::from(h));
        ((u128::from(low) * u128::from(self.bits)) >> 64) as usize
    }
}
