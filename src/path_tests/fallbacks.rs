//! Where no caller leads the kernels: the fallbacks that keep them free of panics (so that the
//! C++ shim links no panic machinery) still answer as the oracle, or set every bit so that no
//! key is missed, and touch nothing outside their array.

use super::*;

/// Bytes after the array a kernel is given, which it must leave alone.
const GUARD: usize = 64;

/// A build given positions made for twice its array, which no caller does: every path sets every
/// bit of it so that no key is missed, and none writes past the array.
#[test]
fn build_with_positions_past_its_array_misses_no_key() {
    let mut rng = Rng(11);
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(1 + i % 40)).collect();
    let keys = as_slices(&keys);
    for isa in isas() {
        // The last past the L2 cache, where the vector paths batch their probes or prefetch.
        for len in [8, 100, 300, 5000, 1 << 19] {
            let mut memory = vec![0u8; len + GUARD];
            let (array, after) = memory.split_at_mut(len);
            isa.fill_bit_array(
                &ProbePositions::new(2 * len, 6),
                keys.iter().copied(),
                array,
            );
            assert!(array.iter().all(|&b| b == 0xff), "{isa:?}, {len} bytes");
            assert!(
                after.iter().all(|&b| b == 0),
                "{isa:?}, {len} bytes: wrote past"
            );
        }
    }
}

/// The portable single query's C-ABI kernel given an empty array, which `format::parse` never
/// hands it: "may match", not a division by zero.
#[test]
fn portable_single_query_of_an_empty_array_may_match() {
    assert_eq!(crate::kernels::portable::may_match_c_abi(6, b"key", &[]), 1);
}
