//! `LEVELDB_BLOOM_ISA`: each value in a child process of its own (the choice is made once per
//! process), which reports the path in use through the Rust API and the C ABI.

use std::ffi::CStr;

use leveldb_bloom_test_support::isa::target_command;

use super::isas;
use crate::dispatch::{Isa, OVERRIDE};
use crate::ffi::leveldb_bloom_isa;
use crate::policy::{BloomPolicy, isa};

/// Set in a child: what it runs for (the name of the test that spawned it).
const CHILD: &str = "LEVELDB_BLOOM_ISA_TEST_CHILD";

/// The path a child reports with `value` as the override (None: unset).
fn path_in_child(value: Option<&str>) -> String {
    let mut child = target_command(&std::env::current_exe().expect("the test binary"));
    child
        .args([
            "--exact",
            "path_tests::isa_override::report_path",
            "--nocapture",
        ])
        .args(["--test-threads", "1"])
        .env(CHILD, "1");
    match value {
        Some(value) => child.env(override_name(), value),
        None => child.env_remove(override_name()),
    };
    let output = child.output().expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{value:?} ({}): {stdout}",
        output.status
    );
    // The test harness prints the test's name on the same line, before it.
    let reported = stdout
        .split("path in use: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("{value:?}: no path reported in {stdout}"));
    reported.to_string()
}

/// In a child only: builds and queries a filter, then prints the path the Rust API and the C ABI
/// name, which must agree.
#[test]
fn report_path() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let keys: Vec<[u8; 4]> = (0u32..1000).map(u32::to_le_bytes).collect();
    let policy = BloomPolicy::new(10);
    let mut filter = Vec::new();
    policy.create_filter(&keys, &mut filter);
    let mut answers = vec![false; keys.len()];
    policy.key_may_match_batch(&keys, &filter, &mut answers);
    assert!(answers.iter().all(|answer| *answer));
    assert!(keys.iter().all(|key| policy.key_may_match(key, &filter)));
    // SAFETY: a pointer to a NUL-terminated string in static storage.
    let c_name = unsafe { CStr::from_ptr(leveldb_bloom_isa()) };
    assert_eq!(c_name.to_str(), Ok(isa()));
    println!("path in use: {}", isa());
}

fn override_name() -> &'static str {
    OVERRIDE.to_str().expect("ASCII")
}

fn name(isa: Isa) -> &'static str {
    isa.name().to_str().expect("ASCII")
}

#[test]
fn unset_or_unknown_runs_the_best_path() {
    let best = name(*isas().last().expect("the portable path"));
    for value in [
        None,
        Some(""),
        Some("AVX2"),
        Some("avx2 "),
        Some("sse4"),
        Some("avx512f"),
        Some("none"),
    ] {
        assert_eq!(path_in_child(value), best, "{}={value:?}", override_name());
    }
}

#[test]
fn each_path_this_cpu_has_can_be_chosen() {
    for isa in isas() {
        assert_eq!(path_in_child(Some(name(isa))), name(isa));
    }
}

#[test]
fn a_path_above_the_cpu_lowers_to_the_best_below_it() {
    let available = isas();
    for (rank, requested) in (1u8..).zip(["portable", "avx2", "avx512"]) {
        let expected = available
            .iter()
            .rfind(|isa| **isa as u8 <= rank)
            .expect("the portable path is below every other");
        assert_eq!(
            path_in_child(Some(requested)),
            name(*expected),
            "{}={requested}",
            override_name()
        );
    }
}
