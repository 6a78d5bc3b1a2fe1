// splitmix64, the random numbers of the tools that write test data (tools/*.cc): tiny, well
// known, and identical on every platform, unlike the std:: distributions whose output is
// implementation defined, so that a seed gives the same data everywhere.
#ifndef LEVELDB_BLOOM_TOOLS_SPLITMIX64_H
#define LEVELDB_BLOOM_TOOLS_SPLITMIX64_H

#include <cstdint>
#include <string>

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform-ish in [lo, hi]. Modulo bias does not matter for test data.
  uint64_t Uniform(uint64_t lo, uint64_t hi) {
    return lo + Next() % (hi - lo + 1);
  }

  char Byte(int lo = 0x00, int hi = 0xff) {
    return static_cast<char>(Uniform(lo, hi));
  }

  // min_len..max_len bytes, each any value.
  std::string Bytes(size_t min_len, size_t max_len) {
    std::string s(Uniform(min_len, max_len), '\0');
    for (char& c : s) c = static_cast<char>(Next());
    return s;
  }

 private:
  uint64_t state_;
};

#endif
