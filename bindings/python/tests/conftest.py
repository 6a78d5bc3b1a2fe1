"""Shared by the tests: the repository's paths, a reader for the reference vectors, and a fixture
running a test through each way key_may_match_many can answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

import leveldb_bloom
from leveldb_bloom import _native

REPO_ROOT = Path(__file__).resolve().parents[3]
VECTORS = REPO_ROOT / "vectors"
HEADER = REPO_ROOT / "include" / "leveldb_bloom.h"


class Record(NamedTuple):
    """One line of vectors/*.txt (format: vectors/README.md) with the key and probe sets in force."""

    bits_per_key: int | None  # None for a `match` record (arbitrary filter bytes)
    keys: list[bytes]
    filter: bytes
    probes: list[bytes]
    answers: list[bool]


def _unhex(field: str) -> bytes:
    return b"" if field == "-" else bytes.fromhex(field)


def read_vectors(name: str) -> Iterator[Record]:
    lines = iter((VECTORS / name).read_text(encoding="ascii").split("\n"))
    assert next(lines) == "leveldb-bloom vectors v1"
    keys: list[bytes] = []
    probes: list[bytes] = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        kind, *fields = line.split(" ")
        if kind == "keys":
            keys = [_unhex(next(lines)) for _ in range(int(fields[0]))]
        elif kind == "probes":
            probes = [_unhex(next(lines)) for _ in range(int(fields[0]))]
        elif kind in ("filter", "match"):
            bits_per_key = int(fields.pop(0)) if kind == "filter" else None
            filter_hex, answers = fields
            answers = [] if answers == "-" else [answer == "1" for answer in answers]
            assert len(answers) == len(probes), line[:80]
            yield Record(bits_per_key, keys, _unhex(filter_hex), probes, answers)
        else:
            raise ValueError(f"{name}: unknown record {line[:80]!r}")


class BlockRecord(NamedTuple):
    """One `build` or `read` record of vectors/filterblock.txt, with the calls and queries in
    force."""

    policy: str  # "bloom:BPK" or "custom"
    calls: list[tuple[str, int | bytes]] | None  # ("start", offset) / ("key", key); None: `read`
    block: bytes
    queries: list[tuple[int, bytes]]
    answers: list[bool]


def _unhex_runs(field: str) -> bytes:
    """A filterblock.txt hex field: parts joined by '.', each hex or COUNTxHEX (repeated)."""
    if field == "-":
        return b""
    parts = []
    for part in field.split("."):
        count, _, digits = part.rpartition("x")
        parts.append(bytes.fromhex(digits) * (int(count) if count else 1))
    return b"".join(parts)


def read_filterblock_vectors() -> Iterator[BlockRecord]:
    lines = iter((VECTORS / "filterblock.txt").read_text(encoding="ascii").split("\n"))
    assert next(lines) == "leveldb-bloom filter block vectors v1"
    calls: list[tuple[str, int | bytes]] = []
    queries: list[tuple[int, bytes]] = []
    for line in lines:
        if not line or line.startswith("#"):
            continue
        kind, *fields = line.split(" ")
        if kind == "calls":
            calls = []
            for _ in range(int(fields[0])):
                call, argument = next(lines).split(" ")
                calls.append((call, int(argument) if call == "start" else _unhex_runs(argument)))
        elif kind == "queries":
            queries = []
            for _ in range(int(fields[0])):
                offset, key = next(lines).split(" ")
                queries.append((int(offset), _unhex_runs(key)))
        elif kind in ("build", "read"):
            policy, block, answers = fields
            answers = [] if answers == "-" else [answer == "1" for answer in answers]
            assert len(answers) == len(queries), line[:80]
            yield BlockRecord(
                policy, calls if kind == "build" else None, _unhex_runs(block), queries, answers
            )
        else:
            raise ValueError(f"filterblock.txt: unknown record {line[:80]!r}")


@pytest.fixture
def lib() -> _native.Library:
    return _native.library()


@pytest.fixture(params=["loop", "batch"])
def many_path(request, lib, monkeypatch) -> str:
    """Runs the test with key_may_match_many answering key by key, then through the C batch call.
    The batch run is skipped only while the C header does not declare the batch call at all: once
    it does, a library without it is a failure."""
    if request.param == "loop":
        monkeypatch.setattr(lib, "key_may_match_batch", None)
    elif lib.key_may_match_batch is None:
        if _native.BATCH_SYMBOL in HEADER.read_text(encoding="utf-8"):
            pytest.fail(f"{HEADER.name} declares {_native.BATCH_SYMBOL} but {lib.path} lacks it")
        pytest.skip(f"{_native.BATCH_SYMBOL} is not in this version of the C ABI yet")
    return request.param


def pytest_terminal_summary(terminalreporter) -> None:
    """The path the library ran: tests/python.rs forces each in turn with LEVELDB_BLOOM_ISA and
    reads this line to check that the path was obeyed."""
    terminalreporter.write_line(f"path: {leveldb_bloom.isa()}")
