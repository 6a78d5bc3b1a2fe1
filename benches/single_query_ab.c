// Single-key queries (leveldb_filterpolicy_key_may_match) of two or more builds of
// libleveldb_bloom in one process, for changes too small for benches/vs_leveldb.cc to tell apart
// from its run-to-run noise (about 0.3 ns per query at 1M keys; here two builds of the same code
// come out within 0.1 ns of each other). With --batch, batch queries instead
// (leveldb_filterpolicy_key_may_match_batch), one call per chunk.
//
// Each build is loaded with dlopen; all query the one filter the first built, with the same keys:
// 95% present, 16 to 24 bytes as the benchmark's (or all of --key-len bytes). The queries go in
// chunks of 1024 (or --chunk N) whose keys are first copied into one buffer (untimed), as a
// caller holds the key it asks about, and the builds take turns chunk by chunk, the first
// alternating. Best of 7 runs, in ns per query. The absolute level moves from one process to the
// next; compare the builds of one run.
//
// With --stream, the queries' keys lie end to end in one arena in query order and are read where
// they lie, as the benchmark's 1M and 8M rows read them, and each chunk is timed with one build
// only (the builds taking turns), so that no build finds keys in cache that another just read;
// every build then answers every query once more, untimed, for the check. Hot keys can mislead
// about a filter past the L2: a hash without branches on the key's length took 1M-key queries
// from 10.8-10.9 to 10.2 ns with hot keys, and streaming from 11.3-11.5 to 11.2-11.6, no gain,
// as the benchmark's 1M rows showed (docs/PERFORMANCE.md, Past the caches: what limits single
// queries).
//
//   cargo rustc --release --lib --crate-type cdylib
//   cp target/release/libleveldb_bloom.so /tmp/a.so   (then change, and build again)
//   cc -O2 -Iinclude benches/single_query_ab.c -o /tmp/single_query_ab -ldl
//   /tmp/single_query_ab [--keys N] [--queries Q] [--key-len L] [--stream] [--batch]
//                        [--chunk N] [--isa NAME] a.so b.so...
//   (a.so the copy above, b.so target/release/libleveldb_bloom.so)
// As the benchmark's 1M-key batch query row (one call of 1M keys streaming from memory):
//   /tmp/single_query_ab --stream --batch --chunk 1000000 a.so b.so
// The CPU and each build's path head the output. --isa NAME sets LEVELDB_BLOOM_ISA before any
// build is loaded, so every build runs that path (or the best below it); every path in turn:
//   for isa in portable avx2 avx512; do /tmp/single_query_ab --isa $isa a.so b.so; done
//
// Also a test program (test-support/src/c_harness.rs): every build's answers must be the same.
#include <dlfcn.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_context.h"
#include "leveldb_bloom.h"

// The header's own signatures, for the functions looked up in each build (nothing is linked).
typedef __typeof__(&leveldb_filterpolicy_create_bloom) create_fn;
typedef __typeof__(&leveldb_filterpolicy_create_filter) filter_fn;
typedef __typeof__(&leveldb_filterpolicy_key_may_match) match_fn;
typedef __typeof__(&leveldb_filterpolicy_key_may_match_batch) batch_fn;
typedef __typeof__(&leveldb_filterpolicy_destroy) destroy_fn;
typedef __typeof__(&leveldb_bloom_isa) isa_fn;

enum { kMaxBuilds = 8, kMaxKeyLen = 64, kRuns = 7 };

static uint64_t g_rng = 88172645463325252ull;
static uint64_t next_random(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

// --key-len, or SIZE_MAX for 16..24 bytes.
static size_t g_key_len = SIZE_MAX;

// A fresh random key of g_key_len bytes, or 16..24, written at `at`; returns its length.
static size_t random_key(char *at) {
  size_t len = g_key_len != SIZE_MAX ? g_key_len : 16 + next_random() % 9;
  for (size_t j = 0; j < len; j++) at[j] = (char)next_random();
  return len;
}

// One build's query functions.
typedef struct {
  match_fn match;
  batch_fn batch;  // used with --batch
} query_fns;

// --batch
static int g_batch = 0;

// Queries keys[i] (lens[i] bytes), i < n, with one build, answer i to out[i]: one call per key,
// or with --batch one call for all n.
static void answer(query_fns fns, const leveldb_filterpolicy_t *policy, const char *const *keys,
                   const size_t *lens, size_t n, const char *filter, size_t filter_len,
                   unsigned char *out) {
  if (g_batch) {
    fns.batch(policy, keys, lens, n, filter, filter_len, out);
    return;
  }
  for (size_t i = 0; i < n; i++) out[i] = fns.match(policy, keys[i], lens[i], filter, filter_len);
}

static void *need(void *p) {
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

int main(int argc, char **argv) {
  size_t num_keys = 1000000, num_queries = 2000000, key_len = SIZE_MAX, chunk = 1024;
  int stream = 0;
  int first_lib = 1;
  while (first_lib + 1 < argc && argv[first_lib][0] == '-') {
    if (!strcmp(argv[first_lib], "--stream")) {
      stream = 1;
      first_lib += 1;
      continue;
    }
    if (!strcmp(argv[first_lib], "--batch")) {
      g_batch = 1;
      first_lib += 1;
      continue;
    }
    if (!strcmp(argv[first_lib], "--keys")) num_keys = strtoull(argv[first_lib + 1], NULL, 10);
    else if (!strcmp(argv[first_lib], "--queries"))
      num_queries = strtoull(argv[first_lib + 1], NULL, 10);
    else if (!strcmp(argv[first_lib], "--key-len"))
      key_len = strtoull(argv[first_lib + 1], NULL, 10);
    else if (!strcmp(argv[first_lib], "--chunk"))
      chunk = strtoull(argv[first_lib + 1], NULL, 10);
    else if (!strcmp(argv[first_lib], "--isa") && isa_rank(argv[first_lib + 1]) >= 0)
      setenv("LEVELDB_BLOOM_ISA", argv[first_lib + 1], 1);
    else break;
    first_lib += 2;
  }
  int builds = argc - first_lib;
  if (builds < 1 || builds > kMaxBuilds || num_keys == 0 || num_keys > INT_MAX || chunk == 0 ||
      chunk > num_queries / (stream ? builds : 1) ||
      (key_len != SIZE_MAX && key_len > kMaxKeyLen)) {
    fprintf(stderr,
            "usage: %s [--keys 1..INT_MAX] [--queries Q >= the chunk, times the builds with "
            "--stream] [--key-len 0..%d] [--stream] [--batch] [--chunk N >= 1, 1024 unless "
            "given] lib.so... (1 to %d)\n",
            argv[0], kMaxKeyLen, kMaxBuilds);
    return 2;
  }
  num_queries -= num_queries % chunk;
  g_key_len = key_len;

  // Members, then queries: a member (95%) or a fresh key, all in one arena.
  char *arena = need(malloc((num_keys + num_queries) * kMaxKeyLen));
  const char **keys = need(malloc(num_keys * sizeof *keys));
  size_t *lens = need(malloc(num_keys * sizeof *lens));
  const char **queries = need(malloc(num_queries * sizeof *queries));
  size_t *query_lens = need(malloc(num_queries * sizeof *query_lens));
  size_t used = 0;
  for (size_t i = 0; i < num_keys; i++) {
    keys[i] = arena + used;
    lens[i] = random_key(arena + used);
    used += lens[i];
  }
  for (size_t i = 0; i < num_queries; i++) {
    if (next_random() % 100 < 95) {
      size_t member = next_random() % num_keys;
      queries[i] = keys[member];
      query_lens[i] = lens[member];
    } else {
      queries[i] = arena + used;
      query_lens[i] = random_key(arena + used);
      used += query_lens[i];
    }
  }

  // With --stream, the queries' keys end to end in query order, where they are read.
  char *query_arena = NULL;
  if (stream) {
    query_arena = need(malloc(num_queries * kMaxKeyLen));
    used = 0;
    for (size_t i = 0; i < num_queries; i++) {
      memcpy(query_arena + used, queries[i], query_lens[i]);
      queries[i] = query_arena + used;
      used += query_lens[i];
    }
  }

  void *handles[kMaxBuilds];
  leveldb_filterpolicy_t *policies[kMaxBuilds];
  query_fns fns[kMaxBuilds];
  destroy_fn destroy[kMaxBuilds];
  char *filter = NULL;
  size_t filter_len = 0;
  print_cpu();
  for (int b = 0; b < builds; b++) {
    handles[b] = dlopen(argv[first_lib + b], RTLD_NOW | RTLD_LOCAL);
    if (!handles[b]) {
      fprintf(stderr, "%s\n", dlerror());
      return 2;
    }
    isa_fn isa = (isa_fn)dlsym(handles[b], "leveldb_bloom_isa");
    printf("path: %s (%s)\n", isa ? isa() : "? (no leveldb_bloom_isa)", argv[first_lib + b]);
    create_fn create = (create_fn)dlsym(handles[b], "leveldb_filterpolicy_create_bloom");
    fns[b].match = (match_fn)dlsym(handles[b], "leveldb_filterpolicy_key_may_match");
    fns[b].batch = (batch_fn)dlsym(handles[b], "leveldb_filterpolicy_key_may_match_batch");
    destroy[b] = (destroy_fn)dlsym(handles[b], "leveldb_filterpolicy_destroy");
    if (!create || !fns[b].match || !fns[b].batch || !destroy[b]) {
      fprintf(stderr, "%s: not a leveldb-bloom library\n", argv[first_lib + b]);
      return 2;
    }
    policies[b] = need(create(10));
    if (b == 0) {
      filter_fn create_filter = (filter_fn)dlsym(handles[b], "leveldb_filterpolicy_create_filter");
      filter = need(create_filter(policies[b], keys, lens, (int)num_keys, &filter_len));
    }
  }

  char *hot = need(malloc(chunk * kMaxKeyLen));
  const char **hot_keys = need(malloc(chunk * sizeof *hot_keys));
  size_t *hot_lens = need(malloc(chunk * sizeof *hot_lens));
  unsigned char *answers = need(malloc(num_queries * builds));
  double best[kMaxBuilds];  // ns per query
  for (int b = 0; b < builds; b++) best[b] = 1e300;
  for (int run = 0; run < kRuns; run++) {
    double total[kMaxBuilds] = {0};
    size_t timed[kMaxBuilds] = {0};  // queries each build answered in this run
    for (size_t start = 0; start < num_queries; start += chunk) {
      if (stream) {
        int b = (int)((start / chunk + run) % builds);
        double t0 = now_ns();
        answer(fns[b], policies[b], queries + start, query_lens + start, chunk, filter,
               filter_len, answers + b * num_queries + start);
        total[b] += now_ns() - t0;
        timed[b] += chunk;
        continue;
      }
      size_t at = 0;
      for (size_t i = 0; i < chunk; i++) {
        memcpy(hot + at, queries[start + i], query_lens[start + i]);
        hot_keys[i] = hot + at;
        hot_lens[i] = query_lens[start + i];
        at += hot_lens[i];
      }
      for (int turn = 0; turn < builds; turn++) {
        int b = (int)((turn + start / chunk + run) % builds);
        double t0 = now_ns();
        answer(fns[b], policies[b], hot_keys, hot_lens, chunk, filter, filter_len,
               answers + b * num_queries + start);
        total[b] += now_ns() - t0;
        timed[b] += chunk;
      }
    }
    for (int b = 0; b < builds; b++)
      if (total[b] / timed[b] < best[b]) best[b] = total[b] / timed[b];
  }
  // Streaming, each build answered only its chunks: now all of them, untimed, for the check.
  if (stream) {
    for (int b = 0; b < builds; b++)
      answer(fns[b], policies[b], queries, query_lens, num_queries, filter, filter_len,
             answers + b * num_queries);
  }
  int failed = 0;
  for (int b = 1; b < builds; b++) {
    if (memcmp(answers, answers + b * num_queries, num_queries)) {
      fprintf(stderr, "%s answers differently from %s\n", argv[first_lib + b], argv[first_lib]);
      failed = 1;
    }
  }
  for (int b = 0; b < builds; b++)
    printf("%s: %.2f ns per query\n", argv[first_lib + b], best[b]);
  printf("%d passed, %d failed\n", !failed, failed);
  free(filter);  // malloc'ed by the first build (leveldb_free is free)
  for (int b = 0; b < builds; b++) {
    destroy[b](policies[b]);
    dlclose(handles[b]);
  }
  free(answers);
  free(hot_lens);
  free(hot_keys);
  free(hot);
  free(query_lens);
  free(queries);
  free(lens);
  free(keys);
  free(query_arena);
  free(arena);
  return failed;
}
