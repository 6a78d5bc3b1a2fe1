// leveldb_db: the C++ leveldb side of tests/rusty_leveldb.rs. Writes and reads databases with
// the system leveldb's own NewBloomFilterPolicy(10), so that the test can hand them to
// rusty-leveldb and take rusty-leveldb's from it.
//
//   leveldb_db write DIR KEY_FILE
//     a database in DIR (created) of the pairs "HEX_KEY HEX_VALUE" of KEY_FILE, the first half
//     compacted to the deepest level, the second flushed to tables on top of it
//   leveldb_db read DIR KEY_FILE
//     prints the number of table files at each level of the database in DIR; then, for each
//     line "HEX_KEY HEX_VALUE" of KEY_FILE, a Get: one character per line, 1 if found with that
//     value, 0 if not found, ? otherwise
//
// An empty byte string is "-". Build: c++ -std=c++17 tools/leveldb_db.cc -lleveldb

#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/options.h>
#include <leveldb/write_batch.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace {

int Fail(const leveldb::Status& status) {
  std::fprintf(stderr, "leveldb_db: %s\n", status.ToString().c_str());
  return 1;
}

std::string FromHex(const std::string& hex) {
  std::string bytes;
  if (hex == "-") return bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

std::vector<std::pair<std::string, std::string>> ReadPairs(const char* file) {
  std::ifstream in(file);
  std::vector<std::pair<std::string, std::string>> pairs;
  std::string key, value;
  while (in >> key >> value) pairs.emplace_back(FromHex(key), FromHex(value));
  return pairs;
}

// Small write buffers, blocks and tables: many of each, at several levels.
leveldb::Options SmallOptions(const leveldb::FilterPolicy* policy) {
  leveldb::Options options;
  options.filter_policy = policy;
  options.block_size = 1024;
  options.write_buffer_size = 64 * 1024;
  options.max_file_size = 64 * 1024;
  return options;
}

int Write(const char* dir, const char* key_file) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  leveldb::Options options = SmallOptions(policy.get());
  options.create_if_missing = true;
  options.error_if_exists = true;
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  if (!status.ok()) return Fail(status);
  std::unique_ptr<leveldb::DB> db(raw);
  std::vector<std::pair<std::string, std::string>> pairs = ReadPairs(key_file);
  for (size_t i = 0; i < pairs.size(); i++) {
    status = db->Put(leveldb::WriteOptions(), pairs[i].first, pairs[i].second);
    if (!status.ok()) return Fail(status);
    if (i + 1 == pairs.size() / 2) db->CompactRange(nullptr, nullptr);
  }
  // The memtable into a table (a range that holds no key compacts nothing else), so that every
  // key is read from a table and its filter.
  leveldb::Slice none;
  db->CompactRange(&none, &none);
  return 0;
}

int Read(const char* dir, const char* key_file) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  leveldb::Options options = SmallOptions(policy.get());
  std::vector<std::pair<std::string, std::string>> pairs = ReadPairs(key_file);
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  if (!status.ok()) return Fail(status);
  std::unique_ptr<leveldb::DB> db(raw);
  // The levels as written: before the reads, whose seeks may start compactions.
  for (int level = 0; level < 7; level++) {  // leveldb's config::kNumLevels
    std::string files;
    db->GetProperty("leveldb.num-files-at-level" + std::to_string(level), &files);
    std::printf("%s%s", level ? " " : "", files.c_str());
  }
  std::putchar('\n');
  for (const auto& [key, value] : pairs) {
    std::string found;
    status = db->Get(leveldb::ReadOptions(), key, &found);
    std::putchar(status.ok() && found == value ? '1' : status.IsNotFound() ? '0' : '?');
  }
  std::putchar('\n');
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "write") == 0) return Write(argv[2], argv[3]);
  if (argc == 4 && std::strcmp(argv[1], "read") == 0) return Read(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s write|read DIR KEY_FILE\n", argv[0]);
  return 2;
}
