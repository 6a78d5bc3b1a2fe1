//! The README's code blocks, for the tests that run or check them.

use crate::paths::root;

/// The body of every ```` ```lang ```` block of README.md, in order.
pub fn code_blocks(lang: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    readme
        .split(&format!("```{lang}\n"))
        .skip(1)
        .map(|block| block.split("```").next().unwrap_or_default().to_owned())
        .collect()
}
