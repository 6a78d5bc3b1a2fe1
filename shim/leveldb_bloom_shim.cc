// leveldb::NewBloomFilterPolicy(int), backed by leveldb-bloom: the drop-in for leveldb's
// util/bloom.cc. It compiles against the leveldb headers of the build it joins and forwards each
// FilterPolicy call to the Rust core's leveldb_bloom_* entry points, which write leveldb 1.23's
// bytes.
//
// Like leveldb it throws nothing (it builds with -fno-exceptions), and it takes leveldb's RTTI
// setting: with RTTI on, its policy's type information refers to leveldb's for FilterPolicy.
// The preload library compiles it once per C++ string ABI, each copy's factory under a C name of
// its own (LEVELDB_BLOOM_SHIM_POLICY_FACTORY), and chooses per caller (leveldb_bloom_preload.cc).

#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "leveldb_bloom.h"

// CreateFilter hands leveldb's Slice array to the core as an array of leveldb_bloom_slice_t.
static_assert(sizeof(leveldb::Slice) == sizeof(leveldb_bloom_slice_t), "Slice is {data, size}");
static_assert(alignof(leveldb::Slice) == alignof(leveldb_bloom_slice_t), "Slice alignment");
static_assert(std::is_standard_layout<leveldb::Slice>::value, "Slice has a C layout");
static_assert(std::is_trivially_copyable<leveldb::Slice>::value, "Slice is plain data");

namespace {

// The member order: Slice's members are private, so it is checked on a real Slice, once.
bool SliceIsDataThenSize() {
  static const char text[] = "x";
  const leveldb::Slice slice(text, 1);
  leveldb_bloom_slice_t view;
  std::memcpy(&view, &slice, sizeof view);
  return view.data == text && view.size == 1;
}

// Stops the process with a message: going on would write a table whose filter hides its keys.
[[noreturn]] void Fail(const char* why) {
  std::fprintf(stderr, "leveldb-bloom: %s\n", why);
  std::abort();
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
      // A negative bits_per_key: leveldb's own policy computes a wrapped size and dies of it
      // (std::bad_alloc growing dst, or a division by zero); this one dies too, saying why.
      Fail("no bloom filter for a negative bits_per_key or key count");
    }
    const std::size_t start = dst->size();
    dst->resize(start + length);
    const auto* slices = reinterpret_cast<const leveldb_bloom_slice_t*>(keys);
    if (leveldb_bloom_fill_filter(bits_per_key_, slices, num_keys, &(*dst)[start], length) != 1) {
      Fail("leveldb_bloom_fill_filter refused a valid filter");  // every argument is checked above
    }
  }

  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
#ifdef LEVELDB_BLOOM_SHIM_TEST_NO_MATCH
    // Only in the tests' broken build, whose failing runs prove this code is what leveldb calls.
    return false;
#endif
    return leveldb_bloom_key_may_match(key.data(), key.size(), filter.data(), filter.size()) != 0;
  }

 private:
  const int bits_per_key_;
};

const leveldb::FilterPolicy* NewPolicy(int bits_per_key) {
  static const bool layout_ok = SliceIsDataThenSize();
  if (!layout_ok) Fail("leveldb::Slice is not {data, size}; rebuild the shim");
  return new BloomFilterPolicy(bits_per_key);
}

}  // namespace

#ifdef LEVELDB_BLOOM_SHIM_POLICY_FACTORY
extern "C" const leveldb::FilterPolicy* LEVELDB_BLOOM_SHIM_POLICY_FACTORY(int bits_per_key) {
  return NewPolicy(bits_per_key);
}
#else
namespace leveldb {

// Exported even from a build with hidden visibility, such as leveldb's shared library.
__attribute__((visibility("default"))) const FilterPolicy* NewBloomFilterPolicy(int bits_per_key) {
  return NewPolicy(bits_per_key);
}

}  // namespace leveldb
#endif
