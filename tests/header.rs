//! The committed C header must be exactly what the pinned cbindgen generates from the source.

use std::path::Path;
use std::process::Command;

use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tmp_dir;

#[test]
fn committed_header_is_current() {
    let crate_dir = env!("CARGO_MANIFEST_DIR");
    let mut config = cbindgen::Config::from_file(Path::new(crate_dir).join("cbindgen.toml"))
        .expect("cbindgen.toml parses");
    // The version macros come from Cargo.toml, the one place the version is written; C++
    // linkage opens here and closes in cbindgen.toml's trailer.
    config.after_includes = Some(format!(
        "\n#define LEVELDB_BLOOM_VERSION_MAJOR {}\n#define LEVELDB_BLOOM_VERSION_MINOR {}\n\
         #define LEVELDB_BLOOM_VERSION_PATCH {}\n\n#ifdef __cplusplus\nextern \"C\" {{\n#endif",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    ));
    // The declarations of the names src/ffi/leveldb_names.rs makes with a macro, which cbindgen
    // does not expand: the list as written, after every other item, before the trailer.
    let forwarders = forwarders_declared(&config);
    config.trailer = Some(format!(
        "{forwarders}\n{}",
        config.trailer.unwrap_or_default()
    ));
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header")
        .write(&mut generated);

    let header = Path::new(crate_dir).join("include/leveldb_bloom.h");
    let committed = std::fs::read(&header).unwrap_or_default();
    if committed == generated {
        return;
    }
    // A stale header is rewritten on request, but the test still fails: it passes only once the
    // committed header has been compared with the generated one and found equal.
    if std::env::var_os("UPDATE_HEADER").is_some() {
        std::fs::write(&header, &generated).expect("header written");
        panic!(
            "include/leveldb_bloom.h was stale and has been rewritten: review the diff, then run \
             `cargo test --test header` again without UPDATE_HEADER"
        );
    }
    panic!(
        "include/leveldb_bloom.h is stale: regenerate it with `UPDATE_HEADER=1 cargo test --test header`"
    );
}

/// What cbindgen declares, with `config`'s rules, for the items of `forward_to_own_names!`'s list
/// in src/ffi/leveldb_names.rs, which holds them as a module holds its items: each a function as
/// its export is declared, with its doc, in that module's cfg.
fn forwarders_declared(config: &cbindgen::Config) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/ffi/leveldb_names.rs");
    let source = std::fs::read_to_string(&path).expect("src/ffi/leveldb_names.rs");
    let list = source
        .split_once("\nforward_to_own_names! {\n")
        .and_then(|(_, rest)| rest.split_once("\n}\n"))
        .expect("leveldb_names.rs has the list `forward_to_own_names! {` ... `}`")
        .0;
    let dir = claim(fresh(tmp_dir!().program().join("forwarders")));
    let module = dir.join("leveldb_names.rs");
    std::fs::write(
        &module,
        format!(
            "#[cfg(feature = \"leveldb-c-api\")]\nmod leveldb_names {{\n{}\n}}\n",
            list.replace(
                "pub unsafe extern",
                "#[unsafe(no_mangle)]\npub unsafe extern"
            )
        ),
    )
    .expect("the list written out");
    // Only the declarations: the header's frame is the crate's.
    let mut config = config.clone();
    config.header = None;
    config.trailer = None;
    config.autogen_warning = None;
    config.include_guard = None;
    config.after_includes = None;
    config.no_includes = true;
    config.sys_includes = Vec::new();
    let mut declared = Vec::new();
    cbindgen::Builder::new()
        .with_src(&module)
        .with_config(config)
        .generate()
        .expect("cbindgen declares the list")
        .write(&mut declared);
    String::from_utf8(declared).expect("UTF-8")
}

/// The version is written once, in Cargo.toml: the header's macros and what the library reports
/// at run time must both say it.
#[test]
fn header_and_library_report_the_crate_version() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let manifest = std::fs::read_to_string(crate_dir.join("Cargo.toml")).expect("Cargo.toml");
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Cargo.toml has a version line");

    let header = std::fs::read_to_string(crate_dir.join("include/leveldb_bloom.h")).unwrap();
    let macro_value = |part: &str| {
        let name = format!("#define LEVELDB_BLOOM_VERSION_{part} ");
        header
            .lines()
            .find_map(|line| line.strip_prefix(name.as_str()))
            .unwrap_or_else(|| panic!("the header defines LEVELDB_BLOOM_VERSION_{part}"))
            .to_owned()
    };
    let from_macros = ["MAJOR", "MINOR", "PATCH"].map(macro_value).join(".");
    assert_eq!(from_macros, version, "the header's version macros");

    // SAFETY: leveldb_bloom_version returns a static NUL-terminated string.
    let reported = unsafe { std::ffi::CStr::from_ptr(leveldb_bloom::ffi::leveldb_bloom_version()) };
    assert_eq!(reported.to_str(), Ok(version), "leveldb_bloom_version()");
}

/// The files the tests read byte for byte are checked out with LF line ends on every platform
/// (.gitattributes), so that a checkout on Windows passes them too. Outside a git checkout (or
/// without git) there is no checkout to ask about.
#[test]
fn files_read_byte_for_byte_are_checked_out_with_lf() {
    let files = [
        "include/leveldb_bloom.h",
        "cbindgen.toml",
        "README.md",
        "vectors/build.txt",
        "vectors/match.txt",
        "vectors/filterblock.txt",
        "c_tests/vectors.h",
    ];
    let Ok(output) = Command::new("git")
        .args(["check-attr", "text", "eol", "--"])
        .args(files)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
    else {
        return;
    };
    if !output.status.success() {
        return;
    }
    let attributes = String::from_utf8_lossy(&output.stdout);
    for file in files {
        for wanted in ["text: auto", "eol: lf"] {
            assert!(
                attributes
                    .lines()
                    .any(|line| line == format!("{file}: {wanted}")),
                "{file} must be checked out as {wanted} (.gitattributes):\n{attributes}"
            );
        }
    }
}
