/* Test support shared by the C tests: CHECK counts passes and failures, and finish() prints the
 * path the library ran (its LEVELDB_BLOOM_ISA check) and the "N passed, N failed" line the
 * harness reads. Header-only so each test is one compiler call. */
#ifndef LEVELDB_BLOOM_CHECK_H
#define LEVELDB_BLOOM_CHECK_H

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

#endif
