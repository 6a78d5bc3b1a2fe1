//! The CPU features of each x86 kernel set, listed once: the `target_feature` attributes that
//! compile its functions and the run-time detection that lets them run are both made from here.

/// Calls `$then!` with the features of `avx2` or `avx512`, as `[...]`, before its arguments.
macro_rules! features {
    (avx2 => $then:ident!($($args:tt)*)) => {
        $crate::kernels::x86::features::$then! { ["avx2"] $($args)* }
    };
    // Byte-masked loads and byte permutes need BW and VBMI beside F and VL; `bzhi` makes the masks.
    (avx512 => $then:ident!($($args:tt)*)) => {
        $crate::kernels::x86::features::$then! {
            ["avx512f", "avx512bw", "avx512vl", "avx512vbmi", "bmi2"] $($args)*
        }
    };
}

/// Compiles each item for the listed features.
macro_rules! compile_for {
    ([$($feature:tt),*]) => {};
    ([$($feature:tt),*] $item:item $($rest:item)*) => {
        $(#[target_feature(enable = $feature)])*
        $item
        $crate::kernels::x86::features::compile_for! { [$($feature),*] $($rest)* }
    };
}

/// Whether the running CPU has every listed feature.
macro_rules! detected {
    ([$($feature:tt),*]) => {
        $(std::arch::is_x86_feature_detected!($feature))&&*
    };
}

/// The listed features' names, which the Linux kernel's CPU flags use too (for the tests).
#[cfg(test)]
macro_rules! names {
    ([$($feature:tt),*]) => {
        [$($feature),*]
    };
}

/// Items compiled for the AVX2 kernels' features: callable only where [`detected`] found them.
macro_rules! avx2 {
    ($($items:tt)*) => {
        $crate::kernels::x86::features::features!(avx2 => compile_for!($($items)*));
    };
}

/// Items compiled for the AVX-512 kernels' features: callable only where [`detected`] found them.
macro_rules! avx512 {
    ($($items:tt)*) => {
        $crate::kernels::x86::features::features!(avx512 => compile_for!($($items)*));
    };
}

#[cfg(test)]
pub(crate) use names;
pub(crate) use {avx2, avx512, compile_for, detected, features};
