/* Policies next to leveldb's own C API, which this program loads with dlopen, privately (as any
 * program that links leveldb has its C API). A policy leveldb made is bad input to every function
 * here, by either family of names: each answers as for a NULL policy, calls none of its callbacks,
 * and leaves it to leveldb (this library's destroy does nothing to it). A policy that this
 * library's leveldb_filterpolicy_create_bloom or _create makes is then an object of leveldb's,
 * which every function here takes as this library's (the reference vectors' filters and answers),
 * and which leveldb's own destroy destroys as well as this library's, calling its destructor once.
 * Once leveldb's own destroy has destroyed such an object, or leveldb is unloaded (dlclose), the
 * object is foreign: bad input to every function here, which calls nothing of leveldb's for it.
 * The databases leveldb writes with such policies: c_tests/with_leveldb/db.c.
 *
 *   test_leveldb_objects VECTORS_DIR [LEVELDB_LIB]   (LEVELDB_LIB: libleveldb.so) */
#include <dlfcn.h>
#include <leveldb/c.h>
#include <stdint.h>

#include "check.h"
#include "vectors.h"

/* leveldb's own functions, from its library. */
static struct {
  __typeof__(&leveldb_filterpolicy_create_bloom) create_bloom;
  __typeof__(&leveldb_filterpolicy_create) create;
  __typeof__(&leveldb_filterpolicy_destroy) destroy;
} leveldb;

static const char *const KEYS[] = {"alpha", "beta", "gamma"};
static const size_t LENGTHS[] = {5, 4, 5};

/* This library's filter and filter block (at offset 0) for KEYS, and a key both rule out. */
static char *filter, *block;
static size_t filter_len, block_len;
static char absent[32];
static size_t absent_len;

static void make_reference(void) {
  leveldb_bloom_filterpolicy_t *policy = leveldb_bloom_filterpolicy_create_bloom(10);
  filter = leveldb_bloom_filterpolicy_create_filter(policy, KEYS, LENGTHS, 3, &filter_len);
  leveldb_bloom_filterblock_builder_t *builder = leveldb_bloom_filterblock_builder_create(policy);
  leveldb_bloom_filterblock_builder_start_block(builder, 0);
  for (int i = 0; i < 3; i++) leveldb_bloom_filterblock_builder_add_key(builder, KEYS[i], LENGTHS[i]);
  block = leveldb_bloom_filterblock_builder_finish(builder, &block_len);
  leveldb_bloom_filterblock_builder_destroy(builder);
  CHECK(filter != NULL && block != NULL);
  for (int i = 0;
       absent_len == 0 || leveldb_bloom_key_may_match(absent, absent_len, filter, filter_len); i++) {
    absent_len = (size_t)snprintf(absent, sizeof absent, "absent-%d", i);
  }
  CHECK(leveldb_bloom_filterblock_key_may_match(policy, block, block_len, 0, absent, absent_len) == 0);
  leveldb_bloom_filterpolicy_destroy(policy);
}

/* Every function with a policy of leveldb's, by both families of names: each row twice. */
static void foreign_rows(const leveldb_filterpolicy_t *foreign) {
  const leveldb_bloom_filterpolicy_t *as_own = (const leveldb_bloom_filterpolicy_t *)foreign;
  const char *absent_key = absent;
  const uint64_t offset = 0;
  size_t len = 12345, own_len = 12345;
  uint8_t result = 0, own_result = 0;
  CHECK(leveldb_filterpolicy_create_filter(foreign, KEYS, LENGTHS, 3, &len) == NULL && len == 0);
  CHECK(leveldb_bloom_filterpolicy_create_filter(as_own, KEYS, LENGTHS, 3, &own_len) == NULL);
  CHECK(own_len == 0);
  CHECK(leveldb_filterpolicy_key_may_match(foreign, absent, absent_len, filter, filter_len) == 1);
  CHECK(leveldb_bloom_filterpolicy_key_may_match(as_own, absent, absent_len, filter, filter_len) == 1);
  leveldb_filterpolicy_key_may_match_batch(foreign, &absent_key, &absent_len, 1, filter, filter_len,
                                           &result);
  leveldb_bloom_filterpolicy_key_may_match_batch(as_own, &absent_key, &absent_len, 1, filter,
                                                 filter_len, &own_result);
  CHECK(result == 1 && own_result == 1);
  CHECK(leveldb_filterpolicy_name(foreign) == NULL);
  CHECK(leveldb_bloom_filterpolicy_name(as_own) == NULL);
  CHECK(leveldb_filterblock_builder_create(foreign) == NULL);
  CHECK(leveldb_bloom_filterblock_builder_create(as_own) == NULL);
  CHECK(leveldb_filterblock_key_may_match(foreign, block, block_len, 0, absent, absent_len) == 1);
  CHECK(leveldb_bloom_filterblock_key_may_match(as_own, block, block_len, 0, absent, absent_len) == 1);
  result = own_result = 0;
  leveldb_filterblock_key_may_match_batch(foreign, block, block_len, &offset, &absent_key,
                                          &absent_len, 1, &result);
  leveldb_bloom_filterblock_key_may_match_batch(as_own, block, block_len, &offset, &absent_key,
                                                &absent_len, 1, &own_result);
  CHECK(result == 1 && own_result == 1);
  leveldb_filterpolicy_destroy((leveldb_filterpolicy_t *)foreign);
  leveldb_bloom_filterpolicy_destroy((leveldb_bloom_filterpolicy_t *)as_own);
}

/* Callbacks that count their calls. */
typedef struct {
  int destroyed, calls;
} counts_t;

static void count_destroyed(void *state) { ((counts_t *)state)->destroyed++; }

static char *count_create(void *state, const char *const *keys, const size_t *lengths, int n,
                          size_t *len) {
  ((counts_t *)state)->calls++;
  (void)keys, (void)lengths, (void)n;
  *len = 1;
  return xmalloc(1);
}

static uint8_t count_match(void *state, const char *key, size_t length, const char *f, size_t f_len) {
  ((counts_t *)state)->calls++;
  (void)key, (void)length, (void)f, (void)f_len;
  return 0;
}

static const char *count_name(void *state) {
  ((counts_t *)state)->calls++;
  return "leveldb-bloom.Counted";
}

/* Policies leveldb made, its bloom policy and one of callbacks: bad input everywhere, and still
 * leveldb's to destroy, once. */
static void foreign_policies(void) {
  leveldb_filterpolicy_t *bloom = leveldb.create_bloom(10);
  CHECK(bloom != NULL);
  foreign_rows(bloom);
  leveldb.destroy(bloom); /* not freed by this library's destroy above: no double free */

  counts_t counts = {0, 0};
  leveldb_filterpolicy_t *custom =
      leveldb.create(&counts, count_destroyed, count_create, count_match, count_name);
  foreign_rows(custom);
  CHECK(counts.calls == 0 && counts.destroyed == 0);
  leveldb.destroy(custom);
  CHECK(counts.destroyed == 1);
}

/* This library's policy made by leveldb's name: the vectors' filters and answers through it,
 * by both families of names. */
static void check_record(const leveldb_filterpolicy_t *policy, const vector_reader_t *r) {
  const leveldb_bloom_filterpolicy_t *own = (const leveldb_bloom_filterpolicy_t *)policy;
  size_t len = 0, own_len = 0;
  char *built = leveldb_filterpolicy_create_filter(policy, r->keys.ptrs, r->keys.lens,
                                                   (int)r->keys.count, &len);
  char *own_built = leveldb_bloom_filterpolicy_create_filter(own, r->keys.ptrs, r->keys.lens,
                                                             (int)r->keys.count, &own_len);
  CHECK(built != NULL && len == r->filter.len && memcmp(built, r->filter.data, len) == 0);
  CHECK(own_built != NULL && own_len == len && memcmp(own_built, r->filter.data, len) == 0);
  size_t n = r->probes.count;
  uint8_t *results = xmalloc(n), *own_results = xmalloc(n);
  leveldb_filterpolicy_key_may_match_batch(policy, r->probes.ptrs, r->probes.lens, n, r->filter.data,
                                           r->filter.len, results);
  leveldb_bloom_filterpolicy_key_may_match_batch(own, r->probes.ptrs, r->probes.lens, n,
                                                 r->filter.data, r->filter.len, own_results);
  /* Every probe in the batches, one in 7 alone: enough to see each answer come through. */
  for (size_t i = 0; i < n; i++) {
    uint8_t answer = (uint8_t)(r->answers[i] == '1');
    CHECK(results[i] == answer && own_results[i] == answer);
    if (i % 7 != 0) continue;
    CHECK(leveldb_filterpolicy_key_may_match(policy, r->probes.ptrs[i], r->probes.lens[i],
                                             r->filter.data, r->filter.len) == answer);
    CHECK(leveldb_bloom_filterpolicy_key_may_match(own, r->probes.ptrs[i], r->probes.lens[i],
                                                   r->filter.data, r->filter.len) == answer);
  }
  CHECK(strcmp(leveldb_filterpolicy_name(policy), "leveldb.BuiltinBloomFilter2") == 0);
  free(results);
  free(own_results);
  leveldb_free(built);
  leveldb_bloom_free(own_built);
}

static void policies_made_for_leveldb(const char *vectors) {
  vector_reader_t r;
  vector_open(&r, vectors, "build.txt");
  int records = 0;
  /* The small key sets (the file's first) at every tenth bits_per_key: what comes through
   * leveldb's object is this library's filter, which test_vectors.c checks on every vector. */
  for (record_kind_t kind; (kind = vector_next(&r)) != RECORD_END;) {
    if (r.keys.count > 36) {
      vector_close(&r);
      break;
    }
    if (kind != RECORD_FILTER || r.bits_per_key % 10 != 0) continue;
    leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(r.bits_per_key);
    check_record(policy, &r);
    /* Either destroy: leveldb's own, which only an object of leveldb's survives, or ours. */
    if (records++ % 2 == 0) {
      leveldb.destroy(policy);
    } else {
      leveldb_filterpolicy_destroy(policy);
    }
  }
  CHECK(records > 30);

  /* A filter block over it is the one over a policy of this library's own. */
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  leveldb_filterblock_builder_t *builder = leveldb_filterblock_builder_create(policy);
  leveldb_filterblock_builder_start_block(builder, 0);
  for (int i = 0; i < 3; i++) leveldb_filterblock_builder_add_key(builder, KEYS[i], LENGTHS[i]);
  size_t len = 0;
  char *built = leveldb_filterblock_builder_finish(builder, &len);
  CHECK(built != NULL && len == block_len && memcmp(built, block, len) == 0);
  CHECK(leveldb_filterblock_key_may_match(policy, block, block_len, 0, absent, absent_len) == 0);
  leveldb_free(built);
  leveldb_filterblock_builder_destroy(builder);
  leveldb_filterpolicy_destroy(policy);

  /* Policies of callbacks: reached through the object, and destroyed once by either destroy. */
  for (int by_leveldb = 0; by_leveldb < 2; by_leveldb++) {
    counts_t counts = {0, 0};
    leveldb_filterpolicy_t *custom =
        leveldb_filterpolicy_create(&counts, count_destroyed, count_create, count_match, count_name);
    len = 0;
    char *made = leveldb_filterpolicy_create_filter(custom, KEYS, LENGTHS, 3, &len);
    CHECK(made != NULL && len == 1);
    CHECK(leveldb_filterpolicy_key_may_match(custom, "alpha", 5, made, len) == 0);
    CHECK(strcmp(leveldb_filterpolicy_name(custom), "leveldb-bloom.Counted") == 0);
    CHECK(counts.calls == 3);
    leveldb_free(made);
    if (by_leveldb) {
      leveldb.destroy(custom);
    } else {
      leveldb_filterpolicy_destroy(custom);
    }
    CHECK(counts.destroyed == 1);
  }
}

/* The objects of a leveldb unloaded: nothing can free them, kept reachable for the leak checkers. */
static leveldb_filterpolicy_t *outlived[2];

/* Objects this library made over leveldb's and no longer knows: bad input. One that leveldb's own
 * destroy destroyed, its address perhaps used again by a policy of leveldb's own; then, leveldb
 * unloaded (`handle` closed), the objects it made before, which this library never calls leveldb
 * for again: its destroy leaves them, calling no destructor. Returns leveldb loaded again. */
static void *policies_this_library_no_longer_knows(void *handle, const char *library) {
  for (int i = 0; i < 8; i++) {
    leveldb_filterpolicy_t *made = leveldb_filterpolicy_create_bloom(10);
    CHECK(leveldb_filterpolicy_name(made) != NULL);
    leveldb.destroy(made);
    /* Often where `made` was: this library must not take it for `made`. */
    leveldb_filterpolicy_t *own = leveldb.create_bloom(10);
    CHECK(leveldb_filterpolicy_name(own) == NULL);
    leveldb.destroy(own);
  }

  static counts_t counts = {0, 0};
  leveldb_filterpolicy_t *bloom = outlived[0] = leveldb_filterpolicy_create_bloom(10);
  leveldb_filterpolicy_t *custom = outlived[1] =
      leveldb_filterpolicy_create(&counts, count_destroyed, count_create, count_match, count_name);
  CHECK(leveldb_filterpolicy_name(bloom) != NULL && leveldb_filterpolicy_name(custom) != NULL);
  CHECK(counts.calls == 1);
  dlclose(handle);
  CHECK(dlopen(library, RTLD_NOW | RTLD_NOLOAD) == NULL);
  /* Every call but a query first notices what was unloaded: the name, then the rest. */
  CHECK(leveldb_filterpolicy_name(bloom) == NULL && leveldb_filterpolicy_name(custom) == NULL);
  foreign_rows(bloom);
  foreign_rows(custom);
  CHECK(counts.calls == 1 && counts.destroyed == 0);

  /* Without leveldb, this library's own objects; with it loaded again, leveldb's new ones. */
  leveldb_filterpolicy_t *own = leveldb_filterpolicy_create_bloom(10);
  leveldb_bloom_filterpolicy_t *reference = leveldb_bloom_filterpolicy_create_bloom(10);
  CHECK(memcmp(own, reference, sizeof(void *)) == 0);
  leveldb_filterpolicy_destroy(own);
  handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  CHECK(handle != NULL);
  leveldb_filterpolicy_t *again = leveldb_filterpolicy_create_bloom(10);
  CHECK(memcmp(again, reference, sizeof(void *)) != 0);
  CHECK(leveldb_filterpolicy_name(again) != NULL && leveldb_filterpolicy_name(bloom) == NULL);
  leveldb_filterpolicy_destroy(again);
  leveldb_bloom_filterpolicy_destroy(reference);
  return handle;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s VECTORS_DIR [LEVELDB_LIB]\n", argv[0]);
    return 2;
  }
  const char *library = argc > 2 ? argv[2] : "libleveldb.so";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  leveldb.create_bloom =
      (__typeof__(leveldb.create_bloom))dlsym(handle, "leveldb_filterpolicy_create_bloom");
  leveldb.create = (__typeof__(leveldb.create))dlsym(handle, "leveldb_filterpolicy_create");
  leveldb.destroy = (__typeof__(leveldb.destroy))dlsym(handle, "leveldb_filterpolicy_destroy");
  if (leveldb.create_bloom == NULL || leveldb.create == NULL || leveldb.destroy == NULL) {
    fprintf(stderr, "%s: no leveldb C API\n", library);
    return 2;
  }
  make_reference();
  foreign_policies();
  policies_made_for_leveldb(argv[1]);
  handle = policies_this_library_no_longer_knows(handle, library);
  leveldb_bloom_free(filter);
  leveldb_bloom_free(block);
  if (handle != NULL) dlclose(handle);
  return finish();
}
