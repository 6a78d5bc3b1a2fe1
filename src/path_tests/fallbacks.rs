//! Where no caller leads the kernels: the fallbacks that keep them free of panics (so that the
//! C++ shim links no panic machinery) still answer as the oracle, or set every bit so that no
//! key is missed, and touch nothing outside their array.

use super::*;
use crate::kernels::CHUNK;

/// Bytes after the array a kernel is given, which it must leave alone.
const GUARD: usize = 64;

fn chunk_of(keys: &[Vec<u8>]) -> [&[u8]; CHUNK] {
    std::array::from_fn(|i| keys[i].as_slice())
}

/// `fill_chunk` with positions made for twice its array: every bit of the array set.
#[test]
fn chunk_build_with_positions_past_its_array_sets_every_bit() {
    let mut rng = Rng(11);
    let keys: Vec<Vec<u8>> = (0..CHUNK).map(|i| rng.key(1 + i % 40)).collect();
    let chunk = chunk_of(&keys);
    for isa in isas() {
        for len in [8, 100, 300, 5000] {
            let mut memory = vec![0u8; len + GUARD];
            let (array, after) = memory.split_at_mut(len);
            isa.fill_chunk(&ProbePositions::new(2 * len, 6), &chunk, CHUNK, array);
            assert!(array.iter().all(|&b| b == 0xff), "{isa:?}, {len} bytes");
            assert!(
                after.iter().all(|&b| b == 0),
                "{isa:?}, {len} bytes: wrote past"
            );
        }
    }
}

/// A batch of probes made for a larger array than the one whose bits it sets: every bit set.
#[cfg(target_arch = "x86_64")]
#[test]
fn batch_build_into_a_smaller_array_sets_every_bit() {
    use crate::kernels::LARGE_ARRAY_BYTES;
    let mut rng = Rng(12);
    let keys: Vec<Vec<u8>> = (0..CHUNK).map(|i| rng.key(1 + i % 40)).collect();
    let large = vec![0u8; LARGE_ARRAY_BYTES];
    let positions = ProbePositions::new(large.len(), 6);
    // Only the AVX-512 path makes batches.
    for mut batch in isas()
        .into_iter()
        .filter_map(|isa| isa.probe_batch(&large, positions.k, 4096))
    {
        batch.add_chunk(&positions, &chunk_of(&keys), CHUNK);
        let mut memory = vec![0u8; 1000 + GUARD];
        let (array, after) = memory.split_at_mut(1000);
        batch.set_bits(array);
        assert!(array.iter().all(|&b| b == 0xff));
        assert!(after.iter().all(|&b| b == 0), "wrote past the array");
    }
}

/// The portable single query's C-ABI kernel given an empty array, which `format::parse` never
/// hands it: "may match", not a division by zero.
#[test]
fn portable_single_query_of_an_empty_array_may_match() {
    assert_eq!(crate::kernels::portable::may_match_c_abi(6, b"key", &[]), 1);
}
