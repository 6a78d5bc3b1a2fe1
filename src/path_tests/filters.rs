//! Filters and answers of every kernel against the oracle's and leveldb's reference vectors.

use leveldb_bloom_test_support::vectors::for_each_record;

use super::*;

#[test]
fn filters_and_answers_equal_scalar() {
    let mut rng = Rng(3);
    let absent: Vec<Vec<u8>> = (0..2000).map(|i| rng.key(i % 101)).collect();
    for (num_keys, bits_per_key) in [
        (0, 10),
        (1, 10),
        (7, 0),
        (8, 1),
        (63, 10),
        (64, 10),
        (65, 10),
        (100, 10),
        (48, 10),
        (1000, 7),
        (1000, 45),
        // From PREFETCH_KEYS_MIN keys on, chunks are read ahead: whole chunks only, and one key
        // past them. (48 keys above make 2048 queries with the absent ones: whole chunks too.)
        (1024, 10),
        (1025, 10),
        (20_000, 10),
        // Past LARGE_ARRAY_BYTES: the prefetching pipeline, or AVX-512's batches of probes: several
        // at k = 30 and at k = 6, each time with a partial chunk at the end.
        (60_000, 100),
        (420_000, 10),
    ] {
        let keys: Vec<Vec<u8>> = (0..num_keys)
            .map(|_| {
                let len = rng.below(101);
                rng.key(len)
            })
            .collect();
        let keys = as_slices(&keys);
        let want = scalar_filter(bits_per_key, &keys);
        for isa in isas() {
            assert_eq!(
                fast_filter(isa, bits_per_key, &keys),
                want,
                "{isa:?}, {num_keys} keys"
            );
            // Keys whose number the iterator does not tell: taken to be many.
            let mut unsized_keys = keys.iter().copied();
            let unsized_keys = std::iter::from_fn(|| unsized_keys.next());
            assert_eq!(
                fast_filter_of(isa, bits_per_key, num_keys, unsized_keys),
                want,
                "{isa:?}, {num_keys} keys of unknown number"
            );
        }
        let mut probes = keys.clone();
        probes.extend(as_slices(&absent));
        check_answers(&want, &probes);
    }
}

/// Queries of filters past the register size read words around each probe, moved inside the
/// filter at its end: at every alignment, answers equal the oracle's (with every byte of these
/// filters probed, the first and last ones included).
#[test]
fn answers_at_every_filter_alignment() {
    let mut rng = Rng(6);
    let absent: Vec<Vec<u8>> = (0..1000).map(|i| rng.key(16 + i % 9)).collect();
    // Bit arrays of 263 and 1250 bytes.
    for num_keys in [210, 1000] {
        let keys: Vec<Vec<u8>> = (0..num_keys).map(|i| rng.key(16 + i % 9)).collect();
        let keys = as_slices(&keys);
        let filter = scalar_filter(10, &keys);
        let mut probes = keys.clone();
        probes.extend(as_slices(&absent));
        let mut buffer = vec![0xa5; filter.len() + 8];
        for offset in 0..8 {
            let placed = &mut buffer[offset..offset + filter.len()];
            placed.copy_from_slice(&filter);
            check_answers(placed, &probes);
        }
    }
}

#[test]
fn duplicate_and_adjacent_equal_keys() {
    let mut rng = Rng(4);
    let distinct: Vec<Vec<u8>> = (0..300).map(|i| rng.key(i % 40)).collect();
    let mut keys = Vec::new();
    for (i, key) in distinct.iter().enumerate() {
        // Runs of 1..4 equal keys, and repeats far apart.
        keys.extend(std::iter::repeat_n(key.as_slice(), 1 + i % 4));
        keys.push(distinct[i / 2].as_slice());
    }
    for bits_per_key in [1, 10, 33] {
        let want = scalar_filter(bits_per_key, &keys);
        for isa in isas() {
            assert_eq!(fast_filter(isa, bits_per_key, &keys), want, "{isa:?}");
        }
        // Answers repeat for equal probes, members or not.
        let mut probes = keys.clone();
        let absent: Vec<Vec<u8>> = (0..200).map(|i| rng.key(8 + i % 3)).collect();
        for key in &absent {
            probes.extend([key.as_slice(); 3]);
        }
        check_answers(&want, &probes);
    }
}

#[test]
fn framing_cases_answer_as_leveldb() {
    let keys: Vec<&[u8]> = vec![b"", b"a", b"hello world", &[0xff; 21]];
    let mut filters: Vec<Vec<u8>> = vec![vec![], vec![0], vec![7], vec![0xff, 0xff]];
    for k in [0, 1, 2, 29, 30, 31, 100, 255] {
        filters.push(vec![0x00, 0x5a, 0xff, 0x13, 0x77, 0x80, 0x01, 0x02, k]);
    }
    for filter in &filters {
        check_answers(filter, &keys);
    }
}

/// Filters of 2^32 bits and more, where leveldb's probe position is the hash itself, and just
/// under, where it wraps: 512 MiB each, so only these three.
#[test]
fn filters_of_2_pow_32_bits() {
    let mut rng = Rng(5);
    let keys: Vec<Vec<u8>> = (0..64).map(|i| rng.key(i % 30)).collect();
    let keys = as_slices(&keys);
    let absent: Vec<Vec<u8>> = (0..64).map(|i| rng.key(i % 30)).collect();
    for bits_per_key in [(1 << 26) - 1, 1 << 26, (1 << 26) + 1] {
        let want = scalar_filter(bits_per_key, &keys);
        for isa in isas() {
            assert!(
                fast_filter(isa, bits_per_key, &keys) == want,
                "{isa:?}, {bits_per_key}"
            );
        }
        let mut probes = keys.clone();
        probes.extend(as_slices(&absent));
        check_answers(&want, &probes);
    }
}

/// Checks every filter built and every answer of a vector file with every path.
fn check_vector_file(name: &str) -> usize {
    for_each_record(name, |record| {
        let keys = as_slices(record.keys);
        if let Some(bits_per_key) = record.bits_per_key {
            for isa in isas() {
                let built = fast_filter(isa, bits_per_key, &keys);
                assert!(built == record.filter, "{isa:?}: {name}");
            }
        }
        let probes = as_slices(record.probes);
        for isa in isas() {
            let got = batch_answers(isa, &probes, &record.filter, false);
            assert_eq!(got, record.answers, "{isa:?} batch: {name}");
        }
        for kernel in SingleQuery::available() {
            let single: Vec<bool> = probes
                .iter()
                .map(|p| kernel.may_match(p, &record.filter) != 0)
                .collect();
            assert_eq!(single, record.answers, "{kernel:?} single key: {name}");
        }
    })
}

#[test]
fn reference_vectors() {
    assert!(check_vector_file("build.txt") > 100);
    assert!(check_vector_file("match.txt") > 1000);
}
