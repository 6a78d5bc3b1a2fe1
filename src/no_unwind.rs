//! The single query for callers that cannot unwind: the C entries, whose `ffi_boundary!` needs no
//! landing pad around it, and [`crate::key_may_match`]. It calls only C-ABI functions, from which
//! no call can unwind: the kernels of each path, and a function for every other case, all with no
//! path to a panic.

#[cfg(doc)]
use crate::cannot_panic::CannotPanic;
use crate::dispatch;

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

/// leveldb's `KeyMayMatch` for one key on the single-query kernel chosen for this CPU, as 0 or
/// 1, for the C entries and [`crate::key_may_match`]. It calls only C-ABI functions, from which
/// no call can unwind: each kernel and [`single_query_otherwise`], all with no path to a panic
/// ([`CannotPanic`]). So the C entry's `ffi_boundary!` needs no landing pad around this, and the
/// C entry reaches each kernel by a tail jump, without a stack frame of its own; `k` comes first
/// in the kernels' signature so that the key and filter stay in the registers they arrive in.
#[inline(always)]
pub(crate) fn single_query(key: &[u8], filter: &[u8]) -> u8 {
    match dispatch::single_query(key, filter) {
        Some(answer) => answer,
        None => single_query_otherwise(key, filter),
    }
}

/// [`single_query`] before the path is detected (once per process). Apart, so that the
/// kernels' paths stay short and make no call that would need the key and filter saved across
/// it. It has no path to a panic either, as the exports the C++ shim calls must not (see
/// [`ffi_boundary_cannot_panic!`]).
#[inline(never)]
#[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
extern "C" fn single_query_otherwise(key: &[u8], filter: &[u8]) -> u8 {
    ffi_boundary_cannot_panic!(1, { dispatch::single_query_detecting(key, filter) })
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
