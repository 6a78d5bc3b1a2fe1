//! The README's C commands as a user pastes them: its main job, with no C++ compiler on `PATH`;
//! the install to ~/.local with examples/cmake-consumer built against it; the quickstart linked
//! with pkg-config's flags; examples/with_leveldb.c with the prefixed build and leveldb.
//!
//! Then the CMake flow beyond them, end to end: configure, build and ctest this project and run
//! its quickstart; install it to a temporary prefix; build the downstream project in
//! examples/cmake-consumer against that install with the shared, the static and the prefixed
//! target (the build without leveldb's names), and plain C with pkg-config, shared and static;
//! run them all and check with readelf which library each one needs. Then the prefixed build with
//! leveldb's C API in one program, through pkg-config, shared and static
//! (c_tests/with_leveldb/db.c). Then the static target and pkg-config's static flags with
//! `-static`, each a program with no dynamic section; and the package refusing a version it is
//! not compatible with. And with no C++ compiler on `PATH`, a C-only project adding this one with
//! `add_subdirectory`.
//!
//! Then the same for Windows, built with MinGW-w64 and run under wine: ctest, the install (the
//! DLL in bin/, its import library and the static library in lib/) and the consumer project.
//!
//! And for macOS on arm64, with zig as its C compiler and linker (cargo-zigbuild): built, installed
//! (the library named after its version, its install name and the links) and consumed, each
//! Mach-O file read with llvm-objdump, as nothing here can run them.
//!
//! Needs cmake, for Windows MinGW-w64 and wine, for macOS zig (looked for when the tests run; CI
//! sets LEVELDB_BLOOM_REQUIRE_CMAKE, _WINE and _ZIG to 1 so they cannot be skipped).

mod cmake_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use cmake_support::{cargo_options, cargo_target_dir, cmake_build, dynamic_section};
use leveldb_bloom_test_support::docs::UserShell;
use leveldb_bloom_test_support::paths::root;
use leveldb_bloom_test_support::process::{self, run};
use leveldb_bloom_test_support::scratch::{claim, fresh};
use leveldb_bloom_test_support::tools::Tool;
use leveldb_bloom_test_support::{tmp_dir, trial, trials, with_leveldb};

fn main() {
    trials::run(vec![
        trial!(readme_cmake_and_pkg_config_commands, Cmake),
        trial!(readme_commands_next_to_leveldb, Cmake, Leveldb),
        trial!(configure_build_ctest_install_and_consume, Cmake),
        trial!(main_job_and_add_subdirectory_need_no_cpp_compiler, Cmake),
        trial!(
            windows_build_ctest_install_and_consume_under_wine,
            Cmake,
            Wine
        ),
        trial!(macos_build_install_and_consume_linked_by_zig, Cmake, Zig),
    ]);
}

const SONAME: &str = concat!("libleveldb_bloom.so.", env!("CARGO_PKG_VERSION_MAJOR"));
const PREFIXED_SONAME: &str = concat!(
    "libleveldb_bloom_prefixed.so.",
    env!("CARGO_PKG_VERSION_MAJOR")
);

/// A shell command line, for the pkg-config builds, which need `$(...)` as users type them.
fn sh(script: &str, dir: &Path, prefix: &Path) -> String {
    run(Command::new("sh")
        .args(["-ec", script])
        .current_dir(dir)
        .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig")))
}

fn needs(program: &Path, soname: &str) -> bool {
    dynamic_section(program).contains(&format!("Shared library: [{soname}]"))
}

/// Runs a consumer program and requires its line saying every key was found.
fn run_consumer(program: &Path) {
    let stdout = run(&mut Command::new(program));
    assert!(
        stdout.contains("3 of 3 keys found"),
        "{}: {stdout}",
        program.display()
    );
}

/// Runs a consumer program linked with `-static`, which must have no dynamic section at all.
fn run_fully_static_consumer(program: &Path) {
    run_consumer(program);
    assert!(
        dynamic_section(program).contains("There is no dynamic section"),
        "{} must need no shared library",
        program.display()
    );
}

/// Writes a C project named `name` in `dir`, made afresh: CMake's first two lines, then `body`,
/// where `MAIN_C` stands for the consumer example's program.
fn write_c_project(dir: &Path, name: &str, body: &str) {
    let dir = fresh(dir.to_path_buf());
    let main_c = root().join("examples/cmake-consumer/main.c");
    let main_c = format!("\"{}\"", main_c.display());
    std::fs::write(
        dir.join("CMakeLists.txt"),
        format!(
            "cmake_minimum_required(VERSION 3.25)\nproject({name} LANGUAGES C)\n{}",
            body.replace("MAIN_C", &main_c)
        ),
    )
    .expect("CMakeLists.txt written");
}

/// The versions the package must accept and refuse (the version policy, docs/RELEASING.md): the
/// first of its major, as a program built against any earlier release of that major asks for it,
/// and the major before, whose ABI it does not keep.
fn accepted_and_refused_versions() -> (String, String) {
    let major: u32 = env!("CARGO_PKG_VERSION_MAJOR").parse().unwrap();
    let previous = major.checked_sub(1).expect("a version from 1.0 on");
    (format!("{major}.0"), format!("{previous}.0"))
}

/// The ctest names this project must register: `<program>-static` and `<program>-shared` for
/// every program in c_tests/ (those using leveldb only when leveldb is installed, not for
/// Windows; those using POSIX's RLIMIT_AS, and the C++ ones, which cross builds leave out, not
/// for Windows).
fn expected_ctest_names(windows: bool) -> Vec<String> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(root().join("c_tests")).expect("c_tests/") {
        let path = entry.expect("c_tests entry").path();
        if !path
            .extension()
            .is_some_and(|ext| ext == "c" || ext == "cc")
        {
            continue;
        }
        let source = std::fs::read_to_string(&path).expect("test source");
        let includes = |header: &str| source.lines().any(|line| line.starts_with(header));
        if includes("#include <leveldb/") && (windows || !Tool::Leveldb.is_present()) {
            continue;
        }
        if (includes("#include <sys/resource.h>") || path.extension().is_some_and(|e| e == "cc"))
            && windows
        {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy();
        names.extend([format!("{stem}-static"), format!("{stem}-shared")]);
    }
    names.sort();
    names
}

/// Runs ctest in `build` (each command through `wrap`, which sets wine's environment), which must
/// pass, and requires it to register every program the platform can build.
fn ctest(build: &Path, windows: bool, wrap: &mut dyn FnMut(&mut Command) -> &mut Command) {
    run(wrap(
        Command::new("ctest")
            .arg("--test-dir")
            .arg(build)
            .arg("--output-on-failure"),
    ));
    let listed = run(wrap(
        Command::new("ctest").arg("--test-dir").arg(build).arg("-N"),
    ));
    let mut registered: Vec<String> = listed
        .lines()
        .filter_map(|line| {
            // "  Test  #1: name", padded to the width of the largest number.
            let numbered = line.trim_start().strip_prefix("Test")?.trim_start();
            numbered.strip_prefix('#')?.split_once(": ")
        })
        .map(|(_, name)| name.trim().to_owned())
        .collect();
    registered.sort();
    assert_eq!(
        registered,
        expected_ctest_names(windows),
        "ctest must run every program in c_tests/ this platform can build"
    );
}

/// One platform's CMake flow in the trial's folder: this project's build folder, the prefix it is
/// installed to, and the folder of the consumer's builds (examples/cmake-consumer's in build/).
struct Flow {
    build: PathBuf,
    prefix: PathBuf,
    consumer: PathBuf,
}

impl Flow {
    /// Configures and builds this project with `options` (a toolchain file, say), with the prefix
    /// and the consumer's folder fresh.
    fn build(options: &[&str]) -> Flow {
        let work = tmp_dir!().trial();
        let flow = Flow {
            build: work.join("build"),
            prefix: fresh(work.join("prefix")),
            consumer: fresh(work.join("consumer")),
        };
        cmake_build(&flow.build, options);
        flow
    }

    fn install(&self) {
        run(Command::new("cmake")
            .arg("--install")
            .arg(&self.build)
            .arg("--prefix")
            .arg(&self.prefix));
    }

    /// Builds examples/cmake-consumer against the install with `options`; returns its folder.
    fn build_consumer(&self, options: &[&str]) -> PathBuf {
        let build = self.consumer.join("build");
        run(Command::new("cmake")
            .arg("-S")
            .arg(root().join("examples/cmake-consumer"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", self.prefix.display()))
            .args(options));
        run(Command::new("cmake").arg("--build").arg(&build));
        build
    }
}

/// A user's machine for the README's C commands, cargo's builds shared with the other CMake tests.
fn readme_shell(name: &str) -> UserShell {
    UserShell::new(claim(tmp_dir!().outside_checkout(name)))
        .env("CARGO_TARGET_DIR", cargo_target_dir())
}

/// The README's "C with CMake" and "C with pkg-config" commands as a user pastes them: installed
/// to ~/.local, examples/cmake-consumer built against it and run, then the quickstart linked with
/// pkg-config's flags, shared and static, and run.
fn readme_cmake_and_pkg_config_commands() {
    let shell = readme_shell("readme");
    let consumers = shell.run("cmake-install");
    assert_eq!(
        consumers.matches("3 of 3 keys found").count(),
        2,
        "{consumers}"
    );
    let consumer_build = shell.checkout.join("consumer-build");
    assert!(needs(&consumer_build.join("consumer_shared"), SONAME));
    assert!(!needs(&consumer_build.join("consumer_static"), SONAME));

    let quickstarts = shell.run("pkg-config");
    let found = "members found:   10000 of 10000";
    assert_eq!(quickstarts.matches(found).count(), 2, "{quickstarts}");
    assert!(needs(&shell.checkout.join("quickstart"), SONAME));
    assert!(!needs(&shell.checkout.join("quickstart-static"), SONAME));
}

/// The README's "C next to leveldb's C API" commands as a user pastes them: the prefixed build
/// installed, examples/with_leveldb.c linked with it and leveldb, and run.
fn readme_commands_next_to_leveldb() {
    let shell = readme_shell("readme-with-leveldb");
    let output = shell.run("with-leveldb");
    assert!(output.contains("leveldb: apple is red\n"), "{output}");
    assert!(output.contains("banana may match: 1\n"), "{output}");
    let program = shell.checkout.join("with_leveldb");
    assert!(needs(&program, PREFIXED_SONAME) && !needs(&program, SONAME));
}

fn configure_build_ctest_install_and_consume() {
    // This project: configure, build, test; the README's main job, the C quickstart, too.
    let flow = Flow::build(&[]);
    let (build, prefix, consumer) = (&flow.build, &flow.prefix, &flow.consumer);
    let quickstart = run(Command::new("cmake")
        .arg("--build")
        .arg(build)
        .args(["--target", "run_quickstart"]));
    assert!(
        quickstart.contains("members found:   10000 of 10000"),
        "{quickstart}"
    );
    ctest(build, false, &mut |cmd| cmd);

    // Install, with the versioned soname.
    flow.install();
    let lib = prefix.join("lib");
    for (name, soname) in [
        ("libleveldb_bloom", SONAME),
        ("libleveldb_bloom_prefixed", PREFIXED_SONAME),
    ] {
        let real = format!("{name}.so.{}", env!("CARGO_PKG_VERSION"));
        assert!(
            dynamic_section(&lib.join(&real)).contains(&format!("Library soname: [{soname}]")),
            "the installed {name} must carry the soname {soname}"
        );
        let link = format!("{name}.so");
        for (link, target) in [(soname, real.as_str()), (link.as_str(), soname)] {
            let found = std::fs::read_link(lib.join(link)).expect("installed symlink");
            assert_eq!(found, Path::new(target), "{link} must point to {target}");
        }
    }
    for file in [
        "include/leveldb_bloom.h",
        "lib/libleveldb_bloom.a",
        "lib/libleveldb_bloom_prefixed.a",
        "lib/pkgconfig/leveldb_bloom.pc",
        "lib/pkgconfig/leveldb_bloom_prefixed.pc",
        "lib/cmake/leveldb_bloom/leveldb_bloomConfig.cmake",
        "lib/cmake/leveldb_bloom/leveldb_bloomConfigVersion.cmake",
    ] {
        assert!(prefix.join(file).is_file(), "{file} must be installed");
    }
    // The tool only when asked for (below).
    let tool = prefix.join("bin/leveldb-bloom");
    assert!(
        !tool.exists(),
        "leveldb-bloom must not be installed unless asked for"
    );

    // 1 and 2: find_package with the shared and the static target.
    let consumer_build = flow.build_consumer(&[]);
    let (cmake_shared, cmake_static, cmake_prefixed) = (
        consumer_build.join("consumer_shared"),
        consumer_build.join("consumer_static"),
        consumer_build.join("consumer_prefixed"),
    );

    // pkg-config's flags name the install's folders as they are, with nothing to normalize, so
    // they can go into a program's rpath. The prefixed build's define that the header declares
    // only the library's own names.
    for (module, define) in [
        ("leveldb_bloom", ""),
        ("leveldb_bloom_prefixed", " -DLEVELDB_BLOOM_PREFIXED"),
    ] {
        let flags = sh(
            &format!("pkg-config --cflags --libs {module}"),
            consumer,
            prefix,
        );
        let expected = format!(
            "-I{}{define} -L{} -l{module}",
            prefix.join("include").display(),
            lib.display()
        );
        assert_eq!(flags.trim(), expected, "pkg-config's flags for {module}");
    }
    let libdir = sh(
        "pkg-config --variable=libdir leveldb_bloom",
        consumer,
        prefix,
    );
    assert_eq!(Path::new(libdir.trim()), lib, "pkg-config's libdir");

    // 3: plain pkg-config, shared, then static (the archive, then its Libs.private).
    let main_c = root().join("examples/cmake-consumer/main.c");
    let main_c = main_c.display();
    sh(
        &format!(
            "cc {main_c} $(pkg-config --cflags --libs leveldb_bloom) \
             -Wl,-rpath,\"$(pkg-config --variable=libdir leveldb_bloom)\" -o app-shared"
        ),
        consumer,
        prefix,
    );
    sh(
        &format!(
            "cc {main_c} $(pkg-config --cflags leveldb_bloom) -Wl,--as-needed \
             -Wl,-Bstatic $(pkg-config --libs leveldb_bloom) -Wl,-Bdynamic \
             $(pkg-config --libs --static leveldb_bloom) -o app-static"
        ),
        consumer,
        prefix,
    );
    let (pc_shared, pc_static) = (consumer.join("app-shared"), consumer.join("app-static"));

    for program in [
        &cmake_shared,
        &cmake_static,
        &cmake_prefixed,
        &pc_shared,
        &pc_static,
    ] {
        run_consumer(program);
    }
    for program in [&cmake_shared, &pc_shared] {
        assert!(
            needs(program, SONAME),
            "{} must load {SONAME}",
            program.display()
        );
    }
    for program in [&cmake_static, &pc_static] {
        assert!(
            !needs(program, SONAME),
            "{} must not load {SONAME}",
            program.display()
        );
    }
    assert!(
        needs(&cmake_prefixed, PREFIXED_SONAME) && !needs(&cmake_prefixed, SONAME),
        "consumer_prefixed must load {PREFIXED_SONAME} alone"
    );

    // The prefixed build with leveldb, as a program that uses leveldb's C API links it: the
    // header declares only the library's own names, and leveldb's are leveldb's.
    if Tool::Leveldb.is_present() || Tool::Leveldb.is_required() {
        let db_c = root().join(with_leveldb::SOURCE);
        let db_c = db_c.display();
        let c_tests = root().join("c_tests");
        let c_tests = c_tests.display();
        sh(
            &format!(
                "cc -std=c11 -D_GNU_SOURCE -I{c_tests} {db_c} \
                 $(pkg-config --cflags --libs leveldb_bloom_prefixed) -lleveldb \
                 -Wl,-rpath,\"$(pkg-config --variable=libdir leveldb_bloom_prefixed)\" -o db-shared"
            ),
            consumer,
            prefix,
        );
        sh(
            &format!(
                "cc -std=c11 -D_GNU_SOURCE -I{c_tests} {db_c} \
                 $(pkg-config --cflags leveldb_bloom_prefixed) -Wl,-Bstatic \
                 $(pkg-config --libs leveldb_bloom_prefixed) -Wl,-Bdynamic \
                 $(pkg-config --libs --static leveldb_bloom_prefixed) -lleveldb -o db-static"
            ),
            consumer,
            prefix,
        );
        for program in ["db-shared", "db-static"] {
            with_leveldb::check(
                &consumer.join(program),
                None,
                with_leveldb::Policy::Leveldbs,
            );
        }
    }

    // Fully static: pkg-config's static flags with -static, then the static target with it, in
    // a project asking for this version; asking for the one before, the package refuses.
    sh(
        &format!(
            "cc -static {main_c} $(pkg-config --cflags --libs --static leveldb_bloom) \
             -o app-fully-static"
        ),
        consumer,
        prefix,
    );
    run_fully_static_consumer(&consumer.join("app-fully-static"));
    // The package asked for version ${WANTED}, the program linked with the static target.
    let project = consumer.join("fully-static");
    write_c_project(
        &project,
        "fully_static",
        "find_package(leveldb_bloom ${WANTED} REQUIRED)\n\
         add_executable(consumer_fully_static MAIN_C)\n\
         target_link_libraries(consumer_fully_static PRIVATE leveldb_bloom::leveldb_bloom_static)\n\
         target_link_options(consumer_fully_static PRIVATE -static)\n",
    );
    let (accepted, refused) = accepted_and_refused_versions();
    let configure = |wanted: &str, build: &Path| {
        let mut cmd = Command::new("cmake");
        cmd.arg("-S")
            .arg(&project)
            .arg("-B")
            .arg(build)
            .arg(format!("-DWANTED={wanted}"))
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()));
        cmd
    };
    let build = consumer.join("fully-static-build");
    run(&mut configure(&accepted, &build));
    run(Command::new("cmake").arg("--build").arg(&build));
    run_fully_static_consumer(&build.join("consumer_fully_static"));
    let refusal = process::output(&mut configure(&refused, &consumer.join("refused-build")));
    let stderr = String::from_utf8_lossy(&refusal.stderr);
    assert!(
        !refusal.status.success()
            && stderr.contains(&format!("compatible with requested version \"{refused}\"")),
        "find_package(leveldb_bloom {refused}) must refuse {}: {stderr}",
        env!("CARGO_PKG_VERSION")
    );

    // Asked for, the leveldb-bloom tool is built and installed to bin/.
    run(Command::new("cmake")
        .arg(&flow.build)
        .arg("-DLEVELDB_BLOOM_TOOL=ON"));
    run(Command::new("cmake")
        .arg("--build")
        .arg(&flow.build)
        .args(["--target", "leveldb_bloom_tool"]));
    flow.install();
    let version = run(Command::new(&tool).arg("--version"));
    assert_eq!(
        version.trim(),
        format!("leveldb-bloom {}", env!("CARGO_PKG_VERSION"))
    );
}

/// A folder of links to every program on `PATH` but the C++ compilers (every name with `++`:
/// c++, g++, g++-12, x86_64-linux-gnu-g++, clang++...), for a `PATH` of its own.
fn path_without_cpp_compilers(dir: &Path) -> std::ffi::OsString {
    let dir = fresh(dir.to_path_buf());
    let path = std::env::var_os("PATH").expect("PATH");
    for folder in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let link = dir.join(&name);
            if name.to_string_lossy().contains("++") || link.symlink_metadata().is_ok() {
                continue;
            }
            // Only unix runs this test; the other targets' clippy builds it.
            #[cfg(unix)]
            std::os::unix::fs::symlink(entry.path(), link).expect("link");
        }
    }
    std::env::join_paths([dir]).expect("PATH")
}

/// The README's main job on a machine with cmake, cargo and a C compiler but no C++ compiler,
/// and a C-only project adding this one with add_subdirectory there: CMake must not look for
/// one. cargo and its target folder are the other CMake tests', so the crate is built once.
fn main_job_and_add_subdirectory_need_no_cpp_compiler() {
    let work = tmp_dir!().trial();
    let path = path_without_cpp_compilers(&work.join("bin"));
    let found = process::output(
        Command::new("sh")
            .args(["-c", "command -v c++ g++ clang++"])
            .env("PATH", &path),
    );
    assert!(
        found.stdout.is_empty(),
        "a C++ compiler is still on PATH: {found:?}"
    );
    let cmake = |args: &[&OsStr]| {
        let mut cmd = Command::new("cmake");
        cmd.args(args).env("PATH", &path).env_remove("CXX");
        run(&mut cmd)
    };
    let configure = |source: &Path, build: &Path| {
        let _ = std::fs::remove_dir_all(build);
        let options = cargo_options();
        let [cargo, cargo_target] = options.each_ref().map(OsStr::new);
        cmake(&[
            "-S".as_ref(),
            source.as_ref(),
            "-B".as_ref(),
            build.as_ref(),
            cargo,
            cargo_target,
        ])
    };

    // The README's main job, as a user pastes it.
    let quickstart = readme_shell("main-job")
        .env("PATH", &path)
        .env_remove("CXX")
        .run("main-job");
    assert!(
        quickstart.contains("members found:   10000 of 10000"),
        "{quickstart}"
    );

    // A C-only project with this one in a subfolder, both targets linked.
    let project = work.join("c-only");
    write_c_project(
        &project,
        "c_only",
        &format!(
            "add_subdirectory(\"{}\" leveldb_bloom)\n\
             add_executable(consumer_shared MAIN_C)\n\
             target_link_libraries(consumer_shared PRIVATE leveldb_bloom::leveldb_bloom)\n\
             add_executable(consumer_static MAIN_C)\n\
             target_link_libraries(consumer_static PRIVATE leveldb_bloom::leveldb_bloom_static)\n",
            root().display()
        ),
    );
    let project_build = project.join("build");
    configure(&project, &project_build);
    cmake(&["--build".as_ref(), project_build.as_ref()]);
    run_consumer(&project_build.join("consumer_shared"));
    run_consumer(&project_build.join("consumer_static"));
}

/// Windows programs run under wine with a prefix of their own, and find DLLs on WINEPATH: the
/// stand-in bcryptprimitives.dll (tests/wine/bcryptprimitives.c: wine 8.0 lacks ProcessPrng,
/// which Rust's standard library calls) and MinGW's own (libwinpthread-1.dll, for POSIX threads).
fn under_wine(cmd: &mut Command) -> &mut Command {
    static STAND_IN: OnceLock<PathBuf> = OnceLock::new();
    let program = tmp_dir!().program();
    let stand_in = STAND_IN.get_or_init(|| {
        let dir = fresh(program.join("wine-stand-in"));
        run(Command::new("x86_64-w64-mingw32-gcc")
            .args(["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-o"])
            .arg(claim(dir.join("bcryptprimitives.dll")))
            .arg(root().join("tests/wine/bcryptprimitives.c"))
            .arg("-lbcrypt"));
        dir
    });
    let windows_path = |dir: &Path| format!("Z:{}", dir.display()).replace('/', "\\");
    cmd.env("WINEPREFIX", program.join("wine"))
        .env("WINEDEBUG", "-all")
        .env(
            "WINEPATH",
            format!(
                "{};{}",
                windows_path(stand_in),
                windows_path(Path::new("/usr/x86_64-w64-mingw32/lib"))
            ),
        )
}

/// The DLLs a Windows program imports, as MinGW's objdump lists them.
fn imported_dlls(program: &Path) -> String {
    run(Command::new("x86_64-w64-mingw32-objdump")
        .arg("-p")
        .arg(program))
    .lines()
    .filter_map(|line| line.trim().strip_prefix("DLL Name: "))
    .collect::<Vec<_>>()
    .join(" ")
}

/// The Windows build, made with MinGW-w64's toolchain file (cmake/mingw-w64-x86_64.cmake), its
/// C tests run by ctest under wine, installed (the DLL in bin/, its import library and the
/// static library in lib/), and examples/cmake-consumer built against the install with
/// find_package, its two programs run under wine: one imports the DLL, the other does not.
fn windows_build_ctest_install_and_consume_under_wine() {
    let toolchain = format!(
        "-DCMAKE_TOOLCHAIN_FILE={}",
        root().join("cmake/mingw-w64-x86_64.cmake").display()
    );
    let flow = Flow::build(&[&toolchain]);
    ctest(&flow.build, true, &mut under_wine);
    flow.install();
    let prefix = &flow.prefix;
    for file in [
        "bin/leveldb_bloom.dll",
        "lib/libleveldb_bloom.dll.a",
        "lib/libleveldb_bloom.a",
        "include/leveldb_bloom.h",
        "lib/pkgconfig/leveldb_bloom.pc",
        "lib/cmake/leveldb_bloom/leveldb_bloomConfig.cmake",
    ] {
        assert!(prefix.join(file).is_file(), "{file} must be installed");
    }
    // The build without leveldb's names is made on ELF systems only (docs/PLATFORMS.md).
    for file in [
        "bin/leveldb_bloom_prefixed.dll",
        "lib/pkgconfig/leveldb_bloom_prefixed.pc",
    ] {
        assert!(!prefix.join(file).exists(), "{file} must not be installed");
    }
    let package =
        std::fs::read_to_string(prefix.join("lib/cmake/leveldb_bloom/leveldb_bloomTargets.cmake"))
            .expect("the installed package");
    assert!(
        package.contains("IMPORTED_IMPLIB \"${lib_dir}/libleveldb_bloom.dll.a\""),
        "the shared target must name its import library:\n{package}"
    );

    let consumer = flow.build_consumer(&[&toolchain]);
    let (shared, statically) = (
        consumer.join("consumer_shared.exe"),
        consumer.join("consumer_static.exe"),
    );
    for program in [&shared, &statically] {
        let stdout = run(under_wine(Command::new("wine").arg(program)));
        assert!(
            stdout.contains("3 of 3 keys found"),
            "{}: {stdout}",
            program.display()
        );
    }
    assert!(
        imported_dlls(&shared).contains("leveldb_bloom.dll"),
        "consumer_shared.exe must import leveldb_bloom.dll"
    );
    assert!(
        !imported_dlls(&statically).contains("leveldb_bloom.dll"),
        "consumer_static.exe must not import leveldb_bloom.dll"
    );
}

/// A toolchain file in `dir` for macOS on arm64 built on Linux: zig's C compiler through
/// cargo-zigbuild (which CMake also runs as cargo, and which cargo links with).
fn macos_toolchain(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("toolchain folder");
    let cc = dir.join("zig-cc");
    std::fs::write(
        &cc,
        "#!/bin/sh\nexec cargo-zigbuild zig cc -- -target aarch64-macos-none \"$@\"\n",
    )
    .expect("zig-cc");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&cc, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    // CMake turns rpaths on from the macOS version sw_vers gives, which Linux has not: set after
    // its platform's rules.
    let rules = dir.join("rpath-rules.cmake");
    std::fs::write(
        &rules,
        "set(CMAKE_SHARED_LIBRARY_RUNTIME_C_FLAG \"-Wl,-rpath,\")\n",
    )
    .expect("rules");
    let toolchain = dir.join("macos-arm64.cmake");
    std::fs::write(
        &toolchain,
        format!(
            "set(CMAKE_SYSTEM_NAME Darwin)\n\
             set(CMAKE_SYSTEM_PROCESSOR arm64)\n\
             set(CMAKE_C_COMPILER {})\n\
             set(CMAKE_USER_MAKE_RULES_OVERRIDE {})\n\
             set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)\n\
             set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)\n\
             set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)\n\
             set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)\n",
            cc.display(),
            rules.display()
        ),
    )
    .expect("toolchain file");
    toolchain
}

/// `llvm-objdump --macho` with `options` on `file`.
fn macho(options: &[&str], file: &Path) -> String {
    run(Command::new("llvm-objdump-19")
        .arg("--macho")
        .args(options)
        .arg(file))
}

/// The macOS (arm64) build, made with zig: CMake's Apple branch installs the library as
/// libleveldb_bloom.<version>.dylib with the install name @rpath/libleveldb_bloom.<major>.dylib, a
/// compatibility version of <major>.<minor>.0, and the two links; it exports every function of
/// the header; the test programs and examples/cmake-consumer's (against the install, with
/// find_package) load it through an rpath naming its folder, or link it statically. The shim's
/// build is refused with its reason. Nothing runs: this machine has no macOS.
fn macos_build_install_and_consume_linked_by_zig() {
    let work = tmp_dir!().trial();
    let toolchain = format!(
        "-DCMAKE_TOOLCHAIN_FILE={}",
        macos_toolchain(&work.join("toolchain")).display()
    );
    let flow = Flow::build(&[&toolchain, "-DCARGO_EXECUTABLE=cargo-zigbuild"]);
    flow.install();
    let (build, prefix) = (&flow.build, &flow.prefix);

    let (major, minor, version) = (
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION"),
    );
    let lib = prefix.join("lib");
    let real = format!("libleveldb_bloom.{version}.dylib");
    let install_name = format!("libleveldb_bloom.{major}.dylib");
    for (link, target) in [
        (install_name.as_str(), real.as_str()),
        ("libleveldb_bloom.dylib", install_name.as_str()),
    ] {
        let found = std::fs::read_link(lib.join(link)).expect("installed symlink");
        assert_eq!(found, Path::new(target), "{link} must point to {target}");
    }
    assert!(
        lib.join("libleveldb_bloom.a").is_file(),
        "the static library"
    );
    assert!(
        !lib.join("libleveldb_bloom_prefixed.a").exists(),
        "the build without leveldb's names is made on ELF systems only"
    );
    let identity = format!(
        "@rpath/{install_name} (compatibility version {major}.{minor}.0, current version {version})"
    );
    let used = macho(&["--dylibs-used"], &lib.join(&real));
    assert!(
        used.lines()
            .nth(1)
            .is_some_and(|line| line.trim() == identity),
        "the installed library must be {identity}:\n{used}"
    );

    // Every function the header declares is exported.
    let header = std::fs::read_to_string(root().join("include/leveldb_bloom.h")).unwrap();
    let exports = macho(&["--exports-trie"], &lib.join(&real));
    let exported: Vec<&str> = exports
        .lines()
        .filter_map(|line| line.split_whitespace().nth(1)?.strip_prefix('_'))
        .collect();
    let declared: Vec<&str> = header
        .lines()
        .filter(|line| line.starts_with(|c: char| c.is_ascii_alphabetic()))
        .filter(|line| !line.starts_with("typedef"))
        .filter_map(|line| line.split_once('(')?.0.rsplit([' ', '*']).next())
        .filter(|name| name.starts_with("leveldb_"))
        .collect();
    assert!(declared.len() > 10, "the header's functions: {declared:?}");
    for function in &declared {
        assert!(exported.contains(function), "{function} must be exported");
    }

    // A test program finds the library through its rpath.
    let test_program = build.join("test_vectors-shared");
    let loads = format!("@rpath/{install_name}");
    assert!(macho(&["--dylibs-used"], &test_program).contains(&loads));
    assert!(
        macho(&["--private-headers"], &test_program)
            .contains(&format!("path {} ", build.join("lib").display())),
        "test_vectors-shared's rpath must name build/lib"
    );

    // The consumer project, against the install.
    let consumer = flow.build_consumer(&[&toolchain]);
    let shared = consumer.join("consumer_shared");
    assert!(macho(&["--dylibs-used"], &shared).contains(&loads));
    assert!(
        macho(&["--private-headers"], &shared).contains(&format!("path {} ", lib.display())),
        "consumer_shared's rpath must name the install's lib/"
    );
    assert!(
        !macho(&["--dylibs-used"], &consumer.join("consumer_static")).contains("leveldb_bloom"),
        "consumer_static must not load the library"
    );

    // The shim needs ELF tools: refused, saying so.
    let output = process::output(
        Command::new("cmake")
            .arg("-S")
            .arg(root())
            .arg("-B")
            .arg(work.join("shim"))
            .arg(&toolchain)
            .args([
                "-DCARGO_EXECUTABLE=cargo-zigbuild",
                "-DLEVELDB_BLOOM_SHIM=ON",
            ]),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !output.status.success() && stderr.contains("LEVELDB_BLOOM_SHIM is for ELF platforms"),
        "the shim's build must be refused on macOS:\n{stderr}"
    );
}
