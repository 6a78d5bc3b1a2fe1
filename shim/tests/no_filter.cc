// A leveldb program that never makes a bloom filter policy, but uses what a library linked ahead
// of libleveldb.a could define for it: exception type information (as gtest does), sqrt and
// 128-bit division. Linked with the shim's archive ahead, it must come out as without it.

#include <leveldb/db.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  try {
    if (argc != 2) throw std::length_error("usage: no_filter DIR");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  leveldb::Options options;
  options.create_if_missing = true;
  leveldb::DB* db = nullptr;
  if (!leveldb::DB::Open(options, argv[1], &db).ok()) return 1;
  std::string value;
  const bool found = db->Get(leveldb::ReadOptions(), "key", &value).ok();
  delete db;
  const unsigned __int128 wide = static_cast<unsigned __int128>(argc) << 70;
  std::printf("%d %f %d\n", found, std::sqrt(static_cast<double>(argc)),
              static_cast<int>(wide / (argc + 1) >> 64));
  return 0;
}
