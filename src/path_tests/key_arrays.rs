//! Keys read from C's arrays, in both layouts, with keys that cannot exist among them.

use super::*;

/// Keys that cannot exist in C's arrays are read as the empty key, whatever chunk they fall in,
/// however many keys there are (prefetched from 1024 on), in either layout, and `all_read_valid`
/// tells of them; a NULL key of length 0 is the empty key, and can exist.
#[test]
fn key_arrays_read_keys_that_cannot_exist_as_empty() {
    let mut rng = Rng(7);
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(i % 40)).collect();
    let keys = as_slices(&keys);
    let filter = scalar_filter(10, &keys[..1500]);
    let real = keys[0].as_ptr().cast::<c_char>();
    let invalid: [(*const c_char, usize); 4] = [
        (std::ptr::null(), 1),
        (std::ptr::null(), usize::MAX),
        (real, isize::MAX as usize + 1),
        (real, usize::MAX),
    ];
    for isa in isas() {
        for n in [0, 1, 7, 8, 9, 63, 64, 65, 130, 1023, 1024, 3000] {
            let mut c = CKeys::of(&keys[..n]);
            let mut probes = keys[..n].to_vec();
            // A NULL key of length 0 is the empty key.
            if n > 2 {
                c.set(2, std::ptr::null(), 0);
                probes[2] = &[];
            }
            let mut bad = vec![];
            for at in [n / 2, n.saturating_sub(1), 1] {
                if at < n && at != 2 {
                    let (ptr, len) = invalid[rng.below(invalid.len())];
                    c.set(at, ptr, len);
                    probes[at] = &[];
                    bad.push(at);
                }
            }
            let want: Vec<bool> = probes
                .iter()
                .map(|p| scalar::key_may_match(p, &filter))
                .collect();
            for (layout, (got, all_read_valid)) in c.batches(isa, &filter, true) {
                assert_eq!(got, want, "{isa:?}, {layout}, {n} keys, bad at {bad:?}");
                assert_eq!(
                    all_read_valid,
                    bad.is_empty(),
                    "{isa:?}, {layout}, {n} keys"
                );
            }
            for (layout, valid) in c.all_valid(isa) {
                assert_eq!(valid, bad.is_empty(), "{isa:?}, {layout}, {n} keys");
            }
        }
        // A filter that answers every key alike reads none, and says so.
        for (layout, (_, all_read_valid)) in CKeys::of(&keys[..10]).batches(isa, &[7], true) {
            assert!(!all_read_valid, "{isa:?}, {layout}");
        }
    }
}

/// `all_valid` on every number of entries around AVX-512's 8 per vector (4 slices), with each
/// kind of key that cannot exist at each place, in either layout.
#[test]
fn all_valid_finds_every_key_that_cannot_exist() {
    let key = [1u8; 4];
    let real = key.as_ptr().cast::<c_char>();
    for isa in isas() {
        for n in 0..=70 {
            let c = CKeys::of(&vec![key.as_slice(); n]);
            for (layout, valid) in c.all_valid(isa) {
                assert!(valid, "{isa:?}, {layout}, {n}");
            }
            for at in 0..n {
                for (ptr, len, valid) in [
                    (std::ptr::null(), 0, true),
                    (std::ptr::null(), 1, false),
                    (real, isize::MAX as usize, true),
                    (real, isize::MAX as usize + 1, false),
                    (std::ptr::null(), usize::MAX, false),
                ] {
                    let mut c = CKeys::of(&vec![key.as_slice(); n]);
                    c.set(at, ptr, len);
                    for (layout, got) in c.all_valid(isa) {
                        assert_eq!(got, valid, "{isa:?}, {layout}, {n}, at {at}, {len}");
                    }
                }
            }
        }
    }
}
