/* Databases through leveldb's C API next to this library, built by tests/c_tests.rs in each way a
 * program can have both (linked shared in either order, with --as-needed, either one loaded with
 * dlopen, the build without leveldb's names) and by tests/shim.rs with leveldb's C API alone
 * (-DLEVELDB_ONLY), the shim linked or preloaded. A database: 60,000 keys of 4 to 64 bytes
 * written with a policy of 10 bits per key and compacted into tables of 1 MB (4), then read back
 * through a fresh handle: every key found with its value, none of 60,000 absent keys.
 *
 *   db DIR              (-DLEVELDB_ONLY) DIR with leveldb_filterpolicy_create_bloom's policy
 *   db DIR stock LEVELDB_LIB BLOOM_LIB FILTER KEY...
 *   db DIR program LEVELDB_LIB BLOOM_LIB FILTER KEY...
 *
 * stock: DIR/bloom with leveldb's own policy (its library's leveldb_filterpolicy_create_bloom),
 * the tables the tests compare with. program: says whose policy the program's own
 * leveldb_filterpolicy_create_bloom gives, as the link or dlopen bound it ("policy: this
 * library's" or "policy: leveldb's"), which this library's functions must answer as theirs, with
 * leveldb's filter, or as bad input; then DIR/bloom with that policy, and DIR/custom with one of
 * callbacks from the program's leveldb_filterpolicy_create, which count their calls and have this
 * library's policy answer. LEVELDB_LIB and BLOOM_LIB (this library, or "-" when linked) are the
 * libraries to dlopen; FILTER is leveldb's filter for KEY... with 10 bits per key (hex, from the
 * reference vectors).
 *
 * Built with -DBLOOM_DLOPEN=FLAGS or -DLEVELDB_DLOPEN=FLAGS, the program takes that library's
 * functions from dlopen(..., FLAGS) and dlsym; with -DLEVELDB_BLOOM_PREFIXED, it calls this
 * library by its own names only; with -DLEVELDB_STATIC, leveldb is linked from its static
 * archive, whose stock policy is the program's own. Prints "N passed, N failed" last. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <leveldb/c.h>
#ifndef LEVELDB_ONLY
#include "leveldb_bloom.h"
#endif

enum { kNumKeys = 60000, kBitsPerKey = 10 };

static unsigned long passed, failed;

static void check_at(int ok, const char *what, int line) {
  if (ok) {
    passed++;
  } else if (++failed <= 20) {
    fprintf(stderr, "db.c:%d: check failed: %s\n", line, what);
  }
}
#define CHECK(cond) check_at((cond) != 0, #cond, __LINE__)

/* What dlopen or dlsym found; dlerror says what was not. (inline: some builds use neither.) */
static inline void *must(void *p) {
  if (p == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    exit(2);
  }
  return p;
}

/* leveldb's C API, as this program calls it. */
#define LEVELDB_FUNCTIONS(X)                                                                     \
  X(leveldb_options_create) X(leveldb_options_destroy) X(leveldb_options_set_create_if_missing) \
  X(leveldb_options_set_error_if_exists) X(leveldb_options_set_filter_policy)                   \
  X(leveldb_options_set_write_buffer_size) X(leveldb_options_set_max_file_size) X(leveldb_open) \
  X(leveldb_close) X(leveldb_put) X(leveldb_get) X(leveldb_compact_range)                        \
  X(leveldb_writeoptions_create) X(leveldb_writeoptions_destroy) X(leveldb_readoptions_create)  \
  X(leveldb_readoptions_destroy) X(leveldb_free)
#define FIELD(name) __typeof__(&name) name;
#define DIRECT(name) ldb.name = &name;
static struct {
  LEVELDB_FUNCTIONS(FIELD)
} ldb;

/* How the program makes and destroys its policies, and the policy a database is given. */
typedef leveldb_filterpolicy_t *(*create_bloom_fn)(int);
typedef void (*destroy_fn)(leveldb_filterpolicy_t *);
static create_bloom_fn create_bloom;
static destroy_fn destroy;
static leveldb_filterpolicy_t *(*make_policy)(void);

static leveldb_filterpolicy_t *bloom_policy(void) { return create_bloom(kBitsPerKey); }

static uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* Key i: 0 to 60 random bytes, then i in 4 big-endian bytes, so keys are distinct; absent keys
 * have indexes from kNumKeys on. Returns its length. */
static size_t key(int i, char out[64]) {
  uint64_t state = (uint64_t)i * 7919 + 1;
  size_t len = (size_t)(splitmix64(&state) % 61);
  for (size_t j = 0; j < len; j++) out[j] = (char)splitmix64(&state);
  for (int shift = 24; shift >= 0; shift -= 8) out[len++] = (char)(i >> shift);
  return len;
}

static leveldb_options_t *options(leveldb_filterpolicy_t *policy) {
  leveldb_options_t *options = ldb.leveldb_options_create();
  ldb.leveldb_options_set_filter_policy(options, policy);
  /* One memtable holds the keys written between compactions, which cut tables at 1 MB (leveldb's
   * least): tables that depend only on the keys, never on when a background compaction ran. */
  ldb.leveldb_options_set_write_buffer_size(options, 64 << 20);
  ldb.leveldb_options_set_max_file_size(options, 1 << 20);
  return options;
}

static void write_and_read(const char *dir) {
  leveldb_filterpolicy_t *policy = make_policy();
  leveldb_options_t *opts = options(policy);
  ldb.leveldb_options_set_create_if_missing(opts, 1);
  ldb.leveldb_options_set_error_if_exists(opts, 1);
  char *error = NULL;
  leveldb_t *db = ldb.leveldb_open(opts, dir, &error);
  CHECK(db != NULL && error == NULL);
  if (db == NULL) exit(1);
  leveldb_writeoptions_t *write = ldb.leveldb_writeoptions_create();
  int all_put = 1;
  char k[64], value[32];
  /* Half the keys, compacted (into one table, at level 2), then the rest, compacted: leveldb
   * merges the two into tables cut at max_file_size. */
  for (int half = 0; half < 2; half++) {
    for (int i = half * kNumKeys / 2; i < (half + 1) * kNumKeys / 2 && all_put; i++) {
      size_t len = key(i, k);
      int value_len = snprintf(value, sizeof value, "value-%d", i);
      ldb.leveldb_put(db, write, k, len, value, (size_t)value_len, &error);
      all_put = error == NULL;
    }
    ldb.leveldb_compact_range(db, NULL, 0, NULL, 0);
  }
  CHECK(all_put);
  ldb.leveldb_writeoptions_destroy(write);
  ldb.leveldb_close(db);
  ldb.leveldb_options_destroy(opts);
  destroy(policy);

  /* Read back with a policy and a handle of their own: the tables' filters are what answers. */
  policy = make_policy();
  opts = options(policy);
  db = ldb.leveldb_open(opts, dir, &error);
  CHECK(db != NULL && error == NULL);
  if (db == NULL) exit(1);
  leveldb_readoptions_t *read = ldb.leveldb_readoptions_create();
  int found = 0, absent_found = 0;
  for (int i = 0; i < 2 * kNumKeys; i++) {
    size_t len = key(i, k), value_len = 0;
    char *got = ldb.leveldb_get(db, read, k, len, &value_len, &error);
    CHECK(error == NULL);
    int expected_len = snprintf(value, sizeof value, "value-%d", i);
    if (i < kNumKeys) {
      found += got != NULL && value_len == (size_t)expected_len &&
               memcmp(got, value, value_len) == 0;
    } else {
      absent_found += got != NULL;
    }
    ldb.leveldb_free(got);
  }
  printf("present keys found: %d of %d; absent keys found: %d of %d\n", found, kNumKeys,
         absent_found, kNumKeys);
  CHECK(found == kNumKeys);
  CHECK(absent_found == 0);
  ldb.leveldb_readoptions_destroy(read);
  ldb.leveldb_close(db);
  ldb.leveldb_options_destroy(opts);
  destroy(policy);
}

#ifdef LEVELDB_ONLY

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  LEVELDB_FUNCTIONS(DIRECT)
  create_bloom = &leveldb_filterpolicy_create_bloom;
  destroy = &leveldb_filterpolicy_destroy;
  make_policy = bloom_policy;
  write_and_read(argv[1]);
  printf("%lu passed, %lu failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

#else

/* This library's functions, by its own names, and by leveldb's where the build has them. */
#define BLOOM_FUNCTIONS(X)                                                                       \
  X(leveldb_bloom_filterpolicy_create_bloom) X(leveldb_bloom_filterpolicy_destroy)               \
  X(leveldb_bloom_filterpolicy_create_filter) X(leveldb_bloom_filterpolicy_key_may_match)        \
  X(leveldb_bloom_filterpolicy_key_may_match_batch) X(leveldb_bloom_filterpolicy_name)           \
  X(leveldb_bloom_free) X(leveldb_bloom_isa) X(leveldb_bloom_key_may_match)
#ifdef LEVELDB_BLOOM_PREFIXED
#define LEVELDB_NAMED_FUNCTIONS(X)
#else
#define LEVELDB_NAMED_FUNCTIONS(X)                                                               \
  X(leveldb_filterpolicy_create_filter) X(leveldb_filterpolicy_key_may_match)                    \
  X(leveldb_filterpolicy_key_may_match_batch) X(leveldb_filterpolicy_name)
#endif
static struct {
  BLOOM_FUNCTIONS(FIELD)
  LEVELDB_NAMED_FUNCTIONS(FIELD)
} bloom;

typedef struct {
  char *data;
  size_t len;
} bytes_t;

static bytes_t hex(const char *text) {
  size_t n = strlen(text) / 2;
  bytes_t out = {malloc(n + 1), n};
  for (size_t i = 0; i < n; i++) {
    unsigned byte = 0;
    if (sscanf(text + 2 * i, "%2x", &byte) != 1) {
      fprintf(stderr, "not hex: %s\n", text);
      exit(2);
    }
    out.data[i] = (char)byte;
  }
  return out;
}

/* The keys and leveldb's filter for them. */
static bytes_t expected;
static const char **keys;
static size_t *lengths;
static int num_keys;

static int is_expected(const char *filter, size_t len) {
  return filter != NULL && len == expected.len && memcmp(filter, expected.data, len) == 0;
}

/* A policy of this library's, by its own names: leveldb's filter and answers. */
static void check_ours(const leveldb_bloom_filterpolicy_t *policy) {
  size_t len = 0;
  char *filter =
      bloom.leveldb_bloom_filterpolicy_create_filter(policy, keys, lengths, num_keys, &len);
  CHECK(is_expected(filter, len));
  uint8_t results[64];
  bloom.leveldb_bloom_filterpolicy_key_may_match_batch(policy, keys, lengths, (size_t)num_keys,
                                                       expected.data, expected.len, results);
  for (int i = 0; i < num_keys; i++) {
    CHECK(bloom.leveldb_bloom_filterpolicy_key_may_match(policy, keys[i], lengths[i], expected.data,
                                                         expected.len) == 1);
    CHECK(results[i] == 1);
  }
  CHECK(strcmp(bloom.leveldb_bloom_filterpolicy_name(policy), "leveldb.BuiltinBloomFilter2") == 0);
  bloom.leveldb_bloom_free(filter);
}

/* A key leveldb's filter rules out, which bad input must answer 1 for. */
static char absent[32];
static size_t absent_len;

static void check_foreign(const leveldb_bloom_filterpolicy_t *policy) {
  size_t len = 12345;
  char *filter =
      bloom.leveldb_bloom_filterpolicy_create_filter(policy, keys, lengths, num_keys, &len);
  CHECK(filter == NULL && len == 0);
  CHECK(bloom.leveldb_bloom_filterpolicy_key_may_match(policy, absent, absent_len, expected.data,
                                                       expected.len) == 1);
  uint8_t result = 0;
  const char *absent_key = absent;
  bloom.leveldb_bloom_filterpolicy_key_may_match_batch(policy, &absent_key, &absent_len, 1,
                                                       expected.data, expected.len, &result);
  CHECK(result == 1);
  CHECK(bloom.leveldb_bloom_filterpolicy_name(policy) == NULL);
}

/* The program's policy by leveldb's names of this library's functions, where the build has them:
 * the same answers as by its own names. */
static void check_by_leveldb_names(const leveldb_filterpolicy_t *policy, int ours) {
#ifdef LEVELDB_BLOOM_PREFIXED
  (void)policy;
  (void)ours;
#else
  size_t len = 12345;
  char *filter = bloom.leveldb_filterpolicy_create_filter(policy, keys, lengths, num_keys, &len);
  CHECK(ours ? is_expected(filter, len) : filter == NULL && len == 0);
  CHECK(bloom.leveldb_filterpolicy_key_may_match(policy, absent, absent_len, expected.data,
                                                 expected.len) == !ours);
  CHECK((bloom.leveldb_filterpolicy_name(policy) != NULL) == ours);
  bloom.leveldb_bloom_free(filter);
#endif
}

/* A policy of callbacks that counts its calls and has this library's bloom policy answer, made by
 * the program's leveldb_filterpolicy_create. */
static __typeof__(&leveldb_filterpolicy_create) create;

static struct {
  leveldb_bloom_filterpolicy_t *bloom;
  int filters, queries, destroyed;
} custom;

static char *custom_create_filter(void *state, const char *const *key_array,
                                  const size_t *key_length_array, int num_keys,
                                  size_t *filter_length) {
  (void)state;
  custom.filters++;
  return bloom.leveldb_bloom_filterpolicy_create_filter(custom.bloom, key_array, key_length_array,
                                                        num_keys, filter_length);
}

static uint8_t custom_key_may_match(void *state, const char *key, size_t length, const char *filter,
                                    size_t filter_length) {
  (void)state;
  custom.queries++;
  return bloom.leveldb_bloom_filterpolicy_key_may_match(custom.bloom, key, length, filter,
                                                        filter_length);
}

static const char *custom_name(void *state) {
  (void)state;
  return "leveldb.BuiltinBloomFilter2";
}

static void custom_destroyed(void *state) {
  (void)state;
  custom.destroyed++;
}

static leveldb_filterpolicy_t *custom_policy(void) {
  return create(&custom, custom_destroyed, custom_create_filter, custom_key_may_match, custom_name);
}

int main(int argc, char **argv) {
  if (argc < 7 || (strcmp(argv[2], "stock") != 0 && strcmp(argv[2], "program") != 0)) {
    fprintf(stderr, "usage: %s DIR stock|program LEVELDB_LIB BLOOM_LIB FILTER KEY...\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  int stock = strcmp(argv[2], "stock") == 0;

  /* leveldb's own policy, for stock, from its library. */
  create_bloom_fn stock_create_bloom;
  destroy_fn stock_destroy;
#if defined(LEVELDB_DLOPEN)
  void *leveldb = must(dlopen(argv[3], LEVELDB_DLOPEN));
#define FROM_LEVELDB(name) ldb.name = (__typeof__(&name))must(dlsym(leveldb, #name));
  LEVELDB_FUNCTIONS(FROM_LEVELDB)
#else
  LEVELDB_FUNCTIONS(DIRECT)
#endif
#if (defined(LEVELDB_BLOOM_PREFIXED) || defined(LEVELDB_STATIC)) && !defined(LEVELDB_DLOPEN)
  /* The build without leveldb's names, or leveldb's static archive in the program: the
   * program's are leveldb's own. */
  stock_create_bloom = &leveldb_filterpolicy_create_bloom;
  stock_destroy = &leveldb_filterpolicy_destroy;
#else
#if !defined(LEVELDB_DLOPEN)
  void *leveldb = must(dlopen(argv[3], RTLD_LAZY | RTLD_NOLOAD));
#endif
  stock_create_bloom = (create_bloom_fn)must(dlsym(leveldb, "leveldb_filterpolicy_create_bloom"));
  stock_destroy = (destroy_fn)must(dlsym(leveldb, "leveldb_filterpolicy_destroy"));
#endif

#ifdef BLOOM_DLOPEN
  void *library = must(dlopen(argv[4], BLOOM_DLOPEN));
#define FROM_BLOOM(name) bloom.name = (__typeof__(&name))must(dlsym(library, #name));
  BLOOM_FUNCTIONS(FROM_BLOOM)
  LEVELDB_NAMED_FUNCTIONS(FROM_BLOOM)
  /* As a program that loads this library gets its functions: from it. */
  create_bloom = (create_bloom_fn)must(dlsym(library, "leveldb_filterpolicy_create_bloom"));
  create = (__typeof__(create))must(dlsym(library, "leveldb_filterpolicy_create"));
  destroy = (destroy_fn)must(dlsym(library, "leveldb_filterpolicy_destroy"));
#else
#define DIRECT_BLOOM(name) bloom.name = &name;
  BLOOM_FUNCTIONS(DIRECT_BLOOM)
  LEVELDB_NAMED_FUNCTIONS(DIRECT_BLOOM)
  /* As the link bound them. */
  create_bloom = &leveldb_filterpolicy_create_bloom;
  create = &leveldb_filterpolicy_create;
  destroy = &leveldb_filterpolicy_destroy;
#endif

  expected = hex(argv[5]);
  num_keys = argc - 6;
  keys = malloc((size_t)num_keys * sizeof *keys);
  lengths = malloc((size_t)num_keys * sizeof *lengths);
  if (num_keys > 64) return 2;
  for (int i = 0; i < num_keys; i++) {
    bytes_t k = hex(argv[6 + i]);
    keys[i] = k.data;
    lengths[i] = k.len;
  }
  for (int i = 0; absent_len == 0 || bloom.leveldb_bloom_key_may_match(
                                          absent, absent_len, expected.data, expected.len);
       i++) {
    absent_len = (size_t)snprintf(absent, sizeof absent, "absent-%d", i);
  }

  char db[4096];
  snprintf(db, sizeof db, "%s/bloom", dir);
  make_policy = bloom_policy;
  if (stock) {
    create_bloom = stock_create_bloom;
    destroy = stock_destroy;
    write_and_read(db);
  } else {
    leveldb_filterpolicy_t *policy = create_bloom(kBitsPerKey);
    /* The same object to this library's own names, if it is this library's. */
    const leveldb_bloom_filterpolicy_t *as_ours = (const leveldb_bloom_filterpolicy_t *)policy;
    int ours = bloom.leveldb_bloom_filterpolicy_name(as_ours) != NULL;
    printf("policy: %s\n", ours ? "this library's" : "leveldb's");
    if (ours) {
      check_ours(as_ours);
    } else {
      check_foreign(as_ours);
    }
    check_by_leveldb_names(policy, ours);
    destroy(policy);

    custom.bloom = bloom.leveldb_bloom_filterpolicy_create_bloom(kBitsPerKey);
    check_ours(custom.bloom);
    write_and_read(db);

    /* A policy of callbacks, as the program's leveldb_filterpolicy_create makes it: leveldb
     * calls them, and destroying each policy calls its destructor once. */
    snprintf(db, sizeof db, "%s/custom", dir);
    make_policy = custom_policy;
    write_and_read(db);
    CHECK(custom.filters > 0 && custom.queries > 0);
    CHECK(custom.destroyed == 2);
    bloom.leveldb_bloom_filterpolicy_destroy(custom.bloom);
  }
  printf("path: %s\n", bloom.leveldb_bloom_isa());
  printf("%lu passed, %lu failed\n", passed, failed);
  return failed == 0 && passed > 0 ? 0 : 1;
}

#endif
