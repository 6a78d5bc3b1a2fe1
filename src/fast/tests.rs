//! Every fast path, with every instruction set this CPU has and the portable one forced, against
//! the scalar oracle and leveldb's reference vectors.

use super::*;
use crate::{BloomPolicy, scalar};
use std::ffi::c_char;

// The integration tests' reader of leveldb's reference vectors.
#[path = "../../tests/common/mod.rs"]
mod common;

/// The portable path and every SIMD one this CPU can run.
fn isas() -> Vec<Isa> {
    Isa::available()
}

// The tests here compare every path `isas()` lists with the oracle. A SIMD path this CPU lacks is
// not among them: these two say so as ignored tests instead of passing.
#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(
    not(host_avx2),
    ignore = "this CPU has no AVX2: the AVX2 paths are untested here"
)]
fn avx2_paths_are_tested() {
    assert!(isas().contains(&Isa::Avx2));
}

#[cfg(target_arch = "x86_64")]
#[test]
#[cfg_attr(
    not(host_avx512),
    ignore = "this CPU lacks AVX-512 F/BW/VL/VBMI: the AVX-512 paths are untested here"
)]
fn avx512_paths_are_tested() {
    assert!(isas().contains(&Isa::Avx512));
}

/// splitmix64: deterministic keys without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn key(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

fn as_slices(keys: &[Vec<u8>]) -> Vec<&[u8]> {
    keys.iter().map(Vec::as_slice).collect()
}

fn fast_filter(isa: Isa, bits_per_key: u32, keys: &[&[u8]]) -> Vec<u8> {
    fast_filter_of(isa, bits_per_key, keys.len(), keys.iter().copied())
}

/// [`fast_filter`] of `num_keys` keys from any iterator (one that may not tell its length).
fn fast_filter_of<'k>(
    isa: Isa,
    bits_per_key: u32,
    num_keys: usize,
    keys: impl IntoIterator<Item = &'k [u8]>,
) -> Vec<u8> {
    let policy = BloomPolicy::new(bits_per_key);
    let mut filter = vec![0xa5; policy.filter_len(num_keys).unwrap()];
    let (k, array) = filter.split_last_mut().unwrap();
    *k = policy.num_probes();
    array.fill(0);
    fill(isa, policy.num_probes(), keys.into_iter(), array);
    filter
}

fn scalar_filter(bits_per_key: u32, keys: &[&[u8]]) -> Vec<u8> {
    let policy = BloomPolicy::new(bits_per_key);
    let mut filter = vec![0xa5; policy.filter_len(keys.len()).unwrap()];
    scalar::fill_filter(policy.num_probes(), keys.iter().copied(), &mut filter);
    filter
}

/// Checks the batch and single-key answers of every path for `probes` against the oracle.
fn check_answers(filter: &[u8], probes: &[&[u8]]) {
    let expected: Vec<bool> = probes
        .iter()
        .map(|p| scalar::key_may_match(p, filter))
        .collect();
    for isa in isas() {
        let single: Vec<bool> = probes
            .iter()
            .map(|p| one::may_match_one_on(isa, p, filter))
            .collect();
        assert_eq!(
            single,
            expected,
            "{isa:?} single key, filter of {} bytes",
            filter.len()
        );
        let got = batch_answers(
            isa,
            probes,
            filter,
            !expected.first().copied().unwrap_or(false),
        );
        assert_eq!(
            got,
            expected,
            "{isa:?} batch, filter of {} bytes",
            filter.len()
        );
    }
}

/// `isa`'s batch answers for `probes`, read from an iterator and from C's arrays in each layout
/// ([`KeyArrays`]), which must all agree; every slot starts as `before`.
fn batch_answers(isa: Isa, probes: &[&[u8]], filter: &[u8], before: bool) -> Vec<bool> {
    let mut from_iterator = vec![before; probes.len()];
    may_match_batch(isa, probes.iter().copied(), filter, &mut from_iterator);
    let c = CKeys::of(probes);
    #[cfg(feature = "leveldb-c-api")]
    for (layout, (answers, _)) in c.batches(isa, filter, before) {
        assert_eq!(
            answers, from_iterator,
            "{isa:?}: {layout} against an iterator"
        );
    }
    // SAFETY: every key is one of `probes`.
    let mut checked = unsafe { KeyArrays::checked(c.slices.as_slice()) };
    let mut from_checked = vec![before; probes.len()];
    may_match_batch(isa, &mut checked, filter, &mut from_checked);
    assert_eq!(
        from_checked, from_iterator,
        "{isa:?}: checked slices against an iterator"
    );
    from_iterator
}

/// Keys as C callers pass them, in both layouts: an array of pointers and one of lengths
/// (leveldb's C API), and an array of slices (the C++ shim).
struct CKeys {
    ptrs: Vec<*const c_char>,
    lens: Vec<usize>,
    slices: Vec<crate::core_ffi::leveldb_bloom_slice_t>,
}

impl CKeys {
    fn of(keys: &[&[u8]]) -> CKeys {
        let mut c = CKeys {
            ptrs: vec![],
            lens: vec![],
            slices: vec![],
        };
        for key in keys {
            c.push(key.as_ptr().cast(), key.len());
        }
        c
    }

    fn push(&mut self, ptr: *const c_char, len: usize) {
        self.ptrs.push(ptr);
        self.lens.push(len);
        self.slices.push(crate::core_ffi::leveldb_bloom_slice_t {
            data: ptr,
            size: len,
        });
    }

    fn set(&mut self, i: usize, ptr: *const c_char, len: usize) {
        (self.ptrs[i], self.lens[i]) = (ptr, len);
        (self.slices[i].data, self.slices[i].size) = (ptr, len);
    }

    /// Whether each layout's entries pass [`KeyEntries::all_valid`].
    fn all_valid(&self, isa: Isa) -> Vec<(&'static str, bool)> {
        vec![
            ("slices", self.slices.as_slice().all_valid(isa)),
            #[cfg(feature = "leveldb-c-api")]
            ("arrays", self.arrays().all_valid(isa)),
        ]
    }

    #[cfg(feature = "leveldb-c-api")]
    fn arrays(&self) -> PointersAndLengths<'_> {
        PointersAndLengths {
            pointers: &self.ptrs,
            lengths: &self.lens,
        }
    }

    #[cfg(feature = "leveldb-c-api")]
    /// Each layout's batch answers against `filter` (every slot starting as `before`), and
    /// whether its KeyArrays said all keys were read and valid.
    ///
    /// Every key that `can_borrow` accepts must be readable.
    fn batches(
        &self,
        isa: Isa,
        filter: &[u8],
        before: bool,
    ) -> Vec<(&'static str, (Vec<bool>, bool))> {
        fn batch<'k>(
            isa: Isa,
            entries: impl KeyEntries<'k>,
            filter: &[u8],
            before: bool,
        ) -> (Vec<bool>, bool) {
            let mut answers = vec![before; entries.count()];
            // SAFETY: per `batches`' contract.
            let mut keys = unsafe { KeyArrays::new(isa, entries) };
            may_match_batch(isa, &mut keys, filter, &mut answers);
            (answers, keys.all_read_valid())
        }
        vec![
            ("slices", batch(isa, self.slices.as_slice(), filter, before)),
            #[cfg(feature = "leveldb-c-api")]
            ("arrays", batch(isa, self.arrays(), filter, before)),
        ]
    }
}

/// Keys that cannot exist in C's arrays are read as the empty key, whatever chunk they fall in,
/// however many keys there are (prefetched from 1024 on), in either layout, and `all_read_valid`
/// tells of them; a NULL key of length 0 is the empty key, and can exist.
#[cfg(feature = "leveldb-c-api")]
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
        let probes = Probes::new(len, 1);
        let single = one::Positions::new(len);
        let bits = (len as u64).saturating_mul(8);
        // Hashes next to multiples of bits, where a quotient off by one would show.
        let near_multiples = (0..8).flat_map(|_| {
            let multiple = (rng.next() % (1 << 32)) / bits * bits;
            (multiple.saturating_sub(9)..multiple + 9).filter_map(|h| u32::try_from(h).ok())
        });
        let hs: Vec<u32> = hashes.iter().copied().chain(near_multiples).collect();
        for &h in &hs {
            let want = (u64::from(h) % bits) as u32;
            assert_eq!(probes.position(h), want, "h = {h}, array of {len} bytes");
            assert_eq!(single.of(h), want as usize, "h = {h}, array of {len} bytes");
        }
        #[cfg(target_arch = "x86_64")]
        if isas().contains(&Isa::Avx512) {
            for lanes in hs.chunks(16) {
                let mut h = [0; 16];
                h[..lanes.len()].copy_from_slice(lanes);
                // SAFETY: the CPU has the features of Isa::Avx512.
                let [dwords, qwords, inverse] = unsafe { avx512::positions16(&probes, len, h) };
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
    let single: Vec<u32> = keys
        .iter()
        .map(|k| one::bloom_hash_one::<false>(k))
        .collect();
    assert_eq!(single, want, "single-key hash, conditional moves");
    let single: Vec<u32> = keys
        .iter()
        .map(|k| one::bloom_hash_one::<true>(k))
        .collect();
    assert_eq!(single, want, "single-key hash, branches");
}

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

/// The same queries with the filter against unreadable pages, right after its last byte or right
/// before its first: a read outside the filter would crash this test.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[test]
fn queries_read_nothing_outside_the_filter() {
    use std::ffi::{c_int, c_long, c_void};
    unsafe extern "C" {
        fn mmap(
            addr: *mut c_void,
            len: usize,
            prot: c_int,
            flags: c_int,
            fd: c_int,
            offset: c_long,
        ) -> *mut c_void;
        fn mprotect(addr: *mut c_void, len: usize, prot: c_int) -> c_int;
        fn munmap(addr: *mut c_void, len: usize) -> c_int;
    }
    const PAGE: usize = 4096;
    const PROT_READ_WRITE: c_int = 0x1 | 0x2;
    const MAP_PRIVATE_ANONYMOUS: c_int = 0x02 | 0x20;
    const MAP_FAILED: *mut c_void = !0 as *mut c_void;

    // [unreadable page][filter page][unreadable page]
    // SAFETY: a fresh private mapping; the middle page stays readable and writable, and the slices
    // below live only while it is mapped.
    let pages = unsafe {
        mmap(
            std::ptr::null_mut(),
            3 * PAGE,
            PROT_READ_WRITE,
            MAP_PRIVATE_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(pages, MAP_FAILED, "mmap");
    let middle = pages.cast::<u8>().wrapping_add(PAGE);
    // SAFETY: the first and last pages of the mapping.
    unsafe {
        assert_eq!(mprotect(pages, PAGE, 0), 0, "mprotect");
        assert_eq!(mprotect(middle.add(PAGE).cast(), PAGE, 0), 0, "mprotect");
    }
    let mut rng = Rng(7);
    let absent: Vec<Vec<u8>> = (0..1000).map(|i| rng.key(16 + i % 9)).collect();
    // Bit arrays of 1, 100, 263 and 1250 bytes: both register sizes and memory.
    for num_keys in [0, 80, 210, 1000] {
        let keys: Vec<Vec<u8>> = (0..num_keys).map(|i| rng.key(16 + i % 9)).collect();
        let keys = as_slices(&keys);
        let filter = scalar_filter(10, &keys);
        let mut probes = keys.clone();
        probes.extend(as_slices(&absent));
        for start in [0, PAGE - filter.len()] {
            // SAFETY: `start..start + filter.len()` lies within the middle page.
            let placed = unsafe { std::slice::from_raw_parts_mut(middle.add(start), filter.len()) };
            placed.copy_from_slice(&filter);
            check_answers(placed, &probes);
        }
    }
    // SAFETY: the mapping made above; no slice of it is used after this.
    assert_eq!(unsafe { munmap(pages, 3 * PAGE) }, 0, "munmap");
}

/// The same answers whatever floating-point mode the caller has set: the AVX-512 single query of
/// a filter past 256 bytes computes its positions in floating point (avx512::InversePositions).
#[cfg(target_arch = "x86_64")]
#[test]
fn answers_under_every_rounding_mode() {
    fn mxcsr() -> u32 {
        let mut value = 0u32;
        // SAFETY: stores the thread's MXCSR into `value`.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack)) };
        value
    }
    fn set_mxcsr(value: u32) {
        // SAFETY: loads a valid MXCSR (all exceptions masked), for this thread only.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack)) };
    }
    let mut rng = Rng(8);
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(i % 40)).collect();
    let absent: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(i % 40)).collect();
    let mut probes = as_slices(&keys);
    probes.extend(as_slices(&absent));
    // Bit arrays of 125 and 3750 bytes: one in registers, one in memory.
    let filters = [100, 3000].map(|n| scalar_filter(10, &as_slices(&keys[..n])));
    let saved = mxcsr();
    // Round to nearest, down, up and towards zero; then with denormals flushed and read as zero.
    for mode in [0, 1, 2, 3].map(|rc| (saved & !0x6000) | rc << 13) {
        for mode in [mode, mode | 0x8040] {
            set_mxcsr(mode);
            for filter in &filters {
                check_answers(filter, &probes);
            }
            set_mxcsr(saved);
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
    common::for_each_record(name, |record| {
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
        for isa in isas() {
            let single: Vec<bool> = probes
                .iter()
                .map(|p| one::may_match_one_on(isa, p, &record.filter))
                .collect();
            assert_eq!(single, record.answers, "{isa:?} single key: {name}");
        }
    })
}

#[test]
fn reference_vectors() {
    assert!(check_vector_file("build.txt") > 100);
    assert!(check_vector_file("match.txt") > 1000);
}
