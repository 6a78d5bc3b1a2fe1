"""The reference vectors made by leveldb 1.23 (vectors/), through the Python API: every filter
byte-identical, every probe answered as leveldb answered it."""

from __future__ import annotations

from typing import Callable

import pytest
from conftest import read_vectors

from leveldb_bloom import BloomFilterPolicy

# Each record takes its keys and filter in one of the accepted types, in turn, so every type goes
# through the vectors: bytes, bytearray and a writable memoryview without a copy, a read-only
# memoryview with one.
WRAPPERS: list[Callable[[bytes], object]] = [
    bytes,
    bytearray,
    lambda b: memoryview(bytearray(b)),
    memoryview,
]


def wrapped(index: int, data: bytes) -> object:
    return WRAPPERS[index % len(WRAPPERS)](data)


def test_build_vectors(many_path):
    policies: dict[int, BloomFilterPolicy] = {}
    records = 0
    for i, record in enumerate(read_vectors("build.txt")):
        policy = policies.setdefault(record.bits_per_key, BloomFilterPolicy(record.bits_per_key))
        keys = [wrapped(i + j, key) for j, key in enumerate(record.keys)]
        built = policy.create_filter(keys)
        assert built == record.filter, f"record {i}: bits_per_key {record.bits_per_key}"
        probes = [wrapped(i + j, probe) for j, probe in enumerate(record.probes)]
        assert policy.key_may_match_many(probes, wrapped(i + 1, built)) == record.answers, i
        records += 1
    assert records == 507  # every filter record in build.txt


def test_match_vectors(many_path):
    policy = BloomFilterPolicy(10)  # queries read k from the filter, not from the policy
    records = 0
    for i, record in enumerate(read_vectors("match.txt")):
        answers = policy.key_may_match_many(record.probes, wrapped(i, record.filter))
        assert answers == record.answers, f"record {i}: filter {record.filter.hex()[:40]}"
        records += 1
    assert records == 3989  # every match record in match.txt


@pytest.mark.parametrize("name", ["build.txt", "match.txt"])
def test_vectors_key_by_key(name):
    """key_may_match itself, one call per probe (key_may_match_many may not call it)."""
    policy = BloomFilterPolicy(10)
    for i, record in enumerate(read_vectors(name)):
        if len(record.keys) > 1000:
            continue  # the large sets' probes add time, not coverage, here
        answers = [policy.key_may_match(wrapped(i, p), record.filter) for p in record.probes]
        assert answers == record.answers, f"{name} record {i}"
