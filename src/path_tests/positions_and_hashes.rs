//! Probe positions and hashes of every kernel against plain arithmetic and the scalar hash.

use super::*;

#[test]
fn probe_positions_equal_64_bit_modulo() {
    let mut rng = Rng(1);
    let mut lens: Vec<usize> = (1..=4096).collect();
    for shift in 3..40 {
        let p = 1usize << shift;
        lens.extend([p - 1, p, p + 1, p + 7]);
    }
    lens.extend((0..2000).map(|_| 1 + rng.below(1 << 30)));
    let mut hashes: Vec<u32> = vec![
        0,
        1,
        7,
        8,
        9,
        u32::MAX,
        u32::MAX - 7,
        1 << 31,
        (1 << 29) - 1,
    ];
    hashes.extend((0..64).map(|_| rng.next() as u32));
    // Lengths of 2^29 bytes and more: 2^32 bits and more, where the position is h itself.
    lens.extend([(1 << 32) - 1, 1 << 32, usize::MAX / 8, usize::MAX]);
    for &len in &lens {
        let magic = ProbePositions::new(len, 1);
        let lemire = LemirePositions::new(len);
        let bits = (len as u64).saturating_mul(8);
        // Hashes next to multiples of bits, where a quotient off by one would show.
        let near_multiples = (0..8).flat_map(|_| {
            let multiple = (rng.next() % (1 << 32)) / bits * bits;
            (multiple.saturating_sub(9)..multiple + 9).filter_map(|h| u32::try_from(h).ok())
        });
        let hs: Vec<u32> = hashes.iter().copied().chain(near_multiples).collect();
        for &h in &hs {
            let want = (u64::from(h) % bits) as u32;
            assert_eq!(magic.position(h), want, "h = {h}, array of {len} bytes");
            assert_eq!(lemire.of(h), want as usize, "h = {h}, array of {len} bytes");
        }
        #[cfg(target_arch = "x86_64")]
        if isas().contains(&Isa::Avx512) {
            for lanes in hs.chunks(16) {
                let mut h = [0; 16];
                h[..lanes.len()].copy_from_slice(lanes);
                // SAFETY: the CPU has the features of Isa::Avx512.
                let [dwords, qwords, inverse] = unsafe {
                    crate::kernels::x86::avx512::positions::vector_bit_positions(&magic, len, h)
                };
                for (i, &h) in h.iter().enumerate() {
                    let want = (u64::from(h) % bits) as u32;
                    assert_eq!(dwords[i], want, "AVX-512: h = {h}, array of {len} bytes");
                    assert_eq!(
                        qwords[i], want,
                        "AVX-512, 64-bit lanes: h = {h}, array of {len} bytes"
                    );
                    assert_eq!(
                        inverse[i], want,
                        "AVX-512, inverse: h = {h}, array of {len} bytes"
                    );
                }
            }
        }
    }
}

#[test]
fn hashes_equal_scalar_for_every_length_and_grouping() {
    let mut rng = Rng(2);
    let mut keys: Vec<Vec<u8>> = Vec::new();
    // Equal-length groups of every length 0..=100 (every tail), each a full AVX2 group and more.
    for len in 0..=100 {
        keys.extend((0..9).map(|_| rng.key(len)));
    }
    // Mixed lengths, as in a real block, and one long key among short ones (lanes would idle).
    keys.extend((0..500).map(|_| {
        let len = rng.below(101);
        rng.key(len)
    }));
    // Lengths of 16-24 as in the benchmark: whole words for all, then a tail for some.
    keys.extend((0..300).map(|_| {
        let len = 16 + rng.below(9);
        rng.key(len)
    }));
    keys.extend((0..7).map(|_| rng.key(3)));
    keys.push(rng.key(5000));
    keys.extend((0..7).map(|_| rng.key(17)));
    // Tail bytes >= 0x80, where a signed read would differ.
    keys.extend((1..8).map(|len| vec![0xff; len]));
    let keys = as_slices(&keys);
    let want: Vec<u32> = keys.iter().map(|k| bloom_hash(k)).collect();
    for isa in isas() {
        // Every count modulo the group size, and every starting offset in the list.
        for start in 0..16 {
            let mut got = vec![0; keys.len() - start];
            isa.hash_keys(&keys[start..], &mut got);
            assert_eq!(got, want[start..], "{isa:?} from key {start}");
        }
        for n in 0..=20 {
            let mut got = vec![0; n];
            isa.hash_keys(&keys[300..300 + n], &mut got);
            assert_eq!(got, want[300..300 + n], "{isa:?}, {n} keys");
        }
    }
    let single: Vec<u32> = keys.iter().map(|k| single_query_hash::<false>(k)).collect();
    assert_eq!(single, want, "single-key hash, conditional moves");
    let single: Vec<u32> = keys.iter().map(|k| single_query_hash::<true>(k)).collect();
    assert_eq!(single, want, "single-key hash, branches");
}
