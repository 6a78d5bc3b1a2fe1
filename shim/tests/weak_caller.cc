// A program with no leveldb that calls leveldb::NewBloomFilterPolicy through a weak reference,
// as a program checking for an optional leveldb would: it says whether it found one. With the
// shim preloaded, the shim is the only definition, and no leveldb can say which std::string the
// policy must write to.

#include <cstdio>

namespace leveldb {
class FilterPolicy;
__attribute__((weak)) const FilterPolicy* NewBloomFilterPolicy(int bits_per_key);
}  // namespace leveldb

int main() {
  if (leveldb::NewBloomFilterPolicy == nullptr) {
    std::puts("no leveldb");
    return 0;
  }
  std::printf("a policy: %p\n", static_cast<const void*>(leveldb::NewBloomFilterPolicy(10)));
  return 0;
}
