/* Every row of the bad-input table (README, header): each call gets its documented result and
 * nothing crashes. Expected filter bytes come from leveldb itself: the reference vectors, or
 * the same call with well-formed arguments, which test_vectors.c checks against leveldb. */
#include <limits.h>
#include <stdint.h>

#include "check.h"
#include "leveldb_bloom.h"

static const char *const KEYS[] = {"alpha", "beta", "gamma"};
static const size_t LENGTHS[] = {5, 4, 5};

static int same_filter(const char *a, size_t a_len, const char *b, size_t b_len) {
  return a != NULL && b != NULL && a_len == b_len && memcmp(a, b, a_len) == 0;
}

static void create_bloom_rows(void) {
  CHECK(leveldb_filterpolicy_create_bloom(-1) == NULL);
  CHECK(leveldb_filterpolicy_create_bloom(INT_MIN) == NULL);

  /* 0 bits per key: a policy, k = 1, the 64-bit minimum (leveldb's clamp and minimum). */
  leveldb_filterpolicy_t *zero = leveldb_filterpolicy_create_bloom(0);
  CHECK(zero != NULL);
  size_t len = 0;
  char *filter = leveldb_filterpolicy_create_filter(zero, KEYS, LENGTHS, 3, &len);
  CHECK(filter != NULL && len == 9 && filter[8] == 1);
  for (int i = 0; i < 3; i++) CHECK(leveldb_filterpolicy_key_may_match(zero, KEYS[i], LENGTHS[i], filter, len) == 1);
  leveldb_free(filter);
  leveldb_filterpolicy_destroy(zero);

  /* INT_MAX bits per key: a policy, k = 30; one key needs INT_MAX bits (256 MiB). */
  leveldb_filterpolicy_t *huge = leveldb_filterpolicy_create_bloom(INT_MAX);
  CHECK(huge != NULL);
  filter = leveldb_filterpolicy_create_filter(huge, KEYS, LENGTHS, 1, &len);
  CHECK(filter != NULL && len == ((size_t)INT_MAX + 7) / 8 + 1 && filter[len - 1] == 30);
  if (filter != NULL) CHECK(leveldb_filterpolicy_key_may_match(huge, KEYS[0], LENGTHS[0], filter, len) == 1);
  leveldb_free(filter);
  leveldb_filterpolicy_destroy(huge);
}

static void create_filter_rows(const leveldb_filterpolicy_t *policy) {
  size_t len = 12345;
  CHECK(leveldb_filterpolicy_create_filter(NULL, KEYS, LENGTHS, 3, &len) == NULL && len == 0);
  CHECK(leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, NULL) == NULL);
  len = 12345;
  CHECK(leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, -1, &len) == NULL && len == 0);
  CHECK(leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, INT_MIN, &len) == NULL);
  CHECK(leveldb_filterpolicy_create_filter(policy, NULL, LENGTHS, 3, &len) == NULL && len == 0);
  CHECK(leveldb_filterpolicy_create_filter(policy, KEYS, NULL, 3, &len) == NULL && len == 0);
  const char *null_key[] = {"alpha", NULL};
  const size_t null_key_len[] = {5, 1};
  CHECK(leveldb_filterpolicy_create_filter(policy, null_key, null_key_len, 2, &len) == NULL && len == 0);

  /* No keys: NULL arrays are fine, and the filter is the one for zero keys. */
  size_t empty_len = 0, zero_keys_len = 0;
  char *from_null = leveldb_filterpolicy_create_filter(policy, NULL, NULL, 0, &empty_len);
  char *zero_keys = leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 0, &zero_keys_len);
  CHECK(same_filter(from_null, empty_len, zero_keys, zero_keys_len));
  leveldb_free(from_null);
  leveldb_free(zero_keys);

  /* A NULL key with length 0 is the empty key. */
  const char *with_null[] = {"alpha", NULL};
  const char *with_empty[] = {"alpha", ""};
  const size_t lengths[] = {5, 0};
  size_t a_len = 0, b_len = 0;
  char *a = leveldb_filterpolicy_create_filter(policy, with_null, lengths, 2, &a_len);
  char *b = leveldb_filterpolicy_create_filter(policy, with_empty, lengths, 2, &b_len);
  CHECK(same_filter(a, a_len, b, b_len));
  if (a != NULL) CHECK(leveldb_filterpolicy_key_may_match(policy, "", 0, a, a_len) == 1);
  leveldb_free(a);
  leveldb_free(b);
}

/* 2^20 keys at INT_MAX bits per key is a 256 TiB filter: NULL, never an abort. */
static void too_large_to_allocate(void) {
  enum { N = 1 << 20 };
  const char **keys = xmalloc(N * sizeof *keys);
  size_t *lengths = xmalloc(N * sizeof *lengths);
  for (int i = 0; i < N; i++) keys[i] = "key", lengths[i] = 3;
  leveldb_filterpolicy_t *huge = leveldb_filterpolicy_create_bloom(INT_MAX);
  size_t len = 12345;
  CHECK(leveldb_filterpolicy_create_filter(huge, keys, lengths, N, &len) == NULL && len == 0);
  leveldb_filterpolicy_destroy(huge);
  free(keys);
  free(lengths);
}

static void key_may_match_rows(const leveldb_filterpolicy_t *policy) {
  size_t len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, &len);
  CHECK(filter != NULL);
  CHECK(leveldb_filterpolicy_key_may_match(NULL, "alpha", 5, filter, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, NULL, 5, filter, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", 5, NULL, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(NULL, NULL, 1, NULL, 1) == 1);
  /* A length no object can have, with a pointer set: refused before anything is read. */
  CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", SIZE_MAX, filter, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", 5, filter, SIZE_MAX) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", (size_t)PTRDIFF_MAX + 1, filter,
                                           len) == 1);
  /* NULL with length 0 is empty: the empty key is probed, and an empty filter never matches. */
  CHECK(leveldb_filterpolicy_key_may_match(policy, NULL, 0, filter, len) ==
        leveldb_filterpolicy_key_may_match(policy, "", 0, filter, len));
  CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", 5, NULL, 0) == 0);
  /* Short and reserved filters, as leveldb answers them (match.txt holds leveldb's answers for
   * every such byte; these restate its rules: length < 2 is false, a k byte > 30 is true). */
  char bytes[2] = {0, 0};
  for (int k = 0; k < 256; k++) {
    bytes[0] = (char)k;
    CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", 5, bytes, 1) == 0);
    bytes[1] = (char)k;
    if (k > 30) CHECK(leveldb_filterpolicy_key_may_match(policy, "alpha", 5, bytes, 2) == 1);
  }
  leveldb_free(filter);
}

static void custom_and_null_rows(void) {
  char *(*create_filter)(void *, const char *const *, const size_t *, int, size_t *) = NULL;
  uint8_t (*key_may_match)(void *, const char *, size_t, const char *, size_t) = NULL;
  const char *(*name)(void *) = NULL;
  CHECK(leveldb_filterpolicy_create(NULL, NULL, create_filter, key_may_match, name) == NULL);
  CHECK(leveldb_filterpolicy_name(NULL) == NULL);
  leveldb_filterpolicy_destroy(NULL);
  leveldb_free(NULL);
  CHECK(1); /* reached: destroy(NULL) and free(NULL) did nothing */
}

int main(void) {
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  CHECK(policy != NULL && strcmp(leveldb_filterpolicy_name(policy), "leveldb.BuiltinBloomFilter2") == 0);
  create_bloom_rows();
  create_filter_rows(policy);
  too_large_to_allocate();
  key_may_match_rows(policy);
  custom_and_null_rows();
  leveldb_filterpolicy_destroy(policy);
  return finish();
}
