/* Test support shared by the C tests: CHECK counts passes and failures, and finish() prints the
 * path the library ran (its LEVELDB_BLOOM_ISA check) and the "N passed, N failed" line the
 * harness reads. Header-only so each test is one compiler call. */
#ifndef LEVELDB_BLOOM_CHECK_H
#define LEVELDB_BLOOM_CHECK_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leveldb_bloom.h"
#ifdef LEVELDB_BLOOM_PREFIXED
#include "own_names.h"
#endif

static unsigned long checks_passed, checks_failed;

#define CHECK(cond) check_at((cond) != 0, #cond, __FILE__, __LINE__)

static void check_at(int ok, const char *what, const char *file, int line) {
  if (ok) {
    checks_passed++;
    return;
  }
  /* Past the first few, more failure lines say nothing new. */
  if (++checks_failed <= 20) fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
}

static int finish(void) {
  printf("path: %s\n", leveldb_bloom_isa());
  printf("%lu passed, %lu failed\n", checks_passed, checks_failed);
  return checks_failed == 0 && checks_passed > 0 ? 0 : 1;
}

/* inline: tests that allocate nothing must not warn about it. */
static inline void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

/* The next line of `file`, without its newline, in *line (grown as needed; the caller frees it);
 * NULL at the end of the file. getline's job in standard C: MinGW's C library has no getline. */
static inline char *next_line(FILE *file, char **line, size_t *cap) {
  size_t len = 0;
  for (;;) {
    if (*cap - len < 2) {
      *cap = *cap < 128 ? 128 : *cap * 2;
      *line = (char *)realloc(*line, *cap);
      if (*line == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
      }
    }
    size_t room = *cap - len > INT_MAX ? INT_MAX : *cap - len;
    if (fgets(*line + len, (int)room, file) == NULL) return len > 0 ? *line : NULL;
    len += strlen(*line + len);
    if ((*line)[len - 1] == '\n') {
      (*line)[len - 1] = '\0';
      return *line;
    }
  }
}

#endif
