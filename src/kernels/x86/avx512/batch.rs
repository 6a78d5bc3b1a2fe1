//! Batches of probes: for an array past the L2 cache, every probe of thousands of keys is
//! computed before any is read or set.

use std::num::NonZeroUsize;

use super::rows::{ProbeRow, RowWriter, probed_bytes, rows_below, set_probed_bits};
use crate::kernels::CHUNK;
use crate::kernels::positions::ProbePositions;
use crate::kernels::x86::features::avx512;

/// Probes per [`ProbeBatch`]: 4096 keys at k = 6, 120 KB of rows.
const BATCH_PROBES: usize = 4096 * 6;

/// Calls with fewer keys go chunk by chunk, as smaller arrays do: for few keys the batch's
/// allocation costs more than it saves (see docs/PERFORMANCE.md, AVX-512: batches of probes).
const MIN_BATCH_KEYS: usize = 1024;

avx512!(
    /// Adds the probes of a chunk's first `n` keys to `batch`: its k rows, written by a
    /// [`RowWriter`] straight into the batch's memory rather than into rows of its own first and
    /// copied (see docs/PERFORMANCE.md, AVX-512: batches of probes).
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`].
    unsafe fn probe_chunk(
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
        batch: &mut ProbeBatch,
    ) {
        debug_assert!(batch.last_chunk_keys == CHUNK, "keys after a partial chunk");
        debug_assert_eq!(batch.k.get(), usize::from(positions.k));
        let written = batch.rows.len();
        // The batch is emptied once full, so a chunk's k rows always fit its capacity; `take`
        // states it without a panic path.
        let rows = batch
            .rows
            .spare_capacity_mut()
            .iter_mut()
            .take(batch.k.get());
        let mut writer = RowWriter::new(positions, keys, n);
        let mut added = 0;
        for row in rows {
            // SAFETY: `row` is the batch's own memory, valid for writes.
            unsafe { writer.write(row.as_mut_ptr()) };
            added += 1;
        }
        // SAFETY: the rows after the first `written` were written just above, every lane.
        unsafe { batch.rows.set_len(written + added) };
        batch.below = batch.below.max(rows_below(positions));
        batch.last_chunk_keys = n;
    }
);

/// The probes of a batch of keys, of whole chunks, in the rows a [`RowWriter`] writes:
/// for an array past the L2 cache, every probe of the batch is computed before any is read or
/// set. Chunk by chunk, bits that wait on memory and the next keys' hashes, which wait on the
/// multiplier, get in each other's way. The AVX2 kernels gain nothing from batches and keep
/// their prefetching (see docs/PERFORMANCE.md, AVX-512: batches of probes).
pub(crate) struct ProbeBatch {
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
}

impl ProbeBatch {
    /// Room for as many whole chunks as [`BATCH_PROBES`] allow (one at least) at k probes per
    /// key, or for `keys` keys if fewer. None for k = 0, for fewer than [`MIN_BATCH_KEYS`] keys,
    /// or if the memory cannot be had: the caller then goes chunk by chunk.
    ///
    /// # Safety
    /// The CPU must support the features of [`crate::dispatch::Isa::Avx512`]: the batch's methods
    /// run AVX-512 code.
    pub(crate) unsafe fn new(k: u8, keys: usize) -> Option<ProbeBatch> {
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
        })
    }

    /// Adds the probes of a chunk's first `n` keys ([`probe_chunk`]).
    #[inline(always)]
    pub(crate) fn add_chunk(
        &mut self,
        positions: &ProbePositions,
        keys: &[&[u8]; CHUNK],
        n: usize,
    ) {
        // SAFETY: a batch is only made on a CPU with AVX-512 (see `ProbeBatch::new`).
        unsafe { probe_chunk(positions, keys, n, self) };
    }

    pub(crate) fn is_full(&self) -> bool {
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
    ///
    /// Unchecked per probe, as the build chunk by chunk: [`RowWriter`] bounded every position,
    /// and a check per probe slows the build (see docs/PERFORMANCE.md, AVX-512: building).
    pub(crate) fn set_bits(&mut self, array: &mut [u8]) {
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
            // Never: a batch sets the bits of the array its positions were made for. Were it
            // otherwise, every bit is set, so that no key is missed, rather than bits outside
            // the array.
            array.fill(0xff);
        }
        self.empty();
    }

    /// Writes whether all probes of each of the batch's keys are set in `array` to `out`, one
    /// slot per key in order, and empties the batch. Returns the number of keys.
    pub(crate) fn test_bits(&mut self, array: &[u8], out: &mut [bool]) -> usize {
        assert!(self.below as usize <= array.len(), "probes past the array");
        let mut answered = 0;
        for (rows, n) in self.chunks() {
            // Every probe is read, without branching on the bits (see chunk::test_chunk).
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
