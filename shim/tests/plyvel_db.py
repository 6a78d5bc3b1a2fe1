"""A leveldb database with bloom filters, written or read through plyvel (Debian's python3-plyvel,
which loads libleveldb with dlopen, privately), to run once stock and once with the shim preloaded
and compare the table files. Run it with Debian's /usr/bin/python3, which plyvel is installed for.

  plyvel_db.py write DIR   creates DIR: 200,000 distinct keys of 4 to 64 arbitrary bytes with
                           bloom_filter_bits=10, then compacts every key and closes.
  plyvel_db.py read DIR    opens DIR with bloom_filter_bits=10: every key written must be found
                           with its value, and 100,000 absent keys must not be.
"""

import random
import sys

import plyvel

NUM_KEYS = 200_000
NUM_ABSENT = 100_000
# One memtable holds every key, so the tables depend only on the keys, never on when a
# background compaction happened to run.
WRITE_BUFFER_SIZE = 64 << 20
# plyvel's bare compact_range() passes empty slices, which compact nothing; this range holds
# every key of 64 bytes or fewer.
COMPACT_STOP = b"\xff" * 65


def random_keys(seed, count, exclude=frozenset()):
    """`count` distinct keys of 4 to 64 bytes, none in `exclude`, the same for every run."""
    rng = random.Random(seed)
    keys = []
    seen = set(exclude)
    while len(keys) < count:
        key = rng.randbytes(rng.randint(4, 64))
        if key not in seen:
            seen.add(key)
            keys.append(key)
    return keys


def present_keys():
    return random_keys(20261125, NUM_KEYS)


def value(i):
    return b"value-%d" % i


def write(path):
    db = plyvel.DB(path, create_if_missing=True, error_if_exists=True, bloom_filter_bits=10,
                   write_buffer_size=WRITE_BUFFER_SIZE)
    with db.write_batch() as batch:
        for i, key in enumerate(present_keys()):
            batch.put(key, value(i))
    db.compact_range(start=b"", stop=COMPACT_STOP)
    db.close()
    return True


def read(path):
    keys = present_keys()
    absent = random_keys(19700101, NUM_ABSENT, exclude=frozenset(keys))
    db = plyvel.DB(path, bloom_filter_bits=10)
    found = sum(db.get(key) == value(i) for i, key in enumerate(keys))
    absent_found = sum(db.get(key) is not None for key in absent)
    db.close()
    print(f"present keys found: {found} of {NUM_KEYS}; "
          f"absent keys found: {absent_found} of {NUM_ABSENT}")
    return found == NUM_KEYS and absent_found == 0


def main(argv):
    if len(argv) != 3 or argv[1] not in ("write", "read"):
        print(f"usage: {argv[0]} write DIR | read DIR", file=sys.stderr)
        return 2
    ok = write(argv[2]) if argv[1] == "write" else read(argv[2])
    print("passed" if ok else "failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
