"""key_may_match_many's batch path, before the library has the batch call: a stand-in with the C
signature of leveldb_filterpolicy_key_may_match_batch, answering key by key through the C ABI,
checks what the binding passes (key pointers and lengths, count, filter, result array) and reads
back. With a library that has the real call, the tests using the many_path fixture run it too."""

from __future__ import annotations

import ctypes

from conftest import read_vectors
from test_vectors import wrapped

from leveldb_bloom import BloomFilterPolicy, _native

# As in _native.Library, except for pointers the stand-in reads as addresses: a c_char_p argument
# would reach Python as bytes cut at the first zero byte.
BATCH = ctypes.CFUNCTYPE(
    None,
    _native.PolicyPointer,
    ctypes.POINTER(ctypes.c_char_p),
    ctypes.POINTER(ctypes.c_size_t),
    ctypes.c_size_t,
    ctypes.c_void_p,
    ctypes.c_size_t,
    ctypes.POINTER(ctypes.c_uint8),
)


def test_batch_path_through_a_stand_in(lib, monkeypatch):
    calls = []

    @BATCH
    def stand_in(policy, keys, key_lengths, num_keys, filter, filter_length, results):
        addresses = ctypes.cast(keys, ctypes.POINTER(ctypes.c_void_p))
        for i in range(num_keys):
            results[i] = lib.key_may_match(
                policy,
                ctypes.cast(addresses[i], ctypes.c_char_p),
                key_lengths[i],
                ctypes.cast(filter, ctypes.c_char_p),
                filter_length,
            )
        calls.append(num_keys)

    monkeypatch.setattr(lib, "key_may_match_batch", stand_in)
    policy = BloomFilterPolicy(10)
    records = 0
    for i, record in enumerate(read_vectors("match.txt")):
        if i % 10:
            continue  # every tenth record: Python answering in the stand-in is slow
        probes = [wrapped(i + j, probe) for j, probe in enumerate(record.probes)]
        assert policy.key_may_match_many(probes, wrapped(i, record.filter)) == record.answers
        records += 1
    assert calls == [300] * records  # one batch call per record, every probe in it
