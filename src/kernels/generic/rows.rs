//! A chunk's probes written out as rows of bytes and bit masks, for plain loads and stores.

use super::{ROW_PART, Vector, array_of};
use crate::format::MAX_PROBES;
use crate::kernels::positions::ProbePositions;
use crate::kernels::{CHUNK, prefetch_line};

/// One probe of each key of a chunk: the byte, and the bit in it as a mask.
pub(crate) type ProbeRow = ([u32; CHUNK], [u8; CHUNK]);

/// ORs `masks[i]` into `array[bytes[i]]` for each i.
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: no probe is checked here (see
/// [`RowWriter`], which bounds its rows' bytes).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn set_probed_bits(array: &mut [u8], bytes: &[u32], masks: &[u8]) {
    let mut set = |(&byte, &mask): (&u32, &u8)| {
        // SAFETY: byte < array.len(), by this function's contract.
        unsafe { *array.get_unchecked_mut(byte as usize) |= mask };
    };
    // Eight probes per loop step: with fewer, the loop's own instructions slow a block filter's
    // build, which waits on the byte read-modify-writes.
    let (bytes8, masks8) = (bytes.chunks_exact(8), masks.chunks_exact(8));
    let (bytes_left, masks_left) = (bytes8.remainder(), masks8.remainder());
    for (bytes, masks) in bytes8.zip(masks8) {
        bytes.iter().zip(masks).for_each(&mut set);
    }
    bytes_left.iter().zip(masks_left).for_each(set);
}

/// The bytes of `array` at a row's positions, every lane's (stale ones too), for the tests of
/// arrays held in memory: one plain load and one store per probe, faster than gathers.
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: none is checked here ([`RowWriter`] bounds
/// every lane of the rows it writes).
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn probed_bytes(array: &[u8], bytes: &[u32; CHUNK]) -> [u8; CHUNK] {
    let mut probed = [0u8; CHUNK];
    for (probed, byte) in probed.iter_mut().zip(bytes) {
        // Read as volatile, to keep the loop scalar: the compiler would otherwise move the
        // positions through vector registers and insert each byte into one, which is slower.
        // SAFETY: `byte` is a reference, valid to read; the byte it names is below array.len()
        // by this function's contract.
        *probed = unsafe { *array.get_unchecked(std::ptr::read_volatile(byte) as usize) };
    }
    probed
}

/// What every byte a [`RowWriter`] writes for `positions` is below: the length of the array they
/// were made for, or 1 for an empty one, which no filter has. Where it is at most an array's
/// length, the rows index that array.
pub(crate) fn rows_below(positions: &ProbePositions) -> u32 {
    positions.len.max(1)
}

/// Whether rows made for `positions` index `array`, as they always do: positions are made for
/// the array whose bits they set. If not, every bit is set, so that no key is missed, rather
/// than bits outside the array, and the build has nothing left to do.
#[inline]
pub(crate) fn rows_fit_or_set_all(positions: &ProbePositions, array: &mut [u8]) -> bool {
    let fit = rows_below(positions) as usize <= array.len();
    if !fit {
        array.fill(0xff);
    }
    fit
}

/// A chunk's probes, written out a row (one probe of every key) at a time: for each of the
/// chunk's lanes (stale ones too), the byte the probe reads and the bit in it as a mask. The
/// positions are computed in vectors and written to memory so that the rows' users work on bytes
/// with plain loads and stores: no vector set has a scatter that ORs (colliding lanes would lose
/// bits), and gathers are slow on some CPUs.
///
/// Every byte written is below [`rows_below`], made so with one minimum per vector (the
/// multiply-shift's bytes are below the array's length already), so that the rows' users index
/// without a check per probe and without a path to a panic.
pub(crate) struct RowWriter<V: Vector<LANES>, const LANES: usize, const GROUPS: usize> {
    /// Each lane's hash for its next probe.
    h: [V; GROUPS],
    /// What each lane's hash steps by from one probe to the next.
    delta: [V; GROUPS],
    positions: V::Positions,
    /// The last byte a row may name: `rows_below(positions) - 1`.
    last: V,
    /// The groups that hold keys; the others' lanes are written as byte 0, bit 0.
    groups: usize,
}

impl<V: Vector<LANES>, const LANES: usize, const GROUPS: usize> RowWriter<V, LANES, GROUPS> {
    /// The writer of the rows of a chunk's first `n` keys, given their hashes.
    ///
    /// # Safety
    /// The CPU must have `V`'s features.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn new(positions: &ProbePositions, hashes: [V; GROUPS], n: usize) -> Self {
        const { assert!(GROUPS.is_multiple_of(ROW_PART)) };
        // SAFETY: the CPU has V's features, by this function's contract.
        unsafe {
            RowWriter {
                // Double hashing: the second hash is the first rotated right by 17 bits.
                delta: array_of(
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |g| hashes[g].rotate_right_17(),
                ),
                h: hashes,
                positions: V::positions(positions),
                last: V::splat(rows_below(positions) - 1),
                groups: n.div_ceil(LANES),
            }
        }
    }

    /// Writes the next row to `row`, every lane of it.
    ///
    /// # Safety
    /// The CPU must have `V`'s features, and `row` must be valid for writes.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) unsafe fn write(&mut self, row: *mut ProbeRow) {
        // SAFETY: the CPU has V's features and `row` is valid for writes, by this function's
        // contract.
        unsafe {
            for first in (0..GROUPS).step_by(ROW_PART) {
                let mut bytes = [V::splat(0); ROW_PART];
                let mut bits = [V::splat(0); ROW_PART];
                for i in 0..ROW_PART {
                    let g = first + i;
                    // A group of stale lanes only: a block's filter has fewer keys than a chunk.
                    if g >= self.groups {
                        continue;
                    }
                    let (byte, bit) = V::byte_and_bit(&self.positions, self.h[g]);
                    (bytes[i], bits[i]) = (byte.min(self.last), bit);
                    self.h[g] = self.h[g].add(self.delta[g]);
                }
                V::store_row_part(bytes, bits, row, first);
            }
        }
    }
}

/// Calls `f(bytes, masks)` for each of the k probes in turn, with the row a [`RowWriter`] wrote
/// for it from `hashes` (whole rows: lanes from `n` on hold stale probes, which `f` must leave
/// alone). Every byte `f` gets is below [`rows_below`]`(positions)`. With `prefetch`, the start
/// of an array past the L2 cache, every row is written before any is handed on and the lines its
/// first `n` probes touch are prefetched, so that the misses overlap; otherwise the next row is
/// written while `f` reads this one, so that f's loads find their row stored well before instead
/// of waiting on the vector stores just ahead of them.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn for_each_probe_row<
    V: Vector<LANES>,
    const LANES: usize,
    const GROUPS: usize,
>(
    positions: &ProbePositions,
    hashes: [V; GROUPS],
    n: usize,
    prefetch: Option<*const u8>,
    mut f: impl FnMut(&[u32; CHUNK], &[u8; CHUNK]),
) {
    // SAFETY: the CPU has V's features, by this function's contract.
    let mut writer = unsafe { RowWriter::<V, LANES, GROUPS>::new(positions, hashes, n) };
    let k = usize::from(positions.k);
    if let Some(array) = prefetch {
        // k <= MAX_PROBES (a filter with more probes matches every key, whatever its bits);
        // `take` states it without a panic path.
        let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); MAX_PROBES as usize];
        for row in rows.iter_mut().take(k) {
            // SAFETY: the CPU has V's features, by this function's contract; `row` is a local
            // row, valid for writes.
            unsafe { writer.write(row) };
            for &byte in row.0.iter().take(n) {
                prefetch_line(array.wrapping_add(byte as usize));
            }
        }
        for row in rows.iter().take(k) {
            f(&row.0, &row.1);
        }
        return;
    }
    let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); 2];
    let [even, odd] = &mut rows;
    // SAFETY: the CPU has V's features, by this function's contract; `even` is a local row,
    // valid for writes.
    unsafe { writer.write(even) };
    for probe in 0..k {
        let (this, next) = if probe % 2 == 0 {
            (&*even, &mut *odd)
        } else {
            (&*odd, &mut *even)
        };
        if probe + 1 < k {
            // SAFETY: as above, `next` a local row.
            unsafe { writer.write(next) };
        }
        f(&this.0, &this.1);
    }
}
