"""leveldb's filter blocks: the vectors leveldb 1.23's FilterBlockBuilder and FilterBlockReader made
(vectors/filterblock.txt) through FilterBlockBuilder and FilterBlockReader, and their contract."""

from __future__ import annotations

import pytest
from conftest import read_filterblock_vectors

from leveldb_bloom import BloomFilterPolicy, FilterBlockBuilder, FilterBlockReader


@pytest.fixture
def policy():
    with BloomFilterPolicy(10) as policy:
        yield policy


def test_filterblock_vectors():
    """Every bloom-policy record (the custom policy's need C callbacks, which the package does
    not take): blocks byte for byte, answers one by one and in one batch."""
    policies: dict[str, BloomFilterPolicy] = {}
    built = read = 0
    for i, record in enumerate(read_filterblock_vectors()):
        if not record.policy.startswith("bloom:"):
            continue
        policy = policies.setdefault(record.policy, BloomFilterPolicy(int(record.policy[6:])))
        if record.calls is not None:
            builder = FilterBlockBuilder(policy)
            for call, argument in record.calls:
                if call == "start":
                    builder.start_block(argument)
                else:
                    builder.add_key(bytearray(argument) if i % 2 else argument)
            assert builder.finish() == record.block, f"record {i}"
            built += 1
        else:
            read += 1
        reader = FilterBlockReader(policy, record.block)
        offsets = [offset for offset, _ in record.queries]
        keys = [key for _, key in record.queries]
        assert reader.key_may_match_many(offsets, keys) == record.answers, f"record {i}"
        if i % 7 == 0:  # one call per query on a share of the records: the same answers
            answers = [reader.key_may_match(offset, key) for offset, key in record.queries]
            assert answers == record.answers, f"record {i}"
    assert (built, read) == (55, 733)


def test_builder_refuses_bad_calls_and_stays_as_it_was(policy):
    def reference():
        builder = FilterBlockBuilder(policy)
        builder.start_block(5000)
        builder.add_key(b"a")
        builder.start_block(9000)
        return builder.finish()

    with FilterBlockBuilder(policy) as builder:
        builder.start_block(5000)
        builder.add_key(b"a")
        builder.start_block(4096)  # 5000's 2 KB range: allowed, as in leveldb
        with pytest.raises(ValueError, match="earlier 2 KB range"):
            builder.start_block(4095)
        for offset in (-1, 2**64):
            with pytest.raises(ValueError, match="block offset"):
                builder.start_block(offset)
        with pytest.raises(TypeError):
            builder.start_block(1.5)
        with pytest.raises(TypeError):
            builder.add_key("str")
        with pytest.raises(MemoryError):
            builder.start_block(2**64 - 1)  # 2**53 filters
        builder.start_block(9000)
        assert builder.finish() == reference()
        for call in (
            builder.finish,
            lambda: builder.add_key(b"k"),
            lambda: builder.start_block(10**6),
        ):
            with pytest.raises(ValueError, match="finished"):
                call()


def test_builder_keeps_its_policy_open():
    policy = BloomFilterPolicy(10)
    builder = FilterBlockBuilder(policy)
    builder.add_key(b"k")
    policy.close()
    assert policy.closed
    block = builder.finish()  # the C policy is freed only now
    with pytest.raises(ValueError, match="closed"):
        FilterBlockReader(policy, block).key_may_match(0, b"k")
    with pytest.raises(ValueError, match="closed"):
        FilterBlockBuilder(policy)


def test_reader_answers_and_refuses_bad_input(policy):
    builder = FilterBlockBuilder(policy)
    builder.add_key(b"present")
    block = builder.finish()
    reader = FilterBlockReader(policy, memoryview(block))
    assert reader.key_may_match(0, b"present")
    assert reader.key_may_match(2048, b"anything")  # past the last filter
    assert reader.key_may_match_many([0, 2048, 0], [b"present", b"x", memoryview(b"present")]) == [
        True,
        True,
        True,
    ]
    assert reader.key_may_match_many([], []) == []
    with pytest.raises(ValueError, match="2 block offsets for 1 keys"):
        reader.key_may_match_many([0, 1], [b"k"])
    with pytest.raises(ValueError, match="block offset"):
        reader.key_may_match(-1, b"k")
    with pytest.raises(TypeError):
        reader.key_may_match(0, "str")
    with pytest.raises(TypeError):
        FilterBlockReader(policy, "not bytes")
    with pytest.raises(TypeError):
        FilterBlockReader("not a policy", block)
    # Short contents: every key may match, as in leveldb.
    assert FilterBlockReader(policy, b"").key_may_match_many([0, 10**12], [b"a", b"b"]) == [
        True,
        True,
    ]


def test_an_older_library_without_filter_blocks_is_reported(policy, lib, monkeypatch):
    monkeypatch.setattr(lib, "filterblock_builder_create", None)
    with pytest.raises(RuntimeError, match="no filter blocks"):
        FilterBlockBuilder(policy)
