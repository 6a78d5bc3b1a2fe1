/* The leveldb_bloom_* entry points (what the C++ shim uses): every reference vector made by
 * leveldb 1.23 built in place into a caller's buffer and queried, and each bad-input row of the
 * header's table. Usage: test_core_abi VECTORS_DIR */
#include <limits.h>
#include <stdint.h>

#include "check.h"
#include "leveldb_bloom.h"

#define GUARD 0x5a /* fills bytes that must stay untouched */

/* Slices over a vector file's keys, in the layout leveldb::Slice has. */
static leveldb_bloom_slice_t *slices_of(const byte_list_t *list) {
  leveldb_bloom_slice_t *slices = xmalloc(list->count * sizeof *slices);
  for (size_t i = 0; i < list->count; i++) {
    slices[i].data = list->ptrs[i];
    slices[i].size = list->lens[i];
  }
  return slices;
}

static int answers_match(const vector_reader_t *r, const char *filter, size_t filter_len) {
  for (size_t i = 0; i < r->probes.count; i++) {
    uint8_t got =
        leveldb_bloom_key_may_match(r->probes.ptrs[i], r->probes.lens[i], filter, filter_len);
    if (got != (uint8_t)(r->answers[i] - '0')) return 0;
  }
  return 1;
}

static int all_guard(const char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if ((unsigned char)p[i] != GUARD) return 0;
  }
  return 1;
}

/* Builds into the middle of a guarded buffer: the filter must fill exactly its bytes. */
static void check_filter_record(const vector_reader_t *r) {
  size_t len = leveldb_bloom_filter_length(r->bits_per_key, r->keys.count);
  CHECK(len == r->filter.len);
  char *buffer = xmalloc(len + 2);
  memset(buffer, GUARD, len + 2);
  leveldb_bloom_slice_t *slices = slices_of(&r->keys);
  CHECK(leveldb_bloom_fill_filter(r->bits_per_key, slices, r->keys.count, buffer + 1, len) == 1);
  CHECK(memcmp(buffer + 1, r->filter.data, len) == 0);
  CHECK((unsigned char)buffer[0] == GUARD && (unsigned char)buffer[len + 1] == GUARD);
  CHECK(answers_match(r, buffer + 1, len));
  free(slices);
  free(buffer);
}

static void check_vectors(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  vector_reader_t r;
  vector_open(&r, path);
  unsigned long records = 0;
  for (record_kind_t kind; (kind = vector_next(&r)) != RECORD_END; records++) {
    if (kind == RECORD_FILTER) {
      check_filter_record(&r);
    } else {
      CHECK(answers_match(&r, r.filter.data, r.filter.len));
    }
  }
  printf("%s: %lu records\n", name, records);
  CHECK(records > 0);
}

/* fill_filter must refuse and leave the output untouched. */
static void check_refused(int bits_per_key, const leveldb_bloom_slice_t *keys, size_t n,
                          size_t out_length) {
  char out[64];
  memset(out, GUARD, sizeof out);
  CHECK(leveldb_bloom_fill_filter(bits_per_key, keys, n, out, out_length) == 0);
  CHECK(all_guard(out, sizeof out));
}

static void check_bad_input(void) {
  CHECK(strcmp(leveldb_bloom_policy_name(), "leveldb.BuiltinBloomFilter2") == 0);

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
  CHECK(leveldb_bloom_key_may_match("banana", 6, NULL, 0) == 0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
    return 2;
  }
  check_vectors(argv[1], "build.txt");
  check_vectors(argv[1], "match.txt");
  check_bad_input();
  return finish();
}
