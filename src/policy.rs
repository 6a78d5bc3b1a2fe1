//! The Rust API: leveldb's bloom filter policy (`util/bloom.cc`, leveldb 1.23, policy
//! `leveldb.BuiltinBloomFilter2`).
//!
//! A filter is a bit array followed by one byte holding k, the number of probes. A key sets (or
//! tests) k bits chosen by double hashing from one 32-bit hash. Building and queries run on the
//! kernels (src/kernels); [`crate::scalar`] is the plain version they are tested against.

use std::collections::TryReserveError;

use crate::bulk;
use crate::dispatch::Isa;
use crate::format::{MAX_PROBES, MIN_BITS, POLICY_NAME};
use crate::kernels::keys::Keys;
use crate::no_unwind;

/// leveldb's built-in bloom filter policy. Immutable, so one policy can be shared by any number
/// of threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BloomPolicy {
    bits_per_key: u32,
    num_probes: u8,
}

impl BloomPolicy {
    /// The policy leveldb's `NewBloomFilterPolicy(bits_per_key)` makes. leveldb's own default is 10.
    #[must_use]
    pub fn new(bits_per_key: u32) -> Self {
        // k = bits_per_key * ln(2) minimises the false-positive rate; leveldb truncates
        // bits_per_key * 0.69 computed in double, so must we.
        let k = (f64::from(bits_per_key) * 0.69) as u64;
        let num_probes = k.clamp(1, u64::from(MAX_PROBES)) as u8;
        BloomPolicy {
            bits_per_key,
            num_probes,
        }
    }

    /// The bits per key it was made with.
    #[must_use]
    pub fn bits_per_key(&self) -> u32 {
        self.bits_per_key
    }

    /// k, the number of bits each key sets; stored as the filter's last byte.
    #[must_use]
    pub fn num_probes(&self) -> u8 {
        self.num_probes
    }

    /// The name leveldb records with the filters ([`POLICY_NAME`](crate::POLICY_NAME)).
    #[must_use]
    pub fn name(&self) -> &'static str {
        POLICY_NAME
    }

    /// Length in bytes of the filter for `num_keys` keys, or `None` if it exceeds the address space.
    #[must_use]
    pub fn filter_len(&self, num_keys: usize) -> Option<usize> {
        // leveldb multiplies in 64 bits (size_t), so a filter of 2^32 bits or more is legal.
        let bits = u64::try_from(num_keys)
            .ok()?
            .checked_mul(u64::from(self.bits_per_key))?
            .max(MIN_BITS);
        let array_len = usize::try_from(bits.div_ceil(8)).ok()?;
        array_len.checked_add(1)
    }

    /// Appends the filter for `keys` to `dst`, leaving what `dst` already holds untouched (leveldb's
    /// `CreateFilter` appends too). Duplicate keys are allowed.
    ///
    /// # Panics
    /// If the filter does not fit in memory; see [`BloomPolicy::try_create_filter`].
    pub fn create_filter<K: AsRef<[u8]>>(&self, keys: &[K], dst: &mut Vec<u8>) {
        self.append_filter(keys.iter().map(AsRef::as_ref), dst);
    }

    /// [`BloomPolicy::create_filter`] for keys from any iterator that knows how many it holds,
    /// read where they lie (rusty-leveldb's keys end to end, src/rusty.rs).
    pub(crate) fn append_filter<'k>(
        &self,
        keys: impl ExactSizeIterator<Item = &'k [u8]>,
        dst: &mut Vec<u8>,
    ) {
        let num_keys = keys.len();
        if let Err(err) = self.try_append_filter(keys, dst) {
            panic!("bloom filter for {num_keys} keys does not fit in memory: {err}");
        }
    }

    /// Like [`BloomPolicy::create_filter`], but reports a filter too large to allocate instead of
    /// panicking.
    ///
    /// # Errors
    /// If the filter cannot be allocated; `dst` is unchanged then.
    pub fn try_create_filter<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        dst: &mut Vec<u8>,
    ) -> Result<(), TryReserveError> {
        self.try_append_filter(keys.iter().map(AsRef::as_ref), dst)
    }

    /// [`BloomPolicy::try_create_filter`] for keys from any iterator that knows how many it holds.
    fn try_append_filter<'k>(
        &self,
        keys: impl ExactSizeIterator<Item = &'k [u8]>,
        dst: &mut Vec<u8>,
    ) -> Result<(), TryReserveError> {
        // A length past the address space cannot be reserved either: let try_reserve say so.
        let len = self.filter_len(keys.len()).unwrap_or(usize::MAX);
        dst.try_reserve_exact(len)?;
        let start = dst.len();
        dst.resize(start + len, 0);
        self.fill_filter(keys, &mut dst[start..]);
        Ok(())
    }

    /// Writes the filter for `keys` over all of `out`, which must be
    /// [`filter_len`](BloomPolicy::filter_len)`(number of keys)` bytes long. This is the
    /// in-place entry point for callers that own the buffer (the C API's `malloc`ed result).
    ///
    /// # Panics
    /// If `out` is shorter than 2 bytes: no filter leveldb writes is.
    pub fn fill_filter<'k>(&self, keys: impl IntoIterator<Item = &'k [u8]>, out: &mut [u8]) {
        let written = self.fill_filter_from(keys.into_iter(), out);
        assert!(written, "a filter is at least 2 bytes long");
    }

    /// [`BloomPolicy::fill_filter`] for keys from any [`Keys`], without its panic: false, with
    /// nothing written, if `out` is shorter than 2 bytes.
    pub(crate) fn fill_filter_from<'k>(&self, keys: impl Keys<'k>, out: &mut [u8]) -> bool {
        let Some((k, array @ [_, ..])) = out.split_last_mut() else {
            return false;
        };
        array.fill(0);
        *k = self.num_probes;
        bulk::fill_bit_array(Isa::best(), self.num_probes, keys, array);
        true
    }

    /// Whether `key` may be in the set `filter` was built from; see [`key_may_match`].
    #[must_use]
    pub fn key_may_match(&self, key: &[u8], filter: &[u8]) -> bool {
        key_may_match(key, filter)
    }

    /// [`BloomPolicy::key_may_match`] for many keys against one filter; see [`key_may_match_batch`].
    ///
    /// # Panics
    /// If `results` is not as long as `keys`, as every batch query of this crate.
    #[track_caller]
    pub fn key_may_match_batch<K: AsRef<[u8]>>(
        &self,
        keys: &[K],
        filter: &[u8],
        results: &mut [bool],
    ) {
        key_may_match_batch(keys, filter, results);
    }
}

/// leveldb's `KeyMayMatch`: false only if `key` is certainly not in the set `filter` was built
/// from. It reads k from the filter itself, so it needs no policy, and it answers exactly as
/// leveldb does for any bytes, corrupt ones included.
#[must_use]
pub fn key_may_match(key: &[u8], filter: &[u8]) -> bool {
    no_unwind::single_query(key, filter) != 0
}

/// [`key_may_match`] for each of `keys` against one `filter`: `results[i]` is the answer for
/// `keys[i]`. Much faster than a loop over [`key_may_match`]: keys are hashed together and, in a
/// large filter, their cache misses overlap.
///
/// # Panics
/// If `results` is not as long as `keys`, as every batch query of this crate.
#[track_caller]
pub fn key_may_match_batch<K: AsRef<[u8]>>(keys: &[K], filter: &[u8], results: &mut [bool]) {
    check_one_result_per_key(keys.len(), results.len());
    bulk::may_match_batch(Isa::best(), keys.iter().map(AsRef::as_ref), filter, results);
}

/// The panic of every batch query given a results slice of another length than its keys, which
/// names the caller's line.
#[track_caller]
pub(crate) fn check_one_result_per_key(keys: usize, results: usize) {
    assert!(
        keys == results,
        "key_may_match_batch: {keys} keys but {results} results; it needs one result per key"
    );
}

/// The kernels this process runs, chosen once at first use: `"avx512"`, `"avx2"` or
/// `"portable"`. The best the CPU supports, unless the environment variable `LEVELDB_BLOOM_ISA`
/// names a slower one: then the best not above the one named (`avx512` on a CPU with only AVX2
/// runs `avx2`; `avx2` on a CPU that is not x86-64 runs `portable`). Any other value is ignored.
/// The variable is read once, at the first call of this or of any build or query; every path
/// gives the same bytes and answers.
#[must_use]
pub fn isa() -> &'static str {
    Isa::best().name().to_str().unwrap_or_default()
}
