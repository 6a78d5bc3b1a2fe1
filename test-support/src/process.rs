//! Running the programs a test starts (compilers, CMake, test programs): their output goes to
//! the test's (shown if it fails), and a failure names the command and how it ended, its exit
//! status or the signal that killed it by name ("signal: 11 (SIGSEGV)", as `ExitStatus`
//! displays it). What looks for or fetches a tool before a test starts runs its programs
//! [`quietly`].

use std::process::{Command, Output};

use crate::capture;

/// Runs `cmd` to its end and prints its output to the test's.
pub fn output(cmd: &mut Command) -> Output {
    let result = cmd.output();
    printed(cmd, result)
}

/// What `cmd` ended with, `result` (its `Command::output`, on another thread say), its output
/// printed to the test's on this thread, as [`output`] prints it.
pub fn printed(cmd: &Command, result: std::io::Result<Output>) -> Output {
    let output = result.unwrap_or_else(|e| panic!("{cmd:?} could not start: {e}"));
    capture::print(&String::from_utf8_lossy(&output.stdout));
    capture::eprint(&String::from_utf8_lossy(&output.stderr));
    output
}

/// Requires that `cmd` succeeded, by its `output`.
pub fn check(cmd: &Command, output: &Output) {
    assert!(output.status.success(), "{cmd:?} failed: {}", output.status);
}

/// Runs `cmd` ([`output`]) and requires success; returns its standard output and error.
pub fn run_with_errors(cmd: &mut Command) -> (String, String) {
    let output = output(cmd);
    check(cmd, &output);
    let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
    (text(output.stdout), text(output.stderr))
}

/// Runs `cmd` ([`output`]) and requires success; returns its standard output.
pub fn run(cmd: &mut Command) -> String {
    run_with_errors(cmd).0
}

/// Runs `cmd` to its end with its output discarded: an error naming it, how it ended and the
/// last lines of its errors when it cannot start or fails.
pub fn quietly(cmd: &mut Command) -> Result<(), String> {
    let output = cmd
        .output()
        .map_err(|e| format!("{cmd:?} could not start: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let errors = String::from_utf8_lossy(&output.stderr);
    let last: Vec<&str> = errors.lines().rev().take(5).collect();
    let tail: Vec<&str> = last.into_iter().rev().collect();
    Err(format!(
        "{cmd:?} failed ({}): {}",
        output.status,
        tail.join(" / ")
    ))
}
