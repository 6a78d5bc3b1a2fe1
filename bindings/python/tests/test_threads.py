"""One policy used from several threads at once gives the single-threaded answers; closing it
while threads use it stops them cleanly (that it is not freed under a running call is shown
deterministically by test_api.py::test_close_waits_for_running_calls)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from leveldb_bloom import BloomFilterPolicy

THREADS = 8
KEY_SETS = [[b"thread %d key %d" % (t, i) for i in range(2000)] for t in range(THREADS)]
PROBES = [b"probe %d" % i for i in range(2000)]


def test_shared_policy_from_many_threads(many_path):
    with BloomFilterPolicy(10) as policy:
        expected = []
        for keys in KEY_SETS:
            bloom = policy.create_filter(keys)
            expected.append((bloom, policy.key_may_match_many(PROBES, bloom)))
        start = threading.Barrier(THREADS)

        def work(t: int) -> None:
            keys, (bloom, answers) = KEY_SETS[t], expected[t]
            start.wait()  # all threads in C at once, not one after another
            for _ in range(20):
                assert policy.create_filter(keys) == bloom
                assert policy.key_may_match_many(PROBES, bloom) == answers
                assert all(policy.key_may_match(key, bloom) for key in keys[:200])
                assert policy.name == "leveldb.BuiltinBloomFilter2"

        with ThreadPoolExecutor(THREADS) as pool:
            for result in [pool.submit(work, t) for t in range(THREADS)]:
                result.result()


def test_a_policy_per_thread():
    def work(t: int) -> bytes:
        with BloomFilterPolicy(t) as policy:
            return policy.create_filter(KEY_SETS[t])

    with ThreadPoolExecutor(THREADS) as pool:
        built = list(pool.map(work, range(THREADS)))
    for t in range(THREADS):
        with BloomFilterPolicy(t) as policy:
            assert built[t] == policy.create_filter(KEY_SETS[t])


def test_close_while_other_threads_use_the_policy():
    policy = BloomFilterPolicy(10)
    bloom = policy.create_filter(KEY_SETS[0])
    answers = policy.key_may_match_many(PROBES, bloom)
    running = threading.Barrier(THREADS + 1)

    def work() -> None:
        running.wait()
        while True:
            try:
                assert policy.key_may_match_many(PROBES, bloom) == answers
                assert policy.create_filter(KEY_SETS[0]) == bloom
            except ValueError as error:
                assert "closed" in str(error)
                return

    with ThreadPoolExecutor(THREADS) as pool:
        results = [pool.submit(work) for _ in range(THREADS)]
        running.wait()
        policy.close()  # while they run: each thread stops with ValueError, right until then
        for result in results:
            result.result(timeout=60)  # re-raises a worker's failed assertion
    assert policy._handle is None  # freed once the last call ended


def test_policies_created_and_closed_concurrently():
    def work(t: int) -> None:
        for _ in range(2000):
            with BloomFilterPolicy(t) as policy:
                assert policy.key_may_match(b"k", policy.create_filter([b"k"]))

    with ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(work, range(THREADS)))
