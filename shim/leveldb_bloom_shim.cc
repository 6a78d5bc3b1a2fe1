// leveldb::NewBloomFilterPolicy(int), backed by leveldb-bloom: the drop-in for leveldb's
// util/bloom.cc. It compiles against the user's leveldb headers and forwards each FilterPolicy
// call to the Rust core's leveldb_bloom_* entry points, which write leveldb 1.23's bytes.
//
// Built without RTTI, as leveldb is by default: deriving from FilterPolicy with RTTI on would need
// leveldb's typeinfo for it, which such a build does not have.

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "leveldb_bloom.h"
#include "leveldb_bloom_shim.h"

// CreateFilter hands leveldb's Slice array to the core as an array of leveldb_bloom_slice_t.
static_assert(sizeof(leveldb::Slice) == sizeof(leveldb_bloom_slice_t), "Slice is {data, size}");
static_assert(alignof(leveldb::Slice) == alignof(leveldb_bloom_slice_t), "Slice alignment");
static_assert(std::is_standard_layout<leveldb::Slice>::value, "Slice has a C layout");
static_assert(std::is_trivially_copyable<leveldb::Slice>::value, "Slice is plain data");

namespace {

std::atomic<std::uint64_t> filters_built{0};
std::atomic<std::uint64_t> keys_tested{0};

// The member order: Slice's members are private, so it is checked on a real Slice, once.
bool SliceIsDataThenSize() {
  static const char text[] = "x";
  const leveldb::Slice slice(text, 1);
  leveldb_bloom_slice_t view;
  std::memcpy(&view, &slice, sizeof view);
  return view.data == text && view.size == 1;
}

class BloomFilterPolicy final : public leveldb::FilterPolicy {
 public:
  explicit BloomFilterPolicy(int bits_per_key) : bits_per_key_(bits_per_key) {}

  const char* Name() const override { return leveldb_bloom_policy_name(); }

  // Appends the filter to dst: grows it once, and the core writes the new bytes in place.
  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    const std::size_t num_keys = static_cast<std::size_t>(n);
    const std::size_t length = leveldb_bloom_filter_length(bits_per_key_, num_keys);
    if (n < 0 || length == 0) {
      // A negative bits_per_key: leveldb's own policy computes a wrapped, huge size and fails
      // to grow dst; failing the same way beats writing a filter leveldb would not.
      throw std::length_error("leveldb-bloom: no bloom filter for a negative bits_per_key");
    }
    const std::size_t start = dst->size();
    dst->resize(start + length);
    const auto* slices = reinterpret_cast<const leveldb_bloom_slice_t*>(keys);
    if (leveldb_bloom_fill_filter(bits_per_key_, slices, num_keys, &(*dst)[start], length) != 1) {
      // Cannot happen: every argument was checked above. A table without its filter would
      // hide keys it holds, so stop rather than go on.
      std::fputs("leveldb-bloom: leveldb_bloom_fill_filter refused a valid filter\n", stderr);
      std::abort();
    }
    filters_built.fetch_add(1, std::memory_order_relaxed);
  }

  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    keys_tested.fetch_add(1, std::memory_order_relaxed);
    return leveldb_bloom_key_may_match(key.data(), key.size(), filter.data(), filter.size()) != 0;
  }

 private:
  const int bits_per_key_;
};

}  // namespace

namespace leveldb {

// Exported even from a build with hidden visibility, such as leveldb's shared library.
__attribute__((visibility("default"))) const FilterPolicy* NewBloomFilterPolicy(int bits_per_key) {
  static const bool layout_ok = SliceIsDataThenSize();
  if (!layout_ok) {
    std::fputs("leveldb-bloom: leveldb::Slice is not {data, size}; rebuild the shim\n", stderr);
    std::abort();
  }
  return new BloomFilterPolicy(bits_per_key);
}

}  // namespace leveldb

extern "C" {

__attribute__((visibility("default"))) std::uint64_t leveldb_bloom_shim_filters_built(void) {
  return filters_built.load(std::memory_order_relaxed);
}

__attribute__((visibility("default"))) std::uint64_t leveldb_bloom_shim_keys_tested(void) {
  return keys_tested.load(std::memory_order_relaxed);
}

}  // extern "C"
