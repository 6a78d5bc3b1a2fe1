/* Allocation failure for real, not by an impossible size: with the address space limited by
 * setrlimit(RLIMIT_AS), malloc returns NULL, and every call that allocates must return NULL (with
 * length 0, and without running a custom destructor) instead of aborting. After memory comes back,
 * the library works as before. Not run under AddressSanitizer, whose shadow mappings need far more
 * address space than any limit set here. */
#include <limits.h>
#include <sys/resource.h>

#include "check.h"
#include "leveldb_bloom.h"

static int destructor_calls;
static void destructor(void *state) { (void)state, destructor_calls++; }
static char *create_filter(void *state, const char *const *keys, const size_t *lengths, int n, size_t *len) {
  (void)state, (void)keys, (void)lengths, (void)n, (void)len;
  return NULL;
}
static uint8_t key_may_match(void *state, const char *key, size_t length, const char *filter, size_t filter_length) {
  (void)state, (void)key, (void)length, (void)filter, (void)filter_length;
  return 1;
}
static const char *name(void *state) { return (void)state, "test.OutOfMemory"; }

static const char *const KEYS[] = {"alpha", "beta", "gamma"};
static const size_t LENGTHS[] = {5, 4, 5};

/* 16 keys at INT_MAX bits per key: a 4 GiB filter, more than the 2 GiB address space allowed. */
static void four_gib_filter_fails(void) {
  const char *keys[16];
  size_t lengths[16];
  for (int i = 0; i < 16; i++) keys[i] = "key", lengths[i] = 3;
  leveldb_filterpolicy_t *huge = leveldb_filterpolicy_create_bloom(INT_MAX);
  CHECK(huge != NULL);
  size_t len = 12345;
  CHECK(leveldb_filterpolicy_create_filter(huge, keys, lengths, 16, &len) == NULL && len == 0);
  leveldb_filterpolicy_destroy(huge);
}

/* Takes every block of `size` bytes malloc can still give, onto `list`. */
static void **hoard(void **list, size_t size) {
  void **block;
  while ((block = malloc(size)) != NULL) {
    *block = list;
    list = block;
  }
  return list;
}

/* Takes all memory malloc can still give, largest blocks first; returns them as a list. Every
 * small size is asked for, not only powers of two, so that no free chunk of a small size class
 * (one freed earlier and cached by malloc) is left for the calls under test. */
static void **exhaust_memory(void) {
  void **list = NULL;
  for (size_t size = (size_t)1 << 30; size > 1024; size /= 2) list = hoard(list, size);
  for (size_t size = 1024; size >= sizeof(void *); size -= sizeof(void *)) list = hoard(list, size);
  return list;
}

static void release(void **list) {
  while (list != NULL) {
    void **next = *list;
    free(list);
    list = next;
  }
}

static void nothing_left(const leveldb_filterpolicy_t *policy, const char *filter, size_t filter_len) {
  void **hoard = exhaust_memory();
  int bloom_is_null = leveldb_filterpolicy_create_bloom(10) == NULL;
  int custom_is_null = leveldb_filterpolicy_create(NULL, destructor, create_filter, key_may_match, name) == NULL;
  size_t len = 12345;
  int filter_is_null = leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, &len) == NULL;
  /* Queries allocate nothing: they still answer, and find every key. */
  int all_match = 1;
  for (int i = 0; i < 3; i++)
    all_match &= leveldb_filterpolicy_key_may_match(policy, KEYS[i], LENGTHS[i], filter, filter_len) == 1;
  release(hoard);
  /* Checked only now: a failing CHECK prints, and printing may allocate. */
  CHECK(hoard != NULL);
  CHECK(bloom_is_null);
  CHECK(custom_is_null && destructor_calls == 0);
  CHECK(filter_is_null && len == 0);
  CHECK(all_match);
}

int main(void) {
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  size_t filter_len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, &filter_len);
  CHECK(filter != NULL);
  /* stdout's buffer is allocated now, while memory is plentiful. */
  printf("limiting the address space to 2 GiB\n");

  struct rlimit limit = {(rlim_t)2 << 30, (rlim_t)2 << 30};
  CHECK(setrlimit(RLIMIT_AS, &limit) == 0);
  four_gib_filter_fails();
  nothing_left(policy, filter, filter_len);

  /* Memory is back: everything works as before. */
  size_t again_len = 0;
  char *again = leveldb_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, &again_len);
  CHECK(again != NULL && again_len == filter_len && memcmp(again, filter, filter_len) == 0);
  leveldb_free(again);
  leveldb_free(filter);
  leveldb_filterpolicy_destroy(policy);
  return finish();
}
