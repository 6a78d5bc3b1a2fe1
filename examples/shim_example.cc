// A leveldb program that knows nothing of leveldb-bloom: a database with leveldb's bloom filter
// policy, 10,000 keys written, compacted into a table with its filters, and read back. With the
// C++ shim preloaded or linked ahead of leveldb (the README's "Inside leveldb"), the policy that
// leveldb::NewBloomFilterPolicy returns, and so every filter in the table, is this library's,
// and the tables are stock leveldb's, byte for byte. It says which file the NewBloomFilterPolicy
// it calls is in: the shim's library when preloaded, leveldb's when not, the program itself when
// linked statically (`nm -C` then shows leveldb_bloom_fill_filter in it, with the shim). It
// writes its database in ./shim_example.db and removes it.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "leveldb/db.h"
#include "leveldb/filter_policy.h"

static void check(const leveldb::Status& status) {
  if (!status.ok()) {
    std::fprintf(stderr, "leveldb: %s\n", status.ToString().c_str());
    std::exit(1);
  }
}

int main() {
  Dl_info where = {};
  dladdr(reinterpret_cast<void*>(&leveldb::NewBloomFilterPolicy), &where);
  std::printf("NewBloomFilterPolicy from %s\n", where.dli_fname ? where.dli_fname : "?");

  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  leveldb::Options options;
  options.create_if_missing = true;
  options.filter_policy = policy.get();
  const std::string name = "shim_example.db";
  leveldb::DB* db = nullptr;
  check(leveldb::DB::Open(options, name, &db));
  for (int i = 0; i < 10000; i++) {
    check(db->Put(leveldb::WriteOptions(), "user:" + std::to_string(i), std::to_string(i)));
  }
  db->CompactRange(nullptr, nullptr);  // into a table, with its filters
  int found = 0;
  for (int i = 0; i < 10000; i++) {
    std::string value;
    found += db->Get(leveldb::ReadOptions(), "user:" + std::to_string(i), &value).ok() &&
             value == std::to_string(i);
  }
  delete db;
  check(leveldb::DestroyDB(name, options));
  std::printf("%s: %d of 10000 keys read back\n", policy->Name(), found);
  return found == 10000 ? EXIT_SUCCESS : EXIT_FAILURE;
}
