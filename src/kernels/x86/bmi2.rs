//! The portable single query compiled for BMI2: the same code, its 128-bit products by `mulx`
//! (any registers, no flags) and its shifts and rotates by `shrx` and `rorx`, so fewer
//! instructions per query. Intel's AVX2 path answers single queries with it (src/dispatch.rs).

use crate::kernels::portable::single_answer;
use crate::kernels::x86::features::bmi2;

bmi2!(
    /// [`single_answer`] compiled for BMI2, as a C-ABI function with no path to a panic, for the
    /// C entries' tail jump (see [`crate::no_unwind::single_query`]).
    ///
    /// # Safety
    /// The CPU must support BMI2.
    #[inline]
    #[allow(improper_ctypes_definitions)] // Called from Rust only; C-ABI so that it cannot unwind.
    pub(crate) unsafe extern "C" fn may_match_c_abi(k: u32, key: &[u8], array: &[u8]) -> u8 {
        single_answer(k, key, array)
    }
);
