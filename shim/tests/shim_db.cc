// A leveldb database with bloom filters, written or read by a real leveldb, to run once stock and
// once with the shim (linked statically, or preloaded) and compare the table files.
//
//   shim_db write DIR cxx|c   creates DIR: 120,000 keys of 4 to 64 bytes (any byte value), with
//                             NewBloomFilterPolicy(10) through leveldb's C++ API or
//                             leveldb_filterpolicy_create_bloom(10) through its C API, then
//                             compacts everything and closes.
//   shim_db read DIR          opens DIR with NewBloomFilterPolicy(10): every key written must be
//                             found with its value, and 120,000 absent keys must not be.
//   shim_db rtti              typeid and dynamic_cast on a NewBloomFilterPolicy(10), which need
//                             the policy's type information (a shim built with RTTI).
//   shim_db name              prints the Name() of a NewBloomFilterPolicy(10).
//   shim_db negative          CreateFilter of NewBloomFilterPolicy(-10) over 3 keys, which no
//                             policy can build: leveldb's and the shim's both abort.
//
// Prints "N passed, N failed" last.

#include <leveldb/c.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <typeinfo>

namespace {

constexpr int kNumKeys = 120000;
constexpr int kBitsPerKey = 10;

unsigned long passed = 0, failed = 0;

void Check(bool ok, const char* what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    std::fprintf(stderr, "check failed: %s\n", what);
  }
}

std::uint64_t SplitMix64(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Key `i`: 0 to 60 random bytes, then i in 4 big-endian bytes, so keys are distinct. Absent keys
// use indexes past kNumKeys, so none equals a key written.
std::string Key(int i) {
  std::uint64_t state = static_cast<std::uint64_t>(i) * 7919 + 1;
  std::string key(SplitMix64(&state) % 61, '\0');
  for (char& c : key) c = static_cast<char>(SplitMix64(&state));
  for (int shift = 24; shift >= 0; shift -= 8) key.push_back(static_cast<char>(i >> shift));
  return key;
}

std::string Value(int i) { return "value-" + std::to_string(i); }

void WriteCxx(const std::string& dir) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  leveldb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.filter_policy = policy.get();
  // One memtable holds every key, so the tables depend only on the keys, never on when a
  // background compaction happened to run.
  options.write_buffer_size = 64 << 20;
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  Check(status.ok(), "open for writing");
  if (!status.ok()) return;
  std::unique_ptr<leveldb::DB> db(raw);
  bool all_put = true;
  for (int i = 0; i < kNumKeys; i++) all_put &= db->Put(leveldb::WriteOptions(), Key(i), Value(i)).ok();
  Check(all_put, "every put");
  db->CompactRange(nullptr, nullptr);
}

void WriteC(const std::string& dir) {
  leveldb_filterpolicy_t* policy = leveldb_filterpolicy_create_bloom(kBitsPerKey);
  leveldb_options_t* options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_options_set_error_if_exists(options, 1);
  leveldb_options_set_filter_policy(options, policy);
  leveldb_options_set_write_buffer_size(options, 64 << 20);
  char* error = nullptr;
  leveldb_t* db = leveldb_open(options, dir.c_str(), &error);
  Check(db != nullptr && error == nullptr, "open for writing (C API)");
  if (db != nullptr) {
    leveldb_writeoptions_t* write = leveldb_writeoptions_create();
    bool all_put = true;
    for (int i = 0; i < kNumKeys && all_put; i++) {
      std::string key = Key(i), value = Value(i);
      leveldb_put(db, write, key.data(), key.size(), value.data(), value.size(), &error);
      all_put = error == nullptr;
    }
    Check(all_put, "every put (C API)");
    leveldb_compact_range(db, nullptr, 0, nullptr, 0);
    leveldb_writeoptions_destroy(write);
    leveldb_close(db);
  }
  leveldb_free(error);
  leveldb_options_destroy(options);
  leveldb_filterpolicy_destroy(policy);
}

void Read(const std::string& dir) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  leveldb::Options options;
  options.filter_policy = policy.get();
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  Check(status.ok(), "open for reading");
  if (!status.ok()) return;
  std::unique_ptr<leveldb::DB> db(raw);
  int found = 0, absent_found = 0;
  std::string value;
  for (int i = 0; i < kNumKeys; i++) {
    found += db->Get(leveldb::ReadOptions(), Key(i), &value).ok() && value == Value(i);
  }
  for (int i = kNumKeys; i < 2 * kNumKeys; i++) {
    absent_found += !db->Get(leveldb::ReadOptions(), Key(i), &value).IsNotFound();
  }
  std::printf("present keys found: %d of %d; absent keys found: %d of %d\n", found, kNumKeys,
              absent_found, kNumKeys);
  Check(found == kNumKeys, "every present key found");
  Check(absent_found == 0, "no absent key found");
}

// Any polymorphic class a policy is not.
struct Unrelated {
  virtual ~Unrelated() = default;
};

void Rtti() {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  const leveldb::FilterPolicy& base = *policy;
  std::printf("policy type: %s\n", typeid(base).name());
  Check(typeid(base) != typeid(leveldb::FilterPolicy), "typeid names the policy's own class");
  Check(dynamic_cast<const Unrelated*>(policy.get()) == nullptr, "no cross-cast to Unrelated");
  Check(dynamic_cast<const void*>(policy.get()) == policy.get(), "dynamic_cast to void*");
}

void PrintName() {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  std::printf("policy name: %s\n", policy->Name());
  Check(policy->Name() != nullptr, "the policy has a name");
}

void Negative() {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(-10));
  const leveldb::Slice keys[] = {"a", "b", "c"};
  std::string filter;
  policy->CreateFilter(keys, 3, &filter);
  Check(false, "CreateFilter returned for a negative bits_per_key");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 4 && std::strcmp(argv[3], "cxx") == 0) {
    WriteCxx(argv[2]);
  } else if (mode == "write" && argc == 4 && std::strcmp(argv[3], "c") == 0) {
    WriteC(argv[2]);
  } else if (mode == "read" && argc == 3) {
    Read(argv[2]);
  } else if (mode == "rtti" && argc == 2) {
    Rtti();
  } else if (mode == "name" && argc == 2) {
    PrintName();
  } else if (mode == "negative" && argc == 2) {
    Negative();
  } else {
    std::fprintf(stderr, "usage: %s write DIR cxx|c | read DIR | rtti | name | negative\n", argv[0]);
    return 2;
  }
  std::printf("%lu passed, %lu failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}
