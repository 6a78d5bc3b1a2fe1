// leveldb-bloom against leveldb 1.23's own bloom filter (the system libleveldb), side by side in
// one process: same keys, runs interleaved (alternating which goes first), best of N, ns per key
// and the speedup. Every timed run's filters and answers are compared byte for byte with
// leveldb's after the clock stops. After RocksDB's util/filter_bench.cc: keys generated before
// timing, sizes varying around the mean (16..24 bytes) at varying alignment, query keys in random
// order with a set share of present keys.
//
// Run by `cargo bench --bench vs_leveldb [block] [small] [1M] [8M] [--key-len=N] [--heap-keys]
// [--isa=NAME|all] [--leveldb-names]` (benches/vs_leveldb.rs builds and links it); with --smoke
// first, tiny sizes and one run, as `cargo test` does to check the program. --key-len=N makes every key N bytes (1
// to 1024): both implementations' hashes branch on the length, and with one length those branches
// are predicted. --heap-keys puts each key in its own std::string, as a C++ program holds keys,
// the strings allocated in an order unrelated to the order they are read in (so each key of the
// 1M and 8M rows is a load from its own place in memory; the block rows copy a block's keys into
// one hot buffer either way). --isa=NAME runs our side on that path (it sets LEVELDB_BLOOM_ISA);
// --isa=all runs the whole program once per path this CPU has, slowest first, each in a process
// of its own. --leveldb-names adds a column: ours through leveldb's names (leveldb_filterpolicy_*)
// with a policy from this library's leveldb_filterpolicy_create_bloom, which, leveldb's C API
// being loaded here, is an object of leveldb's wrapping ours, timed interleaved with the others,
// and its time against the own names' (leveldb_bloom_*). The CPU and the path head every table.
#include <leveldb/filter_policy.h>
#include <leveldb/slice.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

extern "C" {
#include "bench_context.h"
#include "check.h"
#include "leveldb_bloom.h"
}

namespace {

constexpr int kBitsPerKey = 10;
constexpr size_t kBlockKeys = 100;  // about one filter per 2 KB data block
// Keys of a 2 KB block whose values are some 80 bytes: a count that leaves vector lanes unused,
// which the 100-key blocks never do in their first chunk of keys.
constexpr size_t kSmallBlockKeys = 20;

// Keys in one arena (so at varying alignment), or each in a string of its own (--heap-keys), in
// the shapes both APIs take.
struct KeySet {
  std::vector<char> arena;  // a vector keeps its buffer when moved, so the pointers stay valid
  std::vector<std::string> strings;  // likewise, short strings' bytes included
  std::vector<const char *> ptrs;
  std::vector<size_t> lens;
  std::vector<leveldb::Slice> slices;

  size_t size() const { return lens.size(); }
};

// --heap-keys
bool g_heap_keys = false;

// A key set holding `keys` (copied), once all are known: the arena no longer moves. With
// --heap-keys, each key is a std::string of its own instead, allocated in a random order.
KeySet key_set(const std::vector<std::string> &keys) {
  KeySet set;
  if (g_heap_keys) {
    std::vector<size_t> order(keys.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::mt19937_64 rng(keys.size());
    std::shuffle(order.begin(), order.end(), rng);
    set.strings.resize(keys.size());
    for (size_t i : order) set.strings[i] = keys[i];
    for (const std::string &key : set.strings) {
      set.ptrs.push_back(key.data());
      set.lens.push_back(key.size());
      set.slices.emplace_back(key.data(), key.size());
    }
    return set;
  }
  for (const std::string &key : keys) set.arena.insert(set.arena.end(), key.begin(), key.end());
  size_t offset = 0;
  for (const std::string &key : keys) {
    set.ptrs.push_back(set.arena.data() + offset);
    set.lens.push_back(key.size());
    set.slices.emplace_back(set.ptrs.back(), key.size());
    offset += key.size();
  }
  return set;
}

// --key-len, or 0 for keys of 16..24 bytes.
size_t g_key_len = 0;

// `n` random keys of g_key_len bytes, or 16..24.
KeySet random_keys(size_t n, std::mt19937_64 &rng) {
  std::vector<std::string> keys(n);
  for (std::string &key : keys) {
    size_t varying = 16 + rng() % 9;
    key.resize(g_key_len ? g_key_len : varying);
    for (char &c : key) c = static_cast<char>(rng());
  }
  return key_set(keys);
}

// Queries: `present_pct` percent are keys of `members` (of their group of `group` keys), the
// rest fresh keys; in random order within each group, so each group queries its own filter.
KeySet query_keys(const KeySet &members, size_t group, int present_pct, std::mt19937_64 &rng) {
  KeySet absent = random_keys(members.size(), rng);
  std::vector<std::string> queries;
  for (size_t start = 0; start < members.size(); start += group) {
    size_t end = std::min(members.size(), start + group);
    for (size_t i = start; i < end; i++) {
      const KeySet &from = static_cast<int>(rng() % 100) < present_pct ? members : absent;
      size_t pick = start + rng() % (end - start);
      queries.emplace_back(from.ptrs[pick], from.lens[pick]);
    }
    std::shuffle(queries.begin() + start, queries.end(), rng);
  }
  return key_set(queries);
}

double seconds(const std::function<void()> &run) {
  auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What seconds() measures with nothing to run (two clock reads and a std::function call): the
// least of many tries, so never more than timing costs. compare() takes it off every timed call,
// as it is neither implementation's work: the block workload times each of its 2000 filters on
// its own, and ~20 ns per call would add 0.2 ns to every key on both sides, pulling each block
// speedup towards 1.
double timing_cost() {
  double least = 1e300;
  for (int i = 0; i < 100000; i++) least = std::min(least, seconds([] {}));
  return least;
}

// timing_cost(), measured once at start.
double g_timing_cost = 0;

// A block's keys copied into one small reused buffer just before its filter is built or queried,
// as leveldb's FilterBlockBuilder holds them (flattened in one std::string): hot in cache for both
// implementations alike, so the clock measures the filter, not the memory streaming the keys.
struct HotBlock {
  std::vector<char> arena;
  std::vector<const char *> ptrs;
  std::vector<size_t> lens;
  std::vector<leveldb::Slice> slices;

  void stage(const KeySet &from, size_t start, size_t end) {
    arena.clear();
    ptrs.clear();
    lens.clear();
    slices.clear();
    for (size_t i = start; i < end; i++) arena.insert(arena.end(), from.ptrs[i], from.ptrs[i] + from.lens[i]);
    size_t offset = 0;
    for (size_t i = start; i < end; i++) {
      ptrs.push_back(arena.data() + offset);
      lens.push_back(from.lens[i]);
      slices.emplace_back(ptrs.back(), from.lens[i]);
      offset += from.lens[i];
    }
  }
};

// --leveldb-names
bool g_leveldb_names = false;

// Times `theirs`, `ours` and, with --leveldb-names, `by_names` (ours through leveldb's names)
// interleaved, `reps` times each; `check` compares their outputs after every round of runs.
// Prints the best ns per key of each and the speedups.
//
// Each run is `blocks` timed calls of each side: `stage(b)` (untimed) puts call b's keys in place
// (block b's in the hot buffer, for filters of a block's keys), then each side is timed on call b
// one after the other, in an order shuffled call by call: with three sides a fixed rotation would
// have each always follow the same other, and so inherit the same cache state. A run's time is
// the sum over its calls, less the cost of timing each (timing_cost()).
// Returns leveldb's best ns per key.
double compare(const char *workload, const char *op, size_t keys, int reps, size_t blocks,
             const std::function<void(size_t)> &stage,
             const std::function<void(size_t)> &theirs, const std::function<void(size_t)> &ours,
             const std::function<void(size_t)> &by_names, const std::function<void()> &check) {
  const std::function<void(size_t)> *sides[] = {&theirs, &ours, &by_names};
  size_t n = g_leveldb_names ? 3 : 2;
  double best[3] = {1e300, 1e300, 1e300};
  size_t order[3] = {0, 1, 2};
  std::mt19937 order_rng(20240601);
  for (int rep = 0; rep < reps; rep++) {
    double t[3] = {0, 0, 0};
    for (size_t f = 0; f < blocks; f++) {
      stage(f);
      std::shuffle(order, order + n, order_rng);
      for (size_t i = 0; i < n; i++) {
        size_t side = order[i];
        t[side] += seconds([&] { (*sides[side])(f); });
      }
    }
    // Each side made `blocks` timed calls.
    for (size_t side = 0; side < n; side++)
      best[side] = std::min(best[side], t[side] - blocks * g_timing_cost);
    check();
  }
  double ns[3];
  for (size_t side = 0; side < 3; side++) ns[side] = best[side] * 1e9 / keys;
  printf("| %-22s | %-26s | %8.1f | %8.1f | %6.2fx |", workload, op, ns[0], ns[1], ns[0] / ns[1]);
  if (g_leveldb_names) printf(" %8.1f | %9.3f |", ns[2], ns[2] / ns[1]);
  printf("\n");
  fflush(stdout);
  return ns[0];
}

constexpr size_t kProbes = 6;  // leveldb's k at 10 bits per key

#if defined(__x86_64__)
// The floor's test with AVX-512: each key's 6 probes read by one gather of the 4 bytes from each
// probed byte (`array` has 3 bytes more than the filter, so that every such read is inside it).
// On Zen 5 this reads the same bits faster than plain loads (3.4-3.5 against 4.3-4.6 ns per key
// for 1.25 MB in a scratch loop), so without it the floor was no limit of the memory.
__attribute__((target("avx512f,avx512vl"))) void test_by_gathers(const uint32_t *bits,
                                                                 size_t keys, size_t ahead,
                                                                 const uint8_t *array,
                                                                 uint8_t *answers) {
  const __m256i seven = _mm256_set1_epi32(7), one = _mm256_set1_epi32(1);
  const __mmask8 probes = (1 << kProbes) - 1;
  for (size_t i = 0; i < keys; i++) {
    __builtin_prefetch(&bits[std::min(i * kProbes + ahead, keys * kProbes - 1)]);
    __m256i bit = _mm256_maskz_loadu_epi32(probes, &bits[i * kProbes]);
    __m256i word = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), probes,
                                                _mm256_srli_epi32(bit, 3), array, 1);
    __m256i mask = _mm256_sllv_epi32(one, _mm256_and_si256(bit, seven));
    answers[i] = _mm256_mask_testn_epi32_mask(probes, word, mask) == 0;
  }
}
#endif

// The memory floor of a filter of `bytes`: what its k = 6 probes per key cost with nothing else
// done, no hashing and no position arithmetic, the positions streaming from memory as keys do.
// Setting the bits is a build's floor, testing them a query's. The test is timed in three forms,
// the fastest kept: positions read as they come; with each key's prefetched 1 KB ahead, as the
// hardware prefetcher alone fell behind there (7.4 against 5.5 ns per key at 1M keys), as it did
// with our keys; and, where the CPU has AVX-512, prefetched and read by gathers
// (test_by_gathers). The set loop is left as it was: prefetching, or even reading the positions
// key by key, made it slower (6.4–7.0 against 5.7). Printed in the "ours" column, with leveldb's
// own time over it as the speedup column: the most any implementation of this format could gain
// over leveldb here that reads memory no faster (the query row against leveldb's 95%-present
// query, its fastest).
void memory_floor(const char *workload, size_t keys, size_t bytes, int reps, double leveldb_build,
                  double leveldb_query) {
  constexpr size_t kAhead = 1024 / sizeof(uint32_t);
  std::mt19937_64 rng(bytes);  // its own, so the workloads' keys stay as they were
  std::vector<uint32_t> bits(keys * kProbes);
  for (uint32_t &bit : bits) bit = static_cast<uint32_t>(rng() % (bytes * 8));
  std::vector<uint8_t> array(bytes + 3);  // 3 more for test_by_gathers' 4-byte reads
  for (uint8_t &byte : array) byte = static_cast<uint8_t>(rng());
  std::vector<uint8_t> answers(keys);
  double best_set = 1e300, best_test = 1e300;
  for (int rep = 0; rep < reps; rep++) {
    best_set = std::min(best_set, seconds([&] {
                          for (uint32_t bit : bits) array[bit >> 3] |= uint8_t(1) << (bit & 7);
                        }));
    for (bool prefetch : {false, true}) {
      best_test = std::min(best_test, seconds([&] {
                             for (size_t i = 0; i < keys; i++) {
                               if (prefetch) {
                                 size_t ahead = std::min(i * kProbes + kAhead, bits.size() - 1);
                                 __builtin_prefetch(&bits[ahead]);
                               }
                               unsigned all = 1;
                               for (size_t j = 0; j < kProbes; j++) {
                                 uint32_t bit = bits[i * kProbes + j];
                                 all &= array[bit >> 3] >> (bit & 7);
                               }
                               answers[i] = all & 1;
                             }
                           }));
    }
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
      best_test = std::min(best_test, seconds([&] {
                             test_by_gathers(bits.data(), keys, kAhead, array.data(),
                                             answers.data());
                           }));
#endif
  }
  // Read back, so that no timed loop's work is dead.
  static volatile unsigned sink;
  for (size_t i = 0; i < keys; i++) sink = sink + answers[i] + array[i % bytes];
  double ns_set = best_set * 1e9 / keys, ns_test = best_test * 1e9 / keys;
  printf("| %-22s | %-26s | %8s | %8.1f | %6.2fx |\n", workload, "floor: set 6 bits", "",
         ns_set, leveldb_build / ns_set);
  printf("| %-22s | %-26s | %8s | %8.1f | %6.2fx |\n", workload, "floor: test 6 bits", "",
         ns_test, leveldb_query / ns_test);
  fflush(stdout);
}

struct Sizes {
  size_t block_filters, big, huge;
  int reps;
};

// Builds `keys` into filters of `group` keys each, with leveldb and with us, then queries them.
// With `hot`, each filter's keys (and queries) are staged in a small hot buffer first (HotBlock);
// otherwise the whole key set is one timed call, keys streaming from memory.
void workload(const char *name, const KeySet &keys, size_t group, bool hot, int reps,
              std::mt19937_64 &rng) {
  std::unique_ptr<const leveldb::FilterPolicy> theirs(leveldb::NewBloomFilterPolicy(kBitsPerKey));
  leveldb_bloom_filterpolicy_t *ours = leveldb_bloom_filterpolicy_create_bloom(kBitsPerKey);
  // With leveldb's C API loaded, an object of leveldb's wrapping a policy of ours: not one of the
  // own names' objects, whose first word every policy of ours starts with.
  leveldb_filterpolicy_t *by_names = nullptr;
  if (g_leveldb_names) {
    by_names = leveldb_filterpolicy_create_bloom(kBitsPerKey);
    CHECK(by_names != nullptr && memcmp(by_names, ours, sizeof(void *)) != 0);
  }
  size_t filters = (keys.size() + group - 1) / group;
  auto range = [&](size_t f) {
    return std::make_pair(f * group, std::min(keys.size(), f * group + group));
  };
  // The filters a timed build covers: one when hot, all of them otherwise.
  size_t blocks = hot ? filters : 1;
  auto covered = [&](size_t b) {
    return hot ? std::make_pair(b, b + 1) : std::make_pair(size_t{0}, filters);
  };
  // The keys a timed query call covers: a block's when hot; otherwise one of kSlices slices of
  // the whole set, so that every side is timed a slice at a time in turn and a burst of noise
  // (milliseconds to seconds long on a shared host) falls on all of them alike.
  constexpr size_t kSlices = 64;
  size_t query_calls = hot ? filters : kSlices;
  auto span = [&](size_t b) {
    return hot ? range(b)
               : std::make_pair(b * keys.size() / kSlices, (b + 1) * keys.size() / kSlices);
  };
  // The filters that query call b's keys belong to, as [first, second).
  auto spanned = [&](size_t b) {
    return std::make_pair(span(b).first / group, (span(b).second + group - 1) / group);
  };
  // Filter f's keys that query call b covers.
  auto part = [&](size_t b, size_t f) {
    return std::make_pair(std::max(span(b).first, range(f).first),
                          std::min(span(b).second, range(f).second));
  };
  HotBlock block;
  // Key i of filter f, as the timed code sees it: in the hot buffer, or in the key set.
  const char *const *ptrs = nullptr;
  const size_t *lens = nullptr;
  const leveldb::Slice *slices = nullptr;
  auto stage_from = [&](const KeySet &from) {
    return [&, src = &from](size_t b) {
      const KeySet &from = *src;
      if (hot) {
        block.stage(from, range(b).first, range(b).second);
        // Shifted so that index i of the whole set lands on the staged copy of key i.
        ptrs = block.ptrs.data() - range(b).first;
        lens = block.lens.data() - range(b).first;
        slices = block.slices.data() - range(b).first;
      } else {
        ptrs = from.ptrs.data();
        lens = from.lens.data();
        slices = from.slices.data();
      }
    };
  };

  std::vector<std::string> their_filters(filters);
  std::vector<char *> our_filters(filters, nullptr), names_filters(filters, nullptr);
  std::vector<size_t> our_lens(filters, 0), names_lens(filters, 0);
  double leveldb_build = compare(
      name, "build", keys.size(), reps, blocks, stage_from(keys),
      [&](size_t b) {
        for (size_t f = covered(b).first; f < covered(b).second; f++) {
          auto [start, end] = range(f);
          their_filters[f].clear();
          theirs->CreateFilter(&slices[start], static_cast<int>(end - start), &their_filters[f]);
        }
      },
      [&](size_t b) {
        for (size_t f = covered(b).first; f < covered(b).second; f++) {
          auto [start, end] = range(f);
          leveldb_bloom_free(our_filters[f]);
          our_filters[f] = leveldb_bloom_filterpolicy_create_filter(
              ours, &ptrs[start], &lens[start], static_cast<int>(end - start), &our_lens[f]);
        }
      },
      [&](size_t b) {
        for (size_t f = covered(b).first; f < covered(b).second; f++) {
          auto [start, end] = range(f);
          leveldb_free(names_filters[f]);
          names_filters[f] = leveldb_filterpolicy_create_filter(
              by_names, &ptrs[start], &lens[start], static_cast<int>(end - start), &names_lens[f]);
        }
      },
      [&] {
        bool same = true;
        for (size_t f = 0; f < filters; f++) {
          same &= our_lens[f] == their_filters[f].size() &&
                  memcmp(our_filters[f], their_filters[f].data(), our_lens[f]) == 0;
          if (g_leveldb_names)
            same &= names_lens[f] == our_lens[f] &&
                    memcmp(names_filters[f], our_filters[f], our_lens[f]) == 0;
        }
        CHECK(same);
      });

  double leveldb_query = 0;  // at 95% present, the last
  for (int present_pct : {0, 50, 95}) {
    KeySet q = query_keys(keys, group, present_pct, rng);
    std::vector<uint8_t> their_answers(q.size()), our_answers(q.size()), names_answers(q.size());
    // Both query loops hold what stays fixed for a filter in locals, as a caller would: the
    // compiler must otherwise reload it through the captures after every call.
    auto leveldb_loop = [&](size_t b) {
      const leveldb::FilterPolicy *policy = theirs.get();
      const leveldb::Slice *keys = slices;
      uint8_t *answers = their_answers.data();
      for (size_t f = spanned(b).first; f < spanned(b).second; f++) {
        leveldb::Slice filter(their_filters[f]);
        auto [start, end] = part(b, f);
        for (size_t i = start; i < end; i++)
          answers[i] = policy->KeyMayMatch(keys[i], filter);
      }
    };
    auto same_answers = [&] {
      CHECK(their_answers == our_answers);
      std::fill(our_answers.begin(), our_answers.end(), 2);
      if (g_leveldb_names) {
        CHECK(names_answers == their_answers);
        std::fill(names_answers.begin(), names_answers.end(), 2);
      }
    };
    char op[64];
    snprintf(op, sizeof op, "query, %d%% present", present_pct);
    leveldb_query = compare(
        name, op, q.size(), reps, query_calls, stage_from(q), leveldb_loop,
        [&](size_t b) {
          const leveldb_bloom_filterpolicy_t *policy = ours;
          const char *const *keys = ptrs;
          const size_t *key_lens = lens;
          uint8_t *answers = our_answers.data();
          for (size_t f = spanned(b).first; f < spanned(b).second; f++) {
            const char *filter = our_filters[f];
            size_t filter_len = our_lens[f];
            auto [start, end] = part(b, f);
            for (size_t i = start; i < end; i++)
              answers[i] = leveldb_bloom_filterpolicy_key_may_match(policy, keys[i], key_lens[i],
                                                                    filter, filter_len);
          }
        },
        [&](size_t b) {
          const leveldb_filterpolicy_t *policy = by_names;
          const char *const *keys = ptrs;
          const size_t *key_lens = lens;
          uint8_t *answers = names_answers.data();
          for (size_t f = spanned(b).first; f < spanned(b).second; f++) {
            const char *filter = names_filters[f];
            size_t filter_len = names_lens[f];
            auto [start, end] = part(b, f);
            for (size_t i = start; i < end; i++)
              answers[i] = leveldb_filterpolicy_key_may_match(policy, keys[i], key_lens[i], filter,
                                                              filter_len);
          }
        },
        same_answers);
    snprintf(op, sizeof op, "batch query, %d%% present", present_pct);
    compare(
        name, op, q.size(), reps, query_calls, stage_from(q), leveldb_loop,
        [&](size_t b) {
          for (size_t f = spanned(b).first; f < spanned(b).second; f++) {
            auto [start, end] = part(b, f);
            leveldb_bloom_filterpolicy_key_may_match_batch(ours, &ptrs[start], &lens[start],
                                                           end - start, our_filters[f],
                                                           our_lens[f], &our_answers[start]);
          }
        },
        [&](size_t b) {
          for (size_t f = spanned(b).first; f < spanned(b).second; f++) {
            auto [start, end] = part(b, f);
            leveldb_filterpolicy_key_may_match_batch(by_names, &ptrs[start], &lens[start],
                                                     end - start, names_filters[f], names_lens[f],
                                                     &names_answers[start]);
          }
        },
        same_answers);
  }
  // One large filter: how close its rows come to what memory allows.
  if (!hot && !g_leveldb_names)
    memory_floor(name, keys.size(), their_filters[0].size() - 1, reps, leveldb_build,
                 leveldb_query);
  for (char *f : our_filters) leveldb_bloom_free(f);
  for (char *f : names_filters) leveldb_free(f);
  leveldb_bloom_filterpolicy_destroy(ours);
  if (by_names) leveldb_filterpolicy_destroy(by_names);
}

}  // namespace

// Whether the workload `name` runs: all of them, unless arguments not starting with "--" name
// some (block, small, 1M, 8M).
bool selected(int argc, char **argv, const char *name) {
  bool any = false;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--", 2) == 0) continue;
    if (strcmp(argv[i], name) == 0) return true;
    any = true;
  }
  return !any;
}

// How a child that did not pass ended, on standard error: its exit status or its signal.
static void report_failed_child(const std::string &isa, bool waited, int status) {
  if (!waited) {
    fprintf(stderr, "%s: waitpid: %s\n", isa.c_str(), strerror(errno));
  } else if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    const char *name = sigabbrev_np(sig);  // "SEGV"
#else
    const char *name = nullptr;
#endif
    fprintf(stderr, "%s: killed by signal %d (SIG%s: %s)\n", isa.c_str(), sig, name ? name : "?",
            strsignal(sig));
  } else if (WIFEXITED(status)) {
    fprintf(stderr, "%s: exit status %d\n", isa.c_str(), WEXITSTATUS(status));
  }
}

// --isa=all: this program once per path this CPU has, slowest first, each run with `--isa=all`
// replaced by `--isa=NAME` in a process of its own (the path is chosen once per process).
int run_every_path(int argc, char **argv) {
  // Asking the library fixes this process's path: the best, or the one LEVELDB_BLOOM_ISA caps.
  int best = isa_rank(leveldb_bloom_isa());
  int passed = 0, failed = 0;
  for (int rank = 0; rank <= best; rank++) {
    std::string isa = std::string("--isa=") + kIsaNames[rank];
    std::vector<char *> args(argv, argv + argc);
    for (char *&arg : args)
      if (strcmp(arg, "--isa=all") == 0) arg = &isa[0];
    args.push_back(nullptr);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child == 0) {
      // argv[0], not /proc/self/exe: under valgrind that names valgrind's tool, not this program.
      execvp(argv[0], args.data());
      fprintf(stderr, "vs_leveldb: cannot run %s: %s\n", argv[0], strerror(errno));
      _exit(127);
    }
    if (child < 0) {
      fprintf(stderr, "%s: fork: %s\n", isa.c_str(), strerror(errno));
      failed++;
      continue;
    }
    int status = 0;
    bool waited = waitpid(child, &status, 0) == child;
    bool ok = waited && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok) report_failed_child(isa, waited, status);
    ok ? passed++ : failed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

int main(int argc, char **argv) {
  bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--heap-keys") == 0) g_heap_keys = true;
    if (strcmp(argv[i], "--leveldb-names") == 0) g_leveldb_names = true;
    if (strcmp(argv[i], "--isa=all") == 0) return run_every_path(argc, argv);
    // Before anything calls the library, which reads it once.
    if (strncmp(argv[i], "--isa=", 6) == 0) {
      if (isa_rank(argv[i] + 6) < 0) {
        fprintf(stderr, "--isa takes portable, avx2, avx512 or all\n");
        return 2;
      }
      setenv("LEVELDB_BLOOM_ISA", argv[i] + 6, 1);
    }
    if (strncmp(argv[i], "--key-len=", 10) != 0) continue;
    char *end;
    unsigned long len = strtoul(argv[i] + 10, &end, 10);
    if (*end != '\0' || len < 1 || len > 1024) {
      fprintf(stderr, "--key-len takes 1 to 1024 bytes\n");
      return 2;
    }
    g_key_len = len;
  }
  Sizes sizes = smoke ? Sizes{20, 10000, 80000, 1} : Sizes{2000, 1000000, 8000000, 21};
  std::mt19937_64 rng(20240601);

  // Many runs: this machine's noise comes in bursts of seconds, and the best run must fall
  // outside them. The 8M workload's runs take seconds each.
  int huge_reps = smoke ? 1 : 5;
  g_timing_cost = timing_cost();
  char key_lens[32];
  if (g_key_len) snprintf(key_lens, sizeof key_lens, "%zu", g_key_len);
  else snprintf(key_lens, sizeof key_lens, "16-24");
  print_cpu();
  const char *requested = getenv("LEVELDB_BLOOM_ISA");
  printf("path: %s (LEVELDB_BLOOM_ISA=%s)\n", leveldb_bloom_isa(), requested ? requested : "");
  printf("bits/key %d; keys of %s bytes, %s; ns per key, best of %d interleaved runs (%d for 8M "
         "keys); leveldb 1.23 = system libleveldb; the cost of timing, %.1f ns per timed call, "
         "taken off both\n\n",
         kBitsPerKey, key_lens,
         g_heap_keys ? "each in its own std::string, allocated in random order" : "in one arena",
         sizes.reps, huge_reps, g_timing_cost * 1e9);
  if (g_leveldb_names)
    printf("leveldb's names: ours through leveldb_filterpolicy_*, the policy an object of "
           "leveldb's C API wrapping ours; names/own: its time over the own names'\n\n");
  printf("| %-22s | %-26s | %8s | %8s | %7s |", "workload", "operation", "leveldb", "ours",
         "speedup");
  if (g_leveldb_names) printf(" %8s | %9s |", "names", "names/own");
  printf("\n|%s|%s|%s|%s|%s|", std::string(24, '-').c_str(), std::string(28, '-').c_str(),
         std::string(10, '-').c_str(), std::string(10, '-').c_str(), std::string(9, '-').c_str());
  if (g_leveldb_names) printf("%s|%s|", std::string(10, '-').c_str(), std::string(11, '-').c_str());
  printf("\n");

  char name[64];
  if (selected(argc, argv, "block")) {
    snprintf(name, sizeof name, "%zu filters x %zu keys", sizes.block_filters, kBlockKeys);
    workload(name, random_keys(sizes.block_filters * kBlockKeys, rng), kBlockKeys, true,
             sizes.reps, rng);
  }
  if (selected(argc, argv, "small")) {
    std::mt19937_64 small_rng(kSmallBlockKeys);  // its own, so the other workloads' keys stay
    snprintf(name, sizeof name, "%zu filters x %zu keys", sizes.block_filters, kSmallBlockKeys);
    workload(name, random_keys(sizes.block_filters * kSmallBlockKeys, small_rng), kSmallBlockKeys,
             true, sizes.reps, small_rng);
  }
  if (selected(argc, argv, "1M")) {
    KeySet big = random_keys(sizes.big, rng);
    snprintf(name, sizeof name, "%zu keys", sizes.big);
    workload(name, big, big.size(), false, sizes.reps, rng);
  }
  if (selected(argc, argv, "8M")) {
    KeySet huge = random_keys(sizes.huge, rng);
    snprintf(name, sizeof name, "%zu keys", sizes.huge);
    workload(name, huge, huge.size(), false, huge_reps, rng);
  }
  printf("\n");
  return finish();
}
