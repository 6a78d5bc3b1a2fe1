"""Where the shared library is looked for, the error when it is nowhere, and the package's
version."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import leveldb_bloom
from leveldb_bloom import LibraryNotFoundError, _native
from leveldb_bloom._native import ENV_VAR, LIBRARY_FILE, SYSTEM_NAME

FIXES = ["pip", "cargo rustc --release --lib --crate-type cdylib", ENV_VAR]
# As CMake installs the library on Linux: the soname carries the crate's major version.
MAJOR = leveldb_bloom.__version__.split(".")[0]
SYSTEM_SONAME = f"libleveldb_bloom.so.{MAJOR}"
SYSTEM_NONE = f"ctypes.util.find_library('{SYSTEM_NAME}') found none" + (
    f", nor the loader {_native.versioned_name()}" if _native.versioned_name() else ""
)


def no_system_library(name: str) -> None:
    assert name == SYSTEM_NAME


def system_library(name: str) -> str:
    assert name == SYSTEM_NAME
    return SYSTEM_SONAME


def find_library(environ, package_dir, find_system=no_system_library) -> str:
    return _native.find_library(environ, package_dir, find_system)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fake leveldb-bloom checkout; returns the package directory inside it."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "leveldb-bloom"\n')
    package_dir = tmp_path / "bindings" / "python" / "src" / "leveldb_bloom"
    package_dir.mkdir(parents=True)
    return package_dir


def build_output(package_dir: Path, profile: str) -> str:
    path = package_dir.parents[3] / "target" / profile / LIBRARY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    return str(path)


def test_environment_variable_wins(checkout, tmp_path):
    build_output(checkout, "release")
    (checkout / LIBRARY_FILE).touch()
    chosen = tmp_path / "elsewhere.so"
    chosen.touch()
    assert find_library({ENV_VAR: str(chosen)}, checkout, system_library) == str(chosen)


def test_environment_variable_to_nothing_is_an_error_not_a_fallback(checkout, tmp_path):
    build_output(checkout, "release")
    (checkout / LIBRARY_FILE).touch()
    missing = tmp_path / "missing.so"
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({ENV_VAR: str(missing)}, checkout, system_library)
    message = str(error.value)
    assert f"  {missing}\n" in message and f"{ENV_VAR} is set" in message
    assert all(fix in message for fix in FIXES)


def test_copy_installed_with_the_package_comes_next(checkout):
    build_output(checkout, "release")
    (checkout / LIBRARY_FILE).touch()
    assert find_library({}, checkout, system_library) == str(checkout / LIBRARY_FILE)


def test_then_a_system_library_by_the_name_its_loader_knows(checkout):
    build_output(checkout, "release")
    assert find_library({}, checkout, system_library) == SYSTEM_SONAME


def test_then_cargo_release_build_then_debug_build(checkout):
    debug = build_output(checkout, "debug")
    assert find_library({}, checkout) == debug
    release = build_output(checkout, "release")
    assert find_library({}, checkout) == release


def test_another_projects_cargo_toml_is_not_the_checkout(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "leveldb-bloom"\n')
    other = tmp_path / "vendor" / "other"
    (other / "pkg").mkdir(parents=True)
    (other / "Cargo.toml").write_text('[package]\nname = "other"\n')
    assert _native.repo_root(other / "pkg") == tmp_path


def test_nothing_found_lists_every_place_tried(checkout):
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({}, checkout)
    message = str(error.value)
    root = checkout.parents[3]
    places = [
        str(checkout / LIBRARY_FILE),
        SYSTEM_NONE,
        str(root / "target" / "release" / LIBRARY_FILE),
        str(root / "target" / "debug" / LIBRARY_FILE),
    ]
    positions = [message.index(f"{place}\n") for place in places]
    assert positions == sorted(positions), "in the order they are tried"
    assert all(fix in message for fix in FIXES)


def test_nothing_found_outside_a_checkout(tmp_path):
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({}, tmp_path)
    message = str(error.value)
    assert f"  {tmp_path / LIBRARY_FILE}\n" in message
    assert f"{SYSTEM_NONE}\n" in message
    assert "not running from a leveldb-bloom checkout" in message
    assert all(fix in message for fix in FIXES)
    assert isinstance(error.value, OSError)


def test_the_loaded_library_is_the_one_asked_for(lib):
    if os.environ.get(ENV_VAR):
        assert lib.path == os.environ[ENV_VAR]
    elif _native.repo_root(_native.PACKAGE_DIR) is None:
        # Installed, not the checkout's source: pip built the library into the package.
        assert lib.path == str(_native.PACKAGE_DIR / LIBRARY_FILE)
    else:
        assert lib.path == _native.find_library()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="sonames and LD_LIBRARY_PATH")
def test_a_library_installed_as_cmake_installs_it_is_found_on_ld_library_path(lib, tmp_path):
    """The real search, in a Python started with LD_LIBRARY_PATH naming a folder laid out as
    CMake installs the library: ctypes.util.find_library (which reads LD_LIBRARY_PATH with
    binutils and needs a soname in the file), else the loader, by the versioned name."""
    for tool in ("ld", "objdump"):
        if shutil.which(tool) is None:
            pytest.skip(f"ctypes.util.find_library needs {tool} (binutils) to read LD_LIBRARY_PATH")
    if not Path(lib.path).is_file():
        pytest.skip(f"the library in use, {lib.path}, is a system one: no file to copy")
    installed = tmp_path / "lib"
    installed.mkdir()
    shutil.copy(lib.path, installed / SYSTEM_SONAME)
    (installed / LIBRARY_FILE).symlink_to(SYSTEM_SONAME)
    script = (
        "import sys; from pathlib import Path\n"
        "from leveldb_bloom import _native\n"
        "library = _native.Library(_native.find_library({}, Path(sys.argv[1])))\n"
        "assert library.create_bloom(10)\n"
        "print(library.path)\n"
        "print(*(line for line in open('/proc/self/maps') if 'leveldb_bloom' in line))\n"
    )
    environ = {key: value for key, value in os.environ.items() if key != ENV_VAR}
    environ["LD_LIBRARY_PATH"] = str(installed)
    environ["PYTHONPATH"] = str(Path(_native.__file__).parents[1])
    output = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "no_copy_here")],
        env=environ,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert output.startswith(f"{SYSTEM_SONAME}\n")
    assert str(installed / SYSTEM_SONAME) in output, "the copy on LD_LIBRARY_PATH is mapped"


def test_versioned_names_are_the_platforms():
    assert _native.versioned_name("linux") == f"libleveldb_bloom.so.{MAJOR}"
    assert _native.versioned_name("freebsd14") == f"libleveldb_bloom.so.{MAJOR}"
    assert _native.versioned_name("darwin") == f"libleveldb_bloom.{MAJOR}.dylib"
    assert _native.versioned_name("win32") is None


def test_version_is_the_crates():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(REPO_ROOT / "Cargo.toml", "rb") as manifest:
        assert leveldb_bloom.__version__ == tomllib.load(manifest)["package"]["version"]
    if _native.repo_root(_native.PACKAGE_DIR) is None:  # installed: the same in its metadata
        assert importlib.metadata.version("leveldb-bloom") == leveldb_bloom.__version__


def test_library_reports_the_package_version():
    assert leveldb_bloom.library_version() == leveldb_bloom.__version__


def test_crate_version_reads_the_package_table_only(tmp_path):
    manifest = tmp_path / "Cargo.toml"
    manifest.write_text(
        '[workspace]\nversion = "9.9.9"\n\n[package]\nname = "x"\n  version  =  "1.2.3-rc.1"\n'
        '[dependencies]\nversion = "0.0.1"\n'
    )
    assert _native.crate_version(manifest) == "1.2.3-rc.1"
    manifest.write_text('[package]\nname = "x"\nversion.workspace = true\n')
    with pytest.raises(ValueError, match="no version"):
        _native.crate_version(manifest)
