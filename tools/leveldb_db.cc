// leveldb_db: the C++ leveldb side of tests/rusty_leveldb.rs and tests/check.rs. Writes and
// reads databases with the system leveldb's own NewBloomFilterPolicy(10), so that the tests can
// hand them to rusty-leveldb and take rusty-leveldb's from it, and check them; writes them with
// other filters, as other writers do, for the check to find.
//
//   leveldb_db write DIR KEY_FILE [POLICY [COMPRESSION]]
//     a database in DIR (created) of the pairs "HEX_KEY HEX_VALUE" of KEY_FILE, the first half
//     compacted to the deepest level, the second flushed to tables on top of it. POLICY:
//     bloom (NewBloomFilterPolicy(10), the default), none (no filter), signed-char (leveldb
//     before 1.18's bloom filter, 10 bits per key), goleveldb-name (leveldb's bloom filter under
//     goleveldb's name); COMPRESSION: snappy (the default) or none
//   leveldb_db fill DIR COUNT VALUE_BYTES snappy|none
//     a database in DIR (created) of COUNT random 16-byte keys, each with a value of VALUE_BYTES
//     (its second half one repeated byte, so that snappy about halves it), in leveldb's default
//     sizes (4 KB blocks, 2 MB tables) with NewBloomFilterPolicy(10), compacted: the benchmark's
//     database (tools/bench-check)
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

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "splitmix64.h"

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

// leveldb before 1.18's bloom filter (its util/bloom.cc and util/hash.cc): the filter of 1.23,
// but the hash read a key's last 1 to 3 bytes through char, signed on x86, so a byte of 0x80 or
// more added its sign-extended value. Recorded under the same name.
class SignedCharBloom : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "leveldb.BuiltinBloomFilter2"; }

  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    size_t bits = std::max<size_t>(n * kBitsPerKey, 64);
    size_t bytes = (bits + 7) / 8;
    bits = bytes * 8;
    const size_t init_size = dst->size();
    dst->resize(init_size + bytes, 0);
    dst->push_back(static_cast<char>(kProbes));
    char* array = &(*dst)[init_size];
    for (int i = 0; i < n; i++) {
      uint32_t h = Hash(keys[i].data(), keys[i].size());
      const uint32_t delta = (h >> 17) | (h << 15);
      for (int j = 0; j < kProbes; j++) {
        const uint32_t bitpos = h % bits;
        array[bitpos / 8] |= (1 << (bitpos % 8));
        h += delta;
      }
    }
  }

  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    if (filter.size() < 2) return false;
    const size_t bits = (filter.size() - 1) * 8;
    uint32_t h = Hash(key.data(), key.size());
    const uint32_t delta = (h >> 17) | (h << 15);
    for (int j = 0; j < kProbes; j++) {
      const uint32_t bitpos = h % bits;
      if ((filter[bitpos / 8] & (1 << (bitpos % 8))) == 0) return false;
      h += delta;
    }
    return true;
  }

 private:
  static constexpr int kBitsPerKey = 10;
  static constexpr int kProbes = 6;  // 10 * 0.69, truncated

  // util/hash.cc before 1.18, seeded as BloomHash: the tail through signed char (the shift done
  // on the sign-extended value's bits, as x86 did it).
  static uint32_t Hash(const char* data, size_t n) {
    const uint32_t m = 0xc6a4a793;
    const char* limit = data + n;
    uint32_t h = 0xbc9f1d34 ^ static_cast<uint32_t>(n * m);
    for (; data + 4 <= limit; data += 4) {
      uint32_t w;
      std::memcpy(&w, data, 4);  // little-endian, as on x86
      h += w;
      h *= m;
      h ^= (h >> 16);
    }
    auto tail = [&](int i) {
      return static_cast<uint32_t>(static_cast<int32_t>(static_cast<signed char>(data[i])));
    };
    switch (limit - data) {
      case 3:
        h += tail(2) << 16;
        [[fallthrough]];
      case 2:
        h += tail(1) << 8;
        [[fallthrough]];
      case 1:
        h += tail(0);
        h *= m;
        h ^= (h >> 24);
        break;
    }
    return h;
  }
};

// leveldb's bloom filter under goleveldb's name, as goleveldb records the same filters.
class GoleveldbName : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "leveldb.BuiltinBloomFilter"; }
  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    bloom_->CreateFilter(keys, n, dst);
  }
  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    return bloom_->KeyMayMatch(key, filter);
  }

 private:
  std::unique_ptr<const leveldb::FilterPolicy> bloom_{leveldb::NewBloomFilterPolicy(10)};
};

// The policy POLICY names (write's argument), or null for none.
std::unique_ptr<const leveldb::FilterPolicy> PolicyNamed(const std::string& name) {
  if (name == "bloom") return std::unique_ptr<const leveldb::FilterPolicy>(leveldb::NewBloomFilterPolicy(10));
  if (name == "signed-char") return std::make_unique<SignedCharBloom>();
  if (name == "goleveldb-name") return std::make_unique<GoleveldbName>();
  return nullptr;
}

int Write(const char* dir, const char* key_file, const std::string& policy_name,
          const std::string& compression) {
  std::unique_ptr<const leveldb::FilterPolicy> policy = PolicyNamed(policy_name);
  leveldb::Options options = SmallOptions(policy.get());
  if (compression == "none") options.compression = leveldb::kNoCompression;
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

int Fill(const char* dir, uint64_t count, size_t value_bytes, bool snappy) {
  std::unique_ptr<const leveldb::FilterPolicy> policy(leveldb::NewBloomFilterPolicy(10));
  leveldb::Options options;
  options.filter_policy = policy.get();
  options.create_if_missing = true;
  options.error_if_exists = true;
  options.compression = snappy ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  leveldb::DB* raw = nullptr;
  leveldb::Status status = leveldb::DB::Open(options, dir, &raw);
  if (!status.ok()) return Fail(status);
  std::unique_ptr<leveldb::DB> db(raw);
  SplitMix64 rng(count);
  for (uint64_t done = 0; done < count;) {
    leveldb::WriteBatch batch;
    for (int i = 0; i < 1000 && done < count; i++, done++) {
      std::string value = rng.Bytes(value_bytes, value_bytes);
      std::memset(&value[value_bytes / 2], 'v', value_bytes - value_bytes / 2);
      batch.Put(rng.Bytes(16, 16), value);
    }
    status = db->Write(leveldb::WriteOptions(), &batch);
    if (!status.ok()) return Fail(status);
  }
  db->CompactRange(nullptr, nullptr);
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
  bool write = argc >= 4 && argc <= 6 && std::strcmp(argv[1], "write") == 0;
  const std::string policy = argc >= 5 ? argv[4] : "bloom";
  const std::string compression = argc >= 6 ? argv[5] : "snappy";
  bool known = (policy == "none" || PolicyNamed(policy)) &&
               (compression == "snappy" || compression == "none");
  if (write && known) return Write(argv[2], argv[3], policy, compression);
  if (argc == 4 && std::strcmp(argv[1], "read") == 0) return Read(argv[2], argv[3]);
  if (argc == 6 && std::strcmp(argv[1], "fill") == 0) {
    return Fill(argv[2], std::strtoull(argv[3], nullptr, 10), std::strtoull(argv[4], nullptr, 10),
                std::strcmp(argv[5], "snappy") == 0);
  }
  std::fprintf(stderr,
               "usage: %s write DIR KEY_FILE [bloom|none|signed-char|goleveldb-name "
               "[snappy|none]]\n       %s fill DIR COUNT VALUE_BYTES snappy|none\n"
               "       %s read DIR KEY_FILE\n",
               argv[0], argv[0], argv[0]);
  return 2;
}
