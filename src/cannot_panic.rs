//! Proof, at link time, that code has no path to a panic: for the C-ABI functions that calls
//! cannot unwind from, and for the exports the C++ shim calls, whose panic-free code lets a
//! program that links them leave out the standard library's panic machinery.

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

    /// Runs `body` under the proof: for a body with several ways out, each of which must end it.
    /// For the exports of the shim's core (see `ffi_boundary_cannot_panic!`, src/no_unwind.rs).
    #[cfg(one_unit)]
    #[inline(always)]
    pub(crate) fn around<T>(body: impl FnOnce() -> T) -> T {
        let proof = CannotPanic;
        let value = body();
        proof.holds();
        value
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
