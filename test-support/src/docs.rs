//! The code blocks of the README and docs/, for the tests that check or run them. A shell block
//! names in its info string who runs it (tests/docs.rs holds every one to one of these):
//!
//! - ```` ```sh test:NAME ````: the test that runs NAME in a [`UserShell`], as a user pastes it.
//!   Its first line may be the `sudo apt-get install -y` of what it needs, which the test leaves
//!   to the machine (tests/docs.rs checks that .ci/run installs each package).
//! - ```` ```sh ci ````: .ci/run, each line as written.
//! - ```` ```sh by-hand ```` and ```` ```sh benchmark ````: no test; steps done by hand (other
//!   machines, other leveldb versions) and timings.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::paths::root;
use crate::process;
use crate::scratch::fresh;

/// The documents whose blocks are users' commands: README.md and every page in docs/.
pub fn documents() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|entry| entry.expect("docs/ entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
}

/// A fenced code block: the document holding it, its info string's words, its body.
#[derive(Clone, Debug)]
pub struct Block {
    /// The document, as [`documents`] names it.
    pub document: PathBuf,
    /// The info string's first word (`sh`, `c`, ...).
    pub lang: String,
    /// The info string's second word, where it has one (`test:NAME`, `ci`, ...).
    pub tag: Option<String>,
    /// The lines between the fences, each ending in a newline.
    pub body: String,
}

/// Every fenced block of `document`, in order.
pub fn blocks(document: &Path) -> Vec<Block> {
    let text =
        std::fs::read_to_string(document).unwrap_or_else(|e| panic!("{}: {e}", document.display()));
    let mut blocks = Vec::new();
    let mut open: Option<Block> = None;
    for line in text.lines() {
        match (line.strip_prefix("```"), open.as_mut()) {
            (Some(_), Some(_)) => blocks.extend(open.take()),
            (Some(info), None) => {
                let mut words = info.split_whitespace().map(str::to_owned);
                open = Some(Block {
                    document: document.to_path_buf(),
                    lang: words.next().unwrap_or_default(),
                    tag: words.next(),
                    body: String::new(),
                });
            }
            (None, Some(block)) => {
                block.body.push_str(line);
                block.body.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(
        open.is_none(),
        "{}: a code block is not closed",
        document.display()
    );
    blocks
}

/// The body of every ```` ```lang ```` block of README.md, in order.
pub fn code_blocks(lang: &str) -> Vec<String> {
    blocks(&root().join("README.md"))
        .into_iter()
        .filter(|block| block.lang == lang)
        .map(|block| block.body)
        .collect()
}

/// The shell block tagged `test:NAME`, in whichever document has it.
pub fn test_block(name: &str) -> Block {
    let tag = format!("test:{name}");
    let mut found = documents()
        .into_iter()
        .flat_map(|document| blocks(&document))
        .filter(|block| block.tag.as_deref() == Some(tag.as_str()));
    let block = found
        .next()
        .unwrap_or_else(|| panic!("no ```sh {tag} block in the README or docs/"));
    assert!(found.next().is_none(), "two blocks are tagged {tag}");
    block
}

/// The packages a block's first line installs, if it is `sudo apt-get install -y PACKAGE...`;
/// the lines a user runs after it.
pub fn split_apt_line(body: &str) -> (Vec<&str>, &str) {
    let (first, rest) = body.split_once('\n').unwrap_or((body, ""));
    match first.strip_prefix("sudo apt-get install -y ") {
        Some(packages) => (packages.split_whitespace().collect(), rest),
        None => (Vec::new(), body),
    }
}

/// A user's machine for the README's commands: a home folder of its own, holding a copy of this
/// checkout (its files git knows, ignored ones left out, with their times), where blocks run from the copy's root
/// with bash, as pasted, stopping at the first failure. The user has this machine's tools,
/// cargo's and rustup's own folders, and none of the variables of the test that runs it
/// (LD_LIBRARY_PATH, LEVELDB_BLOOM_*), but LEVELDB_BLOOM_PROVE_NO_PANIC, which CI sets for every
/// optimized build.
pub struct UserShell {
    /// `$HOME`.
    pub home: PathBuf,
    /// `$HOME/leveldb-bloom`, the copy of the checkout, where blocks start.
    pub checkout: PathBuf,
    /// Variables set (or, None, removed) beyond the user's own.
    env: Vec<(OsString, Option<OsString>)>,
}

impl UserShell {
    /// A fresh home in `dir` (emptied first), with a copy of the checkout.
    pub fn new(dir: PathBuf) -> UserShell {
        let home = fresh(dir).join("home");
        let checkout = home.join("leveldb-bloom");
        let listed = process::run(
            Command::new("git")
                .args([
                    "ls-files",
                    "-z",
                    "--cached",
                    "--others",
                    "--exclude-standard",
                ])
                .current_dir(root()),
        );
        for file in listed.split('\0').filter(|file| !file.is_empty()) {
            let from = root().join(file);
            // Deleted from the working tree, not yet from git's index.
            if !from.exists() {
                continue;
            }
            let to = checkout.join(file);
            std::fs::create_dir_all(to.parent().unwrap()).expect("folder in the copy");
            std::fs::copy(&from, &to).unwrap_or_else(|e| panic!("{}: {e}", from.display()));
            // The checkout's times: cargo hashes a workspace's own crates by their path within
            // it and then compares times, so a build of the copy in a target folder shared with
            // builds of the checkout (CARGO_TARGET_DIR) is found done, not made again.
            let modified = std::fs::metadata(&from).and_then(|m| m.modified());
            std::fs::File::options()
                .write(true)
                .open(&to)
                .and_then(|copy| copy.set_modified(modified?))
                .unwrap_or_else(|e| panic!("{}: {e}", to.display()));
        }
        UserShell {
            home,
            checkout,
            env: Vec::new(),
        }
    }

    /// Sets `key` to `value` in the shell's environment (PATH, CARGO_TARGET_DIR...).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> UserShell {
        self.env
            .push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Leaves `key` out of the shell's environment (CXX...).
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> UserShell {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Makes the copy's `target/` a link to `dir`, which other tests may share: cargo's builds
    /// there are made once, not once per copy.
    pub fn shared_target(self, dir: &Path) -> UserShell {
        std::fs::create_dir_all(dir).expect("the shared target folder");
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir, self.checkout.join("target")).expect("target/ linked");
        self
    }

    /// `program` as the user runs it: from the copy's root, with the user's environment.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let real_home = PathBuf::from(std::env::var_os("HOME").expect("HOME"));
        let kept = |var: &str, default: PathBuf| std::env::var_os(var).unwrap_or(default.into());
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.checkout)
            .env("CARGO_HOME", kept("CARGO_HOME", real_home.join(".cargo")))
            .env(
                "RUSTUP_HOME",
                kept("RUSTUP_HOME", real_home.join(".rustup")),
            )
            .env("HOME", &self.home)
            .env_remove("LD_LIBRARY_PATH")
            .env_remove("CARGO_TARGET_DIR");
        for (var, _) in std::env::vars_os() {
            let name = var.to_string_lossy();
            if name.starts_with("LEVELDB_BLOOM_") && name != "LEVELDB_BLOOM_PROVE_NO_PANIC" {
                cmd.env_remove(&var);
            }
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => cmd.env(key, value),
                None => cmd.env_remove(key),
            };
        }
        cmd
    }

    /// Runs the block tagged `test:NAME` (less its apt-get line): it must succeed. Returns what it
    /// printed on standard output.
    pub fn run(&self, name: &str) -> String {
        let block = test_block(name);
        let (_, script) = split_apt_line(&block.body);
        process::run(
            self.command("bash")
                .args(["-e", "-o", "pipefail", "-c", script]),
        )
    }
}
