//! Compiles the C and C++ programs in c_tests/ against the library cargo just built, links each
//! statically and dynamically, runs it on each path the CPU has and requires its "N passed,
//! 0 failed" line and the path it was given. Each trial builds in its own folder.

use std::path::{Path, PathBuf};
use std::process::Command;

use leveldb_bloom_test_support::c_harness::{
    FULL, Link, NATIVE_STATIC_LIBS, Program, TARGET, build, build_each, build_prefixed, command,
    compiler, prefixed_library, program, programs, run, run_on,
};
use leveldb_bloom_test_support::docs::code_blocks;
#[cfg(target_os = "linux")]
use leveldb_bloom_test_support::docs::{UserShell, test_block};
use leveldb_bloom_test_support::leveldb_tools::build_tool;
use leveldb_bloom_test_support::paths::{lib_dir, root, system_library};
use leveldb_bloom_test_support::scratch::claim;
use leveldb_bloom_test_support::tools::pinned_targets;
use leveldb_bloom_test_support::{isa, process, tmp_dir, trial, trials, with_leveldb};

fn main() {
    trials::run(vec![
        trial!(vectors_through_c_abi),
        trial!(filter_blocks_through_c_abi),
        trial!(core_abi_bad_input),
        trial!(batch_query_through_c_abi),
        trial!(bad_input_through_c_abi),
        trial!(custom_policies_through_c_abi),
        trial!(threads_share_one_policy),
        trial!(threads_share_one_object_of_leveldbs, Leveldb),
        trial!(differential_against_leveldb, Leveldb),
        trial!(out_of_memory_through_c_abi),
        trial!(one_file_includes_leveldb_c_h_and_our_header, Leveldb),
        trial!(policies_of_leveldb_and_for_leveldb_through_c_abi, Leveldb),
        trial!(
            leveldbs_constructor_runs_with_no_lock_held_and_its_exception_aborts,
            Leveldb
        ),
        trial!(c_tests_by_own_names_against_the_build_without_leveldbs),
        trial!(every_leveldb_name_has_an_own_name),
        trial!(with_leveldb_linked_shared_in_either_order, Leveldb),
        trial!(with_leveldb_both_static_archives_fail_to_link, Leveldb),
        trial!(
            with_leveldbs_static_archive_and_this_library_shared,
            Leveldb
        ),
        trial!(with_leveldb_this_library_loaded_with_dlopen, Leveldb),
        trial!(with_leveldb_leveldb_loaded_with_dlopen, Leveldb),
        trial!(with_leveldb_the_build_without_leveldbs_names, Leveldb),
        trial!(header_compiles_as_c_and_cpp),
        trial!(readme_c_examples_compile_and_run),
        // Linux: LD_LIBRARY_PATH and readelf.
        #[cfg(target_os = "linux")]
        trial!(build_tree_link_lines),
        trial!(committed_vectors_regenerate_from_leveldb, Leveldb),
        trial!(benchmark_against_leveldb_checks_pass, Leveldb),
        trial!(
            filter_block_benchmark_against_leveldb_checks_pass,
            Leveldb,
            LeveldbSource
        ),
        trial!(benchmark_runs_every_path_in_turn, Leveldb),
        trial!(single_query_ab_tool_checks_pass),
        trial!(native_static_libs_are_pinned),
        trial!(native_static_libs_are_pinned_for_every_target, RustTargets),
    ]);
}

/// Builds the program from `source` linked statically and dynamically, and runs both on each
/// path this CPU has, with each set of arguments the program list gives it.
fn build_and_run_both(source: &str) {
    build_and_run_both_where(source, |_| true);
}

/// [`build_and_run_both`] with the sets of arguments `chosen` picks.
fn build_and_run_both_where(source: &str, chosen: impl Fn(&Program) -> bool) {
    let runs: Vec<_> = programs(FULL)
        .into_iter()
        .filter(|program| program.source == source && chosen(program))
        .collect();
    assert!(!runs.is_empty(), "{source} is not in the program list");
    for link in [Link::Static, Link::Shared] {
        for (program, exe) in build_each(runs.clone(), link, &[], &tmp_dir!().trial()) {
            for path in isa::up_to(leveldb_bloom::isa()) {
                run_on(path, command(&program, &exe));
            }
        }
    }
}

fn vectors_through_c_abi() {
    build_and_run_both("c_tests/test_vectors.c");
}

/// Filter blocks: leveldb's vectors through the C ABI, and every bad-input row.
fn filter_blocks_through_c_abi() {
    build_and_run_both("c_tests/test_filterblock.c");
}

fn core_abi_bad_input() {
    build_and_run_both("c_tests/test_core_abi.c");
}

fn batch_query_through_c_abi() {
    build_and_run_both("c_tests/test_batch.c");
}

fn bad_input_through_c_abi() {
    build_and_run_both("c_tests/test_bad_input.c");
}

fn custom_policies_through_c_abi() {
    build_and_run_both("c_tests/test_custom_policy.c");
}

fn threads_share_one_policy() {
    build_and_run_both_where("c_tests/test_threads.c", |program| !program.needs_leveldb);
}

/// The same with leveldb's C API loaded: by leveldb's names, through objects of leveldb's that
/// wrap this library's policies, while another thread makes and destroys others.
fn threads_share_one_object_of_leveldbs() {
    build_and_run_both_where("c_tests/test_threads.c", |program| program.needs_leveldb);
}

/// Live comparison with the system leveldb on random inputs, for a fixed number of cases. The
/// seed is fixed unless LEVELDB_BLOOM_DIFF_SEED is set (CI sets a fresh one each run).
fn differential_against_leveldb() {
    build_and_run_both("c_tests/differential_leveldb.cc");
}

/// Real allocation failure (address space limited): NULL, never an abort.
fn out_of_memory_through_c_abi() {
    build_and_run_both("c_tests/test_out_of_memory.c");
}

fn one_file_includes_leveldb_c_h_and_our_header() {
    build_and_run_both("c_tests/test_with_leveldb_header.c");
}

/// Policies leveldb made are bad input to every function, by either family of names; those that
/// this library's leveldb names make where leveldb's C API is loaded are leveldb's objects over
/// this library's filter.
fn policies_of_leveldb_and_for_leveldb_through_c_abi() {
    build_and_run_both("c_tests/test_leveldb_objects.c");
}

/// leveldb's `leveldb_filterpolicy_create`, as this library calls it to make leveldb's objects,
/// runs with no lock of this library's held (another thread uses the library from inside it), and
/// an exception it throws aborts the process, as the header says.
fn leveldbs_constructor_runs_with_no_lock_held_and_its_exception_aborts() {
    build_and_run_both("c_tests/test_leveldb_constructor.cc");
}

/// The C tests that need nothing but this library, by its own names (c_tests/own_names.h),
/// against the build without leveldb's names, linked statically and dynamically, on each path
/// this CPU has: that build has everything, and the own names answer as leveldb's do.
fn c_tests_by_own_names_against_the_build_without_leveldbs() {
    let runs: Vec<_> = programs(FULL)
        .into_iter()
        .filter(|p| p.source.starts_with("c_tests/") && p.source.ends_with(".c"))
        .filter(|p| !p.needs_leveldb)
        .collect();
    assert!(runs.len() >= 8, "the C tests of the library alone");
    let dir = tmp_dir!().trial();
    for program in runs {
        for link in [Link::Static, Link::Shared] {
            let exe = build_prefixed(&program, link, &tmp_dir!(), &dir);
            for path in isa::up_to(leveldb_bloom::isa()) {
                run_on(path, command(&program, &exe));
            }
        }
    }
}

/// The dynamic symbols `library` defines whose names start with `prefix`.
fn defined(library: &Path, prefix: &str) -> Vec<String> {
    process::run(
        Command::new("nm")
            .args(["-D", "--defined-only", "--format=just-symbols"])
            .arg(library),
    )
    .lines()
    .filter(|name| name.starts_with(prefix))
    .map(str::to_owned)
    .collect()
}

/// The default build defines each of leveldb's names under this library's own too; the build
/// without leveldb's names defines all the own names and none of leveldb's.
fn every_leveldb_name_has_an_own_name() {
    let default = lib_dir().join("libleveldb_bloom.so");
    let prefixed = prefixed_library(&tmp_dir!()).join("libleveldb_bloom_prefixed.so");
    let own = |library: &Path| defined(library, "leveldb_bloom_");
    let leveldbs: Vec<String> = defined(&default, "leveldb_")
        .into_iter()
        .filter(|name| !name.starts_with("leveldb_bloom_"))
        .collect();
    assert!(leveldbs.len() >= 15, "{leveldbs:?}");
    for name in &leveldbs {
        let own_name = name.replacen("leveldb_", "leveldb_bloom_", 1);
        assert!(
            own(&default).contains(&own_name),
            "no {own_name} for {name}"
        );
    }
    assert_eq!(own(&prefixed), own(&default), "the two builds' own names");
    assert_eq!(
        defined(&prefixed, "leveldb_"),
        own(&prefixed),
        "leveldb's names"
    );
}

/// What a program needs to link leveldb's static library from cc.
fn static_leveldb() -> Vec<String> {
    let mut args = vec![system_library("libleveldb.a").display().to_string()];
    args.extend(["-lsnappy", "-lstdc++"].map(String::from));
    args
}

/// Linking this library's `lib<name>` shared, with an rpath to `dir`.
fn shared(dir: &Path, name: &str) -> Vec<String> {
    vec![
        format!("-L{}", dir.display()),
        format!("-l{name}"),
        format!("-Wl,-rpath,{}", dir.display()),
    ]
}

/// Compiles db.c into `dir/name` (claimed) with `flags`, linked by `link`; the compiler's errors
/// if it fails.
fn build_db(dir: &Path, name: &str, flags: &[&str], link: &[String]) -> Result<PathBuf, String> {
    let exe = claim(dir.join(name));
    let output = process::output(
        compiler(with_leveldb::SOURCE, flags)
            .arg("-o")
            .arg(&exe)
            .args(link)
            .args(NATIVE_STATIC_LIBS.split_whitespace()),
    );
    if output.status.success() {
        Ok(exe)
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Linked with leveldb, shared, in either order, with and without --as-needed: this library
/// first, its leveldb_filterpolicy_create_bloom gives leveldb a policy of leveldb's own over
/// this library's filter; leveldb first, leveldb's own, which this library answers as bad input.
fn with_leveldb_linked_shared_in_either_order() {
    let dir = tmp_dir!().trial();
    let ours = shared(&lib_dir(), "leveldb_bloom");
    let leveldb = vec!["-lleveldb".to_owned()];
    for as_needed in [false, true] {
        let first: Vec<String> = as_needed
            .then(|| "-Wl,--as-needed".to_owned())
            .into_iter()
            .collect();
        for (name, order, expected) in [
            (
                "ours-first",
                [&ours[..], &leveldb],
                with_leveldb::Policy::Ours,
            ),
            (
                "leveldb-first",
                [&leveldb[..], &ours],
                with_leveldb::Policy::Leveldbs,
            ),
        ] {
            let link: Vec<String> = first.iter().chain(order.concat().iter()).cloned().collect();
            let name = format!("{name}{}", if as_needed { "-as-needed" } else { "" });
            let exe = build_db(&dir, &name, &[], &link).expect("links");
            with_leveldb::check(&exe, None, expected);
        }
    }
}

/// Both static libraries, in either order: the link stops, naming the clashing functions.
fn with_leveldb_both_static_archives_fail_to_link() {
    let dir = tmp_dir!().trial();
    let ours = vec![lib_dir().join("libleveldb_bloom.a").display().to_string()];
    for (name, order) in [
        ("ours-first", [&ours[..], &static_leveldb()]),
        ("leveldb-first", [&static_leveldb()[..], &ours]),
    ] {
        let errors = build_db(&dir, name, &[], &order.concat())
            .expect_err("both static libraries must not link");
        for function in [
            "leveldb_filterpolicy_create_bloom",
            "leveldb_filterpolicy_create",
            "leveldb_filterpolicy_destroy",
            "leveldb_free",
        ] {
            assert!(
                errors.contains(&format!("multiple definition of `{function}'")),
                "{name}: the error must name {function}:\n{errors}"
            );
        }
        assert!(errors.contains("libleveldb_bloom.a("), "{errors}");
    }
}

/// leveldb's static archive in the program, this library's shared build linked too, in either
/// order, the program exporting its symbols or not: the archive's definitions are the program's
/// own, which come before any library's, so its leveldb names are leveldb's.
fn with_leveldbs_static_archive_and_this_library_shared() {
    let dir = tmp_dir!().trial();
    let ours = shared(&lib_dir(), "leveldb_bloom");
    for export in [false, true] {
        let flags: Vec<String> = export.then(|| "-rdynamic".to_owned()).into_iter().collect();
        for (name, order) in [
            ("ours-first", [&ours[..], &static_leveldb()]),
            ("leveldb-first", [&static_leveldb()[..], &ours]),
        ] {
            let link: Vec<String> = flags.iter().chain(order.concat().iter()).cloned().collect();
            let name = format!("{name}{}", if export { "-rdynamic" } else { "" });
            let exe = build_db(&dir, &name, &["-DLEVELDB_STATIC"], &link).expect("links");
            with_leveldb::check(&exe, None, with_leveldb::Policy::Leveldbs);
        }
    }
}

/// Linked with leveldb, this library loaded with dlopen, privately or globally, its functions
/// taken with dlsym: its leveldb_filterpolicy_create_bloom gives a policy leveldb can use.
fn with_leveldb_this_library_loaded_with_dlopen() {
    let dir = tmp_dir!().trial();
    let library = lib_dir().join("libleveldb_bloom.so");
    for (name, flags) in [
        ("local", "RTLD_NOW|RTLD_LOCAL"),
        ("global", "RTLD_NOW|RTLD_GLOBAL"),
    ] {
        let define = format!("-DBLOOM_DLOPEN={flags}");
        let exe = build_db(&dir, name, &[&define], &["-lleveldb".to_owned()]).expect("links");
        with_leveldb::check(&exe, Some(&library), with_leveldb::Policy::Ours);
    }
}

/// Linked with this library, leveldb loaded with dlopen, privately or globally, its functions
/// taken with dlsym: this library's leveldb_filterpolicy_create_bloom finds it, and gives a
/// policy it can use.
fn with_leveldb_leveldb_loaded_with_dlopen() {
    let dir = tmp_dir!().trial();
    let ours = shared(&lib_dir(), "leveldb_bloom");
    for (name, flags) in [
        ("local", "RTLD_NOW|RTLD_LOCAL"),
        ("global", "RTLD_NOW|RTLD_GLOBAL"),
    ] {
        let define = format!("-DLEVELDB_DLOPEN={flags}");
        let exe = build_db(&dir, name, &[&define], &ours).expect("links");
        with_leveldb::check(&exe, None, with_leveldb::Policy::Ours);
    }
}

/// The build without leveldb's names, linked with leveldb shared or static, in either order: the
/// program's leveldb names are leveldb's, this library's own answer its policy as bad input, and
/// their own policies as leveldb does.
fn with_leveldb_the_build_without_leveldbs_names() {
    let dir = tmp_dir!().trial();
    let prefixed = prefixed_library(&tmp_dir!());
    let ours_shared = shared(prefixed, "leveldb_bloom_prefixed");
    let ours_static = vec![
        prefixed
            .join("libleveldb_bloom_prefixed.a")
            .display()
            .to_string(),
    ];
    let leveldb_shared = vec!["-lleveldb".to_owned()];
    let leveldb_static = static_leveldb();
    for (name, order) in [
        ("shared-ours-first", [&ours_shared[..], &leveldb_shared]),
        ("shared-leveldb-first", [&leveldb_shared[..], &ours_shared]),
        ("static-ours-first", [&ours_static[..], &leveldb_static]),
        ("static-leveldb-first", [&leveldb_static[..], &ours_static]),
    ] {
        let exe =
            build_db(&dir, name, &["-DLEVELDB_BLOOM_PREFIXED"], &order.concat()).expect("links");
        with_leveldb::check(&exe, None, with_leveldb::Policy::Leveldbs);
    }
}

/// The header compiles on its own as C89 and later C, and as C++98 and later, with every warning
/// an error.
fn header_compiles_as_c_and_cpp() {
    let dir = tmp_dir!().trial();
    for (compiler, std, file) in [
        ("cc", "-std=c89", "header_only.c"),
        ("cc", "-std=c11", "header_only.c"),
        ("c++", "-std=c++98", "header_only.cc"),
        ("c++", "-std=c++11", "header_only.cc"),
    ] {
        let source = dir.join(file);
        std::fs::write(
            &source,
            "#include \"leveldb_bloom.h\"\n#include \"leveldb_bloom.h\"\n",
        )
        .unwrap();
        let mut cmd = Command::new(compiler);
        cmd.args([
            std,
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
        ])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(&source);
        let output = process::output(&mut cmd);
        assert!(
            output.status.success(),
            "{compiler} {std} rejects include/leveldb_bloom.h: {}",
            output.status
        );
    }
}

/// Every ```c block of the README is a complete program: it must compile and run.
fn readme_c_examples_compile_and_run() {
    let blocks = code_blocks("c");
    assert!(!blocks.is_empty(), "the README has no C example");
    let dir = tmp_dir!().trial();
    for (i, block) in blocks.iter().enumerate() {
        let source = dir.join(format!("readme_example_{i}.c"));
        std::fs::write(&source, block).unwrap();
        let exe = dir.join(format!("readme_example_{i}"));
        process::run(
            Command::new("cc")
                .args(["-std=c11", "-Wall", "-Wextra", "-Werror"])
                .arg(format!("-I{}", root().join("include").display()))
                .arg(&source)
                .arg(lib_dir().join("libleveldb_bloom.a"))
                .args(NATIVE_STATIC_LIBS.split_whitespace())
                .arg("-o")
                .arg(&exe),
        );
        process::run(Command::new(&exe).env_remove("LD_LIBRARY_PATH"));
    }
}

/// docs/PLATFORMS.md's static and shared links from the build tree, as a user pastes them, with
/// cargo's release build shared with the other tests that run the README's commands; then its
/// static line with `cc -static`, which must give a program with no dynamic section.
#[cfg(target_os = "linux")]
fn build_tree_link_lines() {
    let shell = UserShell::new(claim(tmp_dir!().outside_checkout("build-tree")))
        .shared_target(&tmp_dir!().cargo_target("readme-cargo"));
    let stdout = shell.run("build-tree");
    let found = "members found:   10000 of 10000";
    assert_eq!(stdout.matches(found).count(), 2, "{stdout}");
    let dynamic = process::run(
        Command::new("readelf")
            .arg("-d")
            .arg(shell.checkout.join("quickstart")),
    );
    assert!(
        dynamic.contains("[libleveldb_bloom.so]"),
        "the program must load libleveldb_bloom.so"
    );

    let block = test_block("build-tree").body;
    let static_line = block
        .lines()
        .find(|line| line.starts_with("cc ") && line.contains("libleveldb_bloom.a"))
        .expect("the block links the static library");
    let fully_static = static_line
        .replacen("cc ", "cc -static ", 1)
        .replace("-o quickstart-static", "-o quickstart-fully-static");
    let stdout = process::run(shell.command("sh").arg("-ec").arg(format!(
        "{fully_static}\n./quickstart-fully-static\nreadelf -d quickstart-fully-static"
    )));
    assert!(
        stdout.contains(found) && stdout.contains("There is no dynamic section"),
        "`{fully_static}`: {stdout}"
    );
}

/// The committed vectors are exactly what leveldb produces through tools/gen_vectors.cc now.
fn committed_vectors_regenerate_from_leveldb() {
    let dir = tmp_dir!().trial();
    let generator = build_tool("gen_vectors", &[], &["-lleveldb"], &dir);
    process::run(Command::new(&generator).arg(&dir));
    for file in ["build.txt", "match.txt"] {
        let committed = std::fs::read(root().join("vectors").join(file)).unwrap();
        let regenerated = std::fs::read(dir.join(file)).unwrap();
        assert!(
            committed == regenerated,
            "vectors/{file} differs from what leveldb generates now"
        );
    }
}

/// The benchmark against leveldb (`cargo bench --bench vs_leveldb`) at tiny sizes, once: its
/// byte-for-byte checks of every filter and answer must pass. Nothing is timed here.
fn benchmark_against_leveldb_checks_pass() {
    build_and_run_both("benches/vs_leveldb.cc");
}

/// The filter block benchmark against leveldb's own FilterBlockBuilder and FilterBlockReader
/// (`cargo bench --bench vs_leveldb_filterblock`) at tiny sizes, once: its byte-for-byte checks
/// of the block and its answer checks must pass. Nothing is timed here.
fn filter_block_benchmark_against_leveldb_checks_pass() {
    build_and_run_both("benches/vs_leveldb_filterblock.cc");
}

/// The benchmark's --isa=all: it runs each path this CPU has in turn, slowest first, each in a
/// process of its own started from its argv[0]; where that names no program, it says so.
fn benchmark_runs_every_path_in_turn() {
    let mut program = program("benches/vs_leveldb.cc", FULL);
    program.args.push("--isa=all".into());
    let exe = build(&program, Link::Static, &[], &tmp_dir!().trial());
    let stdout = run(command(&program, &exe));
    let reported = isa::reported(&stdout);
    let mut paths = reported.clone();
    paths.dedup();
    assert_eq!(paths, isa::up_to(leveldb_bloom::isa()), "{reported:?}");
    #[cfg(unix)]
    program_named_by_argv0_missing(&program, &exe);
}

/// The benchmark started with an argv[0] that names no program: its --isa=all says so.
#[cfg(unix)]
fn program_named_by_argv0_missing(program: &Program, exe: &std::path::Path) {
    use std::os::unix::process::CommandExt;
    let missing = exe.with_file_name("no-such-program");
    let mut cmd = command(program, exe);
    cmd.arg0(&missing);
    let output = process::output(&mut cmd);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{}", output.status);
    assert!(
        stderr.contains(&format!(
            "cannot run {}: No such file or directory",
            missing.display()
        )),
        "{stderr}"
    );
}

/// The single-query A/B tool (benches/single_query_ab.c) at tiny sizes, the library against
/// itself, with hot keys and streaming ones, single and batch queries: its answer check and its
/// cleanup must pass. Nothing is timed here.
fn single_query_ab_tool_checks_pass() {
    build_and_run_both("benches/single_query_ab.c");
}

/// The system libraries the static library needs on the target these tests are built for are
/// what rustc says less `-lgcc_s`. rustc names libgcc_s for its unwinder, which has no static
/// archive, so `cc -static` cannot link with it; the compiler driver links the unwinder itself,
/// libgcc_s (as needed) into a dynamic program and libgcc_eh into a static one.
fn native_static_libs_are_pinned() {
    check_pinned(TARGET, NATIVE_STATIC_LIBS);
}

/// The same for every other target with a pinned list (cmake/native-static-libs/): every target
/// CI builds, for CMake's package and pkg-config file there.
fn native_static_libs_are_pinned_for_every_target() {
    for target in pinned_targets().iter().filter(|target| *target != TARGET) {
        let file = root().join(format!("cmake/native-static-libs/{target}.txt"));
        check_pinned(
            target,
            &std::fs::read_to_string(file).expect("the pinned list"),
        );
    }
}

/// `pinned` is what rustc's `--print native-static-libs` says for a build of the library for
/// `target` less `-lgcc_s` (cargo builds into a folder of its own, shared by the two tests: the
/// test's own target folder is locked), and docs/PLATFORMS.md states it.
fn check_pinned(target: &str, pinned: &str) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let (_, stderr) = process::run_with_errors(
        Command::new(cargo)
            .args(["rustc", "--locked", "--lib", "--crate-type", "staticlib"])
            .args(["--target", target, "--target-dir"])
            .arg(tmp_dir!().cargo_target("native-static-libs"))
            .args(["--", "--print", "native-static-libs"])
            .current_dir(root()),
    );
    let printed = stderr
        .lines()
        .find_map(|line| line.strip_prefix("note: native-static-libs: "))
        .unwrap_or_else(|| panic!("no native-static-libs note in:\n{stderr}"));
    let without_gcc_s: Vec<&str> = printed
        .split_whitespace()
        .filter(|lib| *lib != "-lgcc_s")
        .collect();
    let pinned = pinned.trim();
    assert_eq!(
        without_gcc_s.join(" "),
        pinned,
        "{target}: update cmake/native-static-libs/{target}.txt and docs/PLATFORMS.md"
    );
    let platforms = std::fs::read_to_string(root().join("docs/PLATFORMS.md")).expect("PLATFORMS");
    assert!(
        platforms.contains(&format!("`{pinned}`")),
        "docs/PLATFORMS.md must state `{pinned}` for {target}"
    );
}
