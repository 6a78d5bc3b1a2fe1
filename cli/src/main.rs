//! `leveldb-bloom`: proves that a leveldb database's filters are the ones leveldb builds, and
//! names the keys a wrong filter hides (docs/CHECK.md).
//!
//! `check` rebuilds every table's filter block from the table's own keys with the
//! leveldb-bloom library and compares it byte for byte with the stored one; where they differ, it
//! asks the stored filters about every key. It reads with ordinary reads, writes nothing, takes
//! no lock, and checks tables in parallel.

mod check;
mod filters;
mod fpr;
mod inputs;
mod report;

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::check::{Keys, Options, State, check_table};
use crate::report::{Exit, Report};

#[derive(Parser)]
#[command(name = "leveldb-bloom", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Checks that tables' filters are the ones leveldb builds from their keys, and finds the
    /// keys a wrong filter hides. Exit codes: 0 every filter is leveldb's (or a table has none),
    /// 1 false negatives, 2 bad argument or unreadable path, 3 corruption, 4 filters differ,
    /// 5 a policy name C++ leveldb ignores; the most serious finding decides.
    Check(CheckArgs),
    /// The false-positive rate of leveldb's filters (this library's), measured with keys not in
    /// them, beside a bloom filter's in theory, for one setting of bits per key or a range.
    Fpr(FprArgs),
}

#[derive(Args)]
struct FprArgs {
    /// Bits per key: N, or a range A-B (both included).
    #[arg(long, value_name = "N|A-B", value_parser = bits_range)]
    bits_per_key: RangeInclusive<u32>,
    /// Keys in each filter.
    #[arg(long, value_name = "N", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..=10_000_000))]
    keys: u32,
}

/// `N` or `A-B`, each of 1 to 1000.
fn bits_range(arg: &str) -> Result<RangeInclusive<u32>, String> {
    let bits = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|b| (1..=1000).contains(b))
            .ok_or_else(|| format!("{s:?} is not a number of bits per key from 1 to 1000"))
    };
    let (low, high) = match arg.split_once('-') {
        Some((low, high)) => (bits(low)?, bits(high)?),
        None => (bits(arg)?, bits(arg)?),
    };
    if low > high {
        return Err(format!("{arg}: the range goes down"));
    }
    Ok(low..=high)
}

#[derive(Args)]
struct CheckArgs {
    /// Database directories (their live tables, as the current MANIFEST lists them) or table
    /// files (.ldb, .sst).
    #[arg(required = true, value_name = "PATH")]
    paths: Vec<PathBuf>,
    /// Filter the keys as stored: for tables written by a TableBuilder directly, not by a
    /// database (whose keys carry 8 bytes of sequence and type that leveldb strips).
    #[arg(long)]
    raw_keys: bool,
    /// The bits per key the filters were built with; inferred from their sizes and key counts
    /// when not given.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    bits_per_key: Option<u32>,
    /// Print the report as JSON (schema_version 1) on stdout.
    #[arg(long)]
    json: bool,
    /// Only read every block, verify its checksum and decompress it: the floor that
    /// tools/bench-check times the check against (docs/CHECK.md, Speed).
    #[arg(long, hide = true)]
    floor: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check(&args),
        Command::Fpr(args) => {
            let rows: Vec<fpr::Row> = args
                .bits_per_key
                .into_par_iter()
                .map(|bits| fpr::measure(bits, args.keys as usize))
                .collect();
            print!("{}", fpr::table(&rows));
            ExitCode::SUCCESS
        }
    }
}

fn check(args: &CheckArgs) -> ExitCode {
    let inputs = match inputs::gather(&args.paths) {
        Ok(inputs) => inputs,
        Err(message) => {
            eprintln!("leveldb-bloom check: {message}");
            return ExitCode::from(Exit::Usage as u8);
        }
    };
    let options = Options {
        raw_keys: args.raw_keys,
        bits_per_key: args.bits_per_key,
        floor: args.floor,
    };
    let progress = progress_bar(inputs.jobs.iter().map(|job| job.size).sum());
    let mut tables: Vec<_> = inputs
        .jobs
        .par_iter()
        .map_init(Keys::default, |keys, job| {
            let table = check_table(job, &options, keys);
            progress.inc(job.size);
            table
        })
        .collect();
    progress.finish_and_clear();
    // A table gone while its database's MANIFEST still lists it is missing, not compacted away.
    for table in &mut tables {
        if let (State::Gone, Some((db, number))) = (&table.state, table.database)
            && inputs::lists(&inputs.databases[db].path, number)
        {
            table.state = State::Missing;
        }
    }
    let report = Report::new(inputs, tables);
    if args.json {
        println!("{:#}", report.json());
    } else {
        print!("{}", report.summary());
    }
    ExitCode::from(report.exit() as u8)
}

/// A bar of the tables' bytes checked, on stderr; indicatif draws nothing where stderr is not a
/// terminal.
fn progress_bar(total: u64) -> ProgressBar {
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {bytes}/{total_bytes} {bytes_per_sec} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}
