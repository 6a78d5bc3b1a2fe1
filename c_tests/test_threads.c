/* Policies are shared between threads: 8 threads build and query through one policy at once, each
 * round a different key set, and every filter and answer equals the single-threaded one. Run for
 * the bloom policy, then for a custom policy whose callbacks forward to it and count their calls
 * with atomics: the counts must add up.
 * Usage: test_threads [ROUNDS] (fewer under valgrind, which runs threads one at a time). */
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
  uint8_t answers[PROBES];
  for (int round = 0; round < rounds; round++) {
    /* Threads start on different sets and move at different strides. */
    int set = (job->thread + round * (1 + job->thread % 3)) % SETS;
    const expected_t *want = &job->expected[set];
    size_t len = 0;
    char *filter = leveldb_filterpolicy_create_filter(job->policy, key_ptrs, key_lens, set * SET_STEP, &len);
    if (filter == NULL || len != want->filter_len || memcmp(filter, want->filter, len) != 0) job->mismatches++;
    answers_for(job->policy, want->filter, want->filter_len, answers);
    if (memcmp(answers, want->answers, PROBES) != 0) job->mismatches++;
    leveldb_free(filter);
  }
  return NULL;
}

/* Runs THREADS workers on one policy and checks them against the single-threaded results. */
static void run_shared(const leveldb_filterpolicy_t *policy) {
  static expected_t expected[SETS];
  for (int set = 0; set < SETS; set++) {
    expected[set].filter =
        leveldb_filterpolicy_create_filter(policy, key_ptrs, key_lens, set * SET_STEP, &expected[set].filter_len);
    CHECK(expected[set].filter != NULL);
    answers_for(policy, expected[set].filter, expected[set].filter_len, expected[set].answers);
  }
  job_t jobs[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (job_t){policy, expected, t, 0};
    CHECK(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) {
    CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(jobs[t].mismatches == 0);
  }
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
  for (int i = 0; i < PROBES; i++) {
    /* Lengths 5..12, so every hash tail length occurs. */
    key_lens[i] = (size_t)snprintf(key_bytes[i], sizeof key_bytes[i], "k%d-%.*s", i * 7919, i % 5, "abcde");
    key_ptrs[i] = key_bytes[i];
  }
  leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
  run_shared(bloom);

  /* The custom policy's callbacks use the bloom policy while other threads may too. */
  counting_t counting = {bloom, 0, 0};
  leveldb_filterpolicy_t *custom = leveldb_filterpolicy_create(&counting, NULL, forward_create, forward_match, forward_name);
  run_shared(custom);
  /* Every call reached the callbacks exactly once: SETS + THREADS * rounds builds, one query per
   * probe for each. */
  unsigned long builds = SETS + (unsigned long)THREADS * (unsigned long)rounds;
  CHECK(atomic_load(&counting.creates) == builds);
  CHECK(atomic_load(&counting.matches) == builds * PROBES);
  leveldb_filterpolicy_destroy(custom);
  leveldb_filterpolicy_destroy(bloom);
  printf("%d threads x %d rounds on each policy\n", THREADS, rounds);
  return finish();
}
