// leveldb-bloom's filter blocks against leveldb 1.23's own FilterBlockBuilder and
// FilterBlockReader (table/filter_block.cc) with its bloom policy, side by side in one process: a
// 4 MB table's worth of filters, about 2,000 data blocks of 100 keys of 16..24 bytes each, the
// blocks 1.7..2.4 KB apart (so some 2 KB ranges hold two blocks). Runs interleaved (alternating
// which goes first), best of N, ns per key and the speedup; after every timed run the blocks
// are compared byte for byte and the answers one by one.
//
// - build: StartBlock/AddKey for every block, then Finish (ours: the C ABI's builder calls);
// - query: KeyMayMatch of each key, 50% present, in random order over the table (ours:
//   leveldb_bloom_filterblock_key_may_match);
// - batch query: the same keys in one leveldb_bloom_filterblock_key_may_match_batch call, in random
//   order, then in block order; leveldb's side is the loop of KeyMayMatch.
//
// leveldb's classes are internal: their header comes from leveldb's source tree, their code
// from Debian's static libleveldb.a. Run by `cargo bench --bench vs_leveldb_filterblock` (with
// LEVELDB_BLOOM_LEVELDB_SRC naming the source tree); with --smoke, tiny sizes and one run, as
// `cargo test` does to check the program.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "table/filter_block.h"

extern "C" {
#include "check.h"
#include "leveldb_bloom.h"
}

namespace {

constexpr int kBitsPerKey = 10;
constexpr size_t kBlockKeys = 100;

// The keys of a table in one arena, with each data block's offset.
struct Table {
  std::vector<char> arena;
  std::vector<const char *> ptrs;
  std::vector<size_t> lens;
  std::vector<uint64_t> block_offsets;  // block b holds keys b * kBlockKeys ..
  uint64_t end = 0;                     // where the last block ends
};

Table make_table(size_t blocks, std::mt19937_64 &rng) {
  Table t;
  std::vector<size_t> lens;
  for (size_t i = 0; i < blocks * kBlockKeys; i++) {
    size_t len = 16 + rng() % 9;
    for (size_t j = 0; j < len; j++) t.arena.push_back(static_cast<char>(rng()));
    lens.push_back(len);
  }
  size_t offset = 0;
  for (size_t len : lens) {
    t.ptrs.push_back(t.arena.data() + offset);
    t.lens.push_back(len);
    offset += len;
  }
  for (size_t b = 0; b < blocks; b++) {
    t.block_offsets.push_back(t.end);
    t.end += 1700 + rng() % 700;
  }
  return t;
}

// Queries: a block offset and a key each, `present_pct` percent keys of that block; the keys in
// one arena in query order, as a caller's batch would hold them.
struct Queries {
  std::vector<uint64_t> offsets;
  std::vector<char> arena;
  std::vector<const char *> ptrs;
  std::vector<size_t> lens;
  std::vector<leveldb::Slice> slices;

  // Once every key is in the arena, which no longer moves.
  void finish() {
    size_t at = 0;
    for (size_t len : lens) {
      ptrs.push_back(arena.data() + at);
      slices.emplace_back(ptrs.back(), len);
      at += len;
    }
  }
};

Queries make_queries(const Table &t, int present_pct, bool shuffled, std::mt19937_64 &rng) {
  std::vector<std::pair<uint64_t, std::string>> pairs;
  for (size_t b = 0; b < t.block_offsets.size(); b++) {
    for (size_t i = 0; i < kBlockKeys; i++) {
      std::string key;
      if (static_cast<int>(rng() % 100) < present_pct) {
        size_t k = b * kBlockKeys + rng() % kBlockKeys;
        key.assign(t.ptrs[k], t.lens[k]);
      } else {
        key.resize(16 + rng() % 9);
        for (char &c : key) c = static_cast<char>(rng());
      }
      pairs.emplace_back(t.block_offsets[b], key);
    }
  }
  if (shuffled) std::shuffle(pairs.begin(), pairs.end(), rng);
  Queries q;
  for (const auto &pair : pairs) {
    q.offsets.push_back(pair.first);
    q.arena.insert(q.arena.end(), pair.second.begin(), pair.second.end());
    q.lens.push_back(pair.second.size());
  }
  q.finish();
  return q;
}

double seconds(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Times `theirs` and `ours` interleaved, `reps` times each, one call each per run; `check`
// compares their outputs after every pair of runs. Prints the best ns per key and the speedup.
void compare(const char *op, size_t keys, int reps, const std::function<void()> &theirs,
             const std::function<void()> &ours, const std::function<void()> &check) {
  double best_theirs = 1e300, best_ours = 1e300;
  for (int rep = 0; rep < reps; rep++) {
    if (rep % 2 == 0) {
      best_theirs = std::min(best_theirs, seconds(theirs));
      best_ours = std::min(best_ours, seconds(ours));
    } else {
      best_ours = std::min(best_ours, seconds(ours));
      best_theirs = std::min(best_theirs, seconds(theirs));
    }
    check();
  }
  double ns_theirs = best_theirs * 1e9 / keys, ns_ours = best_ours * 1e9 / keys;
  printf("| %-38s | %8.1f | %8.1f | %6.2fx |\n", op, ns_theirs, ns_ours, ns_theirs / ns_ours);
  fflush(stdout);
}

}  // namespace

int main(int argc, char **argv) {
  bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
  size_t blocks = smoke ? 20 : 2000;
  int reps = smoke ? 1 : 21;
  std::mt19937_64 rng(20261125);
  Table t = make_table(blocks, rng);
  size_t keys = t.lens.size();
  std::unique_ptr<const leveldb::FilterPolicy> theirs(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  leveldb_bloom_filterpolicy_t *ours = leveldb_bloom_filterpolicy_create_bloom(kBitsPerKey);

  printf("filter blocks: %zu data blocks of %zu keys of 16-24 bytes, %.1f MB of table; bits/key %d; "
         "ns per key, best of %d interleaved runs; leveldb 1.23 = Debian's libleveldb.a\n\n",
         blocks, kBlockKeys, t.end / 1e6, kBitsPerKey, reps);
  printf("| %-38s | %8s | %8s | %7s |\n", "operation", "leveldb", "ours", "speedup");
  printf("|%s|%s|%s|%s|\n", std::string(40, '-').c_str(), std::string(10, '-').c_str(),
         std::string(10, '-').c_str(), std::string(9, '-').c_str());

  std::string their_block;
  char *our_block = nullptr;
  size_t our_len = 0;
  compare(
      "build", keys, reps,
      [&] {
        leveldb::FilterBlockBuilder builder(theirs.get());
        for (size_t b = 0; b < blocks; b++) {
          builder.StartBlock(t.block_offsets[b]);
          for (size_t k = b * kBlockKeys; k < (b + 1) * kBlockKeys; k++)
            builder.AddKey(leveldb::Slice(t.ptrs[k], t.lens[k]));
        }
        builder.StartBlock(t.end);
        their_block = builder.Finish().ToString();
      },
      [&] {
        leveldb_bloom_free(our_block);
        leveldb_bloom_filterblock_builder_t *builder =
            leveldb_bloom_filterblock_builder_create(ours);
        for (size_t b = 0; b < blocks; b++) {
          leveldb_bloom_filterblock_builder_start_block(builder, t.block_offsets[b]);
          for (size_t k = b * kBlockKeys; k < (b + 1) * kBlockKeys; k++)
            leveldb_bloom_filterblock_builder_add_key(builder, t.ptrs[k], t.lens[k]);
        }
        leveldb_bloom_filterblock_builder_start_block(builder, t.end);
        our_block = leveldb_bloom_filterblock_builder_finish(builder, &our_len);
        leveldb_bloom_filterblock_builder_destroy(builder);
      },
      [&] {
        CHECK(our_block != nullptr && our_len == their_block.size() &&
              memcmp(our_block, their_block.data(), our_len) == 0);
      });

  leveldb::FilterBlockReader reader(theirs.get(), their_block);
  for (bool shuffled : {true, false}) {
    Queries q = make_queries(t, 50, shuffled, rng);
    size_t n = q.offsets.size();
    std::vector<uint8_t> their_answers(n), our_answers(n);
    auto leveldb_loop = [&] {
      for (size_t i = 0; i < n; i++) their_answers[i] = reader.KeyMayMatch(q.offsets[i], q.slices[i]);
    };
    auto same = [&] {
      CHECK(their_answers == our_answers);
      std::fill(our_answers.begin(), our_answers.end(), 2);
    };
    const char *order = shuffled ? "random order" : "block order";
    char op[64];
    if (shuffled) {
      snprintf(op, sizeof op, "query, 50%% present, %s", order);
      compare(
          op, n, reps, leveldb_loop,
          [&] {
            for (size_t i = 0; i < n; i++)
              our_answers[i] = leveldb_bloom_filterblock_key_may_match(
                  ours, our_block, our_len, q.offsets[i], q.ptrs[i], q.lens[i]);
          },
          same);
    }
    snprintf(op, sizeof op, "batch query, 50%% present, %s", order);
    compare(
        op, n, reps, leveldb_loop,
        [&] {
          leveldb_bloom_filterblock_key_may_match_batch(ours, our_block, our_len, q.offsets.data(),
                                                        q.ptrs.data(), q.lens.data(), n,
                                                        our_answers.data());
        },
        same);
  }
  printf("\n");
  leveldb_bloom_free(our_block);
  leveldb_bloom_filterpolicy_destroy(ours);
  return finish();
}
