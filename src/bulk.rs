//! Many keys at once: building a filter's bit array and batch queries, a chunk of keys at a time
//! through the dispatched kernels, or with AVX-512 in batches of probes.

use crate::dispatch::Isa;
#[cfg(target_arch = "x86_64")]
use crate::dispatch::ProbeBatch;
use crate::format::parse;
use crate::kernels::CHUNK;
use crate::kernels::keys::{Keys, for_each_chunk};
use crate::kernels::positions::ProbePositions;

/// Sets the bits of `keys` with k probes in `array` (a filter's bit array, already zeroed).
pub(crate) fn fill_bit_array<'k>(isa: Isa, k: u8, keys: impl Keys<'k>, array: &mut [u8]) {
    let positions = ProbePositions::new(array.len(), k);
    #[cfg(target_arch = "x86_64")]
    if let Some(batch) = isa.probe_batch(array, k, keys.max_len().unwrap_or(usize::MAX)) {
        return in_batches(&positions, batch, keys, |batch| batch.set_bits(array));
    }
    for_each_chunk(keys, |chunk, n| isa.fill_chunk(&positions, chunk, n, array));
}

/// Adds the probes of `keys` to `batch` a chunk at a time, and hands it to `empty` (which must
/// empty it) whenever it is full and once at the end.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_batches<'k>(
    positions: &ProbePositions,
    mut batch: ProbeBatch,
    keys: impl Keys<'k>,
    mut empty: impl FnMut(&mut ProbeBatch),
) {
    for_each_chunk(keys, |chunk, n| {
        batch.add_chunk(positions, chunk, n);
        if batch.is_full() {
            empty(&mut batch);
        }
    });
    empty(&mut batch);
}

/// leveldb's `KeyMayMatch` for each key, written to `results` in order; `results` must have
/// one slot per key.
pub(crate) fn may_match_batch<'k>(
    isa: Isa,
    keys: impl Keys<'k>,
    filter: &[u8],
    results: &mut [bool],
) {
    let (array, positions) = match parse(filter) {
        Ok((array, k)) => (array, ProbePositions::new(array.len(), k)),
        Err(answer) => {
            results.fill(answer);
            return;
        }
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(batch) = isa.probe_batch(array, positions.k, results.len()) {
        let mut answered = 0;
        return in_batches(&positions, batch, keys, |batch| {
            answered += batch.test_bits(array, &mut results[answered..]);
        });
    }
    let mut results = results.chunks_mut(CHUNK);
    for_each_chunk(keys, |chunk, n| {
        let out = results.next().expect("one result slot per key");
        isa.test_chunk(&positions, chunk, array, &mut out[..n]);
    });
}
