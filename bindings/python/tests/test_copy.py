"""Copies, pickles and weak references of every public class: none may share a C handle that
two objects would free. Each is copied every way, then originals and copies are used and closed
in every order; the same again in a child interpreter, which must not crash."""

from __future__ import annotations

import copy
import gc
import itertools
import multiprocessing
import os
import pickle
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import leveldb_bloom
from leveldb_bloom import (
    BloomFilterPolicy,
    FilterBlockBuilder,
    FilterBlockReader,
    LibraryNotFoundError,
    _native,
)

KEYS = [b"apple", b"banana", b"cherry"]

COPIES = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda obj: pickle.loads(pickle.dumps(obj)),
}


def _block(policy: BloomFilterPolicy) -> bytes:
    builder = FilterBlockBuilder(policy)
    builder.start_block(0)
    for key in KEYS:
        builder.add_key(key)
    return builder.finish()


def _policy_copies(how: str) -> None:
    expected = BloomFilterPolicy(10).create_filter(KEYS)
    for first, second in itertools.permutations(["original", "copy"]):
        original = BloomFilterPolicy(10)
        duplicate = COPIES[how](original)
        assert duplicate is not original and duplicate == original
        assert duplicate.bits_per_key == 10 and not duplicate.closed
        policies = {"original": original, "copy": duplicate}
        policies[first].close()
        # The other one is whole: it builds the same filter, and is closed on its own.
        assert policies[second].create_filter(KEYS) == expected
        with pytest.raises(ValueError, match="closed"):
            policies[first].create_filter(KEYS)
        with pytest.raises(ValueError, match="closed"):
            COPIES[how](policies[first])  # a closed policy is not copied either
        policies[second].close()
        policies[first].close()  # again: nothing happens
        del original, duplicate, policies
        gc.collect()
    # Dropped without close(), in either order: each frees its own handle once.
    for drop_copy_first in (True, False):
        original = BloomFilterPolicy(10)
        duplicate = COPIES[how](original)
        kept = original if drop_copy_first else duplicate
        if drop_copy_first:
            del duplicate
        else:
            del original
        gc.collect()
        assert kept.create_filter(KEYS) == expected
        del kept
        gc.collect()


def _builder_copies(how: str) -> None:
    with BloomFilterPolicy(10) as policy:
        expected = _block(policy)
        builder = FilterBlockBuilder(policy)
        builder.start_block(0)
        with pytest.raises(TypeError, match="FilterBlockBuilder"):
            COPIES[how](builder)
        # The builder is as it was.
        for key in KEYS:
            builder.add_key(key)
        assert builder.finish() == expected
        builder.close()
        with pytest.raises(TypeError, match="FilterBlockBuilder"):
            COPIES[how](FilterBlockBuilder(policy))


def _reader_copies(how: str) -> None:
    for first, second in itertools.permutations(["original", "copy"]):
        policy = BloomFilterPolicy(10)
        block = _block(policy)
        original = FilterBlockReader(policy, block)
        duplicate = COPIES[how](original)
        readers = {"original": original, "copy": duplicate}
        assert duplicate.key_may_match_many([0] * 3, KEYS) == [True] * 3
        # Closing the policy of one: a shallow copy shares it, others have their own.
        shared = duplicate._policy is policy
        assert shared == (how == "copy")
        readers[first]._policy.close()
        with pytest.raises(ValueError, match="closed"):
            readers[first].key_may_match(0, b"apple")
        if shared:
            with pytest.raises(ValueError, match="closed"):
                readers[second].key_may_match(0, b"apple")
        else:
            assert readers[second].key_may_match(0, b"apple")
            readers[second]._policy.close()
        del original, duplicate, readers, policy
        gc.collect()


def _error_copies(how: str) -> None:
    error = LibraryNotFoundError("not found: /nowhere/libleveldb_bloom.so")
    duplicate = COPIES[how](error)
    assert type(duplicate) is LibraryNotFoundError and duplicate.args == error.args


EXERCISES = {
    BloomFilterPolicy: _policy_copies,
    FilterBlockBuilder: _builder_copies,
    FilterBlockReader: _reader_copies,
    LibraryNotFoundError: _error_copies,
}


def _instances() -> dict[type, object]:
    policy = BloomFilterPolicy(10)
    return {
        BloomFilterPolicy: policy,
        FilterBlockBuilder: FilterBlockBuilder(policy),
        FilterBlockReader: FilterBlockReader(policy, _block(policy)),
        LibraryNotFoundError: LibraryNotFoundError("not found"),
    }


def exercise_every_class() -> None:
    """Every copy of every public class, used and closed in every order, then weak references."""
    for exercise in EXERCISES.values():
        for how in COPIES:
            exercise(how)
    instances = _instances()
    refs = {cls: weakref.ref(obj) for cls, obj in instances.items()}
    assert all(ref() is instances[cls] for cls, ref in refs.items())
    del instances
    gc.collect()
    assert all(ref() is None for ref in refs.values())


def test_every_public_class_is_covered():
    public = {getattr(leveldb_bloom, name) for name in leveldb_bloom.__all__}
    assert {obj for obj in public if isinstance(obj, type)} == set(EXERCISES)


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("cls", EXERCISES, ids=lambda cls: cls.__name__)
def test_copies_are_independent_or_refused(cls, how):
    EXERCISES[cls](how)


def test_weak_references_see_every_object_go():
    exercise_every_class()


def test_copies_crash_no_interpreter():
    """The same in a child interpreter: a use of freed memory or a double free would kill it."""
    env = dict(os.environ)
    env[_native.ENV_VAR] = _native.library().path
    package_parent = str(Path(leveldb_bloom.__file__).resolve().parents[1])
    tests = str(Path(__file__).resolve().parent)
    path = [tests, package_parent, env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
    code = "import test_copy; test_copy.exercise_every_class(); print('done')"
    result = subprocess.run(
        [sys.executable, "-B", "-c", code],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0 and result.stdout.strip() == "done", result


def _filter_in_pool(policy: BloomFilterPolicy) -> tuple[int, bytes]:
    return policy.bits_per_key, policy.create_filter(KEYS)


def test_a_policy_goes_to_a_multiprocessing_pool():
    with BloomFilterPolicy(10) as policy:
        expected = policy.create_filter(KEYS)
        with multiprocessing.get_context("spawn").Pool(1) as pool:
            assert pool.map(_filter_in_pool, [policy]) == [(10, expected)]
