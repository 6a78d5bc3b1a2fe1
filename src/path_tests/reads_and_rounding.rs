//! Queries that must read nothing outside the filter, and answer alike in every rounding mode.

use super::*;

/// The same queries with the filter against unreadable pages, right after its last byte or right
/// before its first: a read outside the filter would crash this test.
#[cfg(unix)]
#[test]
fn queries_read_nothing_outside_the_filter() {
    use libc::{_SC_PAGESIZE, mmap, mprotect, munmap, sysconf};
    use libc::{MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, PROT_NONE, PROT_READ, PROT_WRITE};
    // SAFETY: sysconf only reads a setting.
    let page = usize::try_from(unsafe { sysconf(_SC_PAGESIZE) }).expect("the page size");

    // [unreadable page][filter page][unreadable page]
    // SAFETY: a fresh private mapping; the middle page stays readable and writable, and the slices
    // below live only while it is mapped.
    let pages = unsafe {
        mmap(
            std::ptr::null_mut(),
            3 * page,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    assert_ne!(pages, MAP_FAILED, "mmap");
    let middle = pages.cast::<u8>().wrapping_add(page);
    // SAFETY: the first and last pages of the mapping.
    unsafe {
        assert_eq!(mprotect(pages, page, PROT_NONE), 0, "mprotect");
        assert_eq!(
            mprotect(middle.add(page).cast(), page, PROT_NONE),
            0,
            "mprotect"
        );
    }
    let mut rng = Rng(7);
    let absent: Vec<Vec<u8>> = (0..1000).map(|i| rng.key(16 + i % 9)).collect();
    // Bit arrays of 1, 100, 263 and 1250 bytes: both register sizes and memory.
    for num_keys in [0, 80, 210, 1000] {
        let keys: Vec<Vec<u8>> = (0..num_keys).map(|i| rng.key(16 + i % 9)).collect();
        let keys = as_slices(&keys);
        let filter = scalar_filter(10, &keys);
        let mut probes = keys.clone();
        probes.extend(as_slices(&absent));
        for start in [0, page - filter.len()] {
            // SAFETY: `start..start + filter.len()` lies within the middle page.
            let placed = unsafe { std::slice::from_raw_parts_mut(middle.add(start), filter.len()) };
            placed.copy_from_slice(&filter);
            check_answers(placed, &probes);
        }
    }
    // SAFETY: the mapping made above; no slice of it is used after this.
    assert_eq!(unsafe { munmap(pages, 3 * page) }, 0, "munmap");
}

/// The same answers whatever floating-point mode the caller has set: the AVX-512 single query of
/// a filter past 256 bytes computes its positions in floating point (avx512::InversePositions).
#[cfg(target_arch = "x86_64")]
#[test]
fn answers_under_every_rounding_mode() {
    fn mxcsr() -> u32 {
        let mut value = 0u32;
        // SAFETY: stores the thread's MXCSR into `value`.
        unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack)) };
        value
    }
    fn set_mxcsr(value: u32) {
        // SAFETY: loads a valid MXCSR (all exceptions masked), for this thread only.
        unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack)) };
    }
    let mut rng = Rng(8);
    let keys: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(i % 40)).collect();
    let absent: Vec<Vec<u8>> = (0..3000).map(|i| rng.key(i % 40)).collect();
    let mut probes = as_slices(&keys);
    probes.extend(as_slices(&absent));
    // Bit arrays of 125 and 3750 bytes: one in registers, one in memory.
    let filters = [100, 3000].map(|n| scalar_filter(10, &as_slices(&keys[..n])));
    let saved = mxcsr();
    // Round to nearest, down, up and towards zero; then with denormals flushed and read as zero.
    for mode in [0, 1, 2, 3].map(|rc| (saved & !0x6000) | rc << 13) {
        for mode in [mode, mode | 0x8040] {
            set_mxcsr(mode);
            for filter in &filters {
                check_answers(filter, &probes);
            }
            set_mxcsr(saved);
        }
    }
}
