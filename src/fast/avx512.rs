//! leveldb's filter 16 keys at a time, one key per 32-bit lane of an AVX-512 register.
//!
//! - Hashing: each key is read with a byte-masked load, which touches only the key's own bytes
//!   and zeroes the rest, so its tail word comes out zero-padded as leveldb's hash wants it;
//!   16 such rows are transposed into words, and every word is one step for all 16 lanes.
//! - Probe positions: the exact multiply-shift of [`Probes`], 16 lanes per instruction.
//! - Batch queries of a bit array of at most 256 bytes (a block's filter) read the probed bytes
//!   16 at a time from registers holding the whole array. Larger arrays are read with plain
//!   loads, one probe at a time, from rows of positions the vectors wrote out: on Zen 5 that
//!   measured 1.2–1.5x faster than 16-lane gathers, for 1.25 MB and 10 MB filters alike.
//! - A single key's probes are computed 8 at a time, one per 64-bit lane, and read from
//!   registers or with one gather of the 4 bytes up to each probed one. For a bit array past the
//!   registers, its positions come from a floating-point inverse of its length
//!   ([`InversePositions`]) instead of the multiply-shift, whose constants would take a division.
//! - Building sets the bits one by one: AVX-512 has no scatter that ORs, and colliding lanes
//!   would lose bits.
//! - No prefetching pass, unlike the other paths: computing the positions twice to prefetch them
//!   cost more than it saved on a Xeon (Emerald Rapids), and prefetching from rows computed once
//!   gained nothing measurable on Zen 5, nor did it a chunk or a row ahead; out-of-order execution
//!   overlaps the misses anyway. What did help arrays past the L2 cache: computing the probes of
//!   a batch of 4096 keys before reading or setting any of them ([`ProbeBatch`]).

use std::arch::x86_64::*;

use super::{CHUNK, Probes};
use crate::hash::{BLOOM_SEED, MULTIPLIER, bloom_hash};

/// Keys per vector.
const LANES: usize = 16;

/// Vectors per chunk.
const GROUPS: usize = CHUNK / LANES;

/// Keys longer than this are hashed one at a time: every lane of a group takes as many steps as
/// its longest key, so one long key would make 15 others wait.
const MAX_LANE_KEY_LEN: usize = 64;

/// Probes per [`ProbeBatch`]: 4096 keys at k = 6, 120 KB of rows.
const BATCH_PROBES: usize = 4096 * 6;

/// Calls with fewer keys go chunk by chunk, as smaller arrays do: in a C loop of batch queries
/// against a 1M-key filter, a batch made calls of 8 keys 7% slower (its allocation), of 64 keys
/// 3%, of 128 to 512 keys 0–3%; calls of 1024 and 4096 keys came out within noise (-10% to +5%),
/// and one call of 1M keys 15% faster (the benchmark's 1M rows).
const MIN_BATCH_KEYS: usize = 1024;

/// Bit arrays up to this many bytes are held in two or four registers and probed with byte
/// permutes.
const REGISTER_ARRAY_BYTES: usize = 256;

/// 64-bit lanes per vector, as the single-key query uses them.
const QWORD_LANES: u32 = 8;

/// Writes `bloom_hash(keys[i])` to `hashes[i]`: [`hash_chunk`] for any number of keys, which
/// the tests compare with the scalar hash (building and queries keep the hashes in registers).
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
pub(super) unsafe fn hash_keys(keys: &[&[u8]], hashes: &mut [u32]) {
    let mut hashes = hashes.chunks_mut(CHUNK);
    super::for_each_chunk(keys.iter().copied(), |chunk, n| {
        let out = hashes.next().expect("one hash slot per key");
        out.copy_from_slice(&to_array(&hash_chunk(chunk, n))[..n]);
    });
}

/// The hashes of a chunk's first `n` keys, 16 per vector (the rest are stale).
///
/// Its groups of 16 keys are hashed side by side: a step's multiply takes 10 cycles on some
/// CPUs, and independent chains keep the multiplier busy meanwhile.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn hash_chunk(keys: &[&[u8]; CHUNK], n: usize) -> [__m512i; GROUPS] {
    // Lane lengths, in one pass so that each group loads its 16 at once. A longer key takes
    // no lane step (length 0) and is hashed on its own at the end.
    let mut lens = [0u32; CHUNK];
    let mut longest = 0;
    let mut any_long = false;
    let mut any_empty = false;
    for (len, key) in lens.iter_mut().zip(&keys[..n]) {
        let long = key.len() > MAX_LANE_KEY_LEN;
        any_long |= long;
        any_empty |= key.is_empty();
        *len = if long { 0 } else { key.len() as u32 };
        longest = longest.max(*len);
    }
    let longest = longest as usize;
    let groups = n.div_ceil(LANES);
    // Each lane of the chunk's groups loads from its key's address, a stale lane too, so none
    // may be a dangling pointer (super::NO_KEY).
    let patched;
    let keys = if any_empty
        || keys[n..groups * LANES]
            .iter()
            .any(|key| super::dangles(key))
    {
        patched = keys.map(|key| {
            if super::dangles(key) {
                super::NO_KEY
            } else {
                key
            }
        });
        &patched
    } else {
        keys
    };
    let lane_lens = from_array(&lens);
    let m = _mm512_set1_epi32(MULTIPLIER as i32);
    // leveldb mixes the length in first, then takes a step per whole word and one for the tail.
    let mut h = lane_lens.map(|lens| {
        _mm512_xor_si512(
            _mm512_set1_epi32(BLOOM_SEED as i32),
            _mm512_mullo_epi32(lens, m),
        )
    });
    // 32 bytes of every key at a time: 8 words.
    for window in (0..longest).step_by(32) {
        let mut words = [[_mm512_setzero_si512(); 8]; GROUPS];
        for (g, words) in words.iter_mut().enumerate().take(groups) {
            let lanes = g * LANES..(g + 1) * LANES;
            *words = transpose(std::array::from_fn(|i| {
                let lane = lanes.start + i;
                key_bytes(keys[lane], lens[lane], window)
            }));
        }
        let steps = (longest - window).div_ceil(4).min(8);
        #[allow(clippy::needless_range_loop)] // j is the word; the groups are the inner loop.
        for j in 0..steps {
            let start = (window + 4 * j) as i32;
            for g in 0..groups {
                h[g] = step(h[g], words[g][j], lane_lens[g], start);
            }
        }
    }
    if any_long {
        let mut all = to_array(&h);
        for (key, hash) in keys[..n].iter().zip(&mut all) {
            if key.len() > MAX_LANE_KEY_LEN {
                *hash = bloom_hash(key);
            }
        }
        h = from_array(&all);
    }
    h
}

/// A chunk's 16-lane vectors as one array of u32s, vector g in `[16 * g..16 * (g + 1)]`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn to_array(v: &[__m512i; GROUPS]) -> [u32; CHUNK] {
    let mut all = [0u32; CHUNK];
    for (g, &v) in v.iter().enumerate() {
        // SAFETY: each store writes 16 u32s inside the 64 of `all`; storeu needs no alignment.
        unsafe { _mm512_storeu_si512(all[g * LANES..].as_mut_ptr().cast(), v) };
    }
    all
}

/// [`to_array`] reversed.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn from_array(all: &[u32; CHUNK]) -> [__m512i; GROUPS] {
    // SAFETY: each load reads 16 u32s inside the 64 of `all`; loadu needs no alignment.
    std::array::from_fn(|g| unsafe { _mm512_loadu_si512(all[g * LANES..].as_ptr().cast()) })
}

/// One step of leveldb's hash in each lane whose key has bytes from `start` on: `h = (h + w) *
/// m; h ^= h >> s`, with s = 16 for a whole word and 24 for the zero-padded tail word. Keys of
/// different lengths share the steps: a lane keeps its hash once its key has ended.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn step(h: __m512i, word: __m512i, lens: __m512i, start: i32) -> __m512i {
    let has_word = _mm512_cmpgt_epu32_mask(lens, _mm512_set1_epi32(start));
    let whole = _mm512_cmpge_epu32_mask(lens, _mm512_set1_epi32(start + 4));
    let shift = _mm512_mask_blend_epi32(whole, _mm512_set1_epi32(24), _mm512_set1_epi32(16));
    let next = _mm512_mullo_epi32(
        _mm512_add_epi32(h, word),
        _mm512_set1_epi32(MULTIPLIER as i32),
    );
    _mm512_mask_xor_epi32(h, has_word, next, _mm512_srlv_epi32(next, shift))
}

/// Bytes `from..from + 32` of `key`, zero past `len` (its length, or 0 to read nothing).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn key_bytes(key: &[u8], len: u32, from: usize) -> __m256i {
    debug_assert!(len as usize <= key.len());
    // bzhi keeps the low `present` bits (all 32 from 32 on).
    let mask = _bzhi_u32(u32::MAX, len.saturating_sub(from as u32));
    // SAFETY: the mask enables at most the key's bytes from `from` on; masked-off bytes are
    // never accessed, so nothing outside the key is read (with no byte enabled, nothing is).
    unsafe { _mm256_maskz_loadu_epi8(mask, key.as_ptr().wrapping_add(from).cast()) }
}

/// Transposes 16 rows of 8 u32s: vector j holds element j of every row, row i in lane i.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn transpose(rows: [__m256i; LANES]) -> [__m512i; 8] {
    // Rows i and i + 8 share a register; the steps below work on both halves alike.
    let z: [__m512i; 8] = std::array::from_fn(|i| {
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(rows[i]), rows[i + 8])
    });
    // Pairs of rows interleaved, then quads: u[w] holds words w and w + 4 of four rows, in
    // 128-bit blocks (rows 0-3 or 4-7 in the low half, 8-11 or 12-15 in the high half).
    let t = [
        _mm512_unpacklo_epi32(z[0], z[1]),
        _mm512_unpackhi_epi32(z[0], z[1]),
        _mm512_unpacklo_epi32(z[2], z[3]),
        _mm512_unpackhi_epi32(z[2], z[3]),
        _mm512_unpacklo_epi32(z[4], z[5]),
        _mm512_unpackhi_epi32(z[4], z[5]),
        _mm512_unpacklo_epi32(z[6], z[7]),
        _mm512_unpackhi_epi32(z[6], z[7]),
    ];
    let u = [
        _mm512_unpacklo_epi64(t[0], t[2]),
        _mm512_unpackhi_epi64(t[0], t[2]),
        _mm512_unpacklo_epi64(t[1], t[3]),
        _mm512_unpackhi_epi64(t[1], t[3]),
        _mm512_unpacklo_epi64(t[4], t[6]),
        _mm512_unpackhi_epi64(t[4], t[6]),
        _mm512_unpacklo_epi64(t[5], t[7]),
        _mm512_unpackhi_epi64(t[5], t[7]),
    ];
    // Gather the 128-bit blocks of one word, rows in order.
    let low = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    let high = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    std::array::from_fn(|j| {
        let select = if j < 4 { low } else { high };
        _mm512_permutex2var_epi64(u[j % 4], select, u[j % 4 + 4])
    })
}

/// [`Probes`] in vectors: leveldb's probe positions for 16 hashes at once.
struct Positions {
    len: __m512i,
    magic: __m512i,
    shift: __m128i,
}

impl Positions {
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn new(probes: &Probes) -> Positions {
        // In every 32-bit lane, though the multiplies read only the even ones: with the odd
        // ones zero, the compiler may take a multiply for a full 64-bit one and expand it
        // into three.
        Positions {
            len: _mm512_set1_epi32(probes.len as i32),
            magic: _mm512_set1_epi32(probes.magic as i32),
            shift: _mm_set_epi64x(0, i64::from(probes.shift)),
        }
    }

    /// The byte and the bit in it of each lane's probe `h % bits`, as [`Probes::position`]
    /// computes it.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn of(&self, h: __m512i) -> (__m512i, __m512i) {
        let a = _mm512_srli_epi32::<3>(h);
        // The multiplies take the even lanes; the odd ones are shifted down to take their turn.
        let quotient = |a| _mm512_srl_epi64(_mm512_mul_epu32(a, self.magic), self.shift);
        let q_even = quotient(a);
        let q_odd = quotient(_mm512_srli_epi64::<32>(a));
        let product_even = _mm512_mul_epu32(q_even, self.len);
        let product_odd = _mm512_mul_epu32(q_odd, self.len);
        // Lane 2i from the even products, lane 2i + 1 from the odd ones (their low halves).
        let interleave =
            _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30);
        let product = _mm512_permutex2var_epi32(product_even, interleave, product_odd);
        let byte = _mm512_sub_epi32(a, product);
        (byte, _mm512_and_si512(h, _mm512_set1_epi32(7)))
    }

    /// [`Positions::of`] for 8 hashes, one in the low half of each 64-bit lane (the high half is
    /// ignored); byte and bit come out as 64-bit lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
        let a = _mm512_srli_epi64::<3>(_mm512_and_si512(h, _mm512_set1_epi64(0xffff_ffff)));
        let quotient = _mm512_srl_epi64(_mm512_mul_epu32(a, self.magic), self.shift);
        let byte = _mm512_sub_epi64(a, _mm512_mul_epu32(quotient, self.len));
        (byte, _mm512_and_si512(h, _mm512_set1_epi64(7)))
    }
}

/// [`super::fill_chunk`]: the chunk's hashes and probe positions 16 lanes per instruction
/// ([`for_each_probe_row`]), then the bits set.
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
pub(super) unsafe fn fill_chunk(
    probes: &Probes,
    keys: &[&[u8]; CHUNK],
    n: usize,
    array: &mut [u8],
) {
    assert!(probes.len as usize <= array.len());
    for_each_probe_row(probes, keys, n, |bytes, masks| {
        // SAFETY: for_each_probe_row checked every byte < probes.len <= array.len().
        unsafe { set_probed_bits(array, &bytes[..n], &masks[..n]) };
    });
}

/// ORs `masks[i]` into `array[bytes[i]]` for each i.
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: no probe is checked here (see
/// [`for_each_probe_row`], which checks its rows' bytes).
#[inline(always)]
unsafe fn set_probed_bits(array: &mut [u8], bytes: &[u32], masks: &[u8]) {
    let mut set = |(&byte, &mask): (&u32, &u8)| {
        // SAFETY: byte < array.len(), by this function's contract.
        unsafe { *array.get_unchecked_mut(byte as usize) |= mask };
    };
    // Eight probes per loop step: the loop's own instructions, one step per probe or two, cost a
    // 100-key filter's build 4–7% on Zen 5, where byte read-modify-writes are what it waits on.
    let (bytes8, masks8) = (bytes.chunks_exact(8), masks.chunks_exact(8));
    let (bytes_left, masks_left) = (bytes8.remainder(), masks8.remainder());
    for (bytes, masks) in bytes8.zip(masks8) {
        bytes.iter().zip(masks).for_each(&mut set);
    }
    bytes_left.iter().zip(masks_left).for_each(set);
}

/// Adds the probes of a chunk's first `n` keys to `batch`: its k rows, written by a [`RowWriter`]
/// straight into the batch's memory. Handed on by [`for_each_probe_row`] and copied into the
/// batch, they took 1M-key batch queries 5.04–5.23 ns per key against 4.82–4.95
/// (`single_query_ab --stream --batch --chunk 1000000`, Zen 5, three runs).
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
pub(super) unsafe fn probe_chunk(
    probes: &Probes,
    keys: &[&[u8]; CHUNK],
    n: usize,
    batch: &mut ProbeBatch,
) {
    debug_assert!(batch.last_chunk_keys == CHUNK, "keys after a partial chunk");
    debug_assert_eq!(batch.k, usize::from(probes.k));
    let written = batch.rows.len();
    // The batch is emptied once full, so a chunk's rows always fit its capacity.
    let rows = &mut batch.rows.spare_capacity_mut()[..batch.k];
    let mut writer = RowWriter::new(probes, keys, n);
    for row in rows {
        // SAFETY: `row` is the batch's own memory, valid for writes.
        unsafe { writer.write(row.as_mut_ptr()) };
    }
    // SAFETY: the k rows after the first `written` were all written just above, every lane.
    unsafe { batch.rows.set_len(written + batch.k) };
    batch.below = batch.below.max(probes.len);
    batch.last_chunk_keys = n;
}

/// The probes of a batch of keys, of whole chunks, in the rows a [`RowWriter`] writes:
/// for an array past the L2 cache, every probe of the batch is computed before any is read or
/// set. Chunk by chunk, bits that wait on memory and the next keys' hashes, which wait on the
/// multiplier, got in each other's way. On Zen 5, ns per key: 1M-key filter (1.25 MB) builds
/// 9.6–9.9 -> 8.4–9.5 (batches of 16 to 1024 chunks alike), batch queries 9.5–10.0 -> 8.3–8.7;
/// 8M-key filter (10 MB) builds 11.4–11.5 -> 9.5–10.3. The AVX2 path measured no gain for builds
/// (15.0 -> 14.9) and a loss for queries (12.8–13.8 -> 14.6–15.0): it keeps its prefetching.
pub(super) struct ProbeBatch {
    /// Whole rows, lanes past a partial chunk's keys too.
    rows: Vec<ProbeRow>,
    /// Rows per chunk.
    k: usize,
    /// The rows of a full batch: `rows`' capacity.
    full: usize,
    /// The keys in the last chunk's rows: only the last chunk of all may be partial, and the
    /// batch is emptied after it.
    last_chunk_keys: usize,
    /// Every probed byte in the rows is below this ([`RowWriter`] checked them).
    below: u32,
}

/// One probe of each key of a chunk: the byte, and the bit in it as a mask.
type ProbeRow = ([u32; CHUNK], [u8; CHUNK]);

impl ProbeBatch {
    /// Room for as many whole chunks as [`BATCH_PROBES`] allow (one at least) at k probes per
    /// key, or for `keys` keys if fewer. None for k = 0, for fewer than [`MIN_BATCH_KEYS`] keys,
    /// or if the memory cannot be had: the caller then goes chunk by chunk.
    pub(super) fn new(k: u8, keys: usize) -> Option<ProbeBatch> {
        let k = usize::from(k);
        if k == 0 || keys < MIN_BATCH_KEYS {
            return None;
        }
        // Reserved, not written: a batch first made as 120 KB of zeroes, whatever the keys,
        // made batch queries of a 1M-key filter 3.5x slower for 8 keys (428 -> 1486–1533 ns
        // per call) and 1.9x for 64.
        let chunks = (BATCH_PROBES / (CHUNK * k))
            .min(keys.div_ceil(CHUNK))
            .max(1);
        let mut rows = Vec::new();
        rows.try_reserve_exact(chunks * k).ok()?;
        Some(ProbeBatch {
            rows,
            k,
            full: chunks * k,
            last_chunk_keys: CHUNK,
            below: 0,
        })
    }

    pub(super) fn is_full(&self) -> bool {
        self.rows.len() == self.full
    }

    /// The rows in use, a chunk's k rows at a time, with the chunk's number of keys.
    fn chunks(&self) -> impl Iterator<Item = (&[ProbeRow], usize)> {
        let chunks = self.rows.len() / self.k;
        let last_chunk_keys = self.last_chunk_keys;
        self.rows.chunks(self.k).enumerate().map(move |(c, rows)| {
            (
                rows,
                if c + 1 < chunks {
                    CHUNK
                } else {
                    last_chunk_keys
                },
            )
        })
    }

    /// Sets the bits of the batch's probes in `array`, and empties the batch.
    ///
    /// Unchecked per probe, as the build chunk by chunk: 1M-key filters built in 6.4–7.0 ns
    /// per key with a check, 6.2 without.
    pub(super) fn set_bits(&mut self, array: &mut [u8]) {
        assert!(self.below as usize <= array.len(), "probes past the array");
        for (rows, n) in self.chunks() {
            for (bytes, masks) in rows {
                // SAFETY: every byte is below self.below <= array.len().
                unsafe { set_probed_bits(array, &bytes[..n], &masks[..n]) };
            }
        }
        self.empty();
    }

    /// Writes whether all probes of each of the batch's keys are set in `array` to `out`, one
    /// slot per key in order, and empties the batch. Returns the number of keys.
    pub(super) fn test_bits(&mut self, array: &[u8], out: &mut [bool]) -> usize {
        assert!(self.below as usize <= array.len(), "probes past the array");
        let mut answered = 0;
        for (rows, n) in self.chunks() {
            // Every probe is read, without branching on the bits (see test_chunk).
            let mut all_set = [true; CHUNK];
            for (bytes, masks) in rows {
                // SAFETY: every byte is below self.below <= array.len().
                let probed = unsafe { probed_bytes(array, bytes) };
                for ((set, &probed), &mask) in all_set.iter_mut().zip(&probed).zip(masks) {
                    *set &= probed & mask != 0;
                }
            }
            out[answered..answered + n].copy_from_slice(&all_set[..n]);
            answered += n;
        }
        self.empty();
        answered
    }

    fn empty(&mut self) {
        self.rows.clear();
        self.last_chunk_keys = CHUNK;
    }
}

/// The bytes of `array` at a row's positions, every lane's (stale ones too), read by the batch
/// queries of arrays held in memory.
///
/// Unchecked, for all CHUNK lanes, in scalar code: one load and one store per probe. Checked, a
/// row's first n lanes only, batch queries took, ns per key on Zen 5, 5.29–5.48 against
/// 4.82–4.95 for a 1M-key filter and 3.94–3.97 against 3.56–3.57 for a 3000-key one
/// (`single_query_ab --stream --batch`, keys and chunk as the filter's, three and two runs).
///
/// # Safety
/// Every one of `bytes` must be below `array.len()`: none is checked here ([`RowWriter`] checks
/// every lane of the rows it writes).
#[inline(always)]
unsafe fn probed_bytes(array: &[u8], bytes: &[u32; CHUNK]) -> [u8; CHUNK] {
    let mut probed = [0u8; CHUNK];
    for (probed, byte) in probed.iter_mut().zip(bytes) {
        // Read as volatile, to keep the loop scalar: in test_chunk the compiler otherwise moved
        // the positions through vector registers and inserted each byte into one (`vpinsrb`),
        // and the 3000-key filter's batch queries took 3.80–3.81 ns per key.
        // SAFETY: `byte` is a reference, valid to read; the byte it names is below array.len()
        // by this function's contract.
        *probed = unsafe { *array.get_unchecked(std::ptr::read_volatile(byte) as usize) };
    }
    probed
}

/// A chunk's probes, written out a row (one probe of every key) at a time: for each of the
/// chunk's CHUNK lanes (stale ones too), the byte the probe reads and the bit in it as a mask.
/// The positions are computed 16 lanes per instruction and written to memory so that the rows'
/// users work on bytes with plain loads and stores: AVX-512 has no scatter that ORs (colliding
/// lanes would lose bits), and gathers are slow on some CPUs (Zen 5).
///
/// Every byte written is below `probes.len`, checked here with one compare per 16 probes, so
/// the rows' users may index without a check per probe (which kept the build's loop from
/// unrolling and cost it 4–6% on Zen 5).
struct RowWriter {
    /// Each lane's hash for its next probe.
    h: [__m512i; GROUPS],
    /// What each lane's hash steps by from one probe to the next.
    delta: [__m512i; GROUPS],
    positions: Positions,
    len: __m512i,
}

impl RowWriter {
    /// Hashes the first `n` keys of a chunk.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn new(probes: &Probes, keys: &[&[u8]; CHUNK], n: usize) -> RowWriter {
        let h = hash_chunk(keys, n);
        RowWriter {
            // Double hashing: the second hash is the first rotated right by 17 bits.
            delta: h.map(|h| _mm512_ror_epi32::<17>(h)),
            h,
            positions: Positions::new(probes),
            len: _mm512_set1_epi32(probes.len as i32),
        }
    }

    /// Writes the next row to `row`, every lane of it.
    ///
    /// # Safety
    /// `row` must be valid for writes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    unsafe fn write(&mut self, row: *mut ProbeRow) {
        // SAFETY: `row` is valid for writes, by this function's contract; no reference to its
        // memory is made, which may be uninitialised.
        let (bytes, masks) = unsafe {
            (
                (&raw mut (*row).0).cast::<u32>(),
                (&raw mut (*row).1).cast::<u8>(),
            )
        };
        let one = _mm512_set1_epi32(1);
        let mut outside = 0;
        for v in 0..GROUPS {
            let (byte, bit) = self.positions.of(self.h[v]);
            outside |= _mm512_cmpge_epu32_mask(byte, self.len);
            self.h[v] = _mm512_add_epi32(self.h[v], self.delta[v]);
            // SAFETY: the stores write 16 u32s inside the row's 64 bytes and 16 u8s inside its
            // 64 masks.
            unsafe {
                _mm512_storeu_si512(bytes.add(v * LANES).cast(), byte);
                _mm_storeu_si128(
                    masks.add(v * LANES).cast(),
                    _mm512_cvtepi32_epi8(_mm512_sllv_epi32(one, bit)),
                );
            }
        }
        assert_eq!(outside, 0, "a probe position past the array");
    }
}

/// Calls `f(bytes, masks)` for each of the k probes in turn, with the row a [`RowWriter`] wrote
/// for it (whole rows: lanes from `n` on hold stale probes, which `f` must leave alone). Every
/// byte `f` gets is below `probes.len`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn for_each_probe_row(
    probes: &Probes,
    keys: &[&[u8]; CHUNK],
    n: usize,
    mut f: impl FnMut(&[u32; CHUNK], &[u8; CHUNK]),
) {
    let mut writer = RowWriter::new(probes, keys, n);
    // The next row is written while `f` reads this one, so that f's loads find their row
    // stored well before instead of waiting on vector stores just ahead of them: block builds
    // measured 3–4% faster on Zen 5.
    let mut rows = [([0u32; CHUNK], [0u8; CHUNK]); 2];
    let [even, odd] = &mut rows;
    // SAFETY: `even` is a local row, valid for writes.
    unsafe { writer.write(even) };
    for probe in 0..probes.k {
        let (this, next) = if probe % 2 == 0 {
            (&*even, &mut *odd)
        } else {
            (&*odd, &mut *even)
        };
        if probe + 1 < probes.k {
            // SAFETY: `next` is a local row, valid for writes.
            unsafe { writer.write(next) };
        }
        f(&this.0, &this.1);
    }
}

/// [`Positions::of`], [`Positions::of_qwords`] and [`InversePositions::of_qwords`] for 16
/// hashes, each as bit indices (byte * 8 + bit), for the tests. The 64-bit lanes get a nonzero
/// high half, which they must ignore.
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
pub(super) unsafe fn positions16(
    probes: &Probes,
    array_len: usize,
    h: [u32; LANES],
) -> [[u32; LANES]; 3] {
    let positions = Positions::new(probes);
    // SAFETY: loadu reads the 16 u32s of `h`; it needs no alignment.
    let (byte, bit) = positions.of(unsafe { _mm512_loadu_si512(h.as_ptr().cast()) });
    let bits = to_array(&[_mm512_or_si512(_mm512_slli_epi32::<3>(byte), bit); GROUPS]);
    let inverse = InversePositions::new(array_len);
    let mut qword_bits = [[0; LANES]; 2];
    for (i, half) in h.chunks(8).enumerate() {
        let high = _mm512_set1_epi64(0x5a5a_5a5a << 32);
        let lanes = std::array::from_fn::<i64, 8, _>(|i| i64::from(half[i]));
        // SAFETY: loadu reads the 8 i64s of `lanes`; it needs no alignment.
        let lanes = _mm512_or_si512(unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }, high);
        for (way, (byte, bit)) in [positions.of_qwords(lanes), inverse.of_qwords(lanes)]
            .into_iter()
            .enumerate()
        {
            let mut got = [0u64; 8];
            // SAFETY: storeu writes the 8 u64s of `got`; it needs no alignment.
            unsafe {
                _mm512_storeu_si512(
                    got.as_mut_ptr().cast(),
                    _mm512_or_si512(_mm512_slli_epi64::<3>(byte), bit),
                )
            };
            for (out, got) in qword_bits[way][i * 8..].iter_mut().zip(got) {
                *out = got as u32;
            }
        }
    }
    [
        bits[..LANES].try_into().expect("16 lanes"),
        qword_bits[0],
        qword_bits[1],
    ]
}

/// The bit array as the queries of one call read it: in registers when small, else in memory.
#[allow(clippy::large_enum_variant)] // It is meant to live in registers, for one call.
enum Lookup<'a> {
    Registers(Registers),
    /// More than 256 bytes: read in memory (see the module's notes).
    Memory(&'a [u8]),
}

/// A bit array of up to 256 bytes, zero-padded, read by byte permutes.
enum Registers {
    /// Up to 128 bytes.
    Two([__m512i; 2]),
    /// Up to 256 bytes.
    Four([__m512i; 4]),
}

impl Registers {
    /// Which of the 16 lanes have their probed bit set.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn is_set(&self, byte: __m512i, bit: __m512i) -> __mmask16 {
        // A lane's low byte is the probed one; the bytes above it are never tested.
        let shifted = _mm512_srlv_epi32(self.bytes_at(byte), bit);
        _mm512_test_epi32_mask(shifted, _mm512_set1_epi32(1))
    }

    /// Byte i of the result is the array's byte at index byte i (its low 8 bits).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn bytes_at(&self, index: __m512i) -> __m512i {
        // Byte permutes read the low 7 bits of each index byte.
        match self {
            Registers::Two(t) => _mm512_permutex2var_epi8(t[0], index, t[1]),
            Registers::Four(t) => {
                let low = _mm512_permutex2var_epi8(t[0], index, t[1]);
                let high = _mm512_permutex2var_epi8(t[2], index, t[3]);
                // Index bit 7 picks the half.
                let upper = _mm512_test_epi8_mask(index, _mm512_set1_epi8(0x80u8 as i8));
                _mm512_mask_blend_epi8(upper, low, high)
            }
        }
    }
}

impl<'a> Lookup<'a> {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn new(array: &'a [u8]) -> Lookup<'a> {
        // 64 bytes of the array from `from`, zero past its end. A part wholly past a short
        // array enables no byte, at an address just past it: mapped, unless the array ends a
        // mapping, where the load would only be slow (a microcode assist, see super::NO_KEY).
        let part = |from: usize| {
            let present = array.len().saturating_sub(from);
            // bzhi keeps the low `present` bits (all 64 from 64 on).
            let mask = _bzhi_u64(u64::MAX, present.min(64) as u32);
            // SAFETY: the mask enables only bytes of the array; masked-off bytes are never
            // accessed.
            unsafe { _mm512_maskz_loadu_epi8(mask, array.as_ptr().wrapping_add(from).cast()) }
        };
        if array.len() <= 128 {
            Lookup::Registers(Registers::Two([part(0), part(64)]))
        } else if array.len() <= REGISTER_ARRAY_BYTES {
            Lookup::Registers(Registers::Four([part(0), part(64), part(128), part(192)]))
        } else {
            Lookup::Memory(array)
        }
    }

    /// Which of the 8 probes, one per 64-bit lane, have their probed bit clear, of the `lanes`
    /// asked. Other lanes read nothing: a query of one key reads its k probes' cache
    /// lines, not 8.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn is_clear_qwords(&self, byte: __m512i, bit: __m512i, lanes: __mmask8) -> __mmask8 {
        // The probed bit as a mask, computed while the bytes load: one test once they arrive.
        let one_hot = |shift| _mm512_sllv_epi64(_mm512_set1_epi64(1), shift);
        match self {
            // A lane's low byte is the probed one; the bytes above it are never tested.
            Lookup::Registers(registers) => {
                _mm512_mask_testn_epi64_mask(lanes, registers.bytes_at(byte), one_hot(bit))
            }
            Lookup::Memory(array) => {
                // The 4 bytes up to the probed one, moved forward inside the array at its start
                // (where the probed one is among the first 3).
                let end = _mm512_max_epu64(byte, _mm512_set1_epi64(3));
                // SAFETY: each lane read takes the 4 bytes from `end` - 3 >= 0 to `end`, which is
                // the probed byte (< len) or 3 (< len, as the array has more than 256 bytes):
                // inside the array.
                let word = unsafe {
                    _mm512_mask_i64gather_epi32::<1>(
                        _mm256_setzero_si256(),
                        lanes,
                        end,
                        array.as_ptr().wrapping_sub(3).cast(),
                    )
                };
                // The probed byte is the word's last, or earlier by `end` - `byte`.
                let skip = _mm512_slli_epi64::<3>(_mm512_sub_epi64(byte, end));
                let at_bit = _mm512_or_si512(bit, _mm512_set1_epi64(24));
                let mask = _mm512_cvtepi64_epi32(one_hot(_mm512_add_epi64(skip, at_bit)));
                _mm256_mask_testn_epi32_mask(lanes, word, mask)
            }
        }
    }
}

/// [`super::test_chunk`]: every probe of every key tested (an early exit would mispredict about
/// once per key); 16 keys' probes per instruction from a bit array in registers; for a larger
/// one, one plain load per probe from [`for_each_probe_row`]'s rows ([`probed_bytes`]), tested
/// 64 keys per instruction.
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
pub(super) unsafe fn test_chunk(
    probes: &Probes,
    keys: &[&[u8]; CHUNK],
    array: &[u8],
    out: &mut [bool],
) {
    let n = out.len();
    let registers = match Lookup::new(array) {
        Lookup::Registers(registers) => registers,
        Lookup::Memory(array) => {
            // Plain loads, measured faster than gathers on Zen 5. Each row's probed bytes are
            // copied out and tested against their masks 64 at a time, so a probe costs no more
            // than its load and one store (15% faster than testing and AND-ing each in scalar
            // code).
            assert!(probes.len as usize <= array.len(), "probes past the array");
            let keys_in_chunk = _bzhi_u64(u64::MAX, n as u32);
            let mut set = keys_in_chunk;
            for_each_probe_row(probes, keys, n, |bytes, masks| {
                // SAFETY: for_each_probe_row checked every byte < probes.len <= array.len().
                let probed = unsafe { probed_bytes(array, bytes) };
                // SAFETY: loadu reads the 64 bytes of `probed`; the masked load reads only the
                // first n bytes, all of `masks`.
                let (probed, masks) = unsafe {
                    (
                        _mm512_loadu_si512(probed.as_ptr().cast()),
                        _mm512_maskz_loadu_epi8(keys_in_chunk, masks.as_ptr().cast()),
                    )
                };
                set &= _mm512_test_epi8_mask(probed, masks);
            });
            // SAFETY: the mask enables the first n bytes, all inside `out`; each is 0 or 1, a
            // valid bool.
            unsafe {
                _mm512_mask_storeu_epi8(
                    out.as_mut_ptr().cast(),
                    keys_in_chunk,
                    _mm512_maskz_set1_epi8(set, 1),
                )
            };
            return;
        }
    };
    let hashes = hash_chunk(keys, n);
    let positions = Positions::new(probes);
    for (mut h, out) in hashes.into_iter().zip(out.chunks_mut(LANES)) {
        let delta = _mm512_ror_epi32::<17>(h);
        let mut set: __mmask16 = !0;
        for _ in 0..probes.k {
            let (byte, bit) = positions.of(h);
            set &= registers.is_set(byte, bit);
            h = _mm512_add_epi32(h, delta);
        }
        let written = u16::MAX >> (LANES - out.len());
        // SAFETY: the mask enables the first out.len() bytes, all inside `out`; each is 0 or 1,
        // a valid bool.
        unsafe {
            _mm_mask_storeu_epi8(
                out.as_mut_ptr().cast(),
                written,
                _mm_maskz_set1_epi8(set, 1),
            )
        };
    }
}

/// leveldb's `KeyMayMatch` for one key against a bit array and k (framing already checked):
/// the hash in scalar code, then 8 probes at once, one per 64-bit lane, with no branch on the
/// bits. 64-bit lanes need no 10-cycle `vpmulld` (the 32-bit multiplies here take the low half
/// of each lane) and no permute to rejoin even and odd lanes; 8 lanes cover the usual k (6 at 10
/// bits per key) in one round.
///
/// A C-ABI function returning 0 or 1, so that a call to it cannot unwind, and the C entries
/// reach it by a tail jump (see [`super::one::may_match_one_c`]); `k` comes first so that they
/// pass the key and filter on in the registers they arrive in. A panic inside would abort the
/// process, so there must be none to reach: [`super::CannotPanic`] proves it.
///
/// # Safety
/// The CPU must support the features of [`super::Isa::Avx512`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
#[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
pub(super) unsafe extern "C" fn may_match_one(k: u32, key: &[u8], array: &[u8]) -> u8 {
    let proof = super::CannotPanic;
    // Each kind of lookup compiled apart, with nothing left to dispatch on after the hash.
    let answer = match Lookup::new(array) {
        lookup @ Lookup::Registers(Registers::Two(_)) => {
            probe_one(super::one::bloom_hash_one::<false>(key), array, k, &lookup)
        }
        lookup @ Lookup::Registers(Registers::Four(_)) => {
            probe_one(super::one::bloom_hash_one::<false>(key), array, k, &lookup)
        }
        // Past the registers the query waits on memory anyway: branches on the key's length
        // cost less there than the conditional moves' longer chain (see bloom_hash_one).
        lookup @ Lookup::Memory(_) => {
            probe_one(super::one::bloom_hash_one::<true>(key), array, k, &lookup)
        }
    };
    proof.holds();
    answer
}

/// The probes of [`may_match_one`] for hash `h`.
///
/// Written with as few instructions that write a register, and as short a chain from the hash
/// to the gather, as it can: a run of single queries is bound by how many of them the CPU holds
/// in flight (about 2.5 on Zen 5), and each such instruction and each cycle of the chain costs
/// its share. At 1M keys, 20 more vector `vpaddq`s per query cost 0.9 ns (10.7 -> 11.6 ns,
/// benches/single_query_ab.c), 20 more general-purpose `add`s 3 ns in the ninth session
/// (`cargo bench --bench vs_leveldb -- 1M`), ten more dependent vector operations (20 cycles)
/// 1.0-1.3 ns; `cmp`s and `nop`s cost less (README, "Speed").
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
fn probe_one(h: u32, array: &[u8], k: u32, lookup: &Lookup) -> u8 {
    // Lane i probes h + i * delta (mod 2^32, in the low half of each 64-bit lane), as leveldb's
    // i-th probe; the positions ignore the high half.
    let (positions, hashes, delta) = match lookup {
        // Positions from a table: a query of a block's filter waits on nothing but its own chain.
        // Zero high halves: from a rotated 32-bit broadcast the compiler emulated a full 64-bit
        // multiply (6.69-6.76 against 6.42-6.46 ns, benches/single_query_ab.c --keys 100).
        Lookup::Registers(_) => {
            let probes = Probes::new(array.len(), k as u8);
            let hashes = _mm512_set1_epi64(i64::from(h));
            let delta = _mm512_ror_epi32::<17>(hashes);
            (
                SinglePositions::Table(Positions::new(&probes)),
                hashes,
                delta,
            )
        }
        // Positions computed in vector registers, where a table has no entry. delta rotated in a
        // general-purpose register while `h` moves to the vector: a vector rotate would add its
        // 2 cycles (Zen 5) to the chain, and a zero-extending move 1.
        Lookup::Memory(_) => (
            SinglePositions::Inverse(InversePositions::new(array.len())),
            _mm512_set1_epi32(h as i32),
            _mm512_set1_epi32(h.rotate_right(17) as i32),
        ),
    };
    let iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    let mut lanes = _mm512_add_epi64(hashes, _mm512_mul_epu32(iota, delta));
    let mut left = k;
    let mut wanted = _mm512_cmplt_epu64_mask(iota, _mm512_set1_epi64(i64::from(left)));
    loop {
        let (byte, bit) = positions.of_qwords(lanes);
        let clear = lookup.is_clear_qwords(byte, bit, wanted);
        // Only k > 8 (up to 30) takes more rounds.
        if left <= QWORD_LANES || clear != 0 {
            break (clear == 0).into();
        }
        left -= QWORD_LANES;
        lanes = _mm512_add_epi64(lanes, _mm512_slli_epi64::<3>(delta));
        wanted = _mm512_cmplt_epu64_mask(iota, _mm512_set1_epi64(i64::from(left)));
    }
}

/// How [`probe_one`] finds its positions: one way or the other for each kind of [`Lookup`].
enum SinglePositions {
    Table(Positions),
    Inverse(InversePositions),
}

impl SinglePositions {
    /// [`Positions::of_qwords`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
        match self {
            SinglePositions::Table(positions) => positions.of_qwords(h),
            SinglePositions::Inverse(positions) => positions.of_qwords(h),
        }
    }
}

/// [`Positions::of_qwords`] by a floating-point inverse of the array's length, computed per call
/// in vector registers, where [`Probes`]' constants would take a division in general-purpose
/// ones: with the lanes and the mask of wanted ones also set up in vectors, single queries of a
/// 1M-key filter went from 15.2–15.3 to 13.9–14.5 ns (Zen 5, `cargo bench --bench vs_leveldb --
/// 1M`, two runs of each).
///
/// The byte is a - q * len for a = h >> 3 < 2^29 (see [`Probes`]) and q = floor(a / len),
/// which is floor(h / bits) for bits = 8 len: the quotient is taken of h itself, so that
/// the shift to `a` runs beside it, not ahead of it (each vector integer operation takes 2
/// cycles on Zen 5). q = floor((h + 1/2) * r), r = 1/bits rounded to nearest, computed by one
/// fused multiply-add rounding down. Exact for every len >= 1: (h + 1/2) / bits, an odd number
/// over 2 bits, is at least 1 / (2 bits) away from any integer, and (h + 1/2) * r differs from
/// it by a relative 2^-53 at most, so by less than 2^32 / bits * 2^-53 = 2^-21 / bits. For
/// len >= 2^29 (then h < bits) q is 0 and the byte is a, as leveldb's position is h itself from
/// 2^32 bits on; the multiply by len's low 32 bits is then a multiply by 0.
struct InversePositions {
    len: __m512i,
    inverse: __m512d,
}

/// 2^52: a double's units digit, at this magnitude, is its mantissa's lowest bit.
const TWO_POW_52: f64 = 4_503_599_627_370_496.0;

impl InversePositions {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn new(array_len: usize) -> InversePositions {
        // Rounded to nearest whatever the caller's MXCSR says, and with no exception flag set
        // (the length is exact up to 2^53).
        const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
        let len = _mm_cvt_roundu64_sd::<NEAREST>(_mm_setzero_pd(), array_len as u64);
        // 1 / (8 len): 1/8 is exact, so this is 1/bits rounded once.
        let inverse =
            _mm512_div_round_pd::<NEAREST>(_mm512_set1_pd(0.125), _mm512_broadcastsd_pd(len));
        InversePositions {
            len: _mm512_set1_epi64(array_len as i64),
            inverse,
        }
    }

    /// The byte and the bit in it of each lane's probe `h % bits` (h in the low half of each
    /// 64-bit lane; the high half is ignored).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,bmi2")]
    fn of_qwords(&self, h: __m512i) -> (__m512i, __m512i) {
        let two_pow_52 = _mm512_set1_pd(TWO_POW_52);
        // h + 1/2, exactly: h's low 32 bits in the mantissa of 2^52 make 2^52 + h, in one
        // ternary logic operation ((h & low) | 2^52's bits).
        let h_in_mantissa = _mm512_ternarylogic_epi64::<0xea>(
            h,
            _mm512_set1_epi64(0xffff_ffff),
            _mm512_castpd_si512(two_pow_52),
        );
        let h_and_half = _mm512_sub_pd(
            _mm512_castsi512_pd(h_in_mantissa),
            _mm512_set1_pd(TWO_POW_52 - 0.5),
        );
        // 2^52 + q, rounded down: q in the mantissa's low bits, where the multiply reads it.
        let q = _mm512_castpd_si512(_mm512_fmadd_round_pd::<
            { _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC },
        >(h_and_half, self.inverse, two_pow_52));
        let a = _mm512_and_si512(_mm512_srli_epi64::<3>(h), _mm512_set1_epi64((1 << 29) - 1));
        let byte = _mm512_sub_epi64(a, _mm512_mul_epu32(q, self.len));
        (byte, _mm512_and_si512(h, _mm512_set1_epi64(7)))
    }
}
