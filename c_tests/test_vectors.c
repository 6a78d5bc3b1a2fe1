/* Every reference vector made by leveldb 1.23 (vectors/build.txt, match.txt), through both
 * families of the C ABI: filters built by leveldb_filterpolicy_create_filter, and in place by
 * leveldb_bloom_fill_filter, are byte-identical, and leveldb_filterpolicy_key_may_match and
 * leveldb_bloom_key_may_match give leveldb's answer for every probe, on built filters and on
 * arbitrary or corrupt bytes.
 * Usage: test_vectors VECTORS_DIR [build.txt | match.txt] (without a file, both) */
#include "vectors.h"
#include "leveldb_bloom.h"

#define GUARD 0x5a /* fills the bytes around an in-place filter, which must stay untouched */

/* Checks every probe's answer against `filter`; one check per record, so a failure names it.
 * A NULL `policy` asks leveldb_bloom_key_may_match, which needs none. */
static int answers_match(const leveldb_filterpolicy_t *policy, const vector_reader_t *r,
                         const char *filter, size_t filter_len) {
  for (size_t i = 0; i < r->probes.count; i++) {
    const char *probe = r->probes.ptrs[i];
    size_t probe_len = r->probes.lens[i];
    uint8_t got = policy != NULL ? leveldb_filterpolicy_key_may_match(policy, probe, probe_len,
                                                                      filter, filter_len)
                                 : leveldb_bloom_key_may_match(probe, probe_len, filter, filter_len);
    if (got != (uint8_t)(r->answers[i] - '0')) return 0;
  }
  return 1;
}

/* leveldb_bloom_fill_filter into the middle of a guarded buffer, over the keys as slices: the
 * filter must be leveldb's and fill exactly its bytes. */
static void check_filled_in_place(const vector_reader_t *r) {
  size_t len = leveldb_bloom_filter_length(r->bits_per_key, r->keys.count);
  CHECK(len == r->filter.len);
  char *buffer = xmalloc(len + 2);
  memset(buffer, GUARD, len + 2);
  leveldb_bloom_slice_t *slices = xmalloc(r->keys.count * sizeof *slices);
  for (size_t i = 0; i < r->keys.count; i++) {
    slices[i].data = r->keys.ptrs[i];
    slices[i].size = r->keys.lens[i];
  }
  CHECK(leveldb_bloom_fill_filter(r->bits_per_key, slices, r->keys.count, buffer + 1, len) == 1);
  CHECK(memcmp(buffer + 1, r->filter.data, len) == 0);
  CHECK((unsigned char)buffer[0] == GUARD && (unsigned char)buffer[len + 1] == GUARD);
  CHECK(answers_match(NULL, r, buffer + 1, len));
  free(slices);
  free(buffer);
}

static void check_file(const char *dir, const char *name) {
  vector_reader_t r;
  vector_open(&r, dir, name);
  unsigned long records = 0;
  for (record_kind_t kind; (kind = vector_next(&r)) != RECORD_END; records++) {
    int bits_per_key = kind == RECORD_FILTER ? r.bits_per_key : 10;
    leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(bits_per_key);
    CHECK(policy != NULL);
    if (kind == RECORD_FILTER) {
      size_t len = 0;
      char *built = leveldb_filterpolicy_create_filter(policy, r.keys.ptrs, r.keys.lens,
                                                       (int)r.keys.count, &len);
      CHECK(built != NULL && len == r.filter.len && memcmp(built, r.filter.data, len) == 0);
      if (built != NULL) CHECK(answers_match(policy, &r, built, len));
      leveldb_free(built);
      check_filled_in_place(&r);
    } else {
      CHECK(answers_match(policy, &r, r.filter.data, r.filter.len));
      CHECK(answers_match(NULL, &r, r.filter.data, r.filter.len));
    }
    leveldb_filterpolicy_destroy(policy);
  }
  printf("%s: %lu records\n", name, records);
  CHECK(records > 0);
}

int main(int argc, char **argv) {
  if (vector_file_wanted(argc, argv, "build.txt")) check_file(argv[1], "build.txt");
  if (vector_file_wanted(argc, argv, "match.txt")) check_file(argv[1], "match.txt");
  return finish();
}
