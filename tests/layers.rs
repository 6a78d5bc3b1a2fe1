//! Checks over the text of src/ and of test-support/src/: each module imports only from its own
//! layer or those below it (by its `crate::`, `$crate::` and `super::` paths, a macro by the file
//! that defines it), no files import each other in a circle, and every section of
//! docs/PERFORMANCE.md that a comment in src/ cites exists.

use std::collections::BTreeMap;
use std::path::Path;

/// The library's layers, lowest first: a module's layer is that of its longest prefix listed
/// here. A file under none of them fails the test, so that a new module is placed on purpose.
const LAYERS: &[(&str, u8)] = &[
    // leveldb's filter format: constants, a filter's framing; a filter block's layout.
    ("format", 0),
    // The proof that code has no path to a panic.
    ("cannot_panic", 0),
    // A filter block's layout.
    ("block_format", 0),
    // leveldb's hash, and the scalar filter every kernel is tested against.
    ("hash", 1),
    ("scalar", 1),
    // Portable, AVX2 and AVX-512 kernels of one signature per operation.
    ("kernels", 2),
    // Which kernels run: one `match` per operation.
    ("dispatch", 3),
    // Many keys at once, and the single query that cannot unwind.
    ("bulk", 4),
    ("no_unwind", 4),
    // The Rust API.
    ("policy", 5),
    ("filter_block", 5),
    ("rusty", 5),
    // The C ABI.
    ("ffi", 6),
    // Tests of every path through every layer.
    ("path_tests", 7),
    // The crate root, which declares the modules and re-exports the API.
    ("", 8),
];

/// test-support's layers, as [`LAYERS`] are the library's.
const TEST_SUPPORT_LAYERS: &[(&str, u8)] = &[
    // What needs nothing else: a test's kept output, where it writes, the library's paths by
    // name, random data, leveldb's table format.
    ("capture", 0),
    ("scratch", 0),
    ("isa", 0),
    ("random", 0),
    ("tables", 0),
    // Running programs, their output into the test's.
    ("process", 1),
    // Where the repository and the libraries are, and what the repository holds: the vectors.
    ("paths", 2),
    ("vectors", 2),
    ("filterblock_vectors", 2),
    // Building the C test programs, tools/ and the check tool, fetching leveldb's packages; the
    // README's and docs/' blocks, and a user's machine to run them on.
    ("c_harness", 3),
    ("check_tool", 3),
    ("docs", 3),
    ("leveldb_tools", 3),
    ("packages", 3),
    // What runs those builds, and which tools this machine has.
    ("with_leveldb", 4),
    ("tools", 4),
    // The harness: a test ignored or failed by the tools it needs.
    ("trials", 5),
    // The crate root, which declares the modules (and holds the exported macros by name only).
    ("", 6),
];

#[test]
fn imports_only_go_down_the_layers_without_cycles() {
    check_layers("src", LAYERS);
}

#[test]
fn test_support_imports_only_go_down_the_layers_without_cycles() {
    check_layers("test-support/src", TEST_SUPPORT_LAYERS);
}

/// The check of the two tests above over the crate whose sources are in `src` (relative to the
/// repository), whose layers are `layers`.
fn check_layers(src: &str, layers: &[(&str, u8)]) {
    let files = source_files(src);
    let modules: Vec<&str> = files.keys().map(String::as_str).collect();
    let macros = macro_homes(&files);
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut upward = Vec::new();
    for (module, text) in &files {
        let layer = layer_of(layers, src, module);
        for (path, line) in crate_paths(module, &strip_comments_and_literals(text)) {
            let target = match &path {
                CratePath::Macro(name) => macros.get(name).copied(),
                CratePath::Item(segments) => longest_module_prefix(&modules, segments),
            };
            let Some(target) = target else {
                continue;
            };
            if target == module.as_str() {
                continue;
            }
            if layer_of(layers, src, target) > layer {
                upward.push(format!(
                    "{} (layer {layer}) imports {} (layer {}) at line {line}: {path}",
                    file_name(src, module),
                    file_name(src, target),
                    layer_of(layers, src, target),
                ));
            }
            let targets = edges.entry(module.as_str()).or_default();
            if !targets.contains(&target) {
                targets.push(target);
            }
        }
    }
    assert!(
        upward.is_empty(),
        "imports from a layer above:\n{}",
        upward.join("\n")
    );
    if let Some(cycle) = find_cycle(&edges) {
        let names: Vec<String> = cycle.iter().map(|m| file_name(src, m)).collect();
        panic!(
            "files that import each other in a circle: {}",
            names.join(" -> ")
        );
    }
}

#[test]
fn cited_performance_sections_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let notes =
        std::fs::read_to_string(root.join("docs/PERFORMANCE.md")).expect("docs/PERFORMANCE.md");
    let sections: Vec<&str> = notes
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .collect();
    let mut missing = Vec::new();
    let mut cited = 0;
    for (module, text) in source_files("src") {
        // Comment text with its line breaks and comment markers folded into spaces.
        let comments: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("//"))
            .map(|l| l.trim_start_matches(['/', '!']).trim())
            .collect();
        let comments = comments.join(" ");
        for citation in comments.split("docs/PERFORMANCE.md, ").skip(1) {
            let section = citation.split(')').next().unwrap_or_default();
            cited += 1;
            if !sections.contains(&section) {
                missing.push(format!("{}: {section:?}", file_name("src", &module)));
            }
        }
    }
    assert!(
        cited > 0,
        "no comment cites docs/PERFORMANCE.md: is the citation form still \"(see docs/PERFORMANCE.md, Section)\"?"
    );
    assert!(
        missing.is_empty(),
        "cited sections not in docs/PERFORMANCE.md:\n{}",
        missing.join("\n")
    );
}

/// Every .rs file under `src` (relative to the repository), by module path ("" for lib.rs,
/// "kernels" for kernels/mod.rs, "kernels::keys" for kernels/keys.rs).
fn source_files(src: &str) -> BTreeMap<String, String> {
    fn walk(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("a source folder is readable") {
            let path = entry.expect("a directory entry").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a UTF-8 name")
                .to_owned();
            if path.is_dir() {
                let mut prefix = prefix.to_vec();
                prefix.push(name);
                walk(&path, &prefix, out);
            } else if let Some(stem) = name.strip_suffix(".rs") {
                let mut module = prefix.to_vec();
                if stem != "mod" && stem != "lib" {
                    module.push(stem.to_owned());
                }
                let text = std::fs::read_to_string(&path).expect("a source file is readable");
                out.insert(module.join("::"), text);
            }
        }
    }
    let mut files = BTreeMap::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(src),
        &[],
        &mut files,
    );
    assert!(files.len() > 10, "{src}/ has its files");
    files
}

/// The layer of `module` of the crate in `src` by `layers`.
fn layer_of(layers: &[(&str, u8)], src: &str, module: &str) -> u8 {
    layers
        .iter()
        .filter(|(prefix, _)| {
            module == *prefix || (!prefix.is_empty() && module.starts_with(&format!("{prefix}::")))
        })
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|&(_, layer)| layer)
        .unwrap_or_else(|| panic!("{src}/ module `{module}` is in no layer: add it to its layers"))
}

fn file_name(src: &str, module: &str) -> String {
    if module.is_empty() {
        format!("{src}/lib.rs")
    } else {
        format!("{src}/{}.rs", module.replace("::", "/"))
    }
}

/// The module of each of `files` that defines a macro, by the macro's name.
fn macro_homes(files: &BTreeMap<String, String>) -> BTreeMap<String, &str> {
    let mut homes = BTreeMap::new();
    for (module, text) in files {
        let tokens = tokenize(&strip_comments_and_literals(text));
        for definition in tokens.windows(3) {
            if definition[0].0 == "macro_rules" && definition[1].0 == "!" {
                homes.insert(definition[2].0.clone(), module.as_str());
            }
        }
    }
    homes
}

/// A path into the crate: an item (a module's, by its segments), or a macro, by name.
enum CratePath {
    Item(Vec<String>),
    Macro(String),
}

impl std::fmt::Display for CratePath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CratePath::Item(segments) => write!(f, "{}", segments.join("::")),
            CratePath::Macro(name) => write!(f, "{name}!"),
        }
    }
}

/// The longest of `modules` that `path` starts with, if any.
fn longest_module_prefix<'m>(modules: &[&'m str], path: &[String]) -> Option<&'m str> {
    (0..=path.len()).rev().find_map(|n| {
        let prefix = path[..n].join("::");
        modules.iter().find(|m| **m == prefix).copied()
    })
}

/// `text` with comments and the insides of string and character literals blanked out (line
/// breaks kept), so that only code is left to read paths from.
fn strip_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if chars[i] == 'r'
            && matches!(rest.get(1), Some('"' | '#'))
            && !is_ident(chars.get(i.wrapping_sub(1)))
        {
            // A raw string: r"..." or r#"..."#.
            let hashes = rest[1..].iter().take_while(|&&c| c == '#').count();
            if rest.get(1 + hashes) != Some(&'"') {
                out.push(chars[i]);
                i += 1;
                continue;
            }
            let end: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !chars[i..].starts_with(&end) {
                out.push(blank(chars[i]));
                i += 1;
            }
            i += end.len();
        } else if chars[i] == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                out.push(blank(chars[i]));
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if chars[i] == '\'' {
            // A character literal ('x', '\n', '\u{7f}'), or else a lifetime or label.
            if rest.get(1) == Some(&'\\') {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if rest.get(2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn is_ident(c: Option<&char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || *c == '_')
}

/// The crate paths that `code` (of `module`, comments and literals stripped) names, resolved to
/// absolute segments, with their line numbers: every `crate::`, `$crate::` and `super::` path,
/// `use` groups expanded; a path called as a macro (`$crate::name!`) by the macro's name.
/// `super` counts the inline `mod name { ... }` blocks it stands in.
fn crate_paths(module: &str, code: &str) -> Vec<(CratePath, usize)> {
    let tokens = tokenize(code);
    let file_module: Vec<String> = module
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    // The inline modules open at each token, as a stack of (name, brace depth inside it).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut paths = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let (token, line) = (&tokens[i].0, tokens[i].1);
        match token.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if inline.last().is_some_and(|(_, d)| *d == depth + 1) {
                    inline.pop();
                }
            }
            "mod" if tokens.get(i + 2).is_some_and(|t| t.0 == "{") => {
                inline.push((tokens[i + 1].0.clone(), depth + 1));
            }
            "crate" | "$crate" | "super"
                if tokens.get(i + 1).is_some_and(|t| t.0 == "::")
                    && (i == 0 || tokens[i - 1].0 != "::") =>
            {
                let mut here: Vec<String> = file_module.clone();
                here.extend(inline.iter().map(|(name, _)| name.clone()));
                let mut base = Vec::new();
                let mut j = i;
                if token == "super" {
                    base = here;
                    while tokens.get(j).is_some_and(|t| t.0 == "super")
                        && tokens.get(j + 1).is_some_and(|t| t.0 == "::")
                    {
                        base.pop();
                        j += 2;
                    }
                } else {
                    j += 2;
                }
                let (tree, next) = use_tree(&tokens, j);
                let called = tokens.get(next).is_some_and(|t| t.0 == "!");
                for path in tree {
                    match path.last() {
                        Some(name) if called => paths.push((CratePath::Macro(name.clone()), line)),
                        _ => {
                            let mut full = base.clone();
                            full.extend(path);
                            paths.push((CratePath::Item(full), line));
                        }
                    }
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    paths
}

/// The paths of a use tree (or a plain path) starting at `tokens[start]`, and the index after it.
fn use_tree(tokens: &[(String, usize)], start: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    let mut i = start;
    loop {
        match tokens.get(i).map(|t| t.0.as_str()) {
            Some("{") => {
                let mut paths = Vec::new();
                i += 1;
                while tokens.get(i).is_some_and(|t| t.0 != "}") {
                    if tokens[i].0 == "," {
                        i += 1;
                        continue;
                    }
                    let (tree, next) = use_tree(tokens, i);
                    for path in tree {
                        let mut full = prefix.clone();
                        full.extend(path);
                        paths.push(full);
                    }
                    i = next;
                    // Skip a rename (`as name`) up to the next item or the group's end.
                    while tokens.get(i).is_some_and(|t| t.0 != "," && t.0 != "}") {
                        i += 1;
                    }
                }
                return (paths, i + 1);
            }
            Some(word) if is_ident(word.chars().next().as_ref()) => {
                if word != "self" {
                    prefix.push(word.to_owned());
                }
                i += 1;
                if tokens.get(i).is_some_and(|t| t.0 == "::") {
                    i += 1;
                } else {
                    return (vec![prefix], i);
                }
            }
            // `*`, or a path that ends before an operator: what was read so far.
            _ => return (vec![prefix], i),
        }
    }
}

/// Identifiers (with `$crate`), `::`, and every other character as its own token, with lines.
fn tokenize(code: &str) -> Vec<(String, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' || (c == '$' && is_ident(chars.get(i + 1))) {
            let start = i;
            i += 1;
            while is_ident(chars.get(i)) {
                i += 1;
            }
            tokens.push((chars[start..i].iter().collect(), line));
        } else if chars[i..].starts_with(&[':', ':']) {
            tokens.push(("::".to_owned(), line));
            i += 2;
        } else {
            tokens.push((c.to_string(), line));
            i += 1;
        }
    }
    tokens
}

/// A cycle in `edges` as its modules in order (the first repeated at the end), if there is one.
fn find_cycle<'m>(edges: &BTreeMap<&'m str, Vec<&'m str>>) -> Option<Vec<&'m str>> {
    fn visit<'m>(
        module: &'m str,
        edges: &BTreeMap<&'m str, Vec<&'m str>>,
        done: &mut Vec<&'m str>,
        path: &mut Vec<&'m str>,
    ) -> Option<Vec<&'m str>> {
        if let Some(at) = path.iter().position(|m| *m == module) {
            let mut cycle = path[at..].to_vec();
            cycle.push(module);
            return Some(cycle);
        }
        if done.contains(&module) {
            return None;
        }
        path.push(module);
        for &next in edges.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(next, edges, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.push(module);
        None
    }
    let mut done = Vec::new();
    edges
        .keys()
        .find_map(|&module| visit(module, edges, &mut done, &mut Vec::new()))
}
