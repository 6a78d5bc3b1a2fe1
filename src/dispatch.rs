//! Which kernels run: the instruction set chosen once per process ([`Isa`]: the best the CPU
//! has, lowered by `LEVELDB_BLOOM_ISA` if set), and one `match` per operation that hands it to
//! the portable, AVX2 or AVX-512 kernel, all of one signature.

use std::ffi::{CStr, c_char};
use std::sync::atomic::{AtomicU8, Ordering};

use crate::format::parse;
use crate::kernels::keys::Keys;
use crate::kernels::portable;
use crate::kernels::positions::ProbePositions;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86::{avx2, avx512, bmi2};

/// Which kernels run. Get one from [`Isa::best`]; tests also force each available one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Isa {
    /// Plain Rust, for any CPU.
    Portable = 1,
    /// 8 keys at once in AVX2 lanes. Only constructed when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2 = 2,
    /// 16 keys at once in AVX-512 lanes, with byte-masked loads and byte permutes (AVX-512 F,
    /// BW, VL and VBMI, and BMI2: kernels/x86/features.rs). Only constructed when the CPU has
    /// them.
    #[cfg(target_arch = "x86_64")]
    Avx512 = 3,
}

/// [`Isa::best`] as its `u8`, once detected; 0 before.
static BEST: AtomicU8 = AtomicU8::new(0);

/// [`Isa::single_query_kernel`] as its `u8`, stored with [`BEST`]; 0 before. One byte that a
/// single query reads and compares.
static SINGLE: AtomicU8 = AtomicU8::new(0);

/// The environment variable that lowers [`Isa::best`]: one of [`NAMES`].
pub(crate) const OVERRIDE: &CStr = c"LEVELDB_BLOOM_ISA";

/// Every path's name, by its `u8` less one, on any architecture: an override names one, and a
/// name above what this CPU or architecture has still caps the choice.
const NAMES: [&CStr; 3] = [c"portable", c"avx2", c"avx512"];

impl Isa {
    /// The kernels in use: the fastest the CPU running us supports, or, if [`OVERRIDE`] names a
    /// slower path, the fastest not above that one. Chosen once (or, by threads racing to be
    /// first, more than once, alike); an override set later is not read.
    ///
    /// Out of line, so that no code another crate may compile (this is called from generic
    /// public functions) reads [`BEST`]: such a static is exported from the rlib, and every read
    /// of an exported static in this shared library goes through its global offset table, one
    /// load more per single query.
    #[inline(never)]
    pub(crate) fn best() -> Isa {
        Isa::best_detected().unwrap_or_else(|| {
            // getenv, not std::env::var_os, which allocates: the exports must have no path to a
            // panic, and an allocation failure's handler has one.
            // SAFETY: a NUL-terminated name; the value it points to, if any, is read at once.
            let value = unsafe { libc::getenv(OVERRIDE.as_ptr()) };
            // SAFETY: getenv's result, if not NULL, is a NUL-terminated string.
            let cap = (!value.is_null())
                .then(|| unsafe { CStr::from_ptr(value) })
                .and_then(|name| Isa::rank_of(name.to_bytes()));
            // The portable path is always available: the fallback states it without a panic path.
            let best = Isa::available()
                .filter(|isa| cap.is_none_or(|cap| *isa as u8 <= cap))
                .last()
                .unwrap_or(Isa::Portable);
            SINGLE.store(best.single_query_kernel() as u8, Ordering::Relaxed);
            BEST.store(best as u8, Ordering::Relaxed);
            best
        })
    }

    /// The kernel that answers single queries where `self` runs the rest: the fastest one
    /// measured on CPUs of this vendor and vector width, never slower than the portable kernel
    /// there (docs/PERFORMANCE.md, Single query: one kernel per CPU). AVX2's single query waits
    /// on moves between general-purpose and vector registers, which Intel's cores make slow: on
    /// Intel, and on any vendor not measured, the portable kernel takes AVX2's place, compiled
    /// for BMI2 where the CPU has it (every AVX2 CPU of Intel's does).
    fn single_query_kernel(self) -> SingleQuery {
        match self {
            Isa::Portable => SingleQuery::Portable,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if crate::kernels::x86::features::amd_cores() => SingleQuery::Avx2,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if crate::kernels::x86::features::features!(bmi2 => detected!()) => {
                SingleQuery::PortableBmi2
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => SingleQuery::Portable,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => SingleQuery::Avx512,
        }
    }

    /// The `u8` of the path called `name` in [`NAMES`], if any.
    fn rank_of(name: &[u8]) -> Option<u8> {
        (1..)
            .zip(NAMES)
            .find_map(|(rank, known)| (known.to_bytes() == name).then_some(rank))
    }

    /// The path's name as [`OVERRIDE`] takes it: "portable", "avx2" or "avx512".
    pub(crate) fn name(self) -> &'static CStr {
        match self {
            Isa::Portable => NAMES[0],
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => NAMES[1],
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => NAMES[2],
        }
    }

    /// [`Isa::best`] if it has been detected already: a plain load, with no call to keep
    /// registers across.
    #[inline]
    fn best_detected() -> Option<Isa> {
        Isa::from_u8(BEST.load(Ordering::Relaxed))
    }

    #[inline(always)]
    fn from_u8(isa: u8) -> Option<Isa> {
        match isa {
            1 => Some(Isa::Portable),
            #[cfg(target_arch = "x86_64")]
            2 => Some(Isa::Avx2),
            #[cfg(target_arch = "x86_64")]
            3 => Some(Isa::Avx512),
            _ => None,
        }
    }

    /// Every instruction set this CPU can run, slowest first. Without allocating: [`Isa::best`]
    /// is reached from the exports that must have no path to a panic, which an allocation
    /// failure's handler has.
    pub(crate) fn available() -> impl Iterator<Item = Isa> {
        const ALL: &[Isa] = &[
            Isa::Portable,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512,
        ];
        ALL.iter().copied().filter(|isa| isa.is_supported())
    }

    /// Whether the CPU running us can run the kernels of `self`.
    fn is_supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use crate::kernels::x86::features::features;
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => features!(avx2 => detected!()),
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => features!(avx512 => detected!()),
        }
    }

    /// Writes `bloom_hash(keys[i])` to `hashes[i]`, for the tests (the kernels hash a chunk's keys
    /// inside their operations).
    #[cfg(test)]
    pub(crate) fn hash_keys(self, keys: &[&[u8]], hashes: &mut [u32]) {
        match self {
            Isa::Portable => portable::hash_keys(keys, hashes),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::hash_keys(keys, hashes) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::hash_keys(keys, hashes) },
        }
    }

    /// Sets the bits of `keys` in `array` (a filter's bit array, zeroed), `positions` made for it.
    pub(crate) fn fill_bit_array<'k>(
        self,
        positions: &ProbePositions,
        keys: impl Keys<'k>,
        array: &mut [u8],
    ) {
        match self {
            Isa::Portable => portable::fill_bit_array(positions, keys, array),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::fill_bit_array(positions, keys, array) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::fill_bit_array(positions, keys, array) },
        }
    }

    /// Writes whether each of `keys` may match the bit array `array` (with `positions` made for
    /// it) to `results`, one slot per key.
    pub(crate) fn may_match_batch<'k>(
        self,
        positions: &ProbePositions,
        keys: impl Keys<'k>,
        array: &[u8],
        results: &mut [bool],
    ) {
        match self {
            Isa::Portable => portable::may_match_batch(positions, keys, array, results),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2` is only constructed after AVX2 was detected.
            Isa::Avx2 => unsafe { avx2::may_match_batch(positions, keys, array, results) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => unsafe { avx512::may_match_batch(positions, keys, array, results) },
        }
    }

    /// Whether every key of a C caller's two arrays, pointers and lengths, can exist, checked
    /// with this path's vector instructions; None where it has none for it.
    #[inline]
    pub(crate) fn arrays_valid(
        self,
        pointers: &[*const c_char],
        lengths: &[usize],
    ) -> Option<bool> {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => Some(unsafe { avx512::entries::arrays_valid(pointers, lengths) }),
            _ => {
                let _ = (pointers, lengths);
                None
            }
        }
    }

    /// [`Isa::arrays_valid`] for one array of (pointer, length) pairs.
    #[inline]
    pub(crate) fn pairs_valid(self, pairs: &[[usize; 2]]) -> Option<bool> {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is only constructed after its features were detected.
            Isa::Avx512 => Some(unsafe { avx512::entries::pairs_valid(pairs) }),
            _ => {
                let _ = pairs;
                None
            }
        }
    }
}

/// The kernels that answer single queries ([`Isa::single_query_kernel`] picks one per path).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum SingleQuery {
    /// Plain Rust, for any CPU.
    Portable = 1,
    /// The portable kernel compiled for BMI2. Only constructed when the CPU has BMI2.
    #[cfg(target_arch = "x86_64")]
    PortableBmi2 = 2,
    /// AVX2's. Only constructed when the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2 = 3,
    /// AVX-512's. Only constructed when the CPU has the AVX-512 path's features.
    #[cfg(target_arch = "x86_64")]
    Avx512 = 4,
}

impl SingleQuery {
    /// Every kernel the CPU running us can run (the tests run each).
    #[cfg(test)]
    pub(crate) fn available() -> impl Iterator<Item = SingleQuery> {
        const ALL: &[SingleQuery] = &[
            SingleQuery::Portable,
            #[cfg(target_arch = "x86_64")]
            SingleQuery::PortableBmi2,
            #[cfg(target_arch = "x86_64")]
            SingleQuery::Avx2,
            #[cfg(target_arch = "x86_64")]
            SingleQuery::Avx512,
        ];
        ALL.iter().copied().filter(|kernel| kernel.is_supported())
    }

    /// Whether the CPU running us can run `self`.
    #[cfg(test)]
    fn is_supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        use crate::kernels::x86::features::features;
        match self {
            SingleQuery::Portable => true,
            #[cfg(target_arch = "x86_64")]
            SingleQuery::PortableBmi2 => features!(bmi2 => detected!()),
            #[cfg(target_arch = "x86_64")]
            SingleQuery::Avx2 => Isa::Avx2.is_supported(),
            #[cfg(target_arch = "x86_64")]
            SingleQuery::Avx512 => Isa::Avx512.is_supported(),
        }
    }

    #[inline(always)]
    fn from_u8(kernel: u8) -> Option<SingleQuery> {
        match kernel {
            1 => Some(SingleQuery::Portable),
            #[cfg(target_arch = "x86_64")]
            2 => Some(SingleQuery::PortableBmi2),
            #[cfg(target_arch = "x86_64")]
            3 => Some(SingleQuery::Avx2),
            #[cfg(target_arch = "x86_64")]
            4 => Some(SingleQuery::Avx512),
            _ => None,
        }
    }

    /// leveldb's `KeyMayMatch` for one key on this kernel, as 0 or 1.
    #[inline(always)]
    pub(crate) fn may_match(self, key: &[u8], filter: &[u8]) -> u8 {
        match parse(filter) {
            Ok((array, k)) => self.may_match_array(key, array, k),
            Err(answer) => answer.into(),
        }
    }

    /// [`SingleQuery::may_match`] for a bit array and k (framing already checked). Every kernel
    /// is a C-ABI function with no path to a panic, reached by a tail jump (see
    /// [`crate::no_unwind::single_query`]).
    #[inline(always)]
    fn may_match_array(self, key: &[u8], array: &[u8], k: u8) -> u8 {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `SingleQuery::Avx512` is only constructed after its features were detected.
            SingleQuery::Avx512 => unsafe { avx512::single::may_match_c_abi(k.into(), key, array) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `SingleQuery::Avx2` is only constructed after AVX2 was detected.
            SingleQuery::Avx2 => unsafe { avx2::may_match_c_abi(k.into(), key, array) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `SingleQuery::PortableBmi2` is only constructed after BMI2 was detected.
            SingleQuery::PortableBmi2 => unsafe { bmi2::may_match_c_abi(k.into(), key, array) },
            SingleQuery::Portable => portable::may_match_c_abi(k.into(), key, array),
        }
    }
}

/// leveldb's `KeyMayMatch` for one key on the single-query kernel chosen for this CPU
/// ([`Isa::single_query_kernel`]), as 0 or 1; None before detection, which the caller does
/// another way. Its filter is parsed once, and the kernel reached by a tail jump.
#[inline(always)]
pub(crate) fn single_query(key: &[u8], filter: &[u8]) -> Option<u8> {
    // AVX-512's kernel, the fastest, tested first by a load of its own: the compiler would
    // fold one test of a single load into a `match` that reaches AVX-512 last.
    #[cfg(target_arch = "x86_64")]
    if SINGLE.load(Ordering::Relaxed) == SingleQuery::Avx512 as u8 {
        return Some(SingleQuery::Avx512.may_match(key, filter));
    }
    let kernel = SingleQuery::from_u8(SINGLE.load(Ordering::Relaxed))?;
    Some(kernel.may_match(key, filter))
}

/// [`single_query`] whatever the state of detection (it detects), and for any filter.
#[inline]
pub(crate) fn single_query_detecting(key: &[u8], filter: &[u8]) -> u8 {
    Isa::best().single_query_kernel().may_match(key, filter)
}
