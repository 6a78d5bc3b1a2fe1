//! Proof, at link time, that code has no path to a panic: for the C-ABI functions that calls
//! cannot unwind from, where a panic would abort the process instead of reaching the C entry's
//! `ffi_boundary!`.

/// Proof that a function has no path to a panic. Made at the function's start and ended by
/// [`CannotPanic::holds`] at its end, it is dropped only by a panic in between; with cfg
/// `prove_no_panic` (build.rs: CI's optimized builds) its `drop` calls a function defined
/// nowhere, so if any such path is left, a program linked with the build fails to link and the
/// shared library to load, naming that function.
pub(crate) struct CannotPanic;

impl CannotPanic {
    #[inline(always)]
    #[allow(clippy::forget_non_drop)] // It has a `Drop` only with cfg `prove_no_panic`.
    pub(crate) fn holds(self) {
        std::mem::forget(self);
    }
}

#[cfg(all(prove_no_panic, not(debug_assertions)))]
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
