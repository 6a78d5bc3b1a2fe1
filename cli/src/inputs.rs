//! What the command line's paths name: table files, and databases' live tables as their current
//! MANIFEST lists them (db/filename.cc names the files).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use leveldb_bloom_reader::manifest::{LiveTable, current_manifest, read_manifest};

/// A table to check.
pub struct Job {
    /// Its file.
    pub path: PathBuf,
    /// Its level, for a database's table.
    pub level: Option<u32>,
    /// Its database (an index into [`Inputs::databases`]) and file number.
    pub database: Option<(usize, u64)>,
    /// Its length when listed (0 if it could not be read).
    pub size: u64,
}

/// A database named on the command line.
pub struct Database {
    /// Its directory.
    pub path: PathBuf,
    /// The MANIFEST file CURRENT named.
    pub manifest: String,
    /// Why its MANIFEST could not be read to the end, if so: the tables listed before that are
    /// checked.
    pub manifest_error: Option<String>,
    /// Table files in its directory that the MANIFEST does not list: a table a compaction is
    /// still writing, or one left behind. Mentioned, not checked.
    pub unlisted: Vec<String>,
}

/// Everything the paths name.
pub struct Inputs {
    /// The databases, in the order given.
    pub databases: Vec<Database>,
    /// The tables, databases' in file-number order, then files in the order given.
    pub jobs: Vec<Job>,
}

/// The tables and databases `paths` name.
///
/// # Errors
/// A message naming a path that does not exist, or a directory that is not a database.
pub fn gather(paths: &[PathBuf]) -> Result<Inputs, String> {
    let mut inputs = Inputs {
        databases: Vec::new(),
        jobs: Vec::new(),
    };
    for path in paths {
        let metadata =
            std::fs::metadata(path).map_err(|err| format!("{}: {err}", path.display()))?;
        if metadata.is_dir() {
            let index = inputs.databases.len();
            let (database, tables) = database(path)?;
            inputs.databases.push(database);
            inputs.jobs.extend(tables.into_iter().map(|table| {
                let path = table_path(path, table.number);
                let size = std::fs::metadata(&path).map_or(0, |m| m.len());
                Job {
                    path,
                    level: Some(table.level),
                    database: Some((index, table.number)),
                    size,
                }
            }));
        } else {
            inputs.jobs.push(Job {
                path: path.clone(),
                level: None,
                database: None,
                size: metadata.len(),
            });
        }
    }
    Ok(inputs)
}

/// The database in `dir`, with its live tables as its current MANIFEST lists them.
fn database(dir: &Path) -> Result<(Database, Vec<LiveTable>), String> {
    let current = current_version(dir)?;
    let live: BTreeSet<u64> = current.tables.iter().map(|table| table.number).collect();
    let mut unlisted: Vec<String> = std::fs::read_dir(dir)
        .map_err(|err| format!("{}: {err}", dir.display()))?
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let number = table_number(&name)?;
            (!live.contains(&number)).then_some(name)
        })
        .collect();
    unlisted.sort();
    Ok((
        Database {
            path: dir.to_owned(),
            manifest: current.manifest,
            manifest_error: current.error,
            unlisted,
        },
        current.tables,
    ))
}

/// What a database's current MANIFEST says.
struct Current {
    /// Its name.
    manifest: String,
    /// Its live tables.
    tables: Vec<LiveTable>,
    /// Why it could not be read to the end, if so.
    error: Option<String>,
}

/// The database's current MANIFEST. CURRENT is read again if the MANIFEST it named is gone, as
/// a running database replaces both.
fn current_version(dir: &Path) -> Result<Current, String> {
    let mut tries = 0;
    loop {
        let current = dir.join("CURRENT");
        let name = match std::fs::read(&current) {
            Ok(bytes) => {
                current_manifest(&bytes).map_err(|why| format!("{}: {why}", current.display()))?
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return Err(format!(
                    "{}: not a leveldb database (it has no CURRENT file)",
                    dir.display()
                ));
            }
            Err(err) => return Err(format!("{}: {err}", current.display())),
        };
        let path = dir.join(&name);
        match std::fs::read(&path) {
            Ok(log) => {
                let (version, error) = read_manifest(&log);
                return Ok(Current {
                    manifest: name,
                    tables: version.tables,
                    error: error.map(|err| format!("{}: {err}", path.display())),
                });
            }
            Err(err) if err.kind() == std::io::ErrorKind::NotFound && tries < 3 => tries += 1,
            Err(err) => return Err(format!("{}: {err}", path.display())),
        }
    }
}

/// The number of a table file's name (`000123.ldb`, or `.sst` as leveldb before 1.14 named it).
fn table_number(name: &str) -> Option<u64> {
    let stem = name
        .strip_suffix(".ldb")
        .or_else(|| name.strip_suffix(".sst"))?;
    if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    stem.parse().ok()
}

/// A live table's file: `<number>.ldb`, or the `.sst` leveldb also opens where only that exists.
fn table_path(dir: &Path, number: u64) -> PathBuf {
    let ldb = dir.join(format!("{number:06}.ldb"));
    let sst = dir.join(format!("{number:06}.sst"));
    if !ldb.exists() && sst.exists() {
        sst
    } else {
        ldb
    }
}

/// Whether the current MANIFEST of the database in `dir` lists table `number` (read anew).
pub fn lists(dir: &Path, number: u64) -> bool {
    current_version(dir).is_ok_and(|current| current.tables.iter().any(|t| t.number == number))
}
