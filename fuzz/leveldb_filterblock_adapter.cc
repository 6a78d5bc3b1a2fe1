// leveldb's own filter block classes (table/filter_block.cc, internal: their header is in
// leveldb's source tree, their code in Debian's static libleveldb.a) behind C functions the
// filter_block fuzz target calls, so every fuzzed call sequence and block is also run by leveldb.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "table/filter_block.h"

namespace {

struct Builder {
  explicit Builder(int bits_per_key) : policy(leveldb::NewBloomFilterPolicy(bits_per_key)), builder(policy.get()) {}
  std::unique_ptr<const leveldb::FilterPolicy> policy;
  leveldb::FilterBlockBuilder builder;
};

}  // namespace

extern "C" {

// A FilterBlockBuilder over NewBloomFilterPolicy(bits_per_key).
void* leveldb_adapter_filterblock_builder(int bits_per_key) { return new Builder(bits_per_key); }

// StartBlock: the caller never passes an offset leveldb asserts on.
void leveldb_adapter_filterblock_start(void* builder, uint64_t block_offset) {
  static_cast<Builder*>(builder)->builder.StartBlock(block_offset);
}

void leveldb_adapter_filterblock_add(void* builder, const char* key, size_t length) {
  static_cast<Builder*>(builder)->builder.AddKey(leveldb::Slice(key, length));
}

// Finish, copied into a malloc'ed buffer the caller frees; the builder is deleted.
char* leveldb_adapter_filterblock_finish(void* builder, size_t* length) {
  auto* b = static_cast<Builder*>(builder);
  leveldb::Slice block = b->builder.Finish();
  char* out = static_cast<char*>(std::malloc(block.size()));
  if (out != nullptr) std::memcpy(out, block.data(), block.size());
  *length = block.size();
  delete b;
  return out;
}

// FilterBlockReader(NewBloomFilterPolicy(10), contents).KeyMayMatch(block_offset, key).
int leveldb_adapter_filterblock_key_may_match(const char* contents, size_t contents_length,
                                              uint64_t block_offset, const char* key, size_t length) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  leveldb::FilterBlockReader reader(policy.get(), leveldb::Slice(contents, contents_length));
  return reader.KeyMayMatch(block_offset, leveldb::Slice(key, length)) ? 1 : 0;
}

}  // extern "C"
