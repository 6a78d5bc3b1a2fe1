//! Where tests write. libtest-mimic runs a program's trials at once, and other test programs
//! may run beside it, so no two tests may write the same file: each test program writes in a
//! folder of its own under CARGO_TARGET_TMPDIR, each trial in a folder named after it, and what
//! a program's trials share is built there once (behind a `OnceLock` or a lock) and then only
//! read. Every file a test builds is [`claim`]ed: a second claim on one path in a process
//! panics, naming both claimants, so a test that would write over another's output fails every
//! time, not now and then. Tests reach these folders only through [`crate::tmp_dir!`]
//! (tests/tool_gate.rs checks it).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// A trial running on a thread: its name, and its test program's folders.
#[derive(Clone)]
struct Running {
    name: String,
    tmp_dir: TmpDir,
}

thread_local! {
    /// The trial running on this thread.
    static TRIAL: RefCell<Option<Running>> = const { RefCell::new(None) };
}

/// Runs `test` as the trial `name` of the program whose folders `tmp_dir` gives, for
/// [`TmpDir::trial`], [`claim`] and [`shared`].
pub(crate) fn as_trial<T>(name: &str, tmp_dir: TmpDir, test: impl FnOnce() -> T) -> T {
    let outer = TRIAL.replace(Some(Running {
        name: name.to_owned(),
        tmp_dir,
    }));
    let result = test();
    TRIAL.set(outer);
    result
}

fn trial_name() -> Option<String> {
    TRIAL.with_borrow(|running| running.as_ref().map(|r| r.name.clone()))
}

/// [`TmpDir::program`]/NAME for the running trial's program, emptied and claimed: where
/// test-support itself puts what it fetches once per program for the trials (packages.rs).
pub(crate) fn shared(name: &str) -> PathBuf {
    let tmp_dir = TRIAL
        .with_borrow(|running| running.as_ref().map(|r| r.tmp_dir.clone()))
        .expect("scratch::shared outside a trial's own thread");
    claim(fresh(tmp_dir.program().join(name)))
}

/// Claims `path` for the running trial (or, outside one, for the program) and returns it:
/// panics if anything in this process claimed it before.
pub fn claim(path: PathBuf) -> PathBuf {
    static CLAIMS: Mutex<BTreeMap<PathBuf, String>> = Mutex::new(BTreeMap::new());
    let claimant = trial_name().map_or_else(|| "the program".to_owned(), |t| format!("`{t}`"));
    let first = CLAIMS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .insert(path.clone(), claimant.clone());
    if let Some(first) = first {
        panic!(
            "{} is written twice: claimed by {first}, then by {claimant}; give each build an \
             output of its own (tmp_dir!().trial()) or build it once and share it",
            path.display()
        );
    }
    path
}

/// The folders a test program writes in, under its CARGO_TARGET_TMPDIR: see [`crate::tmp_dir!`].
#[derive(Clone, Debug)]
pub struct TmpDir {
    cargo_target_tmpdir: PathBuf,
}

/// The [`TmpDir`] of the test program calling it, from the CARGO_TARGET_TMPDIR cargo compiles
/// it with.
#[macro_export]
macro_rules! tmp_dir {
    () => {
        $crate::scratch::TmpDir::new(env!("CARGO_TARGET_TMPDIR"))
    };
}

impl TmpDir {
    /// Use [`crate::tmp_dir!`].
    pub fn new(cargo_target_tmpdir: &str) -> Self {
        TmpDir {
            cargo_target_tmpdir: cargo_target_tmpdir.into(),
        }
    }

    /// CARGO_TARGET_TMPDIR/PROGRAM, PROGRAM being this test program's name without cargo's
    /// hash: what its trials share, each thing built once and then only read. Created.
    pub fn program(&self) -> PathBuf {
        let exe = std::env::current_exe().expect("the test program's path");
        let file = exe.file_stem().expect("a file name").to_string_lossy();
        // cargo names it NAME-HASH, HASH being 16 hex digits.
        let name = match file.rsplit_once('-') {
            Some((name, hash))
                if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) =>
            {
                name
            }
            _ => &file,
        };
        created(self.cargo_target_tmpdir.join(name))
    }

    /// [`TmpDir::program`]/TRIAL, the running trial's own folder. Created; it keeps what earlier
    /// runs left, as builds there are redone anyway.
    pub fn trial(&self) -> PathBuf {
        let trial = trial_name().expect("tmp_dir!().trial() outside a trial's own thread");
        created(self.program().join(trial))
    }

    /// A folder NAME outside this checkout, for a test that stands in for a user's machine: cargo
    /// looks in every folder above a crate for a workspace to join, and from CARGO_TARGET_TMPDIR
    /// it finds this repository's. In the system's temporary folder, under a name of this
    /// checkout's own (its CARGO_TARGET_TMPDIR, hashed) and the test program's. Created.
    pub fn outside_checkout(&self, name: &str) -> PathBuf {
        let mut hasher = std::hash::DefaultHasher::new();
        std::hash::Hash::hash(&self.cargo_target_tmpdir, &mut hasher);
        let checkout = format!("leveldb-bloom-{:016x}", std::hash::Hasher::finish(&hasher));
        let program = self.program();
        let program = program.file_name().expect("the program's folder");
        created(std::env::temp_dir().join(checkout).join(program).join(name))
    }

    /// CARGO_TARGET_TMPDIR/NAME: cargo's target folder for builds that several test programs
    /// share, which cargo locks while it writes there. Nothing else goes here.
    pub fn cargo_target(&self, name: &str) -> PathBuf {
        self.cargo_target_tmpdir.join(name)
    }
}

fn created(dir: PathBuf) -> PathBuf {
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

/// `dir` emptied (removed and created again), for a test that must start from nothing.
pub fn fresh(dir: PathBuf) -> PathBuf {
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("{}: {e}", dir.display()),
    }
    created(dir)
}
