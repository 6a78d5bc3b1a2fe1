/* leveldb's filter blocks through the C ABI: every vector leveldb 1.23's FilterBlockBuilder and
 * FilterBlockReader made (vectors/filterblock.txt, format in vectors/README.md), built and read
 * with the bloom policy and with the vectors' custom policy made of C callbacks; then every
 * bad-input row of the leveldb_filterblock_* functions (header, README). */
#include <stdint.h>

#include "check.h"
#include "leveldb_bloom.h"

/* ---- The vectors' custom policy: two bytes per key (length mod 256, XOR of the bytes). ---- */

typedef struct {
  int fail_create; /* create_filter returns NULL while set */
} custom_state_t;

static void pair(const char *key, size_t len, unsigned char out[2]) {
  unsigned char x = 0;
  for (size_t i = 0; i < len; i++) x ^= (unsigned char)key[i];
  out[0] = (unsigned char)(len & 0xff);
  out[1] = x;
}

static char *custom_create(void *state, const char *const *keys, const size_t *lens, int n, size_t *len) {
  if (((custom_state_t *)state)->fail_create) return NULL;
  unsigned char *filter = xmalloc(2 * (size_t)n);
  for (int i = 0; i < n; i++) pair(keys[i], lens[i], filter + 2 * i);
  *len = 2 * (size_t)n;
  return (char *)filter;
}

static uint8_t custom_match(void *state, const char *key, size_t len, const char *filter, size_t filter_len) {
  (void)state;
  if (filter_len == 0) return 1;
  unsigned char p[2];
  pair(key, len, p);
  for (size_t i = 0; i + 1 < filter_len; i += 2) {
    if ((unsigned char)filter[i] == p[0] && (unsigned char)filter[i + 1] == p[1]) return 1;
  }
  return 0;
}

static const char *custom_name(void *state) {
  (void)state;
  return "leveldb-bloom.TestPolicy";
}

static custom_state_t g_custom;

static leveldb_filterpolicy_t *custom_policy(void) {
  return leveldb_filterpolicy_create(&g_custom, NULL, custom_create, custom_match, custom_name);
}

/* ---- Reading vectors/filterblock.txt ---- */

typedef struct {
  char *data;
  size_t len;
} bytes_t;

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

static void bad_file(void) {
  fprintf(stderr, "malformed line in vectors/filterblock.txt\n");
  exit(2);
}

/* Decodes plain hex digits onto the end of `out` (with room for them). */
static void hex_plain(const char *hex, size_t n, bytes_t *out) {
  if (n % 2 != 0) bad_file();
  for (size_t i = 0; i < n; i += 2) {
    int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) bad_file();
    out->data[out->len++] = (char)(hi << 4 | lo);
  }
}

/* A hex field: "-" is empty; parts joined by '.', each plain hex or COUNTxHEX (repeated). */
static bytes_t hex_decode(const char *field) {
  size_t total = 0, n = strlen(field);
  bytes_t out = {NULL, 0};
  if (strcmp(field, "-") == 0) return (bytes_t){xmalloc(1), 0};
  /* First pass: the decoded length. */
  for (const char *part = field; part < field + n;) {
    const char *end = strchr(part, '.');
    if (end == NULL) end = field + n;
    const char *x = memchr(part, 'x', (size_t)(end - part));
    total += x ? strtoull(part, NULL, 10) * (size_t)(end - x - 1) / 2 : (size_t)(end - part) / 2;
    part = end + 1;
  }
  out.data = xmalloc(total);
  for (const char *part = field; part < field + n;) {
    const char *end = strchr(part, '.');
    if (end == NULL) end = field + n;
    const char *x = memchr(part, 'x', (size_t)(end - part));
    if (x == NULL) {
      hex_plain(part, (size_t)(end - part), &out);
    } else {
      unsigned long long count = strtoull(part, NULL, 10);
      size_t start = out.len;
      hex_plain(x + 1, (size_t)(end - x - 1), &out);
      size_t unit = out.len - start;
      for (unsigned long long i = 1; i < count; i++, out.len += unit) memcpy(out.data + out.len, out.data + start, unit);
    }
    part = end + 1;
  }
  return out;
}

/* A list of calls or queries: offsets, and keys in the shapes the C API takes. */
typedef struct {
  size_t count;
  int *is_start; /* calls only */
  uint64_t *offsets;
  bytes_t *keys;
  const char **ptrs;
  size_t *lens;
} list_t;

static void list_clear(list_t *l) {
  for (size_t i = 0; i < l->count; i++) free(l->keys[i].data);
  free(l->is_start);
  free(l->offsets);
  free(l->keys);
  free(l->ptrs);
  free(l->lens);
  memset(l, 0, sizeof *l);
}

static char *g_line;
static size_t g_cap;

static char *read_line(FILE *f) { return next_line(f, &g_line, &g_cap); }

/* Reads `count` lines of calls ("start OFFSET" / "key HEX") or queries ("OFFSET HEX"). */
static void read_list(FILE *f, size_t count, int calls, list_t *l) {
  list_clear(l);
  l->count = count;
  l->is_start = xmalloc(count * sizeof *l->is_start);
  l->offsets = xmalloc(count * sizeof *l->offsets);
  l->keys = xmalloc(count * sizeof *l->keys);
  l->ptrs = xmalloc(count * sizeof *l->ptrs);
  l->lens = xmalloc(count * sizeof *l->lens);
  for (size_t i = 0; i < count; i++) {
    char *line = read_line(f);
    if (line == NULL) bad_file();
    char *space = strchr(line, ' ');
    if (space == NULL) bad_file();
    *space = '\0';
    l->is_start[i] = calls && strcmp(line, "start") == 0;
    if (calls && l->is_start[i]) {
      l->offsets[i] = strtoull(space + 1, NULL, 10);
      l->keys[i] = (bytes_t){xmalloc(1), 0};
    } else {
      l->offsets[i] = calls ? 0 : strtoull(line, NULL, 10);
      l->keys[i] = hex_decode(space + 1);
    }
    l->ptrs[i] = l->keys[i].data;
    l->lens[i] = l->keys[i].len;
  }
}

/* The block a builder over `policy` gives for `calls`, malloc'ed; NULL if any call fails. */
static char *build(const leveldb_filterpolicy_t *policy, const list_t *calls, size_t *len) {
  leveldb_filterblock_builder_t *builder = leveldb_filterblock_builder_create(policy);
  int ok = builder != NULL;
  for (size_t i = 0; ok && i < calls->count; i++) {
    ok = calls->is_start[i] ? leveldb_filterblock_builder_start_block(builder, calls->offsets[i])
                            : leveldb_filterblock_builder_add_key(builder, calls->ptrs[i], calls->lens[i]);
  }
  char *block = ok ? leveldb_filterblock_builder_finish(builder, len) : NULL;
  leveldb_filterblock_builder_destroy(builder);
  return block;
}

/* Single and batch answers for the current queries equal `answers`. */
static void check_answers(const leveldb_filterpolicy_t *policy, const char *block, size_t len,
                          const list_t *queries, const char *answers) {
  int same = strlen(answers) == queries->count || (queries->count == 0 && strcmp(answers, "-") == 0);
  uint8_t *batch = xmalloc(queries->count);
  memset(batch, 7, queries->count);
  leveldb_filterblock_key_may_match_batch(policy, block, len, queries->offsets, queries->ptrs, queries->lens,
                                          queries->count, batch);
  for (size_t i = 0; same && i < queries->count; i++) {
    uint8_t single =
        leveldb_filterblock_key_may_match(policy, block, len, queries->offsets[i], queries->ptrs[i], queries->lens[i]);
    same = single == (uint8_t)(answers[i] == '1') && batch[i] == single;
  }
  CHECK(same);
  free(batch);
}

static void vectors(const char *dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/filterblock.txt", dir);
  FILE *f = fopen(path, "r");
  if (f == NULL || read_line(f) == NULL || strcmp(g_line, "leveldb-bloom filter block vectors v1") != 0) {
    fprintf(stderr, "%s: not a filter block vector file\n", path);
    exit(2);
  }
  leveldb_filterpolicy_t *custom = custom_policy();
  list_t calls = {0}, queries = {0};
  unsigned long records = 0;
  char *line;
  while ((line = read_line(f)) != NULL) {
    if (line[0] == '#') continue;
    char kind[16], policy_name[32];
    unsigned long long count;
    if (sscanf(line, "calls %llu", &count) == 1) {
      read_list(f, (size_t)count, 1, &calls);
      continue;
    }
    if (sscanf(line, "queries %llu", &count) == 1) {
      read_list(f, (size_t)count, 0, &queries);
      continue;
    }
    if (sscanf(line, "%15s %31s", kind, policy_name) != 2) bad_file();
    char *hex = strchr(strchr(line, ' ') + 1, ' ') + 1;
    char *answers = strchr(hex, ' ');
    if (answers == NULL) bad_file();
    *answers++ = '\0';
    bytes_t expected = hex_decode(hex);
    leveldb_filterpolicy_t *bloom = NULL, *policy = custom;
    if (strncmp(policy_name, "bloom:", 6) == 0) policy = bloom = leveldb_filterpolicy_create_bloom(atoi(policy_name + 6));
    if (strcmp(kind, "build") == 0) {
      size_t len = 0;
      char *block = build(policy, &calls, &len);
      CHECK(block != NULL && len == expected.len && memcmp(block, expected.data, len) == 0);
      leveldb_free(block);
    }
    check_answers(policy, expected.data, expected.len, &queries, answers);
    leveldb_filterpolicy_destroy(bloom);
    free(expected.data);
    records++;
  }
  CHECK(records == 1506);
  list_clear(&calls);
  list_clear(&queries);
  leveldb_filterpolicy_destroy(custom);
  fclose(f);
}

/* ---- Bad input ---- */

static int same_block(char *a, size_t a_len, char *b, size_t b_len) {
  int same = a != NULL && b != NULL && a_len == b_len && memcmp(a, b, a_len) == 0;
  leveldb_free(a);
  leveldb_free(b);
  return same;
}

/* The reference block: StartBlock(0), "alpha", "", StartBlock(5000), "beta". */
static char *reference(const leveldb_filterpolicy_t *policy, size_t *len) {
  leveldb_filterblock_builder_t *b = leveldb_filterblock_builder_create(policy);
  leveldb_filterblock_builder_start_block(b, 0);
  leveldb_filterblock_builder_add_key(b, "alpha", 5);
  leveldb_filterblock_builder_add_key(b, "", 0);
  leveldb_filterblock_builder_start_block(b, 5000);
  leveldb_filterblock_builder_add_key(b, "beta", 4);
  char *block = leveldb_filterblock_builder_finish(b, len);
  leveldb_filterblock_builder_destroy(b);
  return block;
}

static void builder_rows(const leveldb_filterpolicy_t *policy) {
  size_t len = 99;
  CHECK(leveldb_filterblock_builder_create(NULL) == NULL);
  CHECK(leveldb_filterblock_builder_start_block(NULL, 0) == 0);
  CHECK(leveldb_filterblock_builder_add_key(NULL, "k", 1) == 0);
  CHECK(leveldb_filterblock_builder_finish(NULL, &len) == NULL && len == 0);
  leveldb_filterblock_builder_destroy(NULL);

  /* Each refused call leaves the builder as it was: the block is the reference's. */
  leveldb_filterblock_builder_t *b = leveldb_filterblock_builder_create(policy);
  CHECK(b != NULL);
  CHECK(leveldb_filterblock_builder_start_block(b, 0) == 1);
  CHECK(leveldb_filterblock_builder_add_key(b, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_builder_add_key(b, NULL, 3) == 0);
  CHECK(leveldb_filterblock_builder_add_key(b, NULL, 0) == 1); /* the empty key */
  CHECK(leveldb_filterblock_builder_start_block(b, 5000) == 1);
  CHECK(leveldb_filterblock_builder_start_block(b, 4096) == 1);    /* 5000's 2 KB range: allowed */
  CHECK(leveldb_filterblock_builder_start_block(b, 4095) == 0);    /* an earlier range */
  /* Past the largest file offset, 2^63 - 1: refused before anything is allocated (ASan's default
   * options, which stop a program asking malloc for 2^55 bytes, check it). */
  CHECK(leveldb_filterblock_builder_start_block(b, UINT64_MAX) == 0);
  CHECK(leveldb_filterblock_builder_start_block(b, (uint64_t)INT64_MAX + 1) == 0);
  CHECK(leveldb_filterblock_builder_add_key(b, "beta", 4) == 1);
  CHECK(leveldb_filterblock_builder_finish(b, NULL) == NULL);
  size_t ref_len = 0, got_len = 7;
  char *got = leveldb_filterblock_builder_finish(b, &got_len);
  char *ref = reference(policy, &ref_len);
  CHECK(same_block(got, got_len, ref, ref_len));

  /* Finished: finish twice, and use after finish. */
  len = 99;
  CHECK(leveldb_filterblock_builder_finish(b, &len) == NULL && len == 0);
  CHECK(leveldb_filterblock_builder_start_block(b, 10000) == 0);
  CHECK(leveldb_filterblock_builder_add_key(b, "k", 1) == 0);
  leveldb_filterblock_builder_destroy(b);

  /* Destroyed unfinished, with keys pending: nothing leaks (valgrind and ASan check). */
  b = leveldb_filterblock_builder_create(policy);
  CHECK(leveldb_filterblock_builder_add_key(b, "pending", 7) == 1);
  leveldb_filterblock_builder_destroy(b);
}

/* A custom policy whose create_filter fails: the call that builds a filter fails, the builder
 * unchanged; once it succeeds again the block is the reference's. */
static void failing_policy_rows(void) {
  leveldb_filterpolicy_t *custom = custom_policy();
  leveldb_filterblock_builder_t *b = leveldb_filterblock_builder_create(custom);
  CHECK(leveldb_filterblock_builder_start_block(b, 0) == 1);
  CHECK(leveldb_filterblock_builder_add_key(b, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_builder_add_key(b, "", 0) == 1);
  g_custom.fail_create = 1;
  CHECK(leveldb_filterblock_builder_start_block(b, 5000) == 0);
  g_custom.fail_create = 0;
  CHECK(leveldb_filterblock_builder_start_block(b, 5000) == 1);
  CHECK(leveldb_filterblock_builder_add_key(b, "beta", 4) == 1);
  g_custom.fail_create = 1;
  size_t len = 99;
  CHECK(leveldb_filterblock_builder_finish(b, &len) == NULL && len == 0);
  g_custom.fail_create = 0;
  char *got = leveldb_filterblock_builder_finish(b, &len);
  size_t ref_len = 0;
  char *ref = reference(custom, &ref_len);
  CHECK(same_block(got, len, ref, ref_len));
  leveldb_filterblock_builder_destroy(b);
  leveldb_filterpolicy_destroy(custom);
}

static void reader_rows(const leveldb_filterpolicy_t *policy) {
  size_t len = 0;
  char *block = reference(policy, &len);
  CHECK(leveldb_filterblock_key_may_match(policy, block, len, 0, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_key_may_match(policy, block, len, 0, NULL, 0) == 1); /* the empty key */
  CHECK(leveldb_filterblock_key_may_match(policy, block, len, 2048, "alpha", 5) == 0); /* empty filter */
  CHECK(leveldb_filterblock_key_may_match(NULL, block, len, 2048, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_key_may_match(policy, NULL, len, 2048, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_key_may_match(policy, block, len, 2048, NULL, 5) == 1);
  CHECK(leveldb_filterblock_key_may_match(policy, block, (size_t)PTRDIFF_MAX + 1, 2048, "alpha", 5) == 1);
  CHECK(leveldb_filterblock_key_may_match(policy, NULL, 0, 2048, "alpha", 5) == 1); /* empty contents */

  const uint64_t offsets[] = {0, 2048, 2048, 4096};
  const char *keys[] = {"alpha", "alpha", NULL, "beta"};
  const size_t lens[] = {5, 5, 3, 4};
  uint8_t results[4];
#define BATCH(p, c, c_len, o, k, l, n) \
  (memset(results, 7, sizeof results), leveldb_filterblock_key_may_match_batch(p, c, c_len, o, k, l, n, results))
#define ALL(v) (results[0] == (v) && results[1] == (v) && results[2] == (v) && results[3] == (v))
  BATCH(policy, block, len, offsets, keys, lens, 4);
  CHECK(results[0] == 1 && results[1] == 0 && results[2] == 1 && results[3] == 1);
  leveldb_filterblock_key_may_match_batch(policy, block, len, offsets, keys, lens, 4, NULL);
  BATCH(policy, block, len, offsets, keys, lens, 0);
  CHECK(ALL(7));
  BATCH(NULL, block, len, offsets, keys, lens, 4);
  CHECK(ALL(1));
  BATCH(policy, NULL, len, offsets, keys, lens, 4);
  CHECK(ALL(1));
  BATCH(policy, block, len, NULL, keys, lens, 4);
  CHECK(ALL(1));
  BATCH(policy, block, len, offsets, NULL, lens, 4);
  CHECK(ALL(1));
  BATCH(policy, block, len, offsets, keys, NULL, 4);
  CHECK(ALL(1));
  BATCH(policy, block, len, offsets, keys, lens, (size_t)PTRDIFF_MAX);
  CHECK(ALL(7));
#undef BATCH
#undef ALL
  leveldb_free(block);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
    return 2;
  }
  vectors(argv[1]);
  leveldb_filterpolicy_t *bloom = leveldb_filterpolicy_create_bloom(10);
  leveldb_filterpolicy_t *custom = custom_policy();
  builder_rows(bloom);
  builder_rows(custom);
  failing_policy_rows();
  reader_rows(bloom);
  free(g_line);
  leveldb_filterpolicy_destroy(bloom);
  leveldb_filterpolicy_destroy(custom);
  return finish();
}
