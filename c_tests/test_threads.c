/* Policies are shared between threads: several threads build and query through one bloom policy
 * and one custom policy at once, and every result equals the single-threaded one. */
#include <pthread.h>

#include "check.h"
#include "leveldb_bloom.h"

enum { THREADS = 8, ROUNDS = 50, NUM_KEYS = 500, PROBES = 2000 };

static char key_bytes[PROBES][16];
static const char *key_ptrs[PROBES];
static size_t key_lens[PROBES];

typedef struct {
  const leveldb_filterpolicy_t *policy;
  const char *filter; /* the single-threaded filter */
  size_t filter_len;
  const uint8_t *answers; /* the single-threaded answers */
  int mismatches;
} job_t;

static uint8_t *answers_for(const leveldb_filterpolicy_t *policy, const char *filter, size_t len) {
  uint8_t *answers = xmalloc(PROBES);
  for (int i = 0; i < PROBES; i++)
    answers[i] = leveldb_filterpolicy_key_may_match(policy, key_ptrs[i], key_lens[i], filter, len);
  return answers;
}

static void *worker(void *arg) {
  job_t *job = arg;
  for (int round = 0; round < ROUNDS; round++) {
    size_t len = 0;
    char *filter = leveldb_filterpolicy_create_filter(job->policy, key_ptrs, key_lens, NUM_KEYS, &len);
    if (filter == NULL || len != job->filter_len || memcmp(filter, job->filter, len) != 0) job->mismatches++;
    uint8_t *answers = answers_for(job->policy, job->filter, job->filter_len);
    if (memcmp(answers, job->answers, PROBES) != 0) job->mismatches++;
    free(answers);
    free(filter);
  }
  return NULL;
}

/* A custom policy that forwards to a bloom policy: callbacks must be thread-safe, as these are. */
static char *forward_create(void *state, const char *const *keys, const size_t *lens, int n, size_t *len) {
  return leveldb_filterpolicy_create_filter(state, keys, lens, n, len);
}
static uint8_t forward_match(void *state, const char *key, size_t length, const char *filter, size_t filter_length) {
  return leveldb_filterpolicy_key_may_match(state, key, length, filter, filter_length);
}
static const char *forward_name(void *state) { return leveldb_filterpolicy_name(state); }

static void run_shared(const leveldb_filterpolicy_t *policy) {
  size_t len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, key_ptrs, key_lens, NUM_KEYS, &len);
  CHECK(filter != NULL);
  uint8_t *answers = answers_for(policy, filter, len);
  job_t jobs[THREADS];
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) {
    jobs[t] = (job_t){policy, filter, len, answers, 0};
    CHECK(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
  }
  for (int t = 0; t < THREADS; t++) {
    CHECK(pthread_join(threads[t], NULL) == 0);
    CHECK(jobs[t].mismatches == 0);
  }
  free(answers);
  leveldb_free(filter);
}

int main(void) {
  for (int i = 0; i < PROBES; i++) {
    key_lens[i] = (size_t)snprintf(key_bytes[i], sizeof key_bytes[i], "key-%d", i * 7919);
    key_ptrs[i] = key_bytes[i];
  }
  leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
  run_shared(bloom);
  leveldb_filterpolicy_t *custom = leveldb_filterpolicy_create(bloom, NULL, forward_create, forward_match, forward_name);
  run_shared(custom);
  leveldb_filterpolicy_destroy(custom);
  leveldb_filterpolicy_destroy(bloom);
  return finish();
}
