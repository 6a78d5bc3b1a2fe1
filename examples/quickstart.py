"""leveldb's bloom filter from Python: a filter for 10,000 keys, every key found, the
false-positive rate, and a table's filter block. Run it with the package installed (the
README's "Python"): ``python examples/quickstart.py``."""

from leveldb_bloom import BloomFilterPolicy, FilterBlockBuilder, FilterBlockReader, isa

keys = [f"user:{i:08}".encode() for i in range(10_000)]

# 10 bits per key is leveldb's usual setting (NewBloomFilterPolicy(10)): about 1% false positives.
with BloomFilterPolicy(10) as policy:
    bloom = policy.create_filter(keys)
    print(f"{policy.name}: {len(keys)} keys -> {len(bloom)} byte filter, path {isa()}")

    # A bloom filter never misses a key it was built from: all of them asked in one call.
    members = sum(policy.key_may_match_many(keys, bloom))
    print(f"members found:   {members} of {len(keys)}")
    assert members == len(keys)

    # ...and rarely claims one it was not built from.
    absent = [f"absent:{i:08}".encode() for i in range(100_000)]
    false_positives = sum(policy.key_may_match_many(absent, bloom))
    print(f"false positives: {false_positives} of {len(absent)}")

    # A table's filter block (leveldb's table/filter_block.cc): one filter per 2 KB of data-block
    # offsets, here for two data blocks, at offsets 0 and 4096.
    builder = FilterBlockBuilder(policy)
    builder.start_block(0)
    builder.add_key(b"apple")
    builder.start_block(4096)
    builder.add_key(b"banana")
    block = builder.finish()
    reader = FilterBlockReader(policy, block)
    assert reader.key_may_match(0, b"apple") and reader.key_may_match(4096, b"banana")
    print(f"filter block: {len(block)} bytes for 2 data blocks")
