// Live differential test against the system leveldb 1.23: on random inputs, every filter built
// through our C ABI equals the one leveldb's NewBloomFilterPolicy appends, and every
// KeyMayMatch answer, on built, corrupt and random filter bytes, equals leveldb's.
// Usage: differential_leveldb [CASES [SEED]]; the seed is printed so a failure can be replayed.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "leveldb_bloom.h"

namespace {

unsigned long passed = 0, failed = 0;

void Check(bool ok, const char* what, uint64_t seed, int round) {
  if (ok) {
    passed++;
  } else if (++failed <= 20) {
    std::fprintf(stderr, "difference: %s (seed %llu, case %d)\n", what, (unsigned long long)seed, round);
  }
}

// splitmix64: small and the same everywhere, so a seed replays a run exactly.
struct Rng {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  std::string Bytes(size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(Next());
    return s;
  }
};

// Key lengths skewed to the short ones real tables have, with every tail length.
std::string RandomKey(Rng& rng) {
  size_t len = rng.Below(4) == 0 ? rng.Below(300) : rng.Below(40);
  return rng.Bytes(len);
}

int RandomBitsPerKey(Rng& rng) {
  switch (rng.Below(8)) {
    case 0: return static_cast<int>(rng.Below(2000));
    case 1: return static_cast<int>(rng.Below(3));
    default: return static_cast<int>(rng.Below(51));
  }
}

bool SameAnswers(const leveldb::FilterPolicy& theirs, const leveldb_filterpolicy_t* ours,
                 const std::vector<std::string>& probes, const std::string& filter) {
  for (const std::string& probe : probes) {
    bool want = theirs.KeyMayMatch(probe, filter);
    uint8_t got = leveldb_filterpolicy_key_may_match(ours, probe.data(), probe.size(), filter.data(), filter.size());
    if (got != (want ? 1 : 0)) return false;
  }
  return true;
}

// Builds with both; the leveldb filter is appended to a random prefix, as tables do.
void CompareOne(Rng& rng, uint64_t seed, int round) {
  int bits_per_key = RandomBitsPerKey(rng);
  size_t n = rng.Below(10) == 0 ? rng.Below(20000) : rng.Below(300);
  std::vector<std::string> keys;
  for (size_t i = 0; i < n; i++) {
    // Some duplicates, as leveldb allows.
    keys.push_back(i > 0 && rng.Below(20) == 0 ? keys[rng.Below(i)] : RandomKey(rng));
  }
  std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (const std::string& k : keys) ptrs.push_back(k.data()), lens.push_back(k.size());

  std::unique_ptr<const leveldb::FilterPolicy> theirs(leveldb::NewBloomFilterPolicy(bits_per_key));
  leveldb_filterpolicy_t* ours = leveldb_filterpolicy_create_bloom(bits_per_key);
  std::string prefix = rng.Bytes(rng.Below(50));
  std::string expected = prefix;
  theirs->CreateFilter(slices.data(), static_cast<int>(n), &expected);
  expected.erase(0, prefix.size());

  size_t len = 0;
  char* built = leveldb_filterpolicy_create_filter(ours, ptrs.data(), lens.data(), static_cast<int>(n), &len);
  Check(built != nullptr && std::string(built, len) == expected, "CreateFilter bytes", seed, round);
  leveldb_free(built);

  std::vector<std::string> probes;
  for (size_t i = 0; i < 200; i++) probes.push_back(n > 0 && i % 2 == 0 ? keys[rng.Below(n)] : RandomKey(rng));
  Check(SameAnswers(*theirs, ours, probes, expected), "KeyMayMatch on built filter", seed, round);

  // Corrupt it: flip bits, change k, truncate or extend, or replace it with garbage.
  std::string corrupt = expected;
  switch (rng.Below(4)) {
    case 0: corrupt[rng.Below(corrupt.size())] ^= static_cast<char>(1 << rng.Below(8)); break;
    case 1: corrupt.back() = static_cast<char>(rng.Next()); break;
    case 2: corrupt.resize(rng.Below(corrupt.size() + 3)); break;
    default: corrupt = rng.Bytes(rng.Below(64)); break;
  }
  Check(SameAnswers(*theirs, ours, probes, corrupt), "KeyMayMatch on corrupt filter", seed, round);
  leveldb_filterpolicy_destroy(ours);
}

// Filters of 2^32 bits or more, where the bit position is the hash itself: 2 keys at INT_MAX
// bits per key make a 2^32-bit (512 MiB) filter in leveldb's 64-bit arithmetic.
void CompareHuge(Rng& rng, uint64_t seed) {
  std::vector<std::string> keys = {RandomKey(rng), RandomKey(rng)};
  std::vector<leveldb::Slice> slices(keys.begin(), keys.end());
  const char* ptrs[] = {keys[0].data(), keys[1].data()};
  size_t lens[] = {keys[0].size(), keys[1].size()};
  std::unique_ptr<const leveldb::FilterPolicy> theirs(leveldb::NewBloomFilterPolicy(INT_MAX));
  leveldb_filterpolicy_t* ours = leveldb_filterpolicy_create_bloom(INT_MAX);
  std::string expected;
  theirs->CreateFilter(slices.data(), 2, &expected);
  size_t len = 0;
  char* built = leveldb_filterpolicy_create_filter(ours, ptrs, lens, 2, &len);
  Check(expected.size() == (1ULL << 29) + 1, "2^32-bit filter size", seed, -1);
  Check(built != nullptr && len == expected.size() && std::memcmp(built, expected.data(), len) == 0,
        "CreateFilter bytes, 2^32 bits", seed, -1);
  leveldb_free(built);
  std::vector<std::string> probes = keys;
  for (int i = 0; i < 1000; i++) probes.push_back(RandomKey(rng));
  Check(SameAnswers(*theirs, ours, probes, expected), "KeyMayMatch, 2^32 bits", seed, -1);
  leveldb_filterpolicy_destroy(ours);
}

}  // namespace

int main(int argc, char** argv) {
  int cases = argc > 1 ? std::atoi(argv[1]) : 2000;
  uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20261122;
  std::printf("differential_leveldb: %d cases, seed %llu\n", cases, (unsigned long long)seed);
  Rng rng{seed};
  for (int round = 0; round < cases; round++) CompareOne(rng, seed, round);
  CompareHuge(rng, seed);
  std::printf("path: %s\n", leveldb_bloom_isa());
  std::printf("%lu passed, %lu failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
