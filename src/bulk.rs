//! Many keys at once: building a filter's bit array and batch queries, through the dispatched
//! kernels.

use crate::dispatch::Isa;
use crate::format::parse;
use crate::kernels::keys::Keys;
use crate::kernels::positions::ProbePositions;

/// Sets the bits of `keys` with k probes in `array` (a filter's bit array, already zeroed).
pub(crate) fn fill_bit_array<'k>(isa: Isa, k: u8, keys: impl Keys<'k>, array: &mut [u8]) {
    isa.fill_bit_array(&ProbePositions::new(array.len(), k), keys, array);
}

/// leveldb's `KeyMayMatch` for each key, written to `results` in order; `results` must have
/// one slot per key.
pub(crate) fn may_match_batch<'k>(
    isa: Isa,
    keys: impl Keys<'k>,
    filter: &[u8],
    results: &mut [bool],
) {
    match parse(filter) {
        Ok((array, k)) => {
            isa.may_match_batch(&ProbePositions::new(array.len(), k), keys, array, results)
        }
        Err(answer) => results.fill(answer),
    }
}
