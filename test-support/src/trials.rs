//! The harness of the test programs whose tests need a tool: libtest cannot decide when a test
//! runs that it is ignored, libtest-mimic can. A test is reported ignored, with the reason, when
//! a tool it needs is missing, and fails instead when CI's variable requires that tool. What a
//! test prints through capture.rs, and its panic, are shown only if it fails (or with
//! --nocapture), as libtest shows a test's output.

use std::panic::{self, AssertUnwindSafe};

use libtest_mimic::{Arguments, Completion, Failed, Trial};

use crate::capture;
use crate::scratch::{self, TmpDir};
use crate::tools::Tool;

/// The test function `test`, registered under its own name, needing the [`Tool`]s named after it:
/// `trial!(differential_against_leveldb, Leveldb)`.
#[macro_export]
macro_rules! trial {
    ($test:ident $(, $tool:ident)* $(,)?) => {
        $crate::trials::trial(
            stringify!($test),
            &[$($crate::tools::Tool::$tool),*],
            $test,
            $crate::tmp_dir!(),
        )
    };
}

/// `test` under `name`, of the test program whose folders `tmp_dir` gives: ignored when a tool
/// of `tools` is missing, failed when a missing one is required, run otherwise. The tools are
/// looked for as the trial too, as fetching one writes in the program's folder (packages.rs).
/// [`trial!`] names a test function; a closure serves a test made for each item of a list.
pub fn trial(
    name: &str,
    tools: &[Tool],
    test: impl FnOnce() + Send + 'static,
    tmp_dir: TmpDir,
) -> Trial {
    let trial_name = name.to_owned();
    let tools = tools.to_vec();
    Trial::ignorable_test(name, move || {
        scratch::as_trial(&trial_name, tmp_dir, || probe_and_run(&tools, test))
    })
}

/// [`trial`]'s body, as the trial.
fn probe_and_run(tools: &[Tool], test: impl FnOnce()) -> Result<Completion, Failed> {
    let missing: Vec<Tool> = tools.iter().copied().filter(|t| !t.is_present()).collect();
    let why = |tool: &Tool| tool.missing().unwrap_or_default();
    let required: Vec<String> = missing
        .iter()
        .filter(|tool| tool.is_required())
        .map(|tool| format!("{}=1 but {}", tool.required_by(), why(tool)))
        .collect();
    if !required.is_empty() {
        return Err(required.join("\n").into());
    }
    if !missing.is_empty() {
        let reasons: Vec<&str> = missing.iter().map(why).collect();
        return Ok(Completion::ignored_with(reasons.join("; ")));
    }
    run_kept(test).map(|()| Completion::Completed)
}

/// Runs `test`, keeping its output, which becomes the failure's message if it panics.
fn run_kept(test: impl FnOnce()) -> Result<(), Failed> {
    // Nothing the test leaves half-done is used after its panic: the panic fails it.
    let (result, output) = capture::keeping(|| panic::catch_unwind(AssertUnwindSafe(test)));
    result.map_err(|_| output.unwrap_or_else(|| "panicked (above)".into()).into())
}

/// Runs `trials` as the command line asks (filters, --list, --nocapture, --test-threads, as
/// libtest), in the order of their names as libtest runs its tests, and exits with libtest's
/// status.
pub fn run(mut trials: Vec<Trial>) -> ! {
    trials.sort_by(|a, b| a.name().cmp(b.name()));
    let args = Arguments::from_args();
    capture::set_capture(!args.nocapture);
    let default_hook = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !capture::keep(&format!("{info}\n")) {
            default_hook(info);
        }
    }));
    libtest_mimic::run(&args, trials).exit()
}
