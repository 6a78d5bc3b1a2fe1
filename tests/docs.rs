//! The README, docs/, the changelog and the test map (tests/README.md) stay true to the
//! repository: every relative link names a file that exists, and a heading there when it has an
//! anchor; every shell block of the README and docs/ is run by a test, or by .ci/run, or is
//! marked as done by hand or a benchmark, and what its apt-get line installs .ci/run installs;
//! the README's CMake lines are the consumer example's, which tests/cmake.rs builds; the
//! changelog agrees with the version; the test map names every test file, and every variable
//! with which CI requires a tool, which .ci/run sets; docs/PERFORMANCE.md's tables per CPU and
//! its chart are drawn from the benchmark outputs kept in docs/perf/.

use std::collections::BTreeSet;

use leveldb_bloom_test_support::docs::{Block, blocks, code_blocks, documents, split_apt_line};
use leveldb_bloom_test_support::paths::root;

/// Where each feature is tested, and what each test needs.
const TEST_MAP: &str = "tests/README.md";

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of `markdown` outside its code blocks.
fn prose_lines(markdown: &str) -> impl Iterator<Item = &str> {
    let mut in_code = false;
    markdown.lines().filter(move |line| {
        if line.starts_with("```") {
            in_code = !in_code;
            return false;
        }
        !in_code
    })
}

fn anchors(markdown: &str) -> Vec<String> {
    prose_lines(markdown)
        .filter(|line| line.starts_with('#'))
        .map(|line| anchor(line.trim_start_matches('#')))
        .collect()
}

/// The targets of `[text](target)` links outside code blocks.
fn links(markdown: &str) -> Vec<String> {
    prose_lines(markdown)
        .flat_map(|line| line.split("](").skip(1))
        .filter_map(|rest| rest.find(')').map(|end| rest[..end].to_owned()))
        .collect()
}

#[test]
fn every_relative_link_resolves() {
    let others = [root().join("CHANGELOG.md"), root().join(TEST_MAP)];
    for document in documents().into_iter().chain(others) {
        let text = std::fs::read_to_string(&document).unwrap();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            let (file, fragment) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                document.clone()
            } else {
                document.parent().unwrap().join(file)
            };
            assert!(
                target.exists(),
                "{}: link {link}: no {}",
                document.display(),
                target.display()
            );
            if !fragment.is_empty() {
                let headings = anchors(&std::fs::read_to_string(&target).unwrap());
                assert!(
                    headings.iter().any(|a| a == fragment),
                    "{}: link {link}: no such heading in {}",
                    document.display(),
                    target.display()
                );
            }
        }
    }
}

#[test]
fn readme_cmake_lines_come_from_the_consumer_example() {
    let consumer =
        std::fs::read_to_string(root().join("examples/cmake-consumer/CMakeLists.txt")).unwrap();
    let blocks = code_blocks("cmake");
    assert!(!blocks.is_empty(), "the README has no ```cmake block");
    for line in blocks.iter().flat_map(|block| block.lines()) {
        assert!(
            consumer.lines().any(|have| have == line),
            "README's `{line}` is not in examples/cmake-consumer/CMakeLists.txt"
        );
    }
}

/// The files of `dir` (relative to the repository) whose names end with one of `suffixes`, as
/// paths relative to the repository.
fn files_in(dir: &str, suffixes: &[&str]) -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| {
            entry
                .expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| suffixes.iter().any(|suffix| name.ends_with(suffix)))
        .map(|name| format!("{dir}/{name}"))
        .collect();
    files.sort();
    files
}

#[test]
fn the_test_map_names_every_test_file() {
    let map = std::fs::read_to_string(root().join(TEST_MAP)).expect(TEST_MAP);
    let mut files = files_in("tests", &[".rs"]);
    files.extend(files_in("c_tests", &[".c", ".cc"]));
    files.extend(files_in("c_tests/with_leveldb", &[".c"]));
    files.extend(files_in("src/path_tests", &[".rs"]));
    files.extend(files_in("fuzz/fuzz_targets", &[".rs"]));
    files.extend(files_in(".ci", &[""]));
    files.extend(files_in("shim/tests", &[""]));
    let python = files_in("bindings/python/tests", &[".py"]);
    files.extend(python.into_iter().filter(|file| file.contains("/test_")));
    assert!(files.len() > 40, "{files:?}");
    let unnamed: Vec<&String> = files
        .iter()
        .filter(|file| !map.contains(&format!("`{file}`")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "{TEST_MAP} must say what these test: {unnamed:?}"
    );
}

/// Every `LEVELDB_BLOOM_REQUIRE_*` name in `text`.
fn required_variables(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .split("LEVELDB_BLOOM_REQUIRE_")
        .skip(1)
        .map(|rest| {
            let suffix: String = rest
                .chars()
                .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            format!("LEVELDB_BLOOM_REQUIRE_{suffix}")
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_test_map_and_ci_have_every_variable_that_requires_a_tool() {
    let read = |path: &str| std::fs::read_to_string(root().join(path)).expect(path);
    let probes = required_variables(&read("test-support/src/tools.rs"));
    assert!(probes.len() >= 8, "{probes:?}");
    let (map, ci) = (read(TEST_MAP), read(".ci/run"));
    assert_eq!(required_variables(&map), probes, "{TEST_MAP}'s variables");
    for variable in &probes {
        assert!(
            ci.lines()
                .any(|line| line == format!("export {variable}=1")),
            ".ci/run must set {variable}=1"
        );
    }
}

/// CHANGELOG.md opens with `[Unreleased]`, and lists no release newer than Cargo.toml's version,
/// which between releases is the next release's (docs/RELEASING.md).
#[test]
fn changelog_opens_with_unreleased_and_goes_no_further_than_the_version() {
    let changelog = std::fs::read_to_string(root().join("CHANGELOG.md")).unwrap();
    let parse = |version: &str| -> Vec<u32> {
        version
            .split('.')
            .map(|part| part.parse().unwrap_or_else(|_| panic!("version {version}")))
            .collect()
    };
    let ours = parse(env!("CARGO_PKG_VERSION"));
    let mut releases = changelog
        .lines()
        .filter_map(|line| line.strip_prefix("## "))
        .map(|heading| heading.trim_start_matches('[').split(']').next().unwrap());
    assert_eq!(
        releases.next(),
        Some("Unreleased"),
        "CHANGELOG.md's first section"
    );
    for release in releases {
        assert!(
            parse(release) <= ours,
            "CHANGELOG.md lists {release}, newer than Cargo.toml's {}",
            env!("CARGO_PKG_VERSION")
        );
    }
}

/// Every shell block of the README and docs/ (those in ```` ```sh ````, ```` ```bash ````, or no
/// language at all; a program's output, or a synopsis with placeholders, goes in
/// ```` ```text ````).
fn shell_blocks() -> Vec<Block> {
    documents()
        .iter()
        .flat_map(|document| blocks(document))
        .filter(|block| ["sh", "bash", ""].contains(&block.lang.as_str()))
        .collect()
}

/// Where `block` is, for messages: its document and first line.
fn whereabouts(block: &Block) -> String {
    let first = block.body.lines().next().unwrap_or_default();
    let document = block
        .document
        .strip_prefix(root())
        .unwrap_or(&block.document);
    format!("{}: the block `{first}`", document.display())
}

/// The source files of the tests: where a test names the block it runs.
fn test_sources() -> String {
    let mut sources = String::new();
    let mut folders = vec![root().join("tests"), root().join("bindings/python/tests")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a tests folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path
                .extension()
                .is_some_and(|ext| ext == "rs" || ext == "py")
            {
                sources += &std::fs::read_to_string(&path).expect("a test source");
            }
        }
    }
    sources
}

/// What .ci/run installs with apt-get: the words of its `apt-get install` command and the
/// lines continuing it, and of the lists it expands there (`node_packages=(nodejs npm)`).
fn ci_packages(ci_run: &str) -> BTreeSet<String> {
    let mut packages = BTreeSet::new();
    let mut continued = false;
    for line in ci_run.lines() {
        let installing = line.starts_with("apt-get install") || continued;
        if installing || line.starts_with("node_packages=(") {
            let words = line
                .trim_start_matches("node_packages=(")
                .trim_end_matches(')');
            packages.extend(
                words
                    .split_whitespace()
                    .filter(|word| {
                        word.chars()
                            .all(|c| c.is_ascii_alphanumeric() || "-.+".contains(c))
                    })
                    .map(str::to_owned),
            );
        }
        continued = installing && line.ends_with('\\');
    }
    packages
}

#[test]
fn every_shell_block_is_run_by_a_test_or_ci_or_marked() {
    let ci_run = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    let ci_lines: Vec<Vec<&str>> = ci_run
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    let packages = ci_packages(&ci_run);
    let sources = test_sources();
    let mut names = BTreeSet::new();
    for block in shell_blocks() {
        let at = whereabouts(&block);
        match block.tag.as_deref() {
            Some("by-hand" | "benchmark") => {}
            Some("ci") => {
                for line in block.body.lines() {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    assert!(
                        ci_lines.iter().any(|ci| ci.starts_with(&words)),
                        "{at}: `{line}` is not a line of .ci/run"
                    );
                }
            }
            Some(tag) if tag.starts_with("test:") => {
                let name = &tag["test:".len()..];
                assert!(
                    names.insert(name.to_owned()),
                    "{at}: a second block is {tag}"
                );
                assert!(
                    sources.contains(&format!("\"{name}\"")),
                    "{at}: no test runs {tag} (no test source names \"{name}\")"
                );
                let (apt, _) = split_apt_line(&block.body);
                for package in apt {
                    assert!(
                        packages.contains(package),
                        "{at}: .ci/run does not install {package}"
                    );
                }
            }
            _ => panic!(
                "{at} says neither who runs it (```sh test:NAME, ```sh ci) nor that nobody does \
                 (```sh by-hand, ```sh benchmark)"
            ),
        }
    }
}

/// The README is a map to each user's commands, the detail in docs/: it stays short enough to
/// find one's own section in.
#[test]
fn readme_is_at_most_250_lines() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines, more than 250: move detail to docs/"
    );
}

/// Every README section the map ("Which of these are you?") links to opens with its commands:
/// a code block in its first 6 lines, within the first screen.
#[test]
fn each_users_section_opens_with_its_commands() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let map = readme
        .split("## Which of these are you?")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has its map");
    let sections: Vec<&str> = links(map)
        .into_iter()
        .filter_map(|link| link.strip_prefix('#').map(str::to_owned))
        .map(|fragment| {
            readme
                .split("\n## ")
                .find(|section| anchor(section.lines().next().unwrap_or_default()) == fragment)
                .unwrap_or_else(|| panic!("no README section #{fragment}"))
        })
        .collect();
    assert!(
        sections.len() >= 8,
        "the map links {} sections",
        sections.len()
    );
    for section in sections {
        let title = section.lines().next().unwrap_or_default();
        assert!(
            section
                .lines()
                .skip(1)
                .take(6)
                .any(|line| line.starts_with("```")),
            "README's \"{title}\" does not open with its commands (a code block in its first 6 lines)"
        );
    }
}

/// docs/perf/chart.py's output for the benchmark outputs kept beside it.
fn chart_py(args: &[&str]) -> String {
    leveldb_bloom_test_support::process::run(
        std::process::Command::new("python3")
            .arg(root().join("docs/perf/chart.py"))
            .args(args),
    )
}

#[test]
fn performance_tables_and_chart_come_from_the_kept_outputs() {
    let performance = std::fs::read_to_string(root().join("docs/PERFORMANCE.md")).unwrap();
    for row in chart_py(&["--tables"])
        .lines()
        .filter(|l| l.starts_with("| "))
    {
        assert!(
            performance.lines().any(|line| line == row),
            "docs/PERFORMANCE.md lacks `{row}`: python3 docs/perf/chart.py --tables prints it"
        );
    }
    let drawn = std::fs::read_to_string(root().join("docs/perf/speedups.svg")).unwrap();
    assert!(
        chart_py(&["--out", "-"]) == drawn,
        "docs/perf/speedups.svg is not what python3 docs/perf/chart.py draws: draw it again"
    );
}
