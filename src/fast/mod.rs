//! The fast paths behind [`crate::BloomPolicy`]: the same bits and answers as [`crate::scalar`]
//! (the tests compare them on every path), computed faster.
//!
//! Where leveldb's loop spends its time, and what replaces it here:
//! - a 64-bit division per probe (`h % bits`): an exact multiply-and-shift with a constant
//!   computed once per filter (from a table for block-sized ones), 8 or 16 probes at a time in
//!   vectors ([`Probes`]); an AVX-512 single query of a larger filter multiplies by a
//!   floating-point inverse instead (avx512::InversePositions);
//! - one serial multiply chain per key hash: keys are hashed a chunk at a time so independent
//!   chains overlap, with AVX2 8 and AVX-512 16 keys per instruction ([`Isa`]);
//! - reading probed bits one by one: with AVX-512, 16 at a time, by byte permutes from registers
//!   holding a block's whole filter (larger ones are still read one probe at a time);
//! - cache misses in filters past the caches: on the portable and AVX2 paths a chunk's probe
//!   positions are computed first and prefetched, so the misses overlap instead of queueing one
//!   after another; the AVX-512 path computes those of 4096 keys before reading or setting any
//!   (src/fast/avx512.rs);
//! - keys streaming from memory, whose loads the hash would wait on: calls of many keys prefetch
//!   them a few chunks ahead ([`PREFETCH_KEYS_MIN`]), and a C caller's arrays of key pointers
//!   and lengths ahead of that (key_arrays.rs);
//! - branch mispredictions: a row of probe positions is computed before any bit is touched, and
//!   batch queries test every probe instead of stopping at the first clear bit.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod key_arrays;
mod one;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicU8, Ordering};

use crate::bloom::MAX_PROBES;
use crate::hash::bloom_hash;

#[cfg(feature = "leveldb-c-api")]
pub(crate) use key_arrays::PointersAndLengths;
pub(crate) use key_arrays::{KeyArrays, KeyEntries};
pub(crate) use one::{may_match_one, may_match_one_c};

/// Keys hashed per step: enough to keep several hash chains and cache misses in flight, few
/// enough that the chunk's probe positions stay in L1.
const CHUNK: usize = 64;

/// Bit arrays at least this long (bytes) are past the core's L2 cache: probed through the
/// prefetching pipeline, or with AVX-512 a batch of keys at a time (avx512::ProbeBatch). Smaller
/// ones stay in the L2 cache, where both only cost time.
const LARGE_ARRAY_BYTES: usize = 512 * 1024;

/// Calls with at least this many keys (by their iterator's size hint; an unknown number counts as
/// many) prefetch them ([`for_each_chunk`]): so many keys stream from memory, and the hardware
/// prefetcher alone left the hash waiting on their loads. On Zen 5,
/// 1M keys (`cargo bench --bench vs_leveldb -- 1M`), ns per key: AVX-512 builds 8.6–9.0 -> 6.3–6.4
/// and batch queries 8.1–8.6 -> 5.9–6.1; AVX2 builds 15.5 -> 12.1 and batch queries 12.4–12.8 ->
/// 10.5–10.9; portable builds 24.1–24.7 -> 22.1–23.2 (its queries the same). Fewer keys are
/// taken to be in cache, as a table block's are, where prefetching them only cost time: 3–5% of
/// a 100-key filter's build and 7% of a 20-key one's, 8–10% of the 20-key batch queries.
const PREFETCH_KEYS_MIN: usize = 1024;

/// How many chunks ahead of the hash keys are prefetched: 1, 2 and 4 measured alike.
const KEYS_AHEAD: usize = 2;

/// Proof that a function has no path to a panic, for the C-ABI ones that calls cannot unwind
/// from (see one::may_match_one_c), where a panic would abort the process instead of reaching
/// the C entry's `ffi_boundary!`. Made at the function's start and ended by
/// [`CannotPanic::holds`] at its end, it is dropped only by a panic in between; with cfg
/// `prove_no_panic` (build.rs: CI's optimized builds) its `drop` calls a function defined
/// nowhere, so if any such path is left, a program linked with the build fails to link and the
/// shared library to load, naming that function.
#[cfg(target_arch = "x86_64")]
pub(crate) struct CannotPanic;

#[cfg(target_arch = "x86_64")]
impl CannotPanic {
    #[inline(always)]
    #[allow(clippy::forget_non_drop)] // It has a `Drop` only with cfg `prove_no_panic`.
    pub(crate) fn holds(self) {
        std::mem::forget(self);
    }
}

#[cfg(all(target_arch = "x86_64", prove_no_panic, not(debug_assertions)))]
impl Drop for CannotPanic {
    #[inline(always)]
    fn drop(&mut self) {
        unsafe extern "C" {
            /// Defined nowhere: see [`CannotPanic`].
            fn leveldb_bloom_function_without_panics_can_panic() -> !;
        }
        // SAFETY: it never runs (see above).
        unsafe { leveldb_bloom_function_without_panics_can_panic() }
    }
}

/// How keys are hashed. Get one from [`Isa::best`]; tests also force each available one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Isa {
    /// Plain Rust, for any CPU.
    Portable = 1,
    /// 8 keys at once in AVX2 lanes. Only constructed when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2 = 2,
    /// 16 keys at once in AVX-512 lanes, with byte-masked loads and byte permutes (AVX-512 F,
    /// BW, VL and VBMI, and BMI2: Ice Lake, Zen 4 and later). Only constructed when the CPU has
    /// them.
    #[cfg(target_arch = "x86_64")]
    Avx512 = 3,
}

/// [`Isa::best`] as its `u8`, once detected; 0 before. One byte that a single query compares
/// in one instruction.
static BEST: AtomicU8 = AtomicU8::new(0);

impl Isa {
    /// The fastest the CPU running us supports, detected once (or, by threads racing to be
    /// first, more than once, alike).
    ///
    /// Out of line, so that no code another crate may compile (this is called from generic
    /// public functions) reads [`BEST`]: such a static is exported from the rlib, and every read
    /// of an exported static in this shared library goes through its global offset table, one
    /// load more per single query.
    #[inline(never)]
    pub(crate) fn best() -> Isa {
        Isa::best_detected().unwrap_or_else(|| {
            let best = *Isa::available()
                .last()
                .expect("the portable path is always there");
            BEST.store(best as u8, Ordering::Relaxed);
            best
        })
    }

    /// Whether [`Isa::best`] has been detected and is `self`: one compare of a byte.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    pub(crate) fn is_best_detected(self) -> bool {
        BEST.load(Ordering::Relaxed) == self as u8
    }

    /// [`Isa::best`] if it has been detected already: a plain load, with no call to keep
    /// registers across.
    #[inline]
    pub(crate) fn best_detected() -> Option<Isa> {
        match BEST.load(Ordering::Relaxed) {
            1 => Some(Isa::Portable),
            #[cfg(target_arch = "x86_64")]
            2 => Some(Isa::Avx2),
            #[cfg(target_arch = "x86_64")]
            3 => Some(Isa::Avx512),
            _ => None,
        }
    }

    /// Every instruction set this CPU can run, slowest first.
    pub(crate) fn available() -> Vec<Isa> {
        #[allow(unused_mut)] // Only x86-64 has more than the portable path.
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx2") {
                isas.push(Isa::Avx2);
            }
            if has!("avx512f")
                && has!("avx512bw")
                && has!("avx512vl")
                && has!("avx512vbmi")
                && has!("bmi2")
            {
                isas.push(Isa::Avx512);
            }
        }
        isas
    }

    /// Writes `bloom_hash(keys[i])` to `hashes[i]`.
    fn hash_keys(self, keys: &[&[u8]], hashes: &mut [u32]) {
        match self {
            Isa::Portable => {
                for (key, hash) in keys.iter().zip(hashes) {
                    *hash = bloom_hash(key);
                }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::hash_keys(keys, hashes) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::hash_keys(keys, hashes) },
        }
    }

    /// The hashes of the first `n` keys of a chunk (the rest are stale).
    fn hash_chunk(self, keys: &[&[u8]; CHUNK], n: usize) -> [u32; CHUNK] {
        let mut hashes = [0; CHUNK];
        self.hash_keys(&keys[..n], &mut hashes[..n]);
        hashes
    }

    /// Sets the bits of the first `n` keys of a chunk.
    fn fill_chunk(self, probes: &Probes, keys: &[&[u8]; CHUNK], n: usize, array: &mut [u8]) {
        match self {
            Isa::Portable => fill_chunk(probes, &self.hash_chunk(keys, n), n, array),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::fill_chunk(probes, &self.hash_chunk(keys, n), n, array) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::fill_chunk(probes, keys, n, array) },
        }
    }

    /// A batch for the probes of up to `keys` keys in an array past the L2 cache, with AVX-512
    /// (see avx512::ProbeBatch); None otherwise, or without the memory for it.
    #[cfg(target_arch = "x86_64")]
    fn probe_batch(self, array: &[u8], k: u8, keys: usize) -> Option<avx512::ProbeBatch> {
        if self == Isa::Avx512 && array.len() >= LARGE_ARRAY_BYTES {
            avx512::ProbeBatch::new(k, keys)
        } else {
            None
        }
    }

    /// Writes whether each of the first `out.len()` keys of a chunk may match.
    fn test_chunk(self, probes: &Probes, keys: &[&[u8]; CHUNK], array: &[u8], out: &mut [bool]) {
        let n = out.len();
        match self {
            Isa::Portable => test_chunk(probes, &self.hash_chunk(keys, n), array, out),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::test_chunk(probes, &self.hash_chunk(keys, n), array, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::test_chunk(probes, keys, array, out) },
        }
    }
}

/// Where leveldb's probes for a hash land in a bit array of `len` bytes, without dividing.
///
/// leveldb's position is `h % bits` in 64 bits, with bits = 8 * len. Writing h = q * bits + r
/// (r < bits): h >> 3 = q * len + (r >> 3) with r >> 3 < len, so the byte is `(h >> 3) % len` and
/// the bit in it is `h & 7`. As h >> 3 < 2^29, lengths of 2^29 or more (2^32 bits or more, where
/// leveldb's position is h itself) leave it unchanged: they are clamped to 2^29.
///
/// The remaining modulo of a < 2^29 by len <= 2^29 uses Granlund and Montgomery's exact quotient
/// ("Division by invariant integers using multiplication", 1994, Theorem 4.2): with
/// l = ceil(log2 len) and magic = ceil(2^(29 + l) / len), q = (a * magic) >> (29 + l) is a / len
/// rounded down for every a < 2^29. Why: magic * len = 2^(29 + l) + e with 0 <= e < len, so
/// a * magic / 2^(29 + l) = a / len + a * e / (len * 2^(29 + l)), and the second term is below
/// 1 / len, too little to reach the next integer. magic <= 2^30 and a * magic < 2^59: one
/// 32 x 32 -> 64-bit multiply, which SIMD units have (8 probes per AVX2 instruction pair).
#[derive(Clone, Copy)]
struct Probes {
    len: u32,
    magic: u32,
    shift: u32,
    k: u8,
}

impl Probes {
    fn new(array_len: usize, k: u8) -> Probes {
        debug_assert!(array_len > 0 && k <= MAX_PROBES);
        let len = array_len.min(1 << 29) as u32;
        // A single query would spend as long on the division as on its probes; block-sized
        // arrays take their constants from a table instead.
        let (magic, shift) = match SMALL_ARRAY_MAGIC.get(len as usize) {
            Some(&constants) => constants,
            None => magic_and_shift(len),
        };
        Probes {
            len,
            magic,
            shift,
            k,
        }
    }

    /// leveldb's bit position `h % bits` (as bit index: byte * 8 + bit).
    #[inline(always)]
    fn position(&self, h: u32) -> u32 {
        let a = h >> 3;
        let q = ((u64::from(a) * u64::from(self.magic)) >> self.shift) as u32;
        ((a - q * self.len) << 3) | (h & 7)
    }
}

/// [`Probes`]' magic and shift for an array of `len` bytes, 1 <= len <= 2^29.
const fn magic_and_shift(len: u32) -> (u32, u32) {
    let shift = 29 + len.next_power_of_two().trailing_zeros();
    let magic = (1u64 << shift).div_ceil(len as u64) as u32;
    (magic, shift)
}

/// [`magic_and_shift`] of every array length up to 256 bytes (index 0 unused).
static SMALL_ARRAY_MAGIC: [(u32, u32); 257] = {
    let mut table = [(0, 0); 257];
    let mut len = 1;
    while len < table.len() {
        table[len] = magic_and_shift(len as u32);
        len += 1;
    }
    table
};

/// The probe positions of a chunk of keys, one row (one probe of every key) at a time, in
/// leveldb's probe order. All CHUNK lanes are computed, stale ones too, so that the loop has a
/// fixed length and vectorises.
struct Rows {
    h: [u32; CHUNK],
    delta: [u32; CHUNK],
}

impl Rows {
    #[inline(always)]
    fn new(hashes: &[u32; CHUNK]) -> Rows {
        // Double hashing: the second hash is the first rotated right by 17 bits.
        let mut delta = [0; CHUNK];
        for (delta, h) in delta.iter_mut().zip(hashes) {
            *delta = h.rotate_right(17);
        }
        Rows { h: *hashes, delta }
    }

    /// Writes the next row: `row[i]` is the next probe position of key i.
    #[inline(always)]
    fn next(&mut self, probes: &Probes, row: &mut [u32; CHUNK]) {
        for ((pos, h), delta) in row.iter_mut().zip(&mut self.h).zip(&self.delta) {
            *pos = probes.position(*h);
            *h = h.wrapping_add(*delta);
        }
    }
}

/// The little-endian value of the 1..3 bytes after the key's last whole word (0 if none).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tail_word(key: &[u8]) -> u32 {
    let tail = key.len() % 4;
    match key.last_chunk::<4>() {
        // The key's last 4 bytes, shifted down to its tail bytes (to nothing without a tail).
        Some(&last) => (u64::from(u32::from_le_bytes(last)) >> (8 * (4 - tail))) as u32,
        None => key
            .iter()
            .rev()
            .fold(0, |acc, &b| (acc << 8) | u32::from(b)),
    }
}

/// An empty key whose address is in mapped memory, for the vector paths to load from instead of
/// an empty slice's dangling pointer: they load every lane of a group with a masked load, which
/// from an address in no mapped page takes a microcode assist even with every byte masked off
/// (some 380 cycles on Zen 5; it made 20-key filters, whose chunk has unused lanes, build
/// 2.3–2.9x slower than leveldb's). They read at most 64 bytes from a key's address, none of
/// them from an empty key.
const NO_KEY: &[u8] = UNREAD.split_at(0).0;

/// [`NO_KEY`]'s bytes: a static, so that NO_KEY has one address.
static UNREAD: [u8; 64] = [0; 64];

/// Whether `key` is empty with an address that may be in no mapped page (see [`NO_KEY`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn dangles(key: &[u8]) -> bool {
    key.is_empty() && !std::ptr::eq(key.as_ptr(), NO_KEY.as_ptr())
}

/// A call's keys, read a chunk at a time: from an iterator, or from a C caller's arrays
/// ([`KeyArrays`]).
pub(crate) trait Keys<'k> {
    /// How many keys are left at most, if known.
    fn max_len(&self) -> Option<usize>;

    /// Writes the next keys, up to CHUNK of them, to the front of `chunk` and returns how many
    /// (fewer than CHUNK only once all are read). With `prefetch`, also starts loading each key's
    /// first cache line.
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize;
}

impl<'k, I: Iterator<Item = &'k [u8]>> Keys<'k> for I {
    fn max_len(&self) -> Option<usize> {
        self.size_hint().1
    }

    #[inline(always)]
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize {
        let mut n = 0;
        while n < CHUNK {
            let Some(key) = self.next() else { break };
            // An empty key's address may be in no mapped page, and it has nothing to load.
            if prefetch && !key.is_empty() {
                prefetch_line(key.as_ptr());
            }
            chunk[n] = key;
            n += 1;
        }
        n
    }
}

/// Hands `keys` to `f` a chunk at a time, with how many of the chunk's keys are new (the rest
/// are stale, left from an earlier chunk). Of [`PREFETCH_KEYS_MIN`] keys or more, each key's
/// first cache line is prefetched [`KEYS_AHEAD`] chunks before `f` gets it.
#[inline(always)]
fn for_each_chunk<'k>(mut keys: impl Keys<'k>, mut f: impl FnMut(&[&'k [u8]; CHUNK], usize)) {
    let prefetch_keys = keys.max_len().is_none_or(|n| n >= PREFETCH_KEYS_MIN);
    let mut read = |chunk: &mut [&'k [u8]; CHUNK]| keys.read(chunk, prefetch_keys);
    // Copied from a constant: one memcpy, where a fresh array took 128 scalar stores (2–3% of a
    // 100-key filter's build). Unused lanes hold NO_KEY, not a dangling pointer.
    const EMPTY: [&[u8]; CHUNK] = [NO_KEY; CHUNK];
    if !prefetch_keys {
        let mut chunk = EMPTY;
        loop {
            let n = read(&mut chunk);
            if n == 0 {
                return;
            }
            f(&chunk, n);
            if n < CHUNK {
                return;
            }
        }
    }
    // Chunk number c is read into slot c % RING, KEYS_AHEAD chunks before it is handed on. Only
    // here: the ring's set-up and bookkeeping made block filters' batch queries 5–15% slower.
    const RING: usize = KEYS_AHEAD + 1;
    let mut ring = [EMPTY; RING];
    let mut new_keys = [0; RING];
    let (mut chunks_read, mut all_read) = (0, false);
    for c in 0.. {
        while !all_read && chunks_read <= c + KEYS_AHEAD {
            let n = read(&mut ring[chunks_read % RING]);
            new_keys[chunks_read % RING] = n;
            all_read = n < CHUNK;
            chunks_read += 1;
        }
        if c == chunks_read || new_keys[c % RING] == 0 {
            return;
        }
        f(&ring[c % RING], new_keys[c % RING]);
    }
}

/// Starts loading the cache line holding `address` (which need not be valid).
#[inline(always)]
fn prefetch_line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache; it never faults and reads nothing for us.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// Starts loading the cache line holding bit `pos` of `array`.
#[inline(always)]
fn prefetch(array: &[u8], pos: u32) {
    prefetch_line(array.as_ptr().wrapping_add((pos >> 3) as usize));
}

/// In an array past the caches, starts loading every line the probes of a chunk touch, so the
/// misses overlap; smaller arrays are left alone.
#[inline(always)]
fn prefetch_probes(probes: &Probes, array: &[u8], hashes: &[u32; CHUNK], n: usize) {
    if array.len() >= LARGE_ARRAY_BYTES {
        let mut rows = Rows::new(hashes);
        let mut row = [0; CHUNK];
        for _ in 0..probes.k {
            rows.next(probes, &mut row);
            row[..n].iter().for_each(|&pos| prefetch(array, pos));
        }
    }
}

/// Sets the bits of the first `n` keys of a chunk, given their hashes.
#[inline(always)]
fn fill_chunk(probes: &Probes, hashes: &[u32; CHUNK], n: usize, array: &mut [u8]) {
    prefetch_probes(probes, array, hashes, n);
    let mut rows = Rows::new(hashes);
    let mut row = [0; CHUNK];
    for _ in 0..probes.k {
        rows.next(probes, &mut row);
        for &pos in &row[..n] {
            array[(pos >> 3) as usize] |= 1 << (pos & 7);
        }
    }
}

/// Writes whether all probes of each of the first `out.len()` keys of a chunk are set, given
/// their hashes.
#[inline(always)]
fn test_chunk(probes: &Probes, hashes: &[u32; CHUNK], array: &[u8], out: &mut [bool]) {
    let n = out.len();
    prefetch_probes(probes, array, hashes, n);
    // Every probe is tested, without branching on the bits: an early exit would mispredict
    // about once per key, which costs more than the probes it saves.
    let mut all_set = [true; CHUNK];
    let mut rows = Rows::new(hashes);
    let mut row = [0; CHUNK];
    for _ in 0..probes.k {
        rows.next(probes, &mut row);
        for (set, &pos) in all_set.iter_mut().zip(&row[..n]) {
            *set &= array[(pos >> 3) as usize] & (1 << (pos & 7)) != 0;
        }
    }
    out.copy_from_slice(&all_set[..n]);
}

/// Sets the bits of `keys` with k probes in `array` (a filter's bit array, already zeroed).
pub(crate) fn fill<'k>(isa: Isa, k: u8, keys: impl Keys<'k>, array: &mut [u8]) {
    let probes = Probes::new(array.len(), k);
    #[cfg(target_arch = "x86_64")]
    if let Some(batch) = isa.probe_batch(array, k, keys.max_len().unwrap_or(usize::MAX)) {
        return in_batches(&probes, batch, keys, |batch| batch.set_bits(array));
    }
    for_each_chunk(keys, |chunk, n| isa.fill_chunk(&probes, chunk, n, array));
}

/// Adds the probes of `keys` to `batch` a chunk at a time, and hands it to `empty` (which must
/// empty it) whenever it is full and once at the end. `batch` must come from
/// [`Isa::probe_batch`], which gives one only with AVX-512.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn in_batches<'k>(
    probes: &Probes,
    mut batch: avx512::ProbeBatch,
    keys: impl Keys<'k>,
    mut empty: impl FnMut(&mut avx512::ProbeBatch),
) {
    for_each_chunk(keys, |chunk, n| {
        // SAFETY: `batch` comes from `Isa::probe_batch`: the CPU has AVX-512, detected.
        unsafe { avx512::probe_chunk(probes, chunk, n, &mut batch) };
        if batch.is_full() {
            empty(&mut batch);
        }
    });
    empty(&mut batch);
}

/// What a filter's framing decides before any probe, as leveldb's `KeyMayMatch`: `Err(answer)`
/// for every key, or `Ok` with the bit array and k.
#[inline(always)]
fn parse(filter: &[u8]) -> Result<(&[u8], u8), bool> {
    // Under 2 bytes there is no bit array.
    let Some(array_len @ 1..) = filter.len().checked_sub(1) else {
        return Err(false);
    };
    let (array, k) = (&filter[..array_len], filter[array_len]);
    if k > MAX_PROBES {
        // Reserved for potentially new encodings of short filters: consider it a match.
        return Err(true);
    }
    Ok((array, k))
}

/// leveldb's `KeyMayMatch` for each key, written to `results` in order; `results` must have
/// one slot per key.
pub(crate) fn may_match_batch<'k>(
    isa: Isa,
    keys: impl Keys<'k>,
    filter: &[u8],
    results: &mut [bool],
) {
    let (array, probes) = match parse(filter) {
        Ok((array, k)) => (array, Probes::new(array.len(), k)),
        Err(answer) => {
            results.fill(answer);
            return;
        }
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(batch) = isa.probe_batch(array, probes.k, results.len()) {
        let mut answered = 0;
        return in_batches(&probes, batch, keys, |batch| {
            answered += batch.test_bits(array, &mut results[answered..]);
        });
    }
    let mut results = results.chunks_mut(CHUNK);
    for_each_chunk(keys, |chunk, n| {
        let out = results.next().expect("one result slot per key");
        isa.test_chunk(&probes, chunk, array, &mut out[..n]);
    });
}
