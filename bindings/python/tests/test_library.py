"""Where the shared library is looked for, the error when it is nowhere, and the package's
version."""

from __future__ import annotations

import importlib.metadata
import os
from pathlib import Path

import pytest
from conftest import REPO_ROOT

import leveldb_bloom
from leveldb_bloom import LibraryNotFoundError, _native
from leveldb_bloom._native import ENV_VAR, LIBRARY_FILE, find_library

FIXES = ["cargo build --release", ENV_VAR]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A fake leveldb-bloom checkout; returns the package directory inside it."""
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "leveldb-bloom"\n')
    package_dir = tmp_path / "bindings" / "python" / "src" / "leveldb_bloom"
    package_dir.mkdir(parents=True)
    return package_dir


def build_output(package_dir: Path, profile: str) -> Path:
    path = package_dir.parents[3] / "target" / profile / LIBRARY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()
    return path


def test_environment_variable_wins(checkout, tmp_path):
    build_output(checkout, "release")
    (checkout / LIBRARY_FILE).touch()
    chosen = tmp_path / "elsewhere.so"
    chosen.touch()
    assert find_library({ENV_VAR: str(chosen)}, checkout) == chosen


def test_environment_variable_to_nothing_is_an_error_not_a_fallback(checkout, tmp_path):
    build_output(checkout, "release")
    missing = tmp_path / "missing.so"
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({ENV_VAR: str(missing)}, checkout)
    message = str(error.value)
    assert str(missing) in message and f"{ENV_VAR} is set" in message
    assert all(fix in message for fix in FIXES)


def test_copy_installed_with_the_package_comes_next(checkout):
    build_output(checkout, "release")
    (checkout / LIBRARY_FILE).touch()
    assert find_library({}, checkout) == checkout / LIBRARY_FILE


def test_cargo_release_build_then_debug_build(checkout):
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


def test_nothing_found_lists_every_path_tried(checkout):
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({}, checkout)
    message = str(error.value)
    root = checkout.parents[3]
    for tried in (checkout, root / "target" / "release", root / "target" / "debug"):
        assert f"  {tried / LIBRARY_FILE}\n" in message
    assert all(fix in message for fix in FIXES)


def test_nothing_found_outside_a_checkout(tmp_path):
    with pytest.raises(LibraryNotFoundError) as error:
        find_library({}, tmp_path)
    message = str(error.value)
    assert f"  {tmp_path / LIBRARY_FILE}\n" in message
    assert "not running from a leveldb-bloom checkout" in message
    assert all(fix in message for fix in FIXES)
    assert isinstance(error.value, OSError)


def test_the_loaded_library_is_the_one_asked_for(lib):
    if os.environ.get(ENV_VAR):
        assert lib.path == Path(os.environ[ENV_VAR])
    elif _native.repo_root(_native.PACKAGE_DIR) is None:
        # Installed, not the checkout's source: pip built the library into the package.
        assert lib.path == _native.PACKAGE_DIR / LIBRARY_FILE
    else:
        assert lib.path == find_library()


def test_version_is_the_crates():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    with open(REPO_ROOT / "Cargo.toml", "rb") as manifest:
        assert leveldb_bloom.__version__ == tomllib.load(manifest)["package"]["version"]
    if _native.repo_root(_native.PACKAGE_DIR) is None:  # installed: the same in its metadata
        assert importlib.metadata.version("leveldb-bloom") == leveldb_bloom.__version__


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
