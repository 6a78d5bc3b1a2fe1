/* Every reference vector made by leveldb 1.23 (vectors/build.txt, match.txt), through the C ABI: filters built
 * by leveldb_filterpolicy_create_filter are byte-identical, and leveldb_filterpolicy_key_may_match
 * gives leveldb's answer for every probe, on built filters and on arbitrary or corrupt bytes.
 * Usage: test_vectors VECTORS_DIR */
#include "vectors.h"
#include "leveldb_bloom.h"

/* Checks every probe's answer against `filter`; one check per record, so a failure names it. */
static int answers_match(const leveldb_filterpolicy_t *policy, const vector_reader_t *r,
                         const char *filter, size_t filter_len) {
  for (size_t i = 0; i < r->probes.count; i++) {
    uint8_t got = leveldb_filterpolicy_key_may_match(policy, r->probes.ptrs[i], r->probes.lens[i],
                                                     filter, filter_len);
    if (got != (uint8_t)(r->answers[i] - '0')) return 0;
  }
  return 1;
}

static void check_file(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  vector_reader_t r;
  vector_open(&r, path);
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
    } else {
      CHECK(answers_match(policy, &r, r.filter.data, r.filter.len));
    }
    leveldb_filterpolicy_destroy(policy);
  }
  printf("%s: %lu records\n", name, records);
  CHECK(records > 0);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
    return 2;
  }
  check_file(argv[1], "build.txt");
  check_file(argv[1], "match.txt");
  return finish();
}
