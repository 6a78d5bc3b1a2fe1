/* leveldb_filterpolicy_key_may_match_batch: on every reference vector made by leveldb 1.23 its
 * answers are leveldb's and equal the single-key export's; every bad-input rule of its header
 * comment holds; a custom policy's callback answers each key.
 * Usage: test_batch VECTORS_DIR [build.txt | match.txt] (without a file, both) */
#include <stdint.h>

#include "leveldb_bloom.h"
#include "vectors.h"

#define UNTOUCHED 0x55

/* One batch call over the record's probes: leveldb's answers, and the single export's. */
static int batch_matches(const leveldb_filterpolicy_t *policy, const vector_reader_t *r,
                         const char *filter, size_t filter_len) {
  size_t n = r->probes.count;
  uint8_t *results = xmalloc(n);
  memset(results, UNTOUCHED, n);
  leveldb_filterpolicy_key_may_match_batch(policy, r->probes.ptrs, r->probes.lens, n, filter,
                                           filter_len, results);
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    uint8_t single = leveldb_filterpolicy_key_may_match(policy, r->probes.ptrs[i],
                                                        r->probes.lens[i], filter, filter_len);
    ok &= results[i] == (uint8_t)(r->answers[i] - '0') && results[i] == single;
  }
  free(results);
  return ok;
}

static void check_vectors(const char *dir, const char *name) {
  vector_reader_t r;
  vector_open(&r, dir, name);
  unsigned long records = 0;
  for (record_kind_t kind; (kind = vector_next(&r)) != RECORD_END; records++) {
    leveldb_filterpolicy_t *policy =
        leveldb_filterpolicy_create_bloom(kind == RECORD_FILTER ? r.bits_per_key : 10);
    CHECK(policy != NULL);
    CHECK(batch_matches(policy, &r, r.filter.data, r.filter.len));
    leveldb_filterpolicy_destroy(policy);
  }
  printf("%s: %lu records\n", name, records);
  CHECK(records > 0);
}

static int all_equal(const uint8_t *results, size_t n, uint8_t value) {
  for (size_t i = 0; i < n; i++)
    if (results[i] != value) return 0;
  return 1;
}

static void check_bad_input(void) {
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  const char *members[] = {"apple", "banana", "cherry"};
  size_t member_lens[] = {5, 6, 6};
  size_t filter_len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, members, member_lens, 3, &filter_len);
  CHECK(filter != NULL);

  /* Probes: a member, a non-member (0 for this filter), a NULL key with bytes, the empty key
   * given as NULL with length 0. */
  const char *keys[] = {"banana", "not-a-member-key", NULL, NULL};
  size_t lens[] = {6, 16, 3, 0};
  uint8_t want[4];
  for (int i = 0; i < 4; i++)
    want[i] = leveldb_filterpolicy_key_may_match(policy, keys[i], lens[i], filter, filter_len);
  CHECK(want[0] == 1 && want[1] == 0 && want[2] == 1);

  uint8_t results[4];
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 4, filter, filter_len, results);
  CHECK(memcmp(results, want, sizeof want) == 0);

  /* NULL policy; NULL keys or key_lengths; NULL filter with bytes: all 1. */
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(NULL, keys, lens, 4, filter, filter_len, results);
  CHECK(all_equal(results, 4, 1));
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, NULL, lens, 4, filter, filter_len, results);
  CHECK(all_equal(results, 4, 1));
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, NULL, 4, filter, filter_len, results);
  CHECK(all_equal(results, 4, 1));
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 4, NULL, filter_len, results);
  CHECK(all_equal(results, 4, 1));

  /* NULL filter with length 0 is the empty filter: leveldb answers 0 for every key. */
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 2, NULL, 0, results);
  CHECK(results[0] == 0 && results[1] == 0 && results[2] == UNTOUCHED);

  /* Filters that answer every key alike (empty, 1 byte, a reserved k): still 1 for the NULL key
   * with bytes, as the single-key export answers. */
  const char *framings[] = {NULL, "\x06", "\x01\x02\x1f"};
  size_t framing_lens[] = {0, 1, 3};
  for (int f = 0; f < 3; f++) {
    for (int i = 0; i < 4; i++)
      want[i] = leveldb_filterpolicy_key_may_match(policy, keys[i], lens[i], framings[f],
                                                   framing_lens[f]);
    CHECK(want[2] == 1);
    memset(results, UNTOUCHED, sizeof results);
    leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 4, framings[f],
                                             framing_lens[f], results);
    CHECK(memcmp(results, want, sizeof want) == 0);
  }

  /* NULL results, zero keys, or more keys than any array holds: nothing written, no crash. */
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 4, filter, filter_len, NULL);
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 0, filter, filter_len, results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, SIZE_MAX, filter, filter_len,
                                           results);
  CHECK(all_equal(results, 4, UNTOUCHED));

  leveldb_free(filter);
  leveldb_filterpolicy_destroy(policy);
}

/* A custom policy: "may match" iff the key's first byte is in the filter; counts its calls. */
static unsigned long custom_calls;

static char *custom_create(void *state, const char *const *key_array,
                           const size_t *key_length_array, int num_keys, size_t *filter_length) {
  (void)state, (void)key_array, (void)key_length_array, (void)num_keys, (void)filter_length;
  return NULL;
}

static uint8_t custom_match(void *state, const char *key, size_t length, const char *filter,
                            size_t filter_length) {
  (void)state;
  custom_calls++;
  /* Nonzero answers other than 1 are normalised to 1 by the library. */
  return length > 0 && memchr(filter, key[0], filter_length) != NULL ? 7 : 0;
}

static const char *custom_name(void *state) {
  (void)state;
  return "custom";
}

static void check_custom_policy(void) {
  leveldb_filterpolicy_t *policy =
      leveldb_filterpolicy_create(NULL, NULL, custom_create, custom_match, custom_name);
  CHECK(policy != NULL);
  const char *keys[] = {"apple", "kiwi", NULL, "", "melon"};
  size_t lens[] = {5, 4, 2, 0, 5};
  uint8_t results[5];
  memset(results, UNTOUCHED, sizeof results);
  custom_calls = 0;
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 5, "am", 2, results);
  /* The NULL key with bytes is answered 1 without calling back, as the single-key export does. */
  CHECK(custom_calls == 4);
  CHECK(results[0] == 1 && results[1] == 0 && results[2] == 1 && results[3] == 0 &&
        results[4] == 1);

  /* A NULL filter with bytes: all 1, and no callback sees it. */
  custom_calls = 0;
  memset(results, UNTOUCHED, sizeof results);
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lens, 5, NULL, 2, results);
  CHECK(custom_calls == 0 && all_equal(results, 5, 1));
  leveldb_filterpolicy_destroy(policy);
}

int main(int argc, char **argv) {
  if (vector_file_wanted(argc, argv, "build.txt")) check_vectors(argv[1], "build.txt");
  if (vector_file_wanted(argc, argv, "match.txt")) check_vectors(argv[1], "match.txt");
  check_bad_input();
  check_custom_policy();
  return finish();
}
