"""Finding and loading leveldb-bloom's shared library, with a prototype for every C function used.

Where the library is looked for, in order:

1. the path in the environment variable ``LEVELDB_BLOOM_LIBRARY``, if it is set (then nowhere else);
2. the copy installed inside this package (``leveldb_bloom/libleveldb_bloom.so`` next to this
   file), which ``pip install`` builds with cargo;
3. one installed on the system, e.g. by ``cmake --install``: as
   ``ctypes.util.find_library("leveldb_bloom")`` finds it (on Linux the loader's cache, and
   ``LD_LIBRARY_PATH`` where binutils are installed; on macOS the loader's paths; on Windows
   ``PATH``), or else by the versioned name such an install gives it (``libleveldb_bloom.so.1``
   on Linux, ``libleveldb_bloom.1.dylib`` on macOS; Windows's DLL has none), which the system's
   loader looks up itself;
4. cargo's build output, when the package runs from a leveldb-bloom checkout:
   ``target/release`` then ``target/debug`` under the repository root.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

ENV_VAR = "LEVELDB_BLOOM_LIBRARY"

#: The name ctypes.util.find_library is given for a system-installed library.
SYSTEM_NAME = "leveldb_bloom"

if sys.platform == "win32":
    LIBRARY_FILE = "leveldb_bloom.dll"
elif sys.platform == "darwin":
    LIBRARY_FILE = "libleveldb_bloom.dylib"
else:
    LIBRARY_FILE = "libleveldb_bloom.so"

PACKAGE_DIR = Path(__file__).resolve().parent

#: The largest ``int`` in C: the limit on bits_per_key and on the number of keys in one filter.
INT_MAX = 2**31 - 1

BATCH_SYMBOL = "leveldb_filterpolicy_key_may_match_batch"


class LibraryNotFoundError(OSError):
    """leveldb-bloom's shared library is not where this package looks for it."""


def repo_root(start: Path) -> Path | None:
    """The leveldb-bloom checkout containing ``start``, if any: the nearest ancestor whose
    Cargo.toml is this crate's (another project's Cargo.toml further up is not ours)."""
    for directory in [start, *start.parents]:
        manifest = directory / "Cargo.toml"
        try:
            if 'name = "leveldb-bloom"' in manifest.read_text(encoding="utf-8"):
                return directory
        except OSError:
            continue
    return None


def crate_version(manifest: Path) -> str:
    """The ``version`` of the ``[package]`` table in a Cargo.toml: the package's version (the
    build reads it with this function too, so it is parsed in one place)."""
    table = None
    for line in manifest.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("["):
            table = line
        elif table == "[package]" and line.partition("=")[0].strip() == "version":
            value = line.partition("=")[2].strip()
            if len(value) > 1 and value[0] == value[-1] == '"':
                return value[1:-1]
    raise ValueError(f'{manifest} has no version = "..." in its [package] table')


def package_version() -> str:
    """The package's version, which is the crate's: written into the package when it is built,
    or read from the checkout's Cargo.toml when the source runs from a checkout."""
    try:
        from ._version import __version__

        return __version__
    except ImportError:
        root = repo_root(PACKAGE_DIR)
        return crate_version(root / "Cargo.toml") if root else "unknown"


def versioned_name(platform: str = sys.platform) -> str | None:
    """The name with the major version that a system install (CMake's) gives the library, which
    programs linked with it load: its soname on Linux (and other ELF systems), its install name
    on macOS; none on Windows, where a DLL's name carries no version."""
    major = package_version().split(".")[0]
    if platform == "win32":
        return None
    if platform == "darwin":
        return f"libleveldb_bloom.{major}.dylib"
    return f"libleveldb_bloom.so.{major}"


def find_system_library(name: str) -> str | None:
    """A system-installed library: what ``ctypes.util.find_library(name)`` finds, or else the
    versioned name, if the system's loader can load it (it searches LD_LIBRARY_PATH itself, where
    find_library needs binutils to)."""
    found = ctypes.util.find_library(name)
    if found:
        return found
    versioned = versioned_name()
    if versioned is None:
        return None
    try:
        ctypes.CDLL(versioned)
    except OSError:
        return None
    return versioned


def find_library(
    environ: Mapping[str, str] = os.environ,
    package_dir: Path = PACKAGE_DIR,
    find_system: Callable[[str], str | None] = find_system_library,
) -> str:
    """What to load: the first place in the module's order that has the library (a path, or the
    name the system's loader knows it by); LibraryNotFoundError naming every place tried if none.
    """
    explicit = environ.get(ENV_VAR)
    if explicit:
        if Path(explicit).is_file():
            return explicit
        raise _not_found(
            f"{ENV_VAR} is set, so only that path was tried:\n  {explicit}\n", package_dir
        )

    tried = []
    copy = package_dir / LIBRARY_FILE
    if copy.is_file():
        return str(copy)
    tried.append(str(copy))

    system = find_system(SYSTEM_NAME)
    if system:
        return system
    versioned = versioned_name()
    tried.append(
        f"the system's libraries: ctypes.util.find_library({SYSTEM_NAME!r}) found none"
        + (f", nor the loader {versioned}" if versioned else "")
    )

    root = repo_root(package_dir)
    if root is not None:
        for profile in ("release", "debug"):
            output = root / "target" / profile / LIBRARY_FILE
            if output.is_file():
                return str(output)
            tried.append(str(output))
    else:
        tried.append("(not running from a leveldb-bloom checkout, so no cargo build output to try)")
    where = "".join(f"  {place}\n" for place in tried)
    raise _not_found(f"Tried, in order ({ENV_VAR} is not set):\n{where}", package_dir)


def _not_found(where: str, package_dir: Path) -> LibraryNotFoundError:
    return LibraryNotFoundError(
        f"leveldb-bloom's shared library ({LIBRARY_FILE}) was not found.\n{where}"
        "To fix: reinstall the package with pip, which builds the library with cargo and puts it "
        f"at {package_dir / LIBRARY_FILE}; or build it with `cargo rustc --release --lib "
        "--crate-type cdylib` in the leveldb-bloom repository and set "
        f"{ENV_VAR} to target/release/{LIBRARY_FILE}."
    )


class _Policy(ctypes.Structure):
    """leveldb_filterpolicy_t, opaque: only ever handled through a pointer."""


PolicyPointer = ctypes.POINTER(_Policy)


class _FilterBlockBuilder(ctypes.Structure):
    """leveldb_filterblock_builder_t, opaque: only ever handled through a pointer."""


BuilderPointer = ctypes.POINTER(_FilterBlockBuilder)

_c_char_p, _c_size_t = ctypes.c_char_p, ctypes.c_size_t
_KeyArrays = [ctypes.POINTER(_c_char_p), ctypes.POINTER(_c_size_t)]


class Prototype(NamedTuple):
    """One C function: the Library attribute it becomes, its symbol, result and argument types.
    An optional one is newer than the rest: with an older library its attribute is None."""

    attribute: str
    symbol: str
    restype: Any
    argtypes: list[Any]
    optional: bool = False


#: Every C function the package calls (a new C function gets its line here).
PROTOTYPES = (
    Prototype("version", "leveldb_bloom_version", _c_char_p, []),
    Prototype("create_bloom", "leveldb_filterpolicy_create_bloom", PolicyPointer, [ctypes.c_int]),
    Prototype("destroy", "leveldb_filterpolicy_destroy", None, [PolicyPointer]),
    Prototype("name", "leveldb_filterpolicy_name", _c_char_p, [PolicyPointer]),
    Prototype("isa", "leveldb_bloom_isa", _c_char_p, []),
    # The filter comes back as a void pointer, not c_char_p: ctypes would turn a c_char_p result
    # into bytes (stopping at the first zero byte) and lose the pointer to free.
    Prototype(
        "create_filter",
        "leveldb_filterpolicy_create_filter",
        ctypes.c_void_p,
        [PolicyPointer, *_KeyArrays, ctypes.c_int, ctypes.POINTER(_c_size_t)],
    ),
    Prototype("free", "leveldb_free", None, [ctypes.c_void_p]),
    Prototype(
        "key_may_match",
        "leveldb_filterpolicy_key_may_match",
        ctypes.c_uint8,
        [PolicyPointer, _c_char_p, _c_size_t, _c_char_p, _c_size_t],
    ),
    Prototype(
        "key_may_match_batch",
        BATCH_SYMBOL,
        None,
        [
            PolicyPointer,
            *_KeyArrays,
            _c_size_t,
            _c_char_p,
            _c_size_t,
            ctypes.POINTER(ctypes.c_uint8),
        ],
        optional=True,
    ),
    # Filter blocks, newer than the rest: an older library lacks them.
    Prototype(
        "filterblock_builder_create",
        "leveldb_filterblock_builder_create",
        BuilderPointer,
        [PolicyPointer],
        optional=True,
    ),
    Prototype(
        "filterblock_builder_destroy",
        "leveldb_filterblock_builder_destroy",
        None,
        [BuilderPointer],
        optional=True,
    ),
    Prototype(
        "filterblock_builder_start_block",
        "leveldb_filterblock_builder_start_block",
        ctypes.c_uint8,
        [BuilderPointer, ctypes.c_uint64],
        optional=True,
    ),
    Prototype(
        "filterblock_builder_add_key",
        "leveldb_filterblock_builder_add_key",
        ctypes.c_uint8,
        [BuilderPointer, _c_char_p, _c_size_t],
        optional=True,
    ),
    # A void pointer, as create_filter's: the block is bytes to copy, then free.
    Prototype(
        "filterblock_builder_finish",
        "leveldb_filterblock_builder_finish",
        ctypes.c_void_p,
        [BuilderPointer, ctypes.POINTER(_c_size_t)],
        optional=True,
    ),
    Prototype(
        "filterblock_key_may_match",
        "leveldb_filterblock_key_may_match",
        ctypes.c_uint8,
        [PolicyPointer, _c_char_p, _c_size_t, ctypes.c_uint64, _c_char_p, _c_size_t],
        optional=True,
    ),
    Prototype(
        "filterblock_key_may_match_batch",
        "leveldb_filterblock_key_may_match_batch",
        None,
        [
            PolicyPointer,
            _c_char_p,
            _c_size_t,
            ctypes.POINTER(ctypes.c_uint64),
            *_KeyArrays,
            _c_size_t,
            ctypes.POINTER(ctypes.c_uint8),
        ],
        optional=True,
    ),
)


class Library:
    """The C functions of one loaded library, as the attributes PROTOTYPES names, with argument
    and result types set (so ctypes converts and checks every argument, and pointers are never
    truncated to int)."""

    def __init__(self, path: str):
        self.path = path
        cdll = ctypes.CDLL(path)
        for prototype in PROTOTYPES:
            function = None
            if not prototype.optional or hasattr(cdll, prototype.symbol):
                function = getattr(cdll, prototype.symbol)
                function.restype = prototype.restype
                function.argtypes = prototype.argtypes
            setattr(self, prototype.attribute, function)


_lock = threading.Lock()
_library: Library | None = None


def library() -> Library:
    """The library, found and loaded on first use (so that importing the package never fails)."""
    global _library
    with _lock:
        if _library is None:
            _library = Library(find_library())
        return _library
