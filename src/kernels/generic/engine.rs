//! Building and batch queries, the whole call: keys read a chunk at a time, hashed, written out
//! as rows of probes, then their bits set or tested.

use std::num::NonZeroUsize;

use super::hash::hash_chunk;
use super::rows::{
    ProbeRow, RowWriter, for_each_probe_row, probed_bytes, rows_below, rows_fit_or_set_all,
    set_probed_bits,
};
use super::{LargeArrays, Vector};
use crate::kernels::keys::{Keys, for_each_chunk};
use crate::kernels::positions::ProbePositions;
use crate::kernels::{CHUNK, LARGE_ARRAY_BYTES};

/// An instruction set's entry points into the engine: `$features` (its `avx2!`-style macro)
/// compiles them for its features, `$vector` is its [`Vector`], `$cpu` says in the docs what the
/// CPU must have. Everything they call inlines into them (see
/// [`array_of`](super::array_of)).
macro_rules! engine_entries {
    ($features:ident, $vector:ty, $cpu:literal) => {
        $features!(
            /// [`engine::fill_bit_array`](crate::kernels::generic::engine::fill_bit_array) on
            /// this instruction set.
            ///
            /// # Safety
            #[doc = $cpu]
            pub(crate) unsafe fn fill_bit_array<'k>(
                positions: &$crate::kernels::positions::ProbePositions,
                keys: impl $crate::kernels::keys::Keys<'k>,
                array: &mut [u8],
            ) {
                // SAFETY: the CPU has the features, by this function's contract.
                unsafe {
                    $crate::kernels::generic::engine::fill_bit_array::<$vector, LANES, GROUPS>(
                        positions, keys, array,
                    )
                }
            }
        );

        $features!(
            /// [`engine::may_match_batch`](crate::kernels::generic::engine::may_match_batch) on
            /// this instruction set.
            ///
            /// # Safety
            #[doc = $cpu]
            pub(crate) unsafe fn may_match_batch<'k>(
                positions: &$crate::kernels::positions::ProbePositions,
                keys: impl $crate::kernels::keys::Keys<'k>,
                array: &[u8],
                results: &mut [bool],
            ) {
                // SAFETY: the CPU has the features, by this function's contract.
                unsafe {
                    $crate::kernels::generic::engine::may_match_batch::<$vector, LANES, GROUPS>(
                        positions, keys, array, results,
                    )
                }
            }
        );

        $features!(
            /// Writes `bloom_hash(keys[i])` to `hashes[i]`, as the kernels hash them (for the
            /// tests).
            ///
            /// # Safety
            #[doc = $cpu]
            #[cfg(test)]
            pub(crate) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
                // SAFETY: the CPU has the features, by this function's contract.
                unsafe {
                    $crate::kernels::generic::hash::hash_keys::<$vector, LANES, GROUPS>(
                        keys, hashes,
                    )
                }
            }
        );
    };
}
pub(crate) use engine_entries;

/// Sets the bits of `keys` in `array` (a filter's bit array, zeroed), `positions` made for it.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn fill_bit_array<
    'k,
    V: Vector<LANES>,
    const LANES: usize,
    const GROUPS: usize,
>(
    positions: &ProbePositions,
    keys: impl Keys<'k>,
    array: &mut [u8],
) {
    if !rows_fit_or_set_all(positions, array) {
        return;
    }
    let large = array.len() >= LARGE_ARRAY_BYTES;
    if large && V::LARGE_ARRAYS == LargeArrays::Batches {
        let keys_hint = keys.max_len().unwrap_or(usize::MAX);
        if let Some(mut batch) = ProbeBatch::new(positions.k, keys_hint) {
            // SAFETY: the CPU has V's features, by this function's contract.
            return unsafe {
                in_batches::<V, LANES, GROUPS>(
                    positions,
                    &mut batch,
                    keys,
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |batch| batch.set_bits(array),
                )
            };
        }
    }
    let prefetch =
        (large && V::LARGE_ARRAYS == LargeArrays::PrefetchRows).then_some(array.as_ptr());
    for_each_chunk(
        keys,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |chunk, n| {
            // n <= CHUNK; `min` shows the compiler, without a panic path.
            let n = n.min(CHUNK);
            // SAFETY: the CPU has V's features, by this function's contract; every byte of the rows
            // is below rows_below(positions) <= array.len(), checked above.
            unsafe {
                let hashes = hash_chunk::<V, LANES, GROUPS>(chunk, n);
                for_each_probe_row::<V, LANES, GROUPS>(
                    positions,
                    hashes,
                    n,
                    prefetch,
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |bytes, masks| set_probed_bits(array, &bytes[..n], &masks[..n]),
                );
            }
        },
    );
}

/// leveldb's `KeyMayMatch` for each key against `array` (with `positions` made for it), written to
/// `results` in order, one slot per key.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) unsafe fn may_match_batch<
    'k,
    V: Vector<LANES>,
    const LANES: usize,
    const GROUPS: usize,
>(
    positions: &ProbePositions,
    keys: impl Keys<'k>,
    array: &[u8],
    results: &mut [bool],
) {
    assert!(
        rows_below(positions) as usize <= array.len(),
        "probes past the array"
    );
    let large = array.len() >= LARGE_ARRAY_BYTES;
    if large
        && V::LARGE_ARRAYS == LargeArrays::Batches
        && let Some(mut batch) = ProbeBatch::new(positions.k, results.len())
    {
        let mut answered = 0;
        // SAFETY: the CPU has V's features, by this function's contract.
        return unsafe {
            in_batches::<V, LANES, GROUPS>(
                positions,
                &mut batch,
                keys,
                #[cfg_attr(not(debug_assertions), inline(always))]
                |batch| {
                    answered += batch.test_bits(array, &mut results[answered..]);
                },
            )
        };
    }
    let prefetch =
        (large && V::LARGE_ARRAYS == LargeArrays::PrefetchRows).then_some(array.as_ptr());
    let mut results = results.chunks_mut(CHUNK);
    for_each_chunk(
        keys,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |chunk, n| {
            let out = results.next().expect("one result slot per key");
            let n = n.min(out.len());
            let out = &mut out[..n];
            // SAFETY: the CPU has V's features, by this function's contract; every byte of the rows
            // is below rows_below(positions) <= array.len(), checked above.
            unsafe {
                let hashes = hash_chunk::<V, LANES, GROUPS>(chunk, n);
                if V::test_small_array(positions, &hashes, array, out) {
                    return;
                }
                // Every probe is tested, without branching on the bits: an early exit would
                // mispredict about once per key.
                let mut set = V::all_set(out.len());
                for_each_probe_row::<V, LANES, GROUPS>(
                    positions,
                    hashes,
                    n,
                    prefetch,
                    #[cfg_attr(not(debug_assertions), inline(always))]
                    |bytes, masks| V::test_row(&mut set, &probed_bytes(array, bytes), masks),
                );
                V::store_answers(set, out);
            }
        },
    );
}

/// Adds the probes of `keys` to `batch` a chunk at a time, and hands it to `empty` (which must
/// empty it) whenever it is full and once at the end.
///
/// # Safety
/// The CPU must have `V`'s features.
#[cfg_attr(not(debug_assertions), inline(always))]
unsafe fn in_batches<'k, V: Vector<LANES>, const LANES: usize, const GROUPS: usize>(
    positions: &ProbePositions,
    batch: &mut ProbeBatch<V, LANES, GROUPS>,
    keys: impl Keys<'k>,
    mut empty: impl FnMut(&mut ProbeBatch<V, LANES, GROUPS>),
) {
    for_each_chunk(
        keys,
        #[cfg_attr(not(debug_assertions), inline(always))]
        |chunk, n| {
            // SAFETY: the CPU has V's features, by this function's contract.
            unsafe { batch.add_chunk(positions, chunk, n) };
            if batch.is_full() {
                empty(batch);
            }
        },
    );
    empty(batch);
}

/// Probes per [`ProbeBatch`]: 4096 keys at k = 6, 120 KB of rows.
const BATCH_PROBES: usize = 4096 * 6;

/// Calls with fewer keys go chunk by chunk: for few keys the batch's allocation costs more than
/// it saves.
const MIN_BATCH_KEYS: usize = 1024;

/// The probes of a batch of keys, of whole chunks, as rows: for an array past the L2 cache,
/// every probe of the batch is computed before any is read or set. Chunk by chunk, bits that
/// wait on memory and the next keys' hashes, which wait on the multiplier, get in each other's
/// way.
pub(crate) struct ProbeBatch<V, const LANES: usize, const GROUPS: usize> {
    /// Whole rows, lanes past a partial chunk's keys too.
    rows: Vec<ProbeRow>,
    /// Rows per chunk.
    k: NonZeroUsize,
    /// The rows of a full batch: `rows`' capacity.
    full: usize,
    /// The keys in the last chunk's rows: only the last chunk of all may be partial, and the
    /// batch is emptied after it.
    last_chunk_keys: usize,
    /// Every probed byte in the rows is below this ([`RowWriter`] bounds them).
    below: u32,
    vector: std::marker::PhantomData<V>,
}

impl<V: Vector<LANES>, const LANES: usize, const GROUPS: usize> ProbeBatch<V, LANES, GROUPS> {
    /// Room for as many whole chunks as [`BATCH_PROBES`] allow (one at least) at k probes per
    /// key, or for `keys` keys if fewer. None for k = 0, for fewer than [`MIN_BATCH_KEYS`] keys,
    /// or if the memory cannot be had: the caller then goes chunk by chunk.
    fn new(k: u8, keys: usize) -> Option<Self> {
        let k = NonZeroUsize::new(usize::from(k))?;
        if keys < MIN_BATCH_KEYS {
            return None;
        }
        // Reserved, not written: zeroing a whole batch, whatever the keys, would cost a call of
        // few keys far more than its queries.
        let chunks = (BATCH_PROBES / (CHUNK * k.get()))
            .min(keys.div_ceil(CHUNK))
            .max(1);
        let mut rows = Vec::new();
        rows.try_reserve_exact(chunks * k.get()).ok()?;
        Some(ProbeBatch {
            rows,
            k,
            full: chunks * k.get(),
            last_chunk_keys: CHUNK,
            below: 0,
            vector: std::marker::PhantomData,
        })
    }

    /// Adds the probes of a chunk's first `n` keys: its k rows, written by a [`RowWriter`]
    /// straight into the batch's memory.
    ///
    /// # Safety
    /// The CPU must have `V`'s features.
    #[cfg_attr(not(debug_assertions), inline(always))]
    unsafe fn add_chunk(&mut self, positions: &ProbePositions, keys: &[&[u8]; CHUNK], n: usize) {
        debug_assert!(self.last_chunk_keys == CHUNK, "keys after a partial chunk");
        debug_assert_eq!(self.k.get(), usize::from(positions.k));
        let written = self.rows.len();
        // The batch is emptied once full, so a chunk's k rows always fit its capacity; `take`
        // states it without a panic path.
        let rows = self.rows.spare_capacity_mut().iter_mut().take(self.k.get());
        // SAFETY: the CPU has V's features, by this function's contract.
        let mut writer = unsafe {
            RowWriter::<V, LANES, GROUPS>::new(
                positions,
                hash_chunk::<V, LANES, GROUPS>(keys, n),
                n,
            )
        };
        let mut added = 0;
        for row in rows {
            // SAFETY: as above; `row` is the batch's own memory, valid for writes.
            unsafe { writer.write(row.as_mut_ptr()) };
            added += 1;
        }
        // SAFETY: the rows after the first `written` were written just above, every lane.
        unsafe { self.rows.set_len(written + added) };
        self.below = self.below.max(rows_below(positions));
        self.last_chunk_keys = n;
    }

    fn is_full(&self) -> bool {
        self.rows.len() == self.full
    }

    /// The rows in use, a chunk's k rows at a time, with the chunk's number of keys.
    fn chunks(&self) -> impl Iterator<Item = (&[ProbeRow], usize)> {
        let chunks = self.rows.len() / self.k;
        let last_chunk_keys = self.last_chunk_keys;
        self.rows
            .chunks(self.k.get())
            .enumerate()
            .map(move |(c, rows)| {
                (
                    rows,
                    if c + 1 < chunks {
                        CHUNK
                    } else {
                        last_chunk_keys
                    },
                )
            })
    }

    /// Sets the bits of the batch's probes in `array`, and empties the batch.
    fn set_bits(&mut self, array: &mut [u8]) {
        if self.below as usize <= array.len() {
            for (rows, n) in self.chunks() {
                // n <= CHUNK; `min` shows the compiler, without a panic path.
                let n = n.min(CHUNK);
                for (bytes, masks) in rows {
                    // SAFETY: every byte is below self.below <= array.len().
                    unsafe { set_probed_bits(array, &bytes[..n], &masks[..n]) };
                }
            }
        } else {
            // Never: a batch sets the bits of the array its positions were made for. If it did
            // not, every bit is set, so that no key is missed, rather than bits outside the array.
            array.fill(0xff);
        }
        self.empty();
    }

    /// Writes whether all probes of each of the batch's keys are set in `array` to `out`, one
    /// slot per key in order, and empties the batch. Returns the number of keys.
    fn test_bits(&mut self, array: &[u8], out: &mut [bool]) -> usize {
        assert!(self.below as usize <= array.len(), "probes past the array");
        let mut answered = 0;
        for (rows, n) in self.chunks() {
            let mut all_set = [true; CHUNK];
            for (bytes, masks) in rows {
                // SAFETY: every byte is below self.below <= array.len().
                let probed = unsafe { probed_bytes(array, bytes) };
                for ((set, &probed), &mask) in all_set.iter_mut().zip(&probed).zip(masks) {
                    *set &= probed & mask != 0;
                }
            }
            out[answered..answered + n].copy_from_slice(&all_set[..n]);
            answered += n;
        }
        self.empty();
        answered
    }

    fn empty(&mut self) {
        self.rows.clear();
        self.last_chunk_keys = CHUNK;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch of probes made for a larger array than the one whose bits it sets (which the
    /// engine never hands it): every bit set, none past the array.
    fn batch_into_a_smaller_array_sets_every_bit<
        V: Vector<LANES>,
        const LANES: usize,
        const GROUPS: usize,
    >() {
        let keys: Vec<Vec<u8>> = (0..CHUNK as u32)
            .map(|i| i.to_le_bytes().to_vec())
            .collect();
        let chunk: [&[u8]; CHUNK] = std::array::from_fn(|i| keys[i].as_slice());
        let positions = ProbePositions::new(LARGE_ARRAY_BYTES, 6);
        let mut batch = ProbeBatch::<V, LANES, GROUPS>::new(6, 4096).expect("a batch");
        // SAFETY: the caller checked that the CPU has V's features.
        unsafe { batch.add_chunk(&positions, &chunk, CHUNK) };
        let mut memory = vec![0u8; 1064];
        let (array, after) = memory.split_at_mut(1000);
        batch.set_bits(array);
        assert!(array.iter().all(|&b| b == 0xff));
        assert!(after.iter().all(|&b| b == 0), "wrote past the array");
    }

    #[test]
    fn batches_into_a_smaller_array_set_every_bit() {
        use crate::kernels::x86::features::features;
        use std::arch::x86_64::{__m256i, __m512i};
        if features!(avx2 => detected!()) {
            batch_into_a_smaller_array_sets_every_bit::<__m256i, 8, 8>();
        }
        if features!(avx512 => detected!()) {
            batch_into_a_smaller_array_sets_every_bit::<__m512i, 16, 4>();
        }
    }
}
