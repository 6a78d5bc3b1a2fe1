// The system leveldb's own bloom filter, behind two C functions the fuzz targets call, so every
// fuzzed input is also answered by leveldb itself.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

extern "C" {

// leveldb's CreateFilter with NewBloomFilterPolicy(bits_per_key), copied into a malloc'ed buffer
// the caller frees; NULL only if that copy cannot be allocated.
char* leveldb_adapter_create_filter(int bits_per_key, const char* const* keys, const size_t* lengths,
                                    int num_keys, size_t* filter_length) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(bits_per_key));
  std::vector<leveldb::Slice> slices;
  for (int i = 0; i < num_keys; i++) slices.emplace_back(keys[i], lengths[i]);
  std::string filter;
  policy->CreateFilter(slices.data(), num_keys, &filter);
  char* out = static_cast<char*>(std::malloc(filter.size()));
  if (out == nullptr) return nullptr;
  std::memcpy(out, filter.data(), filter.size());
  *filter_length = filter.size();
  return out;
}

// leveldb's KeyMayMatch; it reads k from the filter, so any bits_per_key gives the same answer.
int leveldb_adapter_key_may_match(const char* key, size_t length, const char* filter, size_t filter_length) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  return policy->KeyMayMatch(leveldb::Slice(key, length), leveldb::Slice(filter, filter_length)) ? 1 : 0;
}

}  // extern "C"
