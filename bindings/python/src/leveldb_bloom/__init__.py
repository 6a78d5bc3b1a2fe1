"""LevelDB's built-in bloom filter (``leveldb.BuiltinBloomFilter2``) from Python, byte-identical to
leveldb 1.23, through leveldb-bloom's C ABI with ctypes (no extension module: installing the
package builds the C library with cargo).

    >>> from leveldb_bloom import BloomFilterPolicy
    >>> with BloomFilterPolicy(10) as policy:
    ...     bloom = policy.create_filter([b"apple", b"banana"])
    ...     policy.key_may_match(b"apple", bloom)
    True

Keys and filters are ``bytes``, ``bytearray`` or ``memoryview``; the bytes used are always
``bytes(obj)``, and any of them costs about the same. A list of keys is copied into one buffer
for C; a key or filter given alone is passed as it is if it is ``bytes``, or a writable
contiguous buffer past 4 KiB, and copied otherwise, which for a few bytes costs less than
lending a buffer to C. Any other type, ``str`` included, raises TypeError.

A policy is immutable, so any number of threads may use one at once (ctypes releases the GIL
during each C call). ``close()`` (or leaving a ``with`` block, or the object being garbage
collected) frees it; calls already running finish first, later ones raise ValueError. A policy
is its ``bits_per_key``: ``copy.copy``, ``copy.deepcopy`` and ``pickle`` give a policy of its
own with the same value (so one can go to a ``multiprocessing`` pool), equal to the first.

A table's filter block (leveldb's ``table/filter_block.cc``: one filter per 2 KB of data-block
offsets) is built by ``FilterBlockBuilder`` and read by ``FilterBlockReader``, as leveldb 1.23's:

    >>> with BloomFilterPolicy(10) as policy:
    ...     builder = FilterBlockBuilder(policy)
    ...     builder.start_block(0)
    ...     builder.add_key(b"apple")
    ...     block = builder.finish()
    ...     FilterBlockReader(policy, block).key_may_match(0, b"apple")
    True

The shared library is looked for as ``leveldb_bloom._native`` describes: ``LEVELDB_BLOOM_LIBRARY``
if set, else the copy ``pip install`` built into the package, else a system-installed one, else
cargo's build output in the checkout.
"""

from __future__ import annotations

import array
import ctypes
import io
import itertools
import operator
import threading
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple, Union

from . import _native
from ._native import LibraryNotFoundError

__all__ = [
    "BloomFilterPolicy",
    "FilterBlockBuilder",
    "FilterBlockReader",
    "LibraryNotFoundError",
    "__version__",
    "isa",
    "library_version",
]

__version__ = _native.package_version()


def library_version() -> str:
    """The version the loaded C library reports (``leveldb_bloom_version()``), "MAJOR.MINOR.PATCH":
    ``__version__`` is the package's, which is the same for the library installed with it."""
    return _native.library().version().decode("ascii")


BytesLike = Union[bytes, bytearray, memoryview]


def isa() -> str:
    """The kernels the library runs in this process: ``"avx512"``, ``"avx2"`` or ``"portable"``.
    The best the CPU supports, unless the environment variable ``LEVELDB_BLOOM_ISA`` named a
    slower one when the library was first used (then the best not above it); any other value is
    ignored. Every path gives the same bytes and answers."""
    return _native.library().isa().decode("ascii")


# What ctypes passes for a char* argument (bytes, or a c_char array over a buffer), with the
# length in bytes.
_CBytes = tuple[Union[bytes, ctypes.Array], int]

#: A key or filter given alone that is a writable buffer of up to this many bytes is copied to
#: ``bytes`` for C: a copy of a short key costs about 0.1 us, lending a buffer to C (memoryview,
#: cast, from_buffer, then a pointer cast) about 2 to 10 us; both cost the same near 4 KiB.
_COPY_MAX = 4096


def _c_bytes(obj: BytesLike, what: str) -> _CBytes:
    """``obj`` as a char* argument and its length; the bytes are ``bytes(obj)``."""
    if isinstance(obj, bytes):
        return obj, len(obj)  # ctypes passes a pointer into the bytes object itself
    if isinstance(obj, bytearray):
        if len(obj) <= _COPY_MAX:
            return bytes(obj), len(obj)
        view = memoryview(obj)
    elif isinstance(obj, memoryview):
        view = obj
        # nbytes raises ValueError for a released view; tobytes() is bytes(view).
        if view.nbytes <= _COPY_MAX or view.readonly or not view.c_contiguous:
            data = view.tobytes()
            return data, len(data)
    else:
        raise TypeError(f"{what} must be bytes, bytearray or memoryview, not {type(obj).__name__}")
    # Any format and shape, as its raw bytes in order. While the array exists the buffer stays
    # exported, so a bytearray cannot be resized under the C call.
    return (ctypes.c_char * view.nbytes).from_buffer(view.cast("B")), view.nbytes


class _Keys(NamedTuple):
    """Keys as C takes them: ``count`` keys, the i-th at ``pointers[i]`` with ``lengths[i]``
    bytes, all in ``buffer``, which must outlive the arrays' use; ``parts`` holds each key."""

    count: int
    pointers: Any
    lengths: Any
    buffer: bytes
    parts: list[BytesLike]


_KEY_POINTERS = ctypes.POINTER(ctypes.c_char_p)

#: The array typecode of a ``size_t``: arrays of keys' addresses and lengths are built by
#: ``array.array`` (a few ns an item; a ctypes array takes tens of ns to convert each).
_SIZE_T = next(
    code for code in "LQI" if array.array(code).itemsize == ctypes.sizeof(ctypes.c_size_t)
)

_KEY_TYPES = {bytes, bytearray, memoryview}


def _c_keys(keys: Iterable[BytesLike]) -> _Keys:
    """``keys`` for C, each as ``bytes(key)``, copied into one buffer by C code, which also
    gives each key's length: a key of any type costs about the same (docs/PYTHON.md)."""
    if isinstance(keys, (bytes, bytearray, memoryview, str)):
        raise TypeError(f"keys must be an iterable of byte strings, not one {type(keys).__name__}")
    parts = list(keys)
    if not set(map(type, parts)) <= _KEY_TYPES:
        parts = list(map(_key_bytes, parts))  # TypeError for any other type
    try:
        lengths, buffer = _joined(parts)  # ValueError for a released memoryview
    except BufferError:
        # A memoryview that is not contiguous cannot be read in place: its bytes are copied.
        lengths, buffer = _joined(list(map(_key_bytes, parts)))
    # Each key's address: where the buffer starts, then where each key before it ends.
    starts = itertools.accumulate(lengths, initial=ctypes.cast(buffer, ctypes.c_void_p).value)
    pointers = array.array(_SIZE_T, starts)
    return _Keys(
        len(parts),
        ctypes.cast((ctypes.c_size_t * len(pointers)).from_buffer(pointers), _KEY_POINTERS),
        (ctypes.c_size_t * len(parts)).from_buffer(array.array(_SIZE_T, lengths)),
        buffer,
        parts,
    )


def _joined(parts: list[BytesLike]) -> tuple[list[int], bytes]:
    """The bytes of ``parts`` one after another, and how many each wrote: one C call a key,
    with no separate call for its length."""
    written = io.BytesIO()
    lengths = list(map(written.write, parts))
    return lengths, written.getvalue()


def _key_bytes(key: BytesLike) -> bytes | bytearray:
    """One key as ``bytes`` or ``bytearray``, which every buffer reader takes in place."""
    if isinstance(key, (bytes, bytearray)):
        return key
    if isinstance(key, memoryview):
        return key.tobytes()  # any format, shape or layout; ValueError if released
    raise TypeError(f"each key must be bytes, bytearray or memoryview, not {type(key).__name__}")


class BloomFilterPolicy:
    """leveldb's ``NewBloomFilterPolicy(bits_per_key)``: builds filters byte-identical to
    leveldb 1.23's and answers ``KeyMayMatch`` exactly as leveldb does, corrupt filters included.
    """

    def __init__(self, bits_per_key: int):
        # Set first, so that close() and __del__ work even if the checks below raise.
        self._lock = threading.Lock()
        self._handle: _native.PolicyPointer | None = None
        self._closed = True
        self._users = 0
        bits_per_key = operator.index(bits_per_key)  # TypeError for float, str, ...
        if not 0 <= bits_per_key <= _native.INT_MAX:
            raise ValueError(f"bits_per_key must be in 0..{_native.INT_MAX}, not {bits_per_key}")
        self._lib = _native.library()
        handle = self._lib.create_bloom(bits_per_key)
        if not handle:
            raise MemoryError("leveldb_filterpolicy_create_bloom returned NULL")
        self._handle, self._closed = handle, False
        self._bits_per_key = bits_per_key

    # Every C call holds the policy as a "user": close() from another thread waits for them to
    # end before freeing it (freeing it under a running call would crash the interpreter).
    def _acquire(self) -> _native.PolicyPointer:
        with self._lock:
            if self._closed:
                raise ValueError("BloomFilterPolicy is closed")
            self._users += 1
            return self._handle

    def _release(self) -> None:
        with self._lock:
            self._users -= 1
            self._destroy_if_unused()

    def _destroy_if_unused(self) -> None:
        if self._closed and self._users == 0 and self._handle is not None:
            self._lib.destroy(self._handle)
            self._handle = None

    def close(self) -> None:
        """Frees the policy (once calls still running end). Calling it again does nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before anything was allocated
            return
        with lock:
            self._closed = True
            self._destroy_if_unused()

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> BloomFilterPolicy:  # noqa: PYI034 (typing.Self is 3.11+)
        if self._closed:
            raise ValueError("BloomFilterPolicy is closed")
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def bits_per_key(self) -> int:
        return self._bits_per_key

    def __repr__(self) -> str:
        state = ", closed" if self._closed else ""
        return f"BloomFilterPolicy({self._bits_per_key}{state})"

    # A policy is its bits_per_key: a copy, deep or not, and an unpickled policy are new
    # policies with a C handle of their own, never a share of this one's.
    def __reduce__(self):
        if self._closed:
            raise ValueError("BloomFilterPolicy is closed")
        return type(self), (self._bits_per_key,)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BloomFilterPolicy):
            return NotImplemented
        return self._bits_per_key == other._bits_per_key

    def __hash__(self) -> int:
        return hash((BloomFilterPolicy, self._bits_per_key))

    @property
    def name(self) -> str:
        """The name leveldb stores with filters: ``"leveldb.BuiltinBloomFilter2"``."""
        handle = self._acquire()
        try:
            return self._lib.name(handle).decode("ascii")
        finally:
            self._release()

    def create_filter(self, keys: Iterable[BytesLike]) -> bytes:
        """The filter leveldb's ``CreateFilter`` builds for ``keys`` (in order, duplicates kept)."""
        c_keys = _c_keys(keys)
        if c_keys.count > _native.INT_MAX:
            raise ValueError(f"at most {_native.INT_MAX} keys fit in one filter")
        filter_length = ctypes.c_size_t()
        handle = self._acquire()
        try:
            built = self._lib.create_filter(
                handle, c_keys.pointers, c_keys.lengths, c_keys.count, ctypes.byref(filter_length)
            )
        finally:
            self._release()
        if not built:
            raise MemoryError(f"no memory for a filter over {c_keys.count} keys")
        try:
            return ctypes.string_at(built, filter_length.value)
        finally:
            self._lib.free(built)

    def key_may_match(self, key: BytesLike, filter: BytesLike) -> bool:
        """False only if ``key`` is certainly not in the set ``filter`` was built from; exactly
        leveldb's ``KeyMayMatch``, for any filter bytes."""
        key_data, key_length = _c_bytes(key, "key")
        filter_data, filter_length = _c_bytes(filter, "filter")
        handle = self._acquire()
        try:
            return bool(
                self._lib.key_may_match(handle, key_data, key_length, filter_data, filter_length)
            )
        finally:
            self._release()

    def key_may_match_many(self, keys: Sequence[BytesLike], filter: BytesLike) -> list[bool]:
        """``[key_may_match(key, filter) for key in keys]`` in one C call when the library has
        the batch query, else key by key."""
        filter_data, filter_length = _c_bytes(filter, "filter")
        c_keys = _c_keys(keys)
        if not c_keys.count:
            return []
        batch = self._lib.key_may_match_batch
        handle = self._acquire()
        try:
            if batch is None:
                one = self._lib.key_may_match
                return [
                    bool(one(handle, *_c_bytes(key, "key"), filter_data, filter_length))
                    for key in c_keys.parts
                ]
            results = (ctypes.c_uint8 * c_keys.count)()
            batch(
                handle,
                c_keys.pointers,
                c_keys.lengths,
                c_keys.count,
                filter_data,
                filter_length,
                results,
            )
            return [bool(result) for result in results]
        finally:
            self._release()


#: The block offsets each filter of a filter block covers: leveldb's ``kFilterBase``.
FILTER_BASE = 2048

_UINT64_MAX = 2**64 - 1


def _block_offset(block_offset: int) -> int:
    block_offset = operator.index(block_offset)  # TypeError for float, str, ...
    if not 0 <= block_offset <= _UINT64_MAX:
        raise ValueError(f"a block offset must be in 0..2**64-1, not {block_offset}")
    return block_offset


def _filter_block_library(policy: BloomFilterPolicy) -> _native.Library:
    if not isinstance(policy, BloomFilterPolicy):
        raise TypeError(f"policy must be a BloomFilterPolicy, not {type(policy).__name__}")
    lib = policy._lib
    if lib.filterblock_builder_create is None or lib.filterblock_key_may_match_batch is None:
        raise RuntimeError(f"{lib.path} has no filter blocks (leveldb_filterblock_*): it is older")
    return lib


class FilterBlockBuilder:
    """leveldb's ``FilterBlockBuilder``: ``(start_block add_key*)* finish`` gives the filter block
    leveldb 1.23 writes for the same calls, byte for byte. ``finish()`` ends it; ``close()`` (or
    leaving a ``with`` block) drops it unfinished. Until then it keeps its policy open. Calls on
    one builder from several threads run one at a time. It cannot be copied or pickled
    (TypeError): its state is in C."""

    def __init__(self, policy: BloomFilterPolicy):
        self._lock = threading.Lock()
        self._handle: _native.BuilderPointer | None = None
        self._policy: BloomFilterPolicy | None = None
        self._lib = _filter_block_library(policy)
        # A user of the policy for the builder's whole life: the C builder points to it.
        policy_handle = policy._acquire()
        handle = self._lib.filterblock_builder_create(policy_handle)
        if not handle:
            policy._release()
            raise MemoryError("leveldb_filterblock_builder_create returned NULL")
        self._handle, self._policy = handle, policy
        # Filters built so far: a block offset in an earlier 2 KB range is refused.
        self._filters = 0

    def _live(self) -> _native.BuilderPointer:
        if self._handle is None:
            raise ValueError("FilterBlockBuilder is finished or closed")
        return self._handle

    def start_block(self, block_offset: int) -> None:
        """The data block at ``block_offset`` starts: the filters of the 2 KB ranges before it are
        built. ValueError for an offset in an earlier 2 KB range than the previous block's."""
        block_offset = _block_offset(block_offset)
        with self._lock:
            handle = self._live()
            if block_offset // FILTER_BASE < self._filters:
                raise ValueError(
                    f"block offset {block_offset} is in an earlier 2 KB range than the "
                    "previous block's"
                )
            if not self._lib.filterblock_builder_start_block(handle, block_offset):
                raise MemoryError(f"no memory for the filters up to block offset {block_offset}")
            self._filters = block_offset // FILTER_BASE

    def add_key(self, key: BytesLike) -> None:
        """Adds a key of the current data block (copied)."""
        data, length = _c_bytes(key, "key")
        with self._lock:
            if not self._lib.filterblock_builder_add_key(self._live(), data, length):
                raise MemoryError("no memory for the key, or more than 2**31-1 keys in one filter")

    def finish(self) -> bytes:
        """The block: the last filter, the offset of each filter, the array's offset, the base lg.
        The builder is finished then: every later call raises ValueError."""
        with self._lock:
            handle = self._live()
            length = ctypes.c_size_t()
            block = self._lib.filterblock_builder_finish(handle, ctypes.byref(length))
            if not block:
                raise MemoryError("no memory for the filter block")
            try:
                return ctypes.string_at(block, length.value)
            finally:
                self._lib.free(block)
                self._close_locked()

    def _close_locked(self) -> None:
        if self._handle is not None:
            self._lib.filterblock_builder_destroy(self._handle)
            self._handle = None
        if self._policy is not None:
            self._policy._release()
            self._policy = None

    def close(self) -> None:
        """Drops the builder, finished or not. Calling it again does nothing."""
        lock = getattr(self, "_lock", None)
        if lock is None:  # __init__ failed before anything was allocated
            return
        with lock:
            self._close_locked()

    def __del__(self) -> None:
        self.close()

    def __enter__(self) -> FilterBlockBuilder:  # noqa: PYI034 (typing.Self is 3.11+)
        self._live()
        return self

    # Its keys and filters are in C, which has no way to copy them; a copy sharing them would
    # free them twice.
    def __reduce__(self):
        raise TypeError(
            "a FilterBlockBuilder cannot be copied or pickled: its state is in C; "
            "make another and give it the same calls"
        )

    def __exit__(self, *exc_info) -> None:
        self.close()


class FilterBlockReader:
    """leveldb's ``FilterBlockReader``: ``KeyMayMatch(block_offset, key)`` on a filter block,
    answered exactly as leveldb 1.23 answers for any bytes (errors are potential matches). The
    policy tests each filter; it must be open at each call. Holds a copy of ``contents``.
    ``copy.copy`` gives a reader over the same policy; ``copy.deepcopy`` and ``pickle`` one with
    a policy of its own."""

    def __init__(self, policy: BloomFilterPolicy, contents: BytesLike):
        self._lib = _filter_block_library(policy)
        _c_bytes(contents, "contents")  # TypeError for anything else
        self._policy = policy
        self._contents = bytes(contents)

    # A reader is its policy and contents: a copy shares the policy, a deep copy or an
    # unpickled reader has a policy of its own.
    def __reduce__(self):
        return type(self), (self._policy, self._contents)

    def key_may_match(self, block_offset: int, key: BytesLike) -> bool:
        """False only if ``key`` is certainly not in the data block at ``block_offset``."""
        block_offset = _block_offset(block_offset)
        data, length = _c_bytes(key, "key")
        contents = self._contents
        handle = self._policy._acquire()
        try:
            return bool(
                self._lib.filterblock_key_may_match(
                    handle, contents, len(contents), block_offset, data, length
                )
            )
        finally:
            self._policy._release()

    def key_may_match_many(
        self, block_offsets: Sequence[int], keys: Sequence[BytesLike]
    ) -> list[bool]:
        """``[key_may_match(o, k) for o, k in zip(block_offsets, keys)]`` in one C call, the keys
        of each filter tested together."""
        offsets = [_block_offset(offset) for offset in block_offsets]
        c_keys = _c_keys(keys)
        if len(offsets) != c_keys.count:
            raise ValueError(f"{len(offsets)} block offsets for {c_keys.count} keys")
        if not c_keys.count:
            return []
        c_offsets = (ctypes.c_uint64 * len(offsets))(*offsets)
        results = (ctypes.c_uint8 * c_keys.count)()
        contents = self._contents
        handle = self._policy._acquire()
        try:
            self._lib.filterblock_key_may_match_batch(
                handle,
                contents,
                len(contents),
                c_offsets,
                c_keys.pointers,
                c_keys.lengths,
                c_keys.count,
                results,
            )
        finally:
            self._policy._release()
        return [bool(result) for result in results]
