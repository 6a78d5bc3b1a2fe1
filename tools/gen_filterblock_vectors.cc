// gen_filterblock_vectors: writes vectors/filterblock.txt, reference vectors for leveldb-bloom's
// filter blocks, made by the REAL leveldb 1.23: its FilterBlockBuilder and FilterBlockReader
// (table/filter_block.cc), with NewBloomFilterPolicy and with a small custom policy.
//
// Those classes are internal to leveldb: their header comes from leveldb's source tree
// (Debian's source package, `apt-get source leveldb`) and their code from Debian's static
// libleveldb.a. Output is deterministic (fixed-seed splitmix64), so a test regenerates the file
// and requires it to equal the committed one. Format: vectors/README.md.
//
//   c++ -std=c++17 -O2 -Wall -Wextra -Werror -I$SRC -I$SRC/include
//     tools/gen_filterblock_vectors.cc -o /tmp/gen_fb -l:libleveldb.a -lsnappy -pthread
//   (one command; SRC is the leveldb source tree)
//   /tmp/gen_fb vectors

#include <leveldb/db.h>  // only for kMajorVersion / kMinorVersion
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "table/filter_block.h"

namespace {

// splitmix64: identical on every platform, unlike the std:: distributions.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  uint64_t Uniform(uint64_t lo, uint64_t hi) { return lo + Next() % (hi - lo + 1); }

  std::string Bytes(size_t min_len, size_t max_len) {
    std::string s(Uniform(min_len, max_len), '\0');
    for (char& c : s) c = static_cast<char>(Next());
    return s;
  }

 private:
  uint64_t state_;
};

// The custom policy of the vectors (vectors/README.md): two bytes per key, its length's low byte
// and the XOR of its bytes; a key may match an empty filter, or one holding its two bytes at an
// even position. Simple to write in every test, and it tells an empty filter the reader hands to
// the policy (which answers true) from a range it answers for itself (false).
class CustomPolicy : public leveldb::FilterPolicy {
 public:
  const char* Name() const override { return "leveldb-bloom.TestPolicy"; }

  static std::string Pair(const leveldb::Slice& key) {
    char x = 0;
    for (size_t i = 0; i < key.size(); i++) x ^= key[i];
    return std::string{static_cast<char>(key.size() & 0xff), x};
  }

  void CreateFilter(const leveldb::Slice* keys, int n, std::string* dst) const override {
    for (int i = 0; i < n; i++) dst->append(Pair(keys[i]));
  }

  bool KeyMayMatch(const leveldb::Slice& key, const leveldb::Slice& filter) const override {
    if (filter.empty()) return true;
    std::string pair = Pair(key);
    for (size_t i = 0; i + 1 < filter.size(); i += 2) {
      if (filter[i] == pair[0] && filter[i + 1] == pair[1]) return true;
    }
    return false;
  }
};

// A policy by its name in the file: "bloom:BPK" or "custom".
const leveldb::FilterPolicy& Policy(const std::string& name) {
  static std::map<std::string, std::unique_ptr<const leveldb::FilterPolicy>> policies;
  auto& slot = policies[name];
  if (!slot) {
    if (name == "custom") {
      slot.reset(new CustomPolicy);
    } else {
      slot.reset(leveldb::NewBloomFilterPolicy(std::stoi(name.substr(6))));
    }
  }
  return *slot;
}

std::string Bloom(int bits_per_key) { return "bloom:" + std::to_string(bits_per_key); }

std::string PlainHex(const std::string& bytes) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 0xf]);
  }
  return out;
}

// Hex, with runs of one 4-byte group repeated 8 or more times written `COUNTxGROUP`, parts
// joined by '.': a block past 2^32 of offsets holds millions of equal offsets.
std::string Hex(const std::string& bytes) {
  if (bytes.empty()) return "-";
  std::string out, literal;
  size_t i = 0;
  auto flush = [&] {
    if (literal.empty()) return;
    if (!out.empty()) out += '.';
    out += PlainHex(literal);
    literal.clear();
  };
  while (i < bytes.size()) {
    size_t count = 1;
    if (i + 4 <= bytes.size()) {
      while (i + 4 * (count + 1) <= bytes.size() &&
             bytes.compare(i + 4 * count, 4, bytes, i, 4) == 0) {
        count++;
      }
    }
    if (count >= 8) {
      flush();
      if (!out.empty()) out += '.';
      out += std::to_string(count) + "x" + PlainHex(bytes.substr(i, 4));
      i += 4 * count;
    } else {
      literal.push_back(bytes[i]);
      i++;
    }
  }
  flush();
  return out;
}

struct Call {
  bool start;  // StartBlock(offset), else AddKey(key)
  uint64_t offset;
  std::string key;
};

struct Query {
  uint64_t offset;
  std::string key;
};

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
    out_ << "leveldb-bloom filter block vectors v1\n";
    Comment("generated by tools/gen_filterblock_vectors.cc with leveldb " +
            std::to_string(leveldb::kMajorVersion) + "." + std::to_string(leveldb::kMinorVersion));
  }

  void Comment(const std::string& text) { out_ << "# " << text << '\n'; }

  void Calls(const std::vector<Call>& calls) {
    calls_ = calls;
    out_ << "calls " << calls.size() << '\n';
    for (const Call& call : calls) {
      if (call.start) {
        out_ << "start " << call.offset << '\n';
      } else {
        out_ << "key " << Hex(call.key) << '\n';
      }
    }
  }

  void Queries(const std::vector<Query>& queries) {
    queries_ = queries;
    out_ << "queries " << queries.size() << '\n';
    for (const Query& q : queries) out_ << q.offset << ' ' << Hex(q.key) << '\n';
  }

  // FilterBlockBuilder over the current calls, then the reader over its block.
  std::string Build(const std::string& policy) {
    leveldb::FilterBlockBuilder builder(&Policy(policy));
    for (const Call& call : calls_) {
      if (call.start) {
        builder.StartBlock(call.offset);
      } else {
        builder.AddKey(call.key);
      }
    }
    std::string block = builder.Finish().ToString();
    out_ << "build " << policy << ' ' << Hex(block) << ' ' << Answers(policy, block) << '\n';
    return block;
  }

  // The reader over arbitrary contents.
  void Read(const std::string& policy, const std::string& contents) {
    out_ << "read " << policy << ' ' << Hex(contents) << ' ' << Answers(policy, contents) << '\n';
  }

  bool Close() {
    out_.close();
    if (!out_) {
      std::fprintf(stderr, "gen_filterblock_vectors: error writing %s\n", path_.c_str());
      return false;
    }
    return true;
  }

 private:
  std::string Answers(const std::string& policy, const std::string& contents) {
    if (queries_.empty()) return "-";
    leveldb::FilterBlockReader reader(&Policy(policy), contents);
    std::string answers;
    for (const Query& q : queries_) answers.push_back(reader.KeyMayMatch(q.offset, q.key) ? '1' : '0');
    return answers;
  }

  std::string path_;
  std::ofstream out_;
  std::vector<Call> calls_;
  std::vector<Query> queries_;
};

Call Start(uint64_t offset) { return Call{true, offset, ""}; }
Call Key(const std::string& key) { return Call{false, 0, key}; }

// Queries for a call sequence: each key at its block's offset and at the next 2 KB range's,
// an absent key at each block's offset, and the offsets around and past the last filter.
std::vector<Query> QueriesFor(SplitMix64& rng, const std::vector<Call>& calls) {
  std::vector<Query> queries;
  uint64_t offset = 0, last = 0;
  for (const Call& call : calls) {
    if (call.start) {
      offset = call.offset;
      last = std::max(last, offset);
      queries.push_back(Query{offset, rng.Bytes(0, 24)});
    } else if (queries.size() < 3000) {
      queries.push_back(Query{offset, call.key});
      queries.push_back(Query{offset + 2048, call.key});
    }
  }
  for (uint64_t at : {last + 2048, last + 4096, last + 100000, uint64_t{1} << 32, ~uint64_t{0}}) {
    queries.push_back(Query{at, "k"});
  }
  return queries;
}

// `blocks` data blocks of `min_keys`..`max_keys` keys of 16..24 bytes, each block's offset
// `min_step`..`max_step` bytes past the one before; then a final StartBlock past the last
// block, as leveldb's TableBuilder makes.
std::vector<Call> Table(SplitMix64& rng, int blocks, int min_keys, int max_keys, uint64_t min_step,
                        uint64_t max_step, uint64_t first = 0) {
  std::vector<Call> calls;
  uint64_t offset = first;
  for (int b = 0; b < blocks; b++) {
    calls.push_back(Start(offset));
    int n = static_cast<int>(rng.Uniform(min_keys, max_keys));
    for (int i = 0; i < n; i++) calls.push_back(Key(rng.Bytes(16, 24)));
    offset += rng.Uniform(min_step, max_step);
  }
  calls.push_back(Start(offset));
  return calls;
}

void BuildCases(Writer& w, SplitMix64& rng) {
  const std::vector<int> kAllBits = {0, 1, 2, 5, 10, 23, 50, 100, 1000};
  struct Case {
    std::string label;
    std::vector<Call> calls;
    std::vector<int> bits;
  };
  std::vector<Case> cases;
  cases.push_back({"no calls at all", {}, kAllBits});
  cases.push_back({"StartBlock(0) only", {Start(0)}, {10}});
  cases.push_back({"one key", {Start(0), Key("foo")}, kAllBits});
  cases.push_back({"the empty key", {Start(0), Key("")}, {0, 10}});
  cases.push_back({"keys before any StartBlock", {Key("a"), Key("b"), Start(5000), Key("c")}, {10}});
  cases.push_back({"leveldb's filter_block_test MultiChunk",
                   {Start(0), Key("foo"), Key("bar"), Start(2000), Key("box"), Start(3100), Key("box"),
                    Start(9000), Key("box"), Key("hello")},
                   kAllBits});
  cases.push_back({"several blocks in one 2 KB range, then the same range again",
                   {Start(0), Key("a"), Start(100), Key("b"), Start(2047), Key("c"), Start(2047),
                    Key("d"), Start(2048), Key("e")},
                   {1, 10}});
  cases.push_back({"an offset in an earlier block of the same range (allowed)",
                   {Start(5000), Key("a"), Start(4200), Key("b"), Start(7000)},
                   {10}});
  cases.push_back({"duplicate keys", {Start(0), Key("dup"), Key("dup"), Key("dup"), Start(4096), Key("dup")},
                   {10}});
  cases.push_back({"skipping many 2 KB ranges",
                   {Start(0), Key("first"), Start(2048 * 500 + 7), Key("second"), Key("third")},
                   {10}});
  cases.push_back({"StartBlock only, far out", {Start(2048 * 300)}, {10}});
  cases.push_back({"Finish with no keys pending after the last StartBlock",
                   {Start(0), Key("x"), Start(3000), Key("y"), Start(9000)},
                   {10}});
  cases.push_back({"offsets past 2^32",
                   {Start(0), Key("low"), Start((uint64_t{1} << 32) + 5), Key("high"),
                    Start((uint64_t{1} << 32) + 3000), Key("higher")},
                   {10}});
  cases.push_back({"first StartBlock past 2^32", {Start((uint64_t{1} << 32) + 2048), Key("k")}, {10}});
  cases.push_back({"a 4 KB-block table: 40 blocks of 20..60 keys", Table(rng, 40, 20, 60, 3800, 4400),
                   kAllBits});
  cases.push_back({"a 2 KB-block table: 60 blocks of 1..30 keys, ranges shared and skipped",
                   Table(rng, 60, 1, 30, 1000, 5000), {0, 1, 10, 50}});
  cases.push_back({"blocks of one key each", Table(rng, 30, 1, 1, 100, 3000), {10}});
  cases.push_back({"a table starting far out", Table(rng, 10, 5, 10, 2048, 2048, 123456789), {10}});
  for (const Case& c : cases) {
    w.Comment(c.label);
    w.Calls(c.calls);
    w.Queries(QueriesFor(rng, c.calls));
    for (int bits : c.bits) w.Build(Bloom(bits));
    w.Build("custom");
  }
}

void PutFixed32(std::string* dst, uint32_t v) {
  for (int i = 0; i < 4; i++) dst->push_back(static_cast<char>(v >> (8 * i)));
}

// Contents of `data` then the fixed32 `words` (offsets, then the array's offset), then `base_lg`.
std::string Contents(const std::string& data, const std::vector<uint32_t>& words, uint8_t base_lg = 11) {
  std::string out = data;
  for (uint32_t word : words) PutFixed32(&out, word);
  out.push_back(static_cast<char>(base_lg));
  return out;
}

// Queries at the start of the first `num + 2` filters' ranges for base lg `lg`, mid-range ones
// and far ones, each with a member key of `keys` and an absent one.
std::vector<Query> ReaderQueries(SplitMix64& rng, const std::vector<std::string>& keys, int lg,
                                 size_t num) {
  std::vector<Query> queries;
  int shift = lg & 63;
  for (size_t i = 0; i < num + 2 && i < 64; i++) {
    uint64_t at = shift < 64 && i < (uint64_t{1} << (63 - shift)) ? uint64_t(i) << shift : ~uint64_t{0};
    for (const std::string& key : keys) queries.push_back(Query{at, key});
    queries.push_back(Query{at, rng.Bytes(0, 20)});
  }
  for (uint64_t at : {uint64_t{1}, uint64_t{2047}, uint64_t{2048}, uint64_t{1} << 32, uint64_t{1} << 63,
                      ~uint64_t{0}}) {
    queries.push_back(Query{at, keys.empty() ? "k" : keys[0]});
  }
  return queries;
}

void ReadCases(Writer& w, SplitMix64& rng) {
  const std::vector<std::string> kPolicies = {Bloom(10), "custom"};
  const std::vector<std::string> keys = {"foo", "bar", "box", "hello", ""};

  w.Comment("contents shorter than 5 bytes, and exactly 5");
  w.Queries(ReaderQueries(rng, keys, 11, 2));
  for (size_t n = 0; n <= 6; n++) {
    for (int fill : {0x00, 0xff, -1}) {
      std::string contents(n, static_cast<char>(fill));
      if (fill < 0) contents = rng.Bytes(n, n);
      for (const std::string& p : kPolicies) w.Read(p, contents);
    }
  }

  // A real block with 4 filters to corrupt: filter 1 empty.
  std::vector<Call> calls = {Start(0), Key("foo"), Key("bar"), Start(4096), Key("box"), Start(6144),
                             Key("hello"), Key("")};
  std::map<std::string, std::string> real;
  for (const std::string& p : kPolicies) {
    leveldb::FilterBlockBuilder builder(&Policy(p));
    for (const Call& call : calls) {
      if (call.start) builder.StartBlock(call.offset);
      else builder.AddKey(call.key);
    }
    real[p] = builder.Finish().ToString();
  }

  w.Comment("each rule of the reader at its edge");
  w.Queries(ReaderQueries(rng, keys, 11, 4));
  const std::string data = "0123456789abcdef";  // 16 bytes of "filters"
  const std::vector<std::pair<std::string, std::vector<uint32_t>>> edges = {
      {"array offset n-5: no offsets", {16}},
      {"array offset past n-5", {17}},
      {"array offset 0xffffffff", {0xffffffffu}},
      {"one filter, limit = array offset", {0, 16}},
      {"one offset short of a word (n-5-array offset = 3)", {}},
      {"start > limit", {9, 8, 16}},
      {"start = limit inside: an empty filter for the policy", {8, 8, 16}},
      {"start = limit past the array offset: no match", {20, 20, 16}},
      {"start < limit past the array offset: a match", {4, 20, 16}},
      {"limit = array offset + 1", {4, 17, 16}},
      {"start past the array offset, below limit", {17, 18, 16}},
      {"a zero-length first filter and whole-data second", {0, 0, 16}},
      {"offsets at the 32-bit edge", {0xfffffffeu, 0xffffffffu, 16}},
  };
  for (const auto& edge : edges) {
    std::string contents = Contents(data, edge.second);
    if (edge.second.empty()) contents = data + std::string("\0\0\0", 3) + Contents("", {16});
    for (const std::string& p : kPolicies) w.Read(p, contents);
  }

  w.Comment("base lg bytes 0..255 on real blocks (the shift is the byte's low 6 bits on x86-64)");
  w.Queries(ReaderQueries(rng, keys, 0, 4));
  for (int lg = 0; lg < 256; lg++) {
    for (const std::string& p : kPolicies) {
      std::string contents = real[p];
      contents.back() = static_cast<char>(lg);
      w.Read(p, contents);
    }
  }
  for (int lg : {0, 1, 5, 11, 31, 32, 33, 63, 64, 75, 127, 128, 139, 191, 255}) {
    w.Queries(ReaderQueries(rng, keys, lg, 4));
    for (const std::string& p : kPolicies) {
      std::string contents = real[p];
      contents.back() = static_cast<char>(lg);
      w.Read(p, contents);
    }
  }

  w.Comment("real blocks corrupted: bit flips, truncations, extensions");
  w.Queries(ReaderQueries(rng, keys, 11, 4));
  for (const std::string& p : kPolicies) {
    const std::string& block = real[p];
    for (size_t bit = 0; bit < block.size() * 8; bit += (bit < 64 || bit + 80 > block.size() * 8) ? 1 : 7) {
      std::string flipped = block;
      flipped[bit / 8] = static_cast<char>(flipped[bit / 8] ^ (1 << (bit % 8)));
      w.Read(p, flipped);
    }
    for (size_t n = 0; n < block.size(); n++) w.Read(p, block.substr(0, n));
    for (size_t extra : {1, 3, 4, 5, 8}) w.Read(p, block + rng.Bytes(extra, extra));
    w.Read(p, rng.Bytes(3, 3) + block);
  }

  w.Comment("random bytes");
  for (int round = 0; round < 200; round++) {
    size_t n = rng.Uniform(0, 64);
    std::string contents = rng.Bytes(n, n);
    // Half of them with a plausible array offset and base lg.
    if (round % 2 == 0 && n >= 5) {
      uint32_t array = static_cast<uint32_t>(rng.Uniform(0, n - 5));
      for (int i = 0; i < 4; i++) contents[n - 5 + i] = static_cast<char>(array >> (8 * i));
      contents[n - 1] = static_cast<char>(rng.Uniform(0, 12));
    }
    if (round % 20 == 0) w.Queries(ReaderQueries(rng, keys, contents.empty() ? 11 : contents.back(), 8));
    for (const std::string& p : kPolicies) w.Read(p, contents);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  Writer w(std::string(argv[1]) + "/filterblock.txt");
  SplitMix64 rng(20261125);
  BuildCases(w, rng);
  ReadCases(w, rng);
  return w.Close() ? 0 : 1;
}
