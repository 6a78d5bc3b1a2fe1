//! AddressSanitizer + UndefinedBehaviorSanitizer as the C tests (tests/sanitizers.rs) and the
//! shim (tests/shim.rs) are built and run under them.

use std::process::Command;

/// Compiler flags: every error stops the program, and stack traces stay readable.
pub const FLAGS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
];

/// Sets the runtime options on `cmd`: leak detection on, strict string checks, UBSan stopping at
/// its first report with a stack trace; `extra_asan` adds to ASAN_OPTIONS ("" for nothing).
pub fn set_options(cmd: &mut Command, extra_asan: &str) {
    cmd.env(
        "ASAN_OPTIONS",
        format!("detect_leaks=1:strict_string_checks=1{extra_asan}"),
    )
    .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1");
}
