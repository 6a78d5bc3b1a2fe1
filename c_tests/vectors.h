/* Reader for the reference vectors in vectors/ (format: vectors/README.md), for the C tests. */
#ifndef LEVELDB_BLOOM_VECTORS_H
#define LEVELDB_BLOOM_VECTORS_H

#include "check.h"

/* A byte string and a list of them. */
typedef struct {
  char *data;
  size_t len;
} bytes_t;

typedef struct {
  bytes_t *items;
  const char **ptrs; /* items[i].data, in the shape leveldb's C API takes */
  size_t *lens;      /* items[i].len */
  size_t count;
} byte_list_t;

static void byte_list_clear(byte_list_t *list) {
  for (size_t i = 0; i < list->count; i++) free(list->items[i].data);
  free(list->items);
  free(list->ptrs);
  free(list->lens);
  memset(list, 0, sizeof *list);
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/* Decodes one hex field ("-" is empty); exits on malformed input, which means a broken file. */
static bytes_t hex_decode(const char *hex, size_t hex_len) {
  bytes_t out = {xmalloc(hex_len / 2), 0};
  if (hex_len == 1 && hex[0] == '-') return out;
  if (hex_len % 2 != 0) goto bad;
  for (size_t i = 0; i < hex_len; i += 2) {
    int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) goto bad;
    out.data[out.len++] = (char)(hi << 4 | lo);
  }
  return out;
bad:
  fprintf(stderr, "malformed hex field in vectors\n");
  exit(2);
}

/* Reads a vector file record by record: keys and probes are kept current, and each `filter`
 * or `match` line is returned with its fields. */
typedef enum { RECORD_FILTER, RECORD_MATCH, RECORD_END } record_kind_t;

typedef struct {
  FILE *file;
  char *line;
  size_t cap;
  byte_list_t keys, probes;
  int bits_per_key;  /* RECORD_FILTER only */
  bytes_t filter;    /* the filter bytes of the record */
  const char *answers; /* '0'/'1' per probe, into line */
} vector_reader_t;

static char *read_line(vector_reader_t *r) { return next_line(r->file, &r->line, &r->cap); }

/* Opens DIR/NAME, e.g. the vectors folder a test was given and "build.txt". */
static void vector_open(vector_reader_t *r, const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  memset(r, 0, sizeof *r);
  r->file = fopen(path, "r");
  if (r->file == NULL || read_line(r) == NULL || strcmp(r->line, "leveldb-bloom vectors v1") != 0) {
    fprintf(stderr, "%s: not a vector file (see vectors/README.md)\n", path);
    exit(2);
  }
}

/* For a test taking VECTORS_DIR [FILE]: whether to read the vector file NAME, all of them
 * (build.txt, match.txt) without FILE, or only FILE, so that a slow run (valgrind's) can read each
 * on a core of its own. Exits with the usage for any other command line. */
static inline int vector_file_wanted(int argc, char **argv, const char *name) {
  if (argc == 2) return 1;
  if (argc != 3 || (strcmp(argv[2], "build.txt") != 0 && strcmp(argv[2], "match.txt") != 0)) {
    fprintf(stderr, "usage: %s VECTORS_DIR [build.txt | match.txt]\n", argv[0]);
    exit(2);
  }
  return strcmp(argv[2], name) == 0;
}

static void read_byte_list(vector_reader_t *r, byte_list_t *list, size_t count) {
  byte_list_clear(list);
  list->items = xmalloc(count * sizeof *list->items);
  list->ptrs = xmalloc(count * sizeof *list->ptrs);
  list->lens = xmalloc(count * sizeof *list->lens);
  for (size_t i = 0; i < count; i++) {
    if (read_line(r) == NULL) {
      fprintf(stderr, "vector file ends inside a list\n");
      exit(2);
    }
    list->items[i] = hex_decode(r->line, strlen(r->line));
    list->ptrs[i] = list->items[i].data;
    list->lens[i] = list->items[i].len;
    list->count = i + 1;
  }
}

/* Releases the reader: at the end of the file, or before, to stop reading there. */
static void vector_close(vector_reader_t *r) {
  free(r->filter.data);
  r->filter.data = NULL;
  byte_list_clear(&r->keys);
  byte_list_clear(&r->probes);
  free(r->line);
  fclose(r->file);
}

/* Advances to the next filter or match record; RECORD_END at end of file. */
static record_kind_t vector_next(vector_reader_t *r) {
  free(r->filter.data);
  r->filter.data = NULL;
  while (read_line(r) != NULL) {
    char *line = r->line;
    if (line[0] == '#' || line[0] == '\0') continue;
    if (strncmp(line, "keys ", 5) == 0) {
      read_byte_list(r, &r->keys, strtoul(line + 5, NULL, 10));
    } else if (strncmp(line, "probes ", 7) == 0) {
      read_byte_list(r, &r->probes, strtoul(line + 7, NULL, 10));
    } else {
      record_kind_t kind = strncmp(line, "filter ", 7) == 0 ? RECORD_FILTER : RECORD_MATCH;
      char *field = line + (kind == RECORD_FILTER ? 7 : 6);
      if (kind == RECORD_MATCH && strncmp(line, "match ", 6) != 0) break;
      if (kind == RECORD_FILTER) r->bits_per_key = (int)strtol(field, &field, 10), field++;
      char *space = strchr(field, ' ');
      if (space == NULL) break;
      r->filter = hex_decode(field, (size_t)(space - field));
      r->answers = space + 1;
      if (strlen(r->answers) != (r->probes.count ? r->probes.count : 1)) break;
      return kind;
    }
  }
  if (!feof(r->file)) {
    fprintf(stderr, "malformed vector line: %.80s\n", r->line);
    exit(2);
  }
  vector_close(r);
  return RECORD_END;
}

#endif
