/* Policies made of callbacks (leveldb_filterpolicy_create): the extension calls reach the
 * callbacks with the caller's state and arguments, bad input is answered before any callback
 * runs, and destroy calls the destructor exactly once. */
#include "check.h"
#include "leveldb_bloom.h"

typedef struct {
  int destroyed, create_calls, match_calls, name_calls;
  uint8_t match_answer; /* what key_may_match returns */
} state_t;

static void destructor(void *arg) { ((state_t *)arg)->destroyed++; }

/* The "filter" is the keys' lengths, one byte each: enough to see the arguments arrived. */
static char *create_filter(void *arg, const char *const *keys, const size_t *lengths, int n,
                           size_t *filter_length) {
  state_t *state = arg;
  state->create_calls++;
  char *filter = xmalloc((size_t)n + 1);
  for (int i = 0; i < n; i++) filter[i] = (char)(keys[i][0] == 'k' ? lengths[i] : 0xff);
  *filter_length = (size_t)n;
  return filter;
}

static char *create_nothing(void *arg, const char *const *keys, const size_t *lengths, int n,
                            size_t *filter_length) {
  (void)arg, (void)keys, (void)lengths, (void)n;
  *filter_length = 99; /* a failing callback's length is not passed on */
  return NULL;
}

static uint8_t key_may_match(void *arg, const char *key, size_t length, const char *filter,
                             size_t filter_length) {
  state_t *state = arg;
  state->match_calls++;
  return length == 3 && key[0] == 'k' && filter_length == 2 && filter[0] == 3 ? state->match_answer : 0;
}

static const char *name(void *arg) {
  ((state_t *)arg)->name_calls++;
  return "test.CustomPolicy";
}

int main(void) {
  state_t state = {0, 0, 0, 0, 7};
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create(&state, destructor, create_filter, key_may_match, name);
  CHECK(policy != NULL);
  CHECK(strcmp(leveldb_filterpolicy_name(policy), "test.CustomPolicy") == 0 && state.name_calls == 1);

  const char *keys[] = {"key", "kk"};
  const size_t lengths[] = {3, 2};
  size_t len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, keys, lengths, 2, &len);
  CHECK(filter != NULL && len == 2 && filter[0] == 3 && filter[1] == 2 && state.create_calls == 1);

  /* The callback answers; any non-zero answer is reported as 1. */
  CHECK(leveldb_filterpolicy_key_may_match(policy, "key", 3, filter, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, "zzz", 3, filter, len) == 0);
  CHECK(state.match_calls == 2);

  /* Bad input never reaches a callback, and gets the documented result. */
  CHECK(leveldb_filterpolicy_create_filter(policy, keys, lengths, -1, &len) == NULL && len == 0);
  CHECK(leveldb_filterpolicy_create_filter(policy, NULL, lengths, 2, &len) == NULL);
  CHECK(leveldb_filterpolicy_create_filter(policy, keys, lengths, 2, NULL) == NULL);
  CHECK(leveldb_filterpolicy_key_may_match(policy, NULL, 3, filter, len) == 1);
  CHECK(leveldb_filterpolicy_key_may_match(policy, "key", 3, NULL, 2) == 1);
  CHECK(state.create_calls == 1 && state.match_calls == 2);
  leveldb_free(filter);

  /* Destroy calls the destructor exactly once. */
  CHECK(state.destroyed == 0);
  leveldb_filterpolicy_destroy(policy);
  CHECK(state.destroyed == 1);

  /* A NULL destructor is allowed; a callback returning NULL gives NULL and length 0. */
  state_t other = {0, 0, 0, 0, 1};
  policy = leveldb_filterpolicy_create(&other, NULL, create_nothing, key_may_match, name);
  CHECK(policy != NULL);
  len = 1;
  CHECK(leveldb_filterpolicy_create_filter(policy, keys, lengths, 2, &len) == NULL && len == 0);
  leveldb_filterpolicy_destroy(policy);

  /* A NULL callback refuses the policy without touching the state. */
  CHECK(leveldb_filterpolicy_create(&other, destructor, NULL, key_may_match, name) == NULL);
  CHECK(leveldb_filterpolicy_create(&other, destructor, create_filter, NULL, name) == NULL);
  CHECK(leveldb_filterpolicy_create(&other, destructor, create_filter, key_may_match, NULL) == NULL);
  CHECK(other.destroyed == 0);
  return finish();
}
