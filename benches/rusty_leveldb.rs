//! `cargo bench --features rusty-leveldb --bench rusty_leveldb [block] [1M] [db]`: rusty-leveldb's
//! own `BloomPolicy` against this library's, both through rusty-leveldb's `FilterPolicy` trait as
//! rusty-leveldb calls it (a `dyn FilterPolicy`), interleaved in one process, which goes first
//! alternating, best of several runs (docs/PERFORMANCE.md, rusty-leveldb):
//!
//! - `block`: 2,000 filters of 100 keys (16 to 24 bytes, end to end as rusty-leveldb passes
//!   them), built, then 100 single queries each (rusty-leveldb has no batch), half present;
//! - `1M`: one filter of 2^20 keys, built, then 2^20 single queries, half present;
//! - `db`: a rusty-leveldb database in memory with each policy: 200,000 puts (with the
//!   compactions that build the tables' filters), then gets of every key, then of as many absent.
//!
//! Every filter and answer of the two is compared. Prints the CPU, the path this library runs and
//! the load average before and after. `--policy=rusty-leveldb|leveldb-bloom` runs one policy,
//! `--runs=N` takes the best of N runs: for instruction counts under callgrind.

use std::hint::black_box;
use std::rc::Rc;
use std::time::{Duration, Instant};

use leveldb_bloom_test_support::random::random_strings;
use rusty_leveldb::{DB, FilterPolicy};

type Policy = (&'static str, Rc<Box<dyn FilterPolicy>>);

/// The two policies, in the order of the table's columns; with `--policy=NAME`, only that one
/// (for a run under callgrind).
fn policies() -> Vec<Policy> {
    let policies: [Policy; 2] = [
        (
            "rusty-leveldb",
            Rc::new(Box::new(rusty_leveldb::BloomPolicy::new(10))),
        ),
        (
            "leveldb-bloom",
            Rc::new(Box::new(leveldb_bloom::BloomPolicy::new(10))),
        ),
    ];
    let only = option("--policy=");
    policies
        .into_iter()
        .filter(|(name, _)| only.as_ref().is_none_or(|only| only == name))
        .collect()
}

/// The value of the command line's `NAME=VALUE` for `prefix` `NAME=`.
fn option(prefix: &str) -> Option<String> {
    std::env::args().find_map(|a| a.strip_prefix(prefix).map(str::to_owned))
}

/// How many runs to take the best of: `default`, or `--runs=N` (1 under callgrind).
fn runs(default: usize) -> usize {
    option("--runs=").map_or(default, |n| n.parse().expect("--runs=N"))
}

/// Runs `run` with each policy `runs` times, interleaved, which goes first alternating; returns
/// each policy's best time and the result of its last run.
fn best_of<T>(runs: usize, mut run: impl FnMut(&dyn FilterPolicy) -> T) -> Vec<(Duration, T)> {
    let policies = policies();
    let mut best: Vec<(Duration, Option<T>)> =
        policies.iter().map(|_| (Duration::MAX, None)).collect();
    for r in 0..runs {
        for i in (0..policies.len()).map(|i| (i + r) % policies.len()) {
            let start = Instant::now();
            let result = run(&**policies[i].1);
            let elapsed = start.elapsed();
            best[i].0 = best[i].0.min(elapsed);
            best[i].1 = Some(result);
        }
    }
    best.into_iter()
        .map(|(time, result)| (time, result.expect("every policy ran")))
        .collect()
}

/// One row: ns per key of each policy run, and ours' speedup when both ran.
fn row(name: &str, keys: usize, best: &[Duration]) {
    let ns: Vec<f64> = best
        .iter()
        .map(|d| d.as_nanos() as f64 / keys as f64)
        .collect();
    let cells: Vec<String> = ns.iter().map(|ns| format!("{ns:.2}")).collect();
    let speedup = match ns[..] {
        [theirs, ours] => format!("{:.2}x", theirs / ours),
        _ => "-".into(),
    };
    println!("| {name} | {} | {speedup} |", cells.join(" | "));
}

/// Requires that every policy run gave the same result.
fn agree<T: PartialEq>(what: &str, results: &[(Duration, T)]) {
    assert!(
        results.windows(2).all(|w| w[0].1 == w[1].1),
        "{what}: the policies differ"
    );
}

/// rusty-leveldb's keys end to end, with where each starts.
fn end_to_end(keys: &[Vec<u8>]) -> (Vec<u8>, Vec<usize>) {
    let offsets = keys
        .iter()
        .scan(0, |at, key| {
            let start = *at;
            *at += key.len();
            Some(start)
        })
        .collect();
    (keys.concat(), offsets)
}

/// Half the keys, half absent ones, interleaved.
fn half_present(keys: &[Vec<u8>], seed: u64) -> Vec<Vec<u8>> {
    let absent = random_strings(keys.len(), 16, 24, seed);
    keys.iter()
        .zip(absent)
        .enumerate()
        .map(|(i, (key, other))| if i % 2 == 0 { key.clone() } else { other })
        .collect()
}

/// Builds filters over `sets` (each keys end to end with their offsets), `runs` times each, then
/// answers `queries[i]` against filter i; prints the two rows and checks both policies agree.
fn filters(name: &str, sets: &[(Vec<u8>, Vec<usize>)], queries: &[Vec<Vec<u8>>], runs: usize) {
    let keys: usize = sets.iter().map(|set| set.1.len()).sum();
    let built = best_of(runs, |policy| {
        sets.iter()
            .map(|(bytes, offsets)| policy.create_filter(black_box(bytes), offsets))
            .collect::<Vec<_>>()
    });
    agree(name, &built);
    let times: Vec<Duration> = built.iter().map(|b| b.0).collect();
    row(&format!("{name} build"), keys, &times);

    // Timed, each filter's probes that may match are counted; every answer is compared after.
    let filters = &built[0].1;
    let probes: usize = queries.iter().map(Vec::len).sum();
    let answer = |policy: &dyn FilterPolicy, filter: &[u8], probe: &[u8]| {
        policy.key_may_match(probe, black_box(filter))
    };
    let counted = best_of(runs, |policy| {
        filters
            .iter()
            .zip(queries)
            .map(|(filter, probes)| probes.iter().filter(|p| answer(policy, filter, p)).count())
            .sum::<usize>()
    });
    agree(name, &counted);
    let answers = best_of(1, |policy| {
        filters
            .iter()
            .zip(queries)
            .flat_map(|(filter, probes)| probes.iter().map(|p| answer(policy, filter, p)))
            .collect::<Vec<_>>()
    });
    agree(name, &answers);
    let times: Vec<Duration> = counted.iter().map(|c| c.0).collect();
    row(&format!("{name} query"), probes, &times);
}

fn block() {
    let (blocks, per_block) = (2000, 100);
    let keys = random_strings(blocks * per_block, 16, 24, 1);
    let sets: Vec<_> = keys.chunks(per_block).map(end_to_end).collect();
    let queries: Vec<_> = keys
        .chunks(per_block)
        .enumerate()
        .map(|(i, block)| half_present(block, 1000 + i as u64))
        .collect();
    filters("2,000 filters x 100 keys:", &sets, &queries, runs(21));
}

fn one_million() {
    let keys = random_strings(1 << 20, 16, 24, 2);
    let queries = vec![half_present(&keys, 3)];
    filters("1M keys:", &[end_to_end(&keys)], &queries, runs(7));
}

fn db() {
    let n = 200_000;
    let pairs: Vec<_> = random_strings(n, 16, 24, 4)
        .into_iter()
        .zip(random_strings(n, 100, 100, 5))
        .collect();
    let absent = random_strings(n, 16, 24, 6);
    let policies = policies();
    // Each policy's best put, get and absent-get phases.
    let mut best = vec![[Duration::MAX; 3]; policies.len()];
    for r in 0..runs(5) {
        for i in (0..policies.len()).map(|i| (i + r) % policies.len()) {
            let mut options = rusty_leveldb::in_memory();
            options.filter_policy = policies[i].1.clone();
            let mut db = DB::open("rusty-leveldb-bench-db", options).unwrap();
            let start = Instant::now();
            for (key, value) in &pairs {
                db.put(key, value).unwrap();
            }
            // The memtable into a table (a range that holds no key compacts nothing else).
            db.compact_range(&[], &[]).unwrap();
            let put_end = Instant::now();
            let found = pairs
                .iter()
                .filter(|(key, value)| db.get(key).as_deref() == Some(&value[..]))
                .count();
            let get_end = Instant::now();
            let false_found = absent.iter().filter(|key| db.get(key).is_some()).count();
            let end = Instant::now();
            assert_eq!((found, false_found), (n, 0), "{}", policies[i].0);
            let phases = [put_end - start, get_end - put_end, end - get_end];
            for (best, phase) in best[i].iter_mut().zip(phases) {
                *best = (*best).min(phase);
            }
        }
    }
    let phase = |p: usize| best.iter().map(|b| b[p]).collect::<Vec<_>>();
    row("db: put 200,000 (100-byte values)", n, &phase(0));
    row("db: get, present", n, &phase(1));
    row("db: get, absent", n, &phase(2));
}

/// The CPU's vendor, family, model and name, from /proc/cpuinfo.
fn cpu() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|line| line.split(':').next().is_some_and(|k| k.trim() == name))
            .and_then(|line| line.split(':').nth(1))
            .map_or("?", str::trim)
            .to_owned()
    };
    format!(
        "{} family {} model {} ({})",
        field("vendor_id"),
        field("cpu family"),
        field("model"),
        field("model name")
    )
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let named: Vec<&str> = ["block", "1M", "db"]
        .into_iter()
        .filter(|w| args.iter().any(|a| a == w))
        .collect();
    let all = named.is_empty();
    println!(
        "CPU: {}; leveldb-bloom path: {}",
        cpu(),
        leveldb_bloom::isa()
    );
    println!("load average before: {}", load());
    let names: Vec<&str> = policies().iter().map(|p| p.0).collect();
    println!("| ns per key | {} | speedup |", names.join(" | "));
    println!("|---|{}---|", "---|".repeat(names.len()));
    if all || named.contains(&"block") {
        block();
    }
    if all || named.contains(&"1M") {
        one_million();
    }
    if all || named.contains(&"db") {
        db();
    }
    println!("load average after: {}", load());
}
