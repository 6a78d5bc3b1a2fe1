"""Builds leveldb-bloom's shared library from the crate with cargo (setuptools-rust) and installs
it inside the package, where leveldb_bloom._native looks for it first. The crate is the
repository root in a checkout; an sdist carries a copy of what building it needs in rust/."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools_rust import Binding, RustExtension
from setuptools_rust.build import build_rust

HERE = Path(__file__).resolve().parent


def _load_native():
    """The package's _native module, alone (it needs only the standard library): where the
    library goes, and how the crate's version is read, are the package's own."""
    spec = importlib.util.spec_from_file_location(
        "_native", HERE / "src" / "leveldb_bloom" / "_native.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


native = _load_native()

SDIST_CRATE = "rust"
# What building the library needs: the manifest, the lock file, the build script, the sources,
# and what the manifest declares (cargo refuses one whose targets, workspace members or path
# dependencies are missing): the benches, the tests, the declared example, the test support crate,
# and the check tool and its reader (workspace members).
CRATE_FILES = [
    "Cargo.toml",
    "Cargo.lock",
    "build.rs",
    "src",
    "benches",
    "tests",
    "examples/rusty_leveldb.rs",
    "test-support",
    "reader",
    "cli",
]

CRATE = HERE / SDIST_CRATE
if not (CRATE / "Cargo.toml").is_file():
    CRATE = native.repo_root(HERE)
    if CRATE is None:
        raise SystemExit(
            f"leveldb-bloom's crate is neither in {HERE / SDIST_CRATE} nor above {HERE}"
        )

VERSION = native.crate_version(CRATE / "Cargo.toml")


class BuildRust(build_rust):
    def get_dylib_ext_path(self, ext, target_fname):
        # ctypes loads the library by path: one file name for every Python, not the extension
        # module name build_ext would give (which names one Python version).
        path = Path(super().get_dylib_ext_path(ext, target_fname))
        return str(path.with_name(native.LIBRARY_FILE))


class BuildPy(build_py):
    def run(self):
        super().run()
        version_file = Path(self.build_lib, "leveldb_bloom", "_version.py")
        version_file.write_text(f'__version__ = "{VERSION}"\n', encoding="utf-8")


class BdistWheel(bdist_wheel):
    def get_tag(self):
        # Any Python 3 (ctypes calls the C ABI, no CPython API is used), this platform only.
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class Sdist(sdist):
    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for name in CRATE_FILES:
            source, target = CRATE / name, Path(base_dir, SDIST_CRATE, name)
            if source.is_dir():
                shutil.copytree(source, target)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


setup(
    version=VERSION,
    rust_extensions=[
        RustExtension(
            # The package's copy of the library; BuildRust gives the file its name.
            "leveldb_bloom.libleveldb_bloom",
            path=str(CRATE / "Cargo.toml"),
            binding=Binding.NoBinding,
            # The dependency versions Cargo.lock pins, as every other build of the crate.
            cargo_manifest_args=["--locked"],
        )
    ],
    cmdclass={
        "build_rust": BuildRust,
        "build_py": BuildPy,
        "bdist_wheel": BdistWheel,
        "sdist": Sdist,
    },
)
