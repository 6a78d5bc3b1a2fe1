/* Policies are shared between threads: 8 threads build and query through one policy at once, each
 * round a different key set, by single and batch queries, and every filter and answer equals the
 * single-threaded one, while another thread makes and destroys policies of its own. Run for the
 * bloom policy, then for a custom policy whose callbacks forward to it and count their calls with
 * atomics: the counts must add up.
 * With LEVELDB_LIB, leveldb's shared library is loaded first (dlopen, privately, as any program
 * linking leveldb has its C API): leveldb_filterpolicy_create_bloom and _create then give objects
 * of leveldb's wrapping this library's policies, every call finds the policy behind them, and the
 * other thread's policies are made and forgotten meanwhile.
 * Usage: test_threads [ROUNDS [LEVELDB_LIB]] (fewer rounds under valgrind, which runs threads one
 * at a time). */
#ifndef _WIN32 /* leveldb is loaded by dlopen on POSIX systems only (MinGW builds this too) */
#include <dlfcn.h>
#endif
#include <pthread.h>
#include <stdatomic.h>

#include "check.h"
#include "leveldb_bloom.h"

enum { THREADS = 8, SETS = 16, SET_STEP = 37, PROBES = 2000 };

static int rounds = 50;
static char key_bytes[PROBES][16];
static const char *key_ptrs[PROBES];
static size_t key_lens[PROBES];

/* Key set s is the first s * SET_STEP keys; its filter and answers, computed single-threaded. */
typedef struct {
  char *filter;
  size_t filter_len;
  uint8_t answers[PROBES];
} expected_t;

typedef struct {
  const leveldb_filterpolicy_t *policy;
  const expected_t *expected;
  int thread;
  int mismatches;
} job_t;

static void answers_for(const leveldb_filterpolicy_t *policy, const char *filter, size_t len, uint8_t *answers) {
  for (int i = 0; i < PROBES; i++)
    answers[i] = leveldb_filterpolicy_key_may_match(policy, key_ptrs[i], key_lens[i], filter, len);
}

static void *worker(void *arg) {
  job_t *job = arg;
  uint8_t answers[PROBES], batch[PROBES];
  for (int round = 0; round < rounds; round++) {
    /* Threads start on different sets and move at different strides. */
    int set = (job->thread + round * (1 + job->thread % 3)) % SETS;
    const expected_t *want = &job->expected[set];
    size_t len = 0;
    char *filter = leveldb_filterpolicy_create_filter(job->policy, key_ptrs, key_lens, set * SET_STEP, &len);
    if (filter == NULL || len != want->filter_len || memcmp(filter, want->filter, len) != 0) job->mismatches++;
    answers_for(job->policy, want->filter, want->filter_len, answers);
    if (memcmp(answers, want->answers, PROBES) != 0) job->mismatches++;
    leveldb_filterpolicy_key_may_match_batch(job->policy, key_ptrs, key_lens, PROBES, want->filter,
                                             want->filter_len, batch);
    if (memcmp(batch, want->answers, PROBES) != 0) job->mismatches++;
    leveldb_free(filter);
  }
  return NULL;
}

/* Makes and destroys policies until told to stop: with leveldb loaded, objects of leveldb's
 * that this library registers and forgets while the workers look theirs up. */
static atomic_int churning;

static void *churn(void *arg) {
  (void)arg;
  leveldb_filterpolicy_t *made[64];
  while (atomic_load(&churning)) {
    for (int i = 0; i < 64; i++) made[i] = leveldb_filterpolicy_create_bloom(i % 20);
    for (int i = 0; i < 64; i++) leveldb_filterpolicy_destroy(made[i]);
  }
  return NULL;
}

/* Runs THREADS workers on one policy, and the churn beside them, and checks the workers against
 * the single-threaded results. */
static void run_shared(const leveldb_filterpolicy_t *policy) {
  static expected_t expected[SETS];
  for (int set = 0; set < SETS; set++) {
    expected[set].filter =
        leveldb_filterpolicy_create_filter(policy, key_ptrs, key_lens, set * SET_STEP, &expected[set].filter_len);
    CHECK(expected[set].filter != NULL);
    answers_for(policy, expected[set].filter, expected[set].filter_len, expected[set].answers);
  }
  job_t jobs[THREADS];
  pthread_t threads[THREADS], churner;
  atomic_store(&churning, 1);
  CHECK(pthread_create(&churner, NULL, churn, NULL) == 0);
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (job_t){policy, expected, t, 0};
    CHECK(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) {
    CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(jobs[t].mismatches == 0);
  }
  atomic_store(&churning, 0);
  CHECK(pthread_join(churner, NULL) == 0);
  for (int set = 0; set < SETS; set++) leveldb_free(expected[set].filter);
}

/* A custom policy forwarding to a bloom policy, counting its calls: thread-safe, as required. */
typedef struct {
  const leveldb_filterpolicy_t *inner;
  atomic_ulong creates, matches;
} counting_t;

static char *forward_create(void *state, const char *const *keys, const size_t *lens, int n, size_t *len) {
  counting_t *c = state;
  atomic_fetch_add(&c->creates, 1);
  return leveldb_filterpolicy_create_filter(c->inner, keys, lens, n, len);
}
static uint8_t forward_match(void *state, const char *key, size_t length, const char *filter, size_t filter_length) {
  counting_t *c = state;
  atomic_fetch_add(&c->matches, 1);
  return leveldb_filterpolicy_key_may_match(c->inner, key, length, filter, filter_length);
}
static const char *forward_name(void *state) { return leveldb_filterpolicy_name(((counting_t *)state)->inner); }

int main(int argc, char **argv) {
  if (argc > 1) rounds = atoi(argv[1]);
  void *leveldb = NULL;
#ifdef _WIN32
  if (argc > 2) {
    fprintf(stderr, "LEVELDB_LIB: loading leveldb is not supported on Windows\n");
    return 2;
  }
#else
  if (argc > 2 && (leveldb = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL)) == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
#endif
  for (int i = 0; i < PROBES; i++) {
    /* Lengths 5..12, so every hash tail length occurs. */
    key_lens[i] = (size_t)snprintf(key_bytes[i], sizeof key_bytes[i], "k%d-%.*s", i * 7919, i % 5, "abcde");
    key_ptrs[i] = key_bytes[i];
  }
  leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
  /* With leveldb loaded, an object of leveldb's: it starts with another word than this library's
   * own policies. */
  leveldb_bloom_filterpolicy_t *own = leveldb_bloom_filterpolicy_create_bloom(10);
  CHECK((memcmp(bloom, own, sizeof(void *)) != 0) == (leveldb != NULL));
  leveldb_bloom_filterpolicy_destroy(own);
  run_shared(bloom);

  /* The custom policy's callbacks use the bloom policy while other threads may too. */
  counting_t counting = {bloom, 0, 0};
  leveldb_filterpolicy_t *custom = leveldb_filterpolicy_create(&counting, NULL, forward_create, forward_match, forward_name);
  run_shared(custom);
  /* Every call reached the callbacks exactly once: SETS + THREADS * rounds builds, one single
   * query per probe for each, and one batch query of every probe for each of the workers'. */
  unsigned long worker_rounds = (unsigned long)THREADS * (unsigned long)rounds;
  CHECK(atomic_load(&counting.creates) == SETS + worker_rounds);
  CHECK(atomic_load(&counting.matches) == (SETS + 2 * worker_rounds) * PROBES);
  leveldb_filterpolicy_destroy(custom);
  leveldb_filterpolicy_destroy(bloom);
  printf("%d threads x %d rounds on each policy%s\n", THREADS, rounds,
         leveldb ? ", leveldb's objects wrapping them" : "");
#ifndef _WIN32
  if (leveldb) dlclose(leveldb);
#endif
  return finish();
}
