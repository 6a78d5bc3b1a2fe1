//! Every fast path, with every instruction set this CPU has and the portable one forced, against
//! the scalar oracle and leveldb's reference vectors.

mod fallbacks;
mod filters;
mod isa_override;
mod key_arrays;
mod positions_and_hashes;
mod reads_and_rounding;

use std::ffi::c_char;

use crate::bulk::{fill_bit_array, may_match_batch};
use crate::dispatch::{Isa, SingleQuery};
use crate::ffi::key_arrays::PointersAndLengths;
use crate::ffi::key_arrays::{KeyArrays, KeyEntries};
use crate::ffi::leveldb_bloom_slice_t;
use crate::hash::bloom_hash;
use crate::kernels::portable::single_query_hash;
use crate::kernels::positions::{LemirePositions, ProbePositions};
use crate::policy::BloomPolicy;
use crate::scalar;

/// The portable path and every SIMD one this CPU can run.
fn isas() -> Vec<Isa> {
    Isa::available().collect()
}

// The tests here compare every path `isas()` lists, and every single-query kernel, with the
// oracle. One this CPU lacks is not among them: these three check those lists against the CPU
// flags the Linux kernel lists, which it reads on its own, rather than against the detection the
// lists are made of, and say on the test output when a kernel goes untested here.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn avx2_paths_are_tested() {
    use crate::kernels::x86::features::features;
    check_detected(
        Isa::Avx2,
        isas().contains(&Isa::Avx2),
        &features!(avx2 => names!()),
    );
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn avx512_paths_are_tested() {
    use crate::kernels::x86::features::features;
    let tested = isas().contains(&Isa::Avx512);
    check_detected(Isa::Avx512, tested, &features!(avx512 => names!()));
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[test]
fn bmi2_single_query_is_tested() {
    use crate::kernels::x86::features::features;
    let kernel = SingleQuery::PortableBmi2;
    let tested = SingleQuery::available().any(|available| available == kernel);
    check_detected(kernel, tested, &features!(bmi2 => names!()));
}

/// Asserts that the kernels of `isa` (a path or a single-query kernel) are `tested` exactly when
/// the Linux kernel's CPU flags include every one of `flags`, its features; where they do not,
/// says so past libtest's capture of the output, as libtest cannot report a test ignored once it
/// runs.
#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn check_detected(isa: impl std::fmt::Debug, tested: bool, flags: &[&str]) {
    use std::io::Write;

    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").expect("/proc/cpuinfo");
    let listed: Vec<&str> = cpuinfo
        .lines()
        .find_map(|line| line.strip_prefix("flags"))
        .and_then(|line| line.split_once(':'))
        .map(|(_, flags)| flags.split_whitespace().collect())
        .unwrap_or_default();
    let lacking: Vec<&str> = flags
        .iter()
        .copied()
        .filter(|flag| !listed.contains(flag))
        .collect();
    assert_eq!(
        tested,
        lacking.is_empty(),
        "{isa:?} tested: {tested}, while the kernel's CPU flags lack {lacking:?} of {flags:?}"
    );
    if !lacking.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "{isa:?} paths untested: this CPU lacks {}",
            lacking.join(", ")
        );
    }
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
    fill_bit_array(isa, policy.num_probes(), keys.into_iter(), array);
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
    for kernel in SingleQuery::available() {
        let single: Vec<bool> = probes
            .iter()
            .map(|p| kernel.may_match(p, filter) != 0)
            .collect();
        assert_eq!(
            single,
            expected,
            "{kernel:?} single key, filter of {} bytes",
            filter.len()
        );
    }
    for isa in isas() {
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
    slices: Vec<leveldb_bloom_slice_t>,
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
        self.slices.push(leveldb_bloom_slice_t {
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
            ("arrays", self.arrays().all_valid(isa)),
        ]
    }

    fn arrays(&self) -> PointersAndLengths<'_> {
        PointersAndLengths {
            pointers: &self.ptrs,
            lengths: &self.lens,
        }
    }

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
            ("arrays", batch(isa, self.arrays(), filter, before)),
        ]
    }
}
