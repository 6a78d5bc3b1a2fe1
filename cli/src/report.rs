//! What a check found, for a person (one screen) and for a script (JSON), and the exit code.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use serde_json::{Value, json};

use crate::check::{Filter, State, TableReport};
use crate::filters::{GOLEVELDB_POLICY, LEVELDB_POLICY};
use crate::inputs::Inputs;

/// The exit codes, each documented in the command's help and docs/CHECK.md. The most serious
/// finding decides, in this order: false negatives, an unreadable path, corruption, other
/// differences, a policy name C++ leveldb ignores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Every filter is leveldb's, or a table has none.
    Clean = 0,
    /// A policy name C++ leveldb ignores (its bloom policy reads only its own name's blocks).
    IgnoredPolicy = 5,
    /// Filters differ from leveldb's, but hide no key.
    Differences = 4,
    /// A corrupt block, table or MANIFEST, or a table the MANIFEST lists missing.
    Corruption = 3,
    /// A bad argument, or a path that cannot be read.
    Usage = 2,
    /// Keys that their filters hide: leveldb's Get does not find them.
    FalseNegatives = 1,
}

impl Exit {
    /// How serious it is: the most serious finding decides the exit code.
    fn severity(self) -> u8 {
        match self {
            Exit::Clean => 0,
            Exit::IgnoredPolicy => 1,
            Exit::Differences => 2,
            Exit::Corruption => 3,
            Exit::Usage => 4,
            Exit::FalseNegatives => 5,
        }
    }
}

/// The findings of one policy name's filter blocks.
#[derive(Default)]
struct PolicyTotals {
    tables: u64,
    filters: u64,
    identical: u64,
    tables_differing: u64,
    false_negatives: u64,
    absent_queries: u64,
    false_positives: u64,
    theoretical_positives: f64,
    bits_per_key: BTreeSet<u32>,
    inferred: bool,
    probes: BTreeSet<u8>,
    writers: BTreeSet<&'static str>,
}

/// A check's findings.
pub struct Report {
    inputs: Inputs,
    tables: Vec<TableReport>,
    policies: BTreeMap<String, PolicyTotals>,
}

impl Report {
    /// The report of `tables`, checked from `inputs`.
    pub fn new(inputs: Inputs, tables: Vec<TableReport>) -> Report {
        let mut policies: BTreeMap<String, PolicyTotals> = BTreeMap::new();
        for table in &tables {
            let State::Read(checked) = &table.state else {
                continue;
            };
            let Filter::Compared(check) = &checked.filter else {
                continue;
            };
            let totals = policies.entry(check.policy.clone()).or_default();
            totals.tables += 1;
            totals.filters += check.filters;
            totals.identical += check.identical;
            totals.tables_differing += u64::from(!check.block_identical);
            totals.false_negatives += check.false_negatives;
            totals.absent_queries += check.absent_queries;
            totals.false_positives += check.false_positives;
            totals.theoretical_positives += check.theoretical_positives;
            totals.bits_per_key.insert(check.bits_per_key);
            totals.inferred |= check.inferred;
            totals.probes.extend(check.probes);
            totals.writers.extend(check.writer);
        }
        Report {
            inputs,
            tables,
            policies,
        }
    }

    fn read(&self) -> impl Iterator<Item = (&TableReport, &crate::check::Checked)> {
        self.tables.iter().filter_map(|table| match &table.state {
            State::Read(checked) => Some((table, checked)),
            _ => None,
        })
    }

    fn count(&self, state: fn(&State) -> bool) -> usize {
        self.tables
            .iter()
            .filter(|table| state(&table.state))
            .count()
    }

    fn corruption(&self) -> Vec<String> {
        let mut found: Vec<String> = self
            .inputs
            .databases
            .iter()
            .filter_map(|db| db.manifest_error.clone())
            .collect();
        for table in &self.tables {
            match &table.state {
                State::Missing => found.push(format!(
                    "{}: listed in the MANIFEST but not on disk",
                    table.path.display()
                )),
                State::Read(checked) => found.extend(
                    checked
                        .corruption
                        .iter()
                        .map(|message| format!("{}: {message}", table.path.display())),
                ),
                _ => {}
            }
        }
        found
    }

    fn false_negatives(&self) -> u64 {
        self.policies.values().map(|p| p.false_negatives).sum()
    }

    /// The exit code: the most serious finding's.
    pub fn exit(&self) -> Exit {
        let mut findings = vec![Exit::Clean];
        if self.false_negatives() > 0 {
            findings.push(Exit::FalseNegatives);
        }
        if self.count(|s| matches!(s, State::Unreadable(_))) > 0 {
            findings.push(Exit::Usage);
        }
        if !self.corruption().is_empty() {
            findings.push(Exit::Corruption);
        }
        for (name, totals) in &self.policies {
            let ours = name == LEVELDB_POLICY || name == GOLEVELDB_POLICY;
            if ours && totals.tables_differing > 0 {
                findings.push(Exit::Differences);
            }
            if name != LEVELDB_POLICY {
                findings.push(Exit::IgnoredPolicy);
            }
        }
        findings
            .into_iter()
            .max_by_key(|exit| exit.severity())
            .unwrap_or(Exit::Clean)
    }

    fn verdict(&self) -> &'static str {
        match self.exit() {
            Exit::Clean => "no filter differs from the one leveldb builds",
            Exit::FalseNegatives => "FILTERS HIDE KEYS: leveldb's Get does not find them",
            Exit::Usage => "some tables could not be read",
            Exit::Corruption => "corruption found",
            Exit::Differences => "filters differ from leveldb's, hiding no key",
            Exit::IgnoredPolicy => "filters under a policy name C++ leveldb ignores",
        }
    }

    /// The summary a person reads: one screen, findings that matter first.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let checked = self.read().count();
        let bytes: u64 = self.read().map(|(table, _)| table.bytes).sum();
        let blocks: u64 = self.read().map(|(_, c)| c.data_blocks).sum();
        let keys: u64 = self.read().map(|(_, c)| c.keys).sum();
        let _ = writeln!(
            out,
            "checked {checked} tables: {:.1} MB, {} data blocks, {} keys",
            bytes as f64 / 1e6,
            thousands(blocks),
            thousands(keys)
        );
        for (index, db) in self.inputs.databases.iter().enumerate() {
            let _ = writeln!(
                out,
                "  database {} ({}, {} live tables)",
                db.path.display(),
                db.manifest,
                self.tables
                    .iter()
                    .filter(|t| t.database.is_some_and(|(d, _)| d == index))
                    .count()
            );
            if !db.unlisted.is_empty() {
                let _ = writeln!(
                    out,
                    "    not listed in the MANIFEST, not checked (being written, or left behind): {}",
                    db.unlisted.join(", ")
                );
            }
        }
        let compressions: BTreeSet<&str> = self
            .read()
            .flat_map(|(_, c)| c.compressions.iter().copied())
            .collect();
        if !compressions.is_empty() {
            let list: Vec<&str> = compressions.into_iter().collect();
            let _ = writeln!(out, "  block compression: {}", list.join(", "));
        }
        for (name, p) in &self.policies {
            let bits: Vec<String> = p.bits_per_key.iter().map(u32::to_string).collect();
            let probes: Vec<String> = p.probes.iter().map(u8::to_string).collect();
            let _ = writeln!(
                out,
                "policy {name}: {} tables, {} filters, {} bits per key{}, {} probes",
                p.tables,
                p.filters,
                bits.join("/"),
                if p.inferred {
                    " (inferred from the filters' sizes and key counts)"
                } else {
                    ""
                },
                probes.join("/")
            );
            if name != LEVELDB_POLICY {
                let _ = writeln!(out, "  {}", ignored_because(name));
            }
            let _ = writeln!(
                out,
                "  identical filters: {} of {}; tables whose filter block differs: {}",
                p.identical, p.filters, p.tables_differing
            );
            for writer in &p.writers {
                let _ = writeln!(out, "  written by: {writer}");
            }
            let _ = writeln!(out, "  false negatives: {}", p.false_negatives);
            if p.absent_queries > 0 {
                let _ = writeln!(
                    out,
                    "  false positives: {:.2}% measured ({} absent keys), {:.2}% in theory",
                    100.0 * p.false_positives as f64 / p.absent_queries as f64,
                    p.absent_queries,
                    100.0 * p.theoretical_positives / p.absent_queries as f64
                );
            }
        }
        let without = self
            .read()
            .filter(|(_, c)| matches!(c.filter, Filter::Absent))
            .count();
        let _ = writeln!(
            out,
            "tables without a filter: {without}{}",
            if without > 0 {
                " (leveldb writes none unless a filter policy is set)"
            } else {
                ""
            }
        );
        let not_compared = self
            .read()
            .filter(|(_, c)| matches!(c.filter, Filter::NotCompared(_)))
            .count();
        if not_compared > 0 {
            let _ = writeln!(out, "tables not compared (corrupt, below): {not_compared}");
        }
        let gone = self.count(|s| matches!(s, State::Gone));
        if gone > 0 {
            let _ = writeln!(
                out,
                "tables gone meanwhile (removed by a compaction): {gone}"
            );
        }
        for table in &self.tables {
            if let State::Unreadable(why) = &table.state {
                let _ = writeln!(out, "UNREADABLE: {}: {why}", table.path.display());
            }
        }
        let corruption = self.corruption();
        let _ = writeln!(out, "corruption: {}", corruption.len());
        for message in corruption.iter().take(20) {
            let _ = writeln!(out, "  {message}");
        }
        if corruption.len() > 20 {
            let _ = writeln!(
                out,
                "  ... {} more (--json lists all)",
                corruption.len() - 20
            );
        }
        let hidden = self.false_negatives();
        if hidden > 0 {
            let _ = writeln!(
                out,
                "FALSE NEGATIVES: {hidden} keys hidden by their filters (leveldb's Get returns \
                 NotFound for them):"
            );
            let listed = self
                .read()
                .flat_map(|(table, checked)| match &checked.filter {
                    Filter::Compared(check) => {
                        check.hidden.iter().map(|h| (table, h)).collect::<Vec<_>>()
                    }
                    _ => Vec::new(),
                });
            for (table, h) in listed.take(20) {
                let _ = writeln!(
                    out,
                    "  {}: data block at {}: key {}",
                    table.path.display(),
                    h.block_offset,
                    short_hex(&h.key)
                );
            }
            if hidden > 20 {
                let _ = writeln!(
                    out,
                    "  ... {} more (--json lists up to 100 per table)",
                    hidden - 20
                );
            }
        }
        let exit = self.exit();
        let _ = writeln!(out, "result: {} (exit {})", self.verdict(), exit as u8);
        out
    }

    /// The report for scripts.
    pub fn json(&self) -> Value {
        let policies: serde_json::Map<String, Value> = self
            .policies
            .iter()
            .map(|(name, p)| {
                let rate = |n: f64| (p.absent_queries > 0).then(|| n / p.absent_queries as f64);
                let value = json!({
                    "tables": p.tables,
                    "filters": p.filters,
                    "filters_identical": p.identical,
                    "filters_differing": p.filters - p.identical,
                    "tables_differing": p.tables_differing,
                    "false_negatives": p.false_negatives,
                    "bits_per_key": p.bits_per_key,
                    "bits_per_key_inferred": p.inferred,
                    "probes": p.probes,
                    "writers": p.writers,
                    "ignored_by_leveldb": name != LEVELDB_POLICY,
                    "absent_queries": p.absent_queries,
                    "false_positive_rate": rate(p.false_positives as f64),
                    "theoretical_false_positive_rate": rate(p.theoretical_positives),
                });
                (name.clone(), value)
            })
            .collect();
        let databases: Vec<Value> = self
            .inputs
            .databases
            .iter()
            .map(|db| {
                json!({
                    "path": db.path.display().to_string(),
                    "manifest": db.manifest,
                    "manifest_error": db.manifest_error,
                    "unlisted_tables": db.unlisted,
                })
            })
            .collect();
        let tables: Vec<Value> = self.tables.iter().map(table_json).collect();
        let exit = self.exit();
        json!({
            "schema_version": 1,
            "exit_code": exit as u8,
            "result": self.verdict(),
            "tables_checked": self.read().count(),
            "tables_gone": self.count(|s| matches!(s, State::Gone)),
            "tables_unreadable": self.count(|s| matches!(s, State::Unreadable(_))),
            "tables_without_filter": self
                .read()
                .filter(|(_, c)| matches!(c.filter, Filter::Absent))
                .count(),
            "false_negatives": self.false_negatives(),
            "corruption": self.corruption(),
            "policies": policies,
            "databases": databases,
            "tables": tables,
        })
    }
}

/// One table's findings, for scripts.
fn table_json(table: &TableReport) -> Value {
    let state = match &table.state {
        State::Gone => "gone",
        State::Missing => "missing",
        State::Unreadable(_) => "unreadable",
        State::Read(_) => "checked",
    };
    let mut value = json!({
        "path": table.path.display().to_string(),
        "level": table.level,
        "bytes": table.bytes,
        "state": state,
    });
    if let State::Unreadable(why) = &table.state {
        value["error"] = json!(why);
    }
    let State::Read(checked) = &table.state else {
        return value;
    };
    value["data_blocks"] = json!(checked.data_blocks);
    value["keys"] = json!(checked.keys);
    value["compression"] = json!(checked.compressions);
    value["corruption"] = json!(checked.corruption);
    value["filter"] = match &checked.filter {
        Filter::Absent => Value::Null,
        Filter::NotCompared(policy) => json!({ "policy": policy, "compared": false }),
        Filter::Compared(check) => json!({
            "policy": check.policy,
            "compared": true,
            "bits_per_key": check.bits_per_key,
            "bits_per_key_inferred": check.inferred,
            "probes": check.probes,
            "filters": check.filters,
            "filters_identical": check.identical,
            "block_identical": check.block_identical,
            "writer": check.writer,
            "false_negatives": check.false_negatives,
            "hidden_keys": check.hidden.iter().map(|h| json!({
                "block_offset": h.block_offset,
                "key_hex": hex(&h.key),
            })).collect::<Vec<_>>(),
            "absent_queries": check.absent_queries,
            "false_positives": check.false_positives,
        }),
    };
    value
}

/// What C++ leveldb does with filters recorded under `name`, not its own.
fn ignored_because(name: &str) -> String {
    if name == GOLEVELDB_POLICY {
        format!(
            "goleveldb's name for leveldb's bloom filter: C++ leveldb (1.18 and later) looks for \
             {LEVELDB_POLICY} and ignores this block: its reads test no filter"
        )
    } else {
        format!(
            "not leveldb's bloom filter: C++ leveldb given NewBloomFilterPolicy looks for \
             {LEVELDB_POLICY} and ignores this block"
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A key in hex, its first 24 bytes if longer, with its length then.
fn short_hex(key: &[u8]) -> String {
    if key.len() <= 24 {
        hex(key)
    } else {
        format!("{}... ({} bytes)", hex(&key[..24]), key.len())
    }
}

/// `n` with commas between thousands.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
