/* The leveldb_bloom_* entry points (what the C++ shim uses): each bad-input row of the header's
 * table. test_vectors.c runs every reference vector through them. */
#include <limits.h>
#include <stdint.h>

#include "check.h"
#include "leveldb_bloom.h"

#define GUARD 0x5a /* fills bytes that must stay untouched */

static int all_guard(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)p[i] != GUARD) return 0;
  }
  return 1;
}

/* fill_filter must refuse and leave the output untouched. */
static void check_refused(int bits_per_key, const leveldb_bloom_slice_t *keys, size_t n,
                          size_t out_length) {
  char out[64];
  memset(out, GUARD, sizeof out);
  CHECK(leveldb_bloom_fill_filter(bits_per_key, keys, n, out, out_length) == 0);
  CHECK(all_guard(out, sizeof out));
}

#define STRINGIFY(x) #x
#define VERSION_STRING(major, minor, patch) STRINGIFY(major) "." STRINGIFY(minor) "." STRINGIFY(patch)

static void check_bad_input(void) {
  CHECK(strcmp(leveldb_bloom_policy_name(), "leveldb.BuiltinBloomFilter2") == 0);
  /* The library loaded is the one this header describes. */
  CHECK(strcmp(leveldb_bloom_version(), VERSION_STRING(LEVELDB_BLOOM_VERSION_MAJOR,
                                                       LEVELDB_BLOOM_VERSION_MINOR,
                                                       LEVELDB_BLOOM_VERSION_PATCH)) == 0);

  /* filter_length: 0 for a negative bits_per_key or a length past SIZE_MAX. */
  CHECK(leveldb_bloom_filter_length(-1, 3) == 0);
  CHECK(leveldb_bloom_filter_length(INT_MIN, 0) == 0);
  CHECK(leveldb_bloom_filter_length(INT_MAX, SIZE_MAX) == 0);
  CHECK(leveldb_bloom_filter_length(0, SIZE_MAX) == 9); /* the 64-bit minimum, plus k */
  CHECK(leveldb_bloom_filter_length(10, 0) == 9);
  CHECK(leveldb_bloom_filter_length(10, 100) == 126);

  leveldb_bloom_slice_t keys[] = {{"apple", 5}, {"banana", 6}, {"cherry", 6}};
  size_t len = leveldb_bloom_filter_length(10, 3);
  check_refused(-1, keys, 3, len);
  check_refused(10, keys, 3, len - 1);
  check_refused(10, keys, 3, len + 1);
  check_refused(10, NULL, 3, len);                   /* NULL keys with keys in it */
  check_refused(0, keys, SIZE_MAX, 9);               /* more keys than memory holds */
  check_refused(0, keys, SIZE_MAX / sizeof keys[0], 9);
  leveldb_bloom_slice_t null_data[] = {{"apple", 5}, {NULL, 1}, {"cherry", 6}};
  check_refused(10, null_data, 3, len);
  CHECK(leveldb_bloom_fill_filter(10, keys, 3, NULL, len) == 0);

  /* NULL keys with no keys, and NULL data of size 0, are the empty set and the empty key. */
  char no_keys[9], no_keys_null[9];
  CHECK(leveldb_bloom_fill_filter(10, keys, 0, no_keys, 9) == 1);
  CHECK(leveldb_bloom_fill_filter(10, NULL, 0, no_keys_null, 9) == 1);
  CHECK(memcmp(no_keys, no_keys_null, 9) == 0);
  leveldb_bloom_slice_t empty_key[] = {{"", 0}}, empty_null[] = {{NULL, 0}};
  char with_empty[9], with_null[9];
  CHECK(leveldb_bloom_fill_filter(10, empty_key, 1, with_empty, 9) == 1);
  CHECK(leveldb_bloom_fill_filter(10, empty_null, 1, with_null, 9) == 1);
  CHECK(memcmp(with_empty, with_null, 9) == 0);
  CHECK(leveldb_bloom_key_may_match(NULL, 0, with_empty, 9) == 1);

  /* key_may_match: 1 for a NULL key or filter with bytes; an empty filter matches nothing. */
  char filter[64];
  CHECK(leveldb_bloom_fill_filter(10, keys, 3, filter, len) == 1);
  CHECK(leveldb_bloom_key_may_match("banana", 6, filter, len) == 1);
  CHECK(leveldb_bloom_key_may_match(NULL, 6, filter, len) == 1);
  CHECK(leveldb_bloom_key_may_match("banana", 6, NULL, len) == 1);
  /* A length no object can have, with a pointer set: refused before anything is read. */
  CHECK(leveldb_bloom_key_may_match("banana", SIZE_MAX, filter, len) == 1);
  CHECK(leveldb_bloom_key_may_match("banana", 6, filter, (size_t)PTRDIFF_MAX + 1) == 1);
  CHECK(leveldb_bloom_key_may_match("banana", 6, NULL, 0) == 0);
}

/* leveldb_bloom_isa: one of the three names, the same string every call; a path named in
 * LEVELDB_BLOOM_ISA runs if the CPU has it, and none above it ever does. */
static void check_isa(void) {
  static const char *const names[] = {"portable", "avx2", "avx512"};
  const char *isa = leveldb_bloom_isa();
  int rank = -1;
  for (int i = 0; i < 3; i++) {
    if (isa != NULL && strcmp(isa, names[i]) == 0) rank = i;
  }
  CHECK(rank >= 0);
  CHECK(leveldb_bloom_isa() == isa);
  const char *requested = getenv("LEVELDB_BLOOM_ISA");
  for (int i = 0; requested != NULL && i < 3; i++) {
    if (strcmp(requested, names[i]) == 0) CHECK(rank <= i);
  }
  if (requested != NULL && strcmp(requested, "portable") == 0) CHECK(rank == 0);
}

int main(void) {
  check_bad_input();
  check_isa();
  return finish();
}
