//! A test's output, kept until it ends as libtest keeps it: what a test prints through [`print`]
//! and [`eprint`] (the programs it runs, through process.rs) is shown only if it fails, or at
//! once with --nocapture. The harness (trials.rs) turns keeping on and hands what was kept to a
//! failure.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether a test's output is kept until it ends (no --nocapture).
static CAPTURE: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// What the test running on this thread printed, while its output is kept.
    static OUTPUT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Keeps each test's output from now on, or prints it at once (--nocapture).
pub(crate) fn set_capture(capture: bool) {
    CAPTURE.store(capture, Ordering::Relaxed);
}

/// Runs `test` on this thread, keeping what it prints if output is kept: its result, and what it
/// printed (None when output is not kept).
pub(crate) fn keeping<T>(test: impl FnOnce() -> T) -> (T, Option<String>) {
    if CAPTURE.load(Ordering::Relaxed) {
        OUTPUT.set(Some(String::new()));
    }
    let result = test();
    (result, OUTPUT.take())
}

/// Appends `text` to the output kept for the test on this thread; false when none is kept.
pub(crate) fn keep(text: &str) -> bool {
    OUTPUT.with_borrow_mut(|kept| kept.as_mut().map(|kept| kept.push_str(text)).is_some())
}

/// Prints `text` (what a program run by a test wrote) to the test's output.
pub fn print(text: &str) {
    if !keep(text) {
        print!("{text}");
    }
}

/// [`print`], to standard error when the output is not kept.
pub fn eprint(text: &str) {
    if !keep(text) {
        eprint!("{text}");
    }
}
