//! The CPU features of each x86 kernel set, listed once: the `target_feature` attributes that
//! compile its functions and the run-time detection that lets them run are both made from here.

/// Calls `$then!` with the features of `avx2` or `avx512`, as `[...]`, before its arguments.
macro_rules! features {
    (avx2 => $then:ident!($($args:tt)*)) => {
        $crate::kernels::x86::features::$then! { ["avx2"] $($args)* }
    };
    // The portable single query compiled for `mulx`, `shrx` and `rorx` (kernels/x86/bmi2.rs).
    (bmi2 => $then:ident!($($args:tt)*)) => {
        $crate::kernels::x86::features::$then! { ["bmi2"] $($args)* }
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

/// Whether the running CPU has every listed feature, and the system saves its registers.
macro_rules! detected {
    ([$($feature:tt),*]) => {
        $($crate::kernels::x86::features::supported(
            std::arch::is_x86_feature_detected!($feature),
            concat!("hw.optional.", $feature, "\0"),
        ))&&*
    };
}

/// Whether a feature can be used: what `is_x86_feature_detected!` says of it (`detected`), except
/// for AVX-512's on macOS. There the kernel enables AVX-512's registers for a thread when it
/// first runs an AVX-512 instruction (trapping it, then running it again), so the standard
/// library, which reads what is enabled in XCR0, says no until then, and yes after even on
/// macOS before 12.2, whose context switches could lose the mask registers (k0-k7) of such a
/// thread. What counts there is the system's own word, `sysctl` (`hw.optional.<feature>`,
/// NUL-terminated), on macOS 12.2 or later.
#[inline]
pub(crate) fn supported(detected: bool, sysctl: &str) -> bool {
    #[cfg(target_os = "macos")]
    if sysctl.starts_with("hw.optional.avx512") {
        return macos::avx512_supported(sysctl);
    }
    let _ = sysctl;
    detected
}

/// Whether the CPU's cores are AMD's (vendor "AuthenticAMD", or Hygon's "HygonGenuine", whose
/// cores are AMD's Zen), which some kernel choices depend on (`Isa::single_query_kernel`,
/// src/dispatch.rs).
pub(crate) fn amd_cores() -> bool {
    // Leaf 0's vendor string, in EBX, EDX, ECX order.
    let leaf = std::arch::x86_64::__cpuid(0);
    let vendor = [leaf.ebx, leaf.edx, leaf.ecx].map(u32::to_le_bytes);
    vendor == [*b"Auth", *b"enti", *b"cAMD"] || vendor == [*b"Hygo", *b"nGen", *b"uine"]
}

/// AVX-512 on macOS: `sysctl` and the kernel's release.
#[cfg(any(target_os = "macos", test))]
mod macos {
    /// Whether the `sysctl` named `name` (an AVX-512 feature's, NUL-terminated) is 1 and the
    /// kernel saves the mask registers on every context switch.
    #[cfg(target_os = "macos")]
    pub(super) fn avx512_supported(name: &str) -> bool {
        let mut value: libc::c_int = 0;
        let mut size = size_of::<libc::c_int>();
        // SAFETY: `name` is NUL-terminated; `value` is `size` writable bytes; nothing is set.
        let status = unsafe {
            libc::sysctlbyname(
                name.as_ptr().cast(),
                (&raw mut value).cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        status == 0 && value == 1 && saves_masks()
    }

    /// Whether the kernel's release (`kern.osrelease`) is one that saves the mask registers.
    #[cfg(target_os = "macos")]
    fn saves_masks() -> bool {
        let mut release = [0u8; 32];
        let mut size = release.len();
        // SAFETY: a NUL-terminated name; `release` is `size` writable bytes; nothing is set.
        let status = unsafe {
            libc::sysctlbyname(
                c"kern.osrelease".as_ptr(),
                release.as_mut_ptr().cast(),
                &mut size,
                std::ptr::null_mut(),
                0,
            )
        };
        status == 0 && darwin_saves_masks(release.get(..size).unwrap_or_default())
    }

    /// Whether the Darwin release `release` (e.g. "21.3.0") is 21.3, macOS 12.2, or later. No
    /// panic, whatever the bytes: detection runs under the single query's proof that it has none.
    pub(super) fn darwin_saves_masks(release: &[u8]) -> bool {
        let mut numbers = release.split(|byte| *byte == b'.').map(|part| {
            part.iter()
                .take_while(|byte| byte.is_ascii_digit())
                .fold(0u32, |n, digit| {
                    n.saturating_mul(10)
                        .saturating_add(u32::from(digit.wrapping_sub(b'0')))
                })
        });
        let major = numbers.next().unwrap_or(0);
        let minor = numbers.next().unwrap_or(0);
        (major, minor) >= (21, 3)
    }

    #[test]
    fn macos_12_2_and_later_save_the_mask_registers() {
        for (release, saves) in [
            (&b"21.3.0\0"[..], true),
            (b"21.3.0", true),
            (b"24.1.0", true),
            (b"100.0", true),
            (b"21.2.0", false),
            (b"20.6.0", false),
            (b"21", false),
            (b"", false),
            (b"Darwin", false),
            (b"99999999999999999999.9", true),
        ] {
            assert_eq!(darwin_saves_masks(release), saves, "{release:?}");
        }
    }
}

/// The listed features' names, which the Linux kernel's CPU flags use too (for the tests).
#[cfg(all(test, target_os = "linux"))]
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

/// Items compiled for BMI2: callable only where [`detected`] found it.
macro_rules! bmi2 {
    ($($items:tt)*) => {
        $crate::kernels::x86::features::features!(bmi2 => compile_for!($($items)*));
    };
}

/// Items compiled for the AVX-512 kernels' features: callable only where [`detected`] found them.
macro_rules! avx512 {
    ($($items:tt)*) => {
        $crate::kernels::x86::features::features!(avx512 => compile_for!($($items)*));
    };
}

#[cfg(all(test, target_os = "linux"))]
pub(crate) use names;
pub(crate) use {avx2, avx512, bmi2, compile_for, detected, features};
