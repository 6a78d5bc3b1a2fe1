// leveldb_tables: the leveldb side of tests/filter_block_leveldb.rs's real-table test. Writes a
// database with leveldb's own C++ API, whose .ldb files the test reads; and answers queries on a
// filter block with leveldb's own FilterBlockReader (internal to leveldb: its header comes from
// leveldb's source tree, its code from Debian's static libleveldb.a).
//
//   leveldb_tables write DIR none|snappy BITS_PER_KEY SEED
//     a database in DIR (created) of random keys of 16..24 bytes, compacted into tables
//   leveldb_tables answer BLOCK_FILE QUERY_FILE BITS_PER_KEY
//     prints one 0/1 per line "OFFSET HEX_KEY" of QUERY_FILE: KeyMayMatch of the block in
//     BLOCK_FILE under NewBloomFilterPolicy(BITS_PER_KEY)
//
// Build: c++ -std=c++17 -I$SRC -I$SRC/include tools/leveldb_tables.cc -l:libleveldb.a -lsnappy
// -pthread (SRC is the leveldb source tree).

#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "splitmix64.h"
#include "table/filter_block.h"

namespace {

int Fail(const leveldb::Status& status) {
  std::fprintf(stderr, "leveldb_tables: %s\n", status.ToString().c_str());
  return 1;
}

int Write(const char* dir, bool snappy, int bits_per_key, uint64_t seed) {
  SplitMix64 rng(seed);
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(bits_per_key));
  leveldb::Options options;
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.filter_policy = policy.get();
  options.compression = snappy ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  // Small blocks and tables: many data blocks, some sharing a 2 KB range and some spanning
  // several, in several tables.
  options.block_size = 1024;
  options.write_buffer_size = 256 * 1024;
  options.max_file_size = 512 * 1024;
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  if (!status.ok()) return Fail(status);
  std::unique_ptr<leveldb::DB> db(raw);
  for (int batch = 0; batch < 40; batch++) {
    leveldb::WriteBatch writes;
    for (int i = 0; i < 500; i++) {
      // Values of 0..300 bytes, half of them compressible.
      std::string value = rng.Bytes(0, 300);
      if (rng.Next() % 2) std::memset(&value[0], 'v', value.size() / 2);
      writes.Put(rng.Bytes(16, 24), value);
    }
    status = db->Write(leveldb::WriteOptions(), &writes);
    if (!status.ok()) return Fail(status);
  }
  db->CompactRange(nullptr, nullptr);
  return 0;
}

int Answer(const char* block_file, const char* query_file, int bits_per_key) {
  std::ifstream block_in(block_file, std::ios::binary);
  std::stringstream block;
  block << block_in.rdbuf();
  std::string contents = block.str();
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(bits_per_key));
  leveldb::FilterBlockReader reader(policy.get(), contents);
  std::ifstream queries(query_file);
  uint64_t offset;
  std::string hex;
  while (queries >> offset >> hex) {
    std::string key;
    for (size_t i = 0; i + 1 < hex.size(); i += 2) {
      key.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
    }
    if (hex == "-") key.clear();
    std::putchar(reader.KeyMayMatch(offset, key) ? '1' : '0');
  }
  std::putchar('\n');
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "write") == 0) {
    return Write(argv[2], std::strcmp(argv[3], "snappy") == 0, std::atoi(argv[4]),
                 std::strtoull(argv[5], nullptr, 10));
  }
  if (argc == 5 && std::strcmp(argv[1], "answer") == 0) {
    return Answer(argv[2], argv[3], std::atoi(argv[4]));
  }
  std::fprintf(stderr,
               "usage: %s write DIR none|snappy BITS_PER_KEY SEED\n"
               "       %s answer BLOCK_FILE QUERY_FILE BITS_PER_KEY\n",
               argv[0], argv[0]);
  return 2;
}
