"""The Python API's contract: accepted and refused inputs, and the policy's lifetime."""

from __future__ import annotations

import array
import ctypes
import os
import subprocess
import sys
from pathlib import Path

import pytest

import leveldb_bloom
from leveldb_bloom import _COPY_MAX, BloomFilterPolicy, _c_bytes, _native

KEYS = [b"apple", b"banana", b"cherry", b"", b"\x00\xff\x80"]


@pytest.fixture
def policy():
    with BloomFilterPolicy(10) as policy:
        yield policy


def test_name_and_parameters(policy):
    assert policy.name == "leveldb.BuiltinBloomFilter2"
    assert policy.bits_per_key == 10
    assert repr(policy) == "BloomFilterPolicy(10)"


def test_members_match_and_outsiders_mostly_do_not(policy):
    bloom = policy.create_filter(KEYS)
    assert len(bloom) == 9  # 5 keys x 10 bits, rounded up to the 64-bit minimum, plus k
    assert all(policy.key_may_match(key, bloom) for key in KEYS)
    assert policy.key_may_match_many(KEYS, bloom) == [True] * len(KEYS)
    outsiders = [b"absent:%d" % i for i in range(1000)]
    assert sum(policy.key_may_match_many(outsiders, policy.create_filter(outsiders[:500]))) < 600


def test_keys_may_be_any_iterable(policy):
    assert policy.create_filter(iter(KEYS)) == policy.create_filter(KEYS)
    assert policy.create_filter(key for key in KEYS) == policy.create_filter(tuple(KEYS))
    assert policy.key_may_match_many((), b"") == []


@pytest.mark.parametrize("bits_per_key", [0, 1, 10, 2**31 - 1])
def test_bits_per_key_accepted(bits_per_key):
    with BloomFilterPolicy(bits_per_key) as policy:
        assert policy.bits_per_key == bits_per_key


@pytest.mark.parametrize("bits_per_key", [-1, -(2**31), 2**31, 2**64])
def test_bits_per_key_out_of_range_is_value_error(bits_per_key):
    with pytest.raises(ValueError, match="bits_per_key"):
        BloomFilterPolicy(bits_per_key)


@pytest.mark.parametrize("bits_per_key", [10.0, "10", None, b"\x0a"])
def test_bits_per_key_not_an_integer_is_type_error(bits_per_key):
    with pytest.raises(TypeError):
        BloomFilterPolicy(bits_per_key)


# A key or a filter: what must be refused.
NOT_BYTES = ["apple", 42, None, [b"a"], array.array("B", b"apple")]


@pytest.mark.parametrize("bad", NOT_BYTES, ids=lambda bad: type(bad).__name__)
def test_other_types_are_type_errors(policy, bad):
    bloom = policy.create_filter(KEYS)
    with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
        policy.create_filter([b"ok", bad])
    with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
        policy.key_may_match(bad, bloom)
    with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
        policy.key_may_match(b"apple", bad)
    with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
        policy.key_may_match_many([b"ok", bad], bloom)
    with pytest.raises(TypeError, match="bytes, bytearray or memoryview"):
        policy.key_may_match_many([b"ok"], bad)


@pytest.mark.parametrize("one_key", [b"apple", bytearray(b"apple"), "apple"])
def test_a_single_key_instead_of_keys_is_type_error(policy, one_key):
    # Iterating b"apple" would give ints; say what went wrong instead.
    with pytest.raises(TypeError, match="iterable of byte strings"):
        policy.create_filter(one_key)
    with pytest.raises(TypeError, match="iterable of byte strings"):
        policy.key_may_match_many(one_key, b"")
    with pytest.raises(TypeError):
        policy.create_filter(42)


# Every memoryview is read as bytes(view): its raw bytes in order, whatever its format or shape.
VIEWS = {
    "read-only slice": memoryview(b"xxapplexx")[2:7],
    "non-contiguous": memoryview(bytearray(b"a-p-p-l-e"))[::2],
    "int32 format": memoryview(array.array("i", [1, -2, 3])),
    "2-d": memoryview(bytearray(b"abcdefghijkl")).cast("B", (3, 4)),
    "struct format": memoryview(ctypes.c_int64(-5)),
    "empty": memoryview(bytearray()),
}


@pytest.mark.parametrize("view", VIEWS.values(), ids=VIEWS.keys())
def test_memoryviews_are_their_bytes(policy, view, many_path):
    as_bytes = bytes(view)
    assert policy.create_filter([view, b"x"]) == policy.create_filter([as_bytes, b"x"])
    bloom = policy.create_filter([as_bytes])
    assert policy.key_may_match(view, bloom)
    assert policy.key_may_match_many([view], bloom) == [True]
    # As a filter: the same answers as the bytes (garbage filters included).
    for probe in KEYS:
        assert policy.key_may_match(probe, view) == policy.key_may_match(probe, as_bytes)
    assert policy.key_may_match_many(KEYS, view) == policy.key_may_match_many(KEYS, as_bytes)


def test_released_memoryview_is_value_error(policy):
    view = memoryview(b"apple")
    view.release()
    with pytest.raises(ValueError):
        policy.key_may_match(view, b"")


@pytest.mark.parametrize("make", [bytearray, lambda b: memoryview(bytearray(b))])
def test_large_writable_buffers_are_not_copied_and_small_ones_are(make):
    large = b"apple" + bytes(_COPY_MAX)
    buffer = make(large)
    target = buffer.obj if isinstance(buffer, memoryview) else buffer
    data, length = _c_bytes(buffer, "key")
    # The C argument is the buffer's own memory: while it is lent, it cannot be resized.
    assert length == len(large) and isinstance(data, ctypes.Array)
    target[0:1] = b"A"
    assert data.raw[:5] == b"Apple"
    with pytest.raises(BufferError):
        target.append(0)
    # Up to _COPY_MAX bytes, a copy: cheaper than lending the buffer.
    for small in (b"", b"apple", bytes(_COPY_MAX)):
        assert _c_bytes(make(small), "key") == (small, len(small))


# Lists of bytes, bytearrays and contiguous memoryviews are read by C code; others key by key.
# Each way gives the keys' bytes.
KEY_LISTS = {
    "bytes": [b"apple", b"", b"cherry"],
    "bytearray": [bytearray(b"apple"), bytearray(), bytearray(b"cherry")],
    "memoryview": [memoryview(b"apple"), memoryview(b""), memoryview(bytearray(b"cherry"))],
    "memoryviews of any format and layout": list(VIEWS.values()),
    "mixed": [b"apple", bytearray(), memoryview(b"xcherryx")[1:-1]],
    "a bytes subclass": [type("Sub", (bytes,), {})(b"apple")],
    "large": [bytes(100_000), bytearray(b"x" * 100_000), memoryview(b"y" * 100_000)],
}


@pytest.mark.parametrize("keys", KEY_LISTS.values(), ids=KEY_LISTS.keys())
def test_key_lists_of_every_kind_are_their_bytes(policy, keys, many_path):
    as_bytes = [bytes(key) for key in keys]
    assert policy.create_filter(keys) == policy.create_filter(as_bytes)
    bloom = policy.create_filter(as_bytes + [b"other"])
    assert policy.key_may_match_many(keys, bloom) == [True] * len(keys)
    assert policy.key_may_match_many(iter(keys), bloom) == [True] * len(keys)


def test_released_memoryview_in_a_list_is_value_error(policy):
    released = memoryview(b"apple")
    released.release()
    for keys in ([released], [memoryview(b"ok"), released], [b"ok", released]):
        with pytest.raises(ValueError):
            policy.create_filter(keys)


def test_key_lengths_are_the_bytes_read_not_what_len_says(policy):
    class Liar(bytearray):
        def __len__(self):
            return 1000

    # Were C given len(), it would read past the key's bytes.
    assert policy.create_filter([Liar(b"apple"), b"x"]) == policy.create_filter([b"apple", b"x"])


def test_closed_policy_raises_value_error():
    policy = BloomFilterPolicy(10)
    bloom = policy.create_filter(KEYS)
    policy.close()
    assert policy.closed and repr(policy) == "BloomFilterPolicy(10, closed)"
    for use in (
        lambda: policy.name,
        lambda: policy.create_filter(KEYS),
        lambda: policy.key_may_match(b"apple", bloom),
        lambda: policy.key_may_match_many(KEYS, bloom),
        lambda: policy.__enter__(),
    ):
        with pytest.raises(ValueError, match="closed"):
            use()
    policy.close()  # again: nothing happens


def test_context_manager_closes():
    with BloomFilterPolicy(10) as policy:
        assert not policy.closed
    assert policy.closed
    with pytest.raises(ValueError, match="closed"):
        policy.key_may_match(b"apple", b"")


def test_close_waits_for_running_calls():
    policy = BloomFilterPolicy(10)
    handle = policy._acquire()  # what every call holds while it is in C
    policy.close()
    assert policy._handle is not None  # not freed under the running call...
    with pytest.raises(ValueError, match="closed"):
        policy.key_may_match(b"apple", b"")  # ...but closed to new ones
    assert handle
    policy._release()
    assert policy._handle is None  # freed when the last call ends


def _isa_in_child(value: str | None) -> str:
    """leveldb_bloom.isa() in a fresh interpreter (the path is chosen once per process) with
    LEVELDB_BLOOM_ISA set to ``value`` (None: unset), loading the library this process loaded."""
    env = dict(os.environ)
    env.pop("LEVELDB_BLOOM_ISA", None)
    if value is not None:
        env["LEVELDB_BLOOM_ISA"] = value
    env[_native.ENV_VAR] = _native.library().path
    package_parent = str(Path(leveldb_bloom.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, env.get("PYTHONPATH")]))
    code = "import leveldb_bloom; print(leveldb_bloom.isa())"
    result = subprocess.run(
        [sys.executable, "-B", "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def test_isa_names_the_path_and_the_override_lowers_it():
    best = _isa_in_child(None)
    assert best in ("portable", "avx2", "avx512")
    assert leveldb_bloom.isa() in ("portable", "avx2", "avx512")
    assert _isa_in_child("portable") == "portable"
    assert _isa_in_child("not a path") == best
    # Never above what the CPU has, nor above what was asked for.
    assert _isa_in_child("avx512") == best
    if best != "portable":
        assert _isa_in_child("avx2") == "avx2"
