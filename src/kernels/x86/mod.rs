//! The x86-64 kernels: AVX2 and AVX-512, and the portable single query for BMI2, each compiled
//! for its CPU features and run only where they were detected.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod bmi2;
pub(crate) mod features;
