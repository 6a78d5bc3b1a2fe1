//! The single query for callers that cannot unwind: the C entries, whose `ffi_boundary!` needs no
//! landing pad around it, and [`crate::key_may_match`]. It calls only C-ABI functions, from which
//! no call can unwind: the kernels of each path, and a function for every other case, all with no
//! path to a panic.

#[cfg(doc)]
use crate::cannot_panic::CannotPanic;
use crate::dispatch::Isa;
#[cfg(target_arch = "x86_64")]
use crate::dispatch::may_match_c_abi;
use crate::format::parse;
use crate::kernels::portable;
#[cfg(target_arch = "x86_64")]
use crate::kernels::x86::avx2;

/// Runs an export's body and turns a panic into the export's documented error result. Internal
/// C-ABI functions use it too ([`single_query_otherwise`]), as no panic may unwind out of one
/// either.
macro_rules! ffi_boundary {
    ($on_panic:expr, $body:block) => {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| $body)).unwrap_or($on_panic)
    };
}
pub(crate) use ffi_boundary;

/// [`ffi_boundary!`] around a body with no path to a panic: the exports the C++ shim calls, so
/// that a program linking them leaves the standard library's panic machinery out. The boundary
/// stays for builds without the proof (unoptimized ones check arithmetic for overflow); with
/// nothing inside that can unwind, it costs nothing.
///
/// [`CannotPanic`] proves it where the crate is compiled as one unit (cfg `one_unit`, build.rs:
/// CMake's `shim-core` builds, fat LTO): split into codegen units, a call to another unit is
/// taken to possibly unwind.
#[cfg(one_unit)]
macro_rules! ffi_boundary_cannot_panic {
    ($on_panic:expr, $body:block) => {
        $crate::no_unwind::ffi_boundary!($on_panic, {
            $crate::cannot_panic::CannotPanic::around(|| $body)
        })
    };
}
#[cfg(not(one_unit))]
macro_rules! ffi_boundary_cannot_panic {
    ($on_panic:expr, $body:block) => {
        $crate::no_unwind::ffi_boundary!($on_panic, $body)
    };
}
pub(crate) use ffi_boundary_cannot_panic;

/// leveldb's `KeyMayMatch` for one key on the best kernel, as 0 or 1, for the C entries and
/// [`crate::key_may_match`]. It calls only C-ABI functions, from which no call can unwind: each
/// path's kernel and [`single_query_otherwise`], all with no path to a panic ([`CannotPanic`]).
/// So the C entry's `ffi_boundary!` needs no landing pad around this, and the C entry reaches
/// each kernel by a tail jump, without a stack frame of its own; `k` comes first in the kernels'
/// signature so that the key and filter stay in the registers they arrive in.
#[inline(always)]
pub(crate) fn single_query(key: &[u8], filter: &[u8]) -> u8 {
    // Filters without a bit array or with a reserved k go the other way too: answered here, their
    // constant answer was set in the return register before the branch, on the query's path.
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx512.is_best_detected()
        && let Ok((array, k)) = parse(filter)
    {
        // SAFETY: `Isa::Avx512` is only detected on a CPU with its features.
        return unsafe { may_match_c_abi(k.into(), key, array) };
    }
    // The other paths after the AVX-512 one, which they leave as short as it was.
    if Isa::best_is_detected()
        && let Ok((array, k)) = parse(filter)
    {
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.is_best_detected() {
            // SAFETY: `Isa::Avx2` is only detected on a CPU with AVX2.
            return unsafe { avx2::may_match_c_abi(k.into(), key, array) };
        }
        return portable::may_match_c_abi(k.into(), key, array);
    }
    single_query_otherwise(key, filter)
}

/// [`single_query`] where no kernel is reached directly: before the path is detected (once per
/// process), and for filters without a bit array or with a reserved k. Apart, so that the
/// kernels' paths stay as short as they are and make no call that would need the key and filter
/// saved across it. It has no path to a panic either, as the exports the C++ shim calls must not
/// (see [`ffi_boundary_cannot_panic!`]).
#[inline(never)]
#[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
extern "C" fn single_query_otherwise(key: &[u8], filter: &[u8]) -> u8 {
    ffi_boundary_cannot_panic!(1, { Isa::best().may_match(key, filter).into() })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_boundary_turns_a_panic_into_the_documented_result() {
        let answer: u8 = ffi_boundary!(1, {
            if answer_is_computed() {
                panic!("a bug inside an export");
            }
            0
        });
        assert_eq!(answer, 1);
    }

    fn answer_is_computed() -> bool {
        true
    }
}
