/* What every benchmark table states beside its figures: the CPU (vendor, family, model and model
 * name, from /proc/cpuinfo) and the kernels in use (leveldb_bloom_isa()). Shared by
 * benches/vs_leveldb.cc and benches/single_query_ab.c. */
#ifndef LEVELDB_BLOOM_BENCH_CONTEXT_H
#define LEVELDB_BLOOM_BENCH_CONTEXT_H

#include <stdio.h>
#include <string.h>

/* The first value of /proc/cpuinfo's `field` (e.g. "cpu family") into out, or "?". */
static void cpuinfo_field(const char *field, char *out, size_t size) {
  snprintf(out, size, "?");
  FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
  if (!cpuinfo) return;
  char line[512];
  size_t len = strlen(field);
  while (fgets(line, sizeof line, cpuinfo)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, field, len) != 0 || !colon || strspn(line + len, " \t") != (size_t)(colon - line - len))
      continue;
    char *value = colon + 1 + strspn(colon + 1, " \t");
    value[strcspn(value, "\n")] = '\0';
    snprintf(out, size, "%s", value);
    break;
  }
  fclose(cpuinfo);
}

/* "CPU: <vendor> family F model M (<model name>)", one line. */
static void print_cpu(void) {
  char vendor[64], family[16], model[16], name[256];
  cpuinfo_field("vendor_id", vendor, sizeof vendor);
  cpuinfo_field("cpu family", family, sizeof family);
  cpuinfo_field("model", model, sizeof model);
  cpuinfo_field("model name", name, sizeof name);
  printf("CPU: %s family %s model %s (%s)\n", vendor, family, model, name);
}

/* The path names LEVELDB_BLOOM_ISA takes, slowest first. */
static const char *const kIsaNames[] = {"portable", "avx2", "avx512"};
enum { kIsaCount = 3 };

/* Where `name` is in kIsaNames, or -1. */
static int isa_rank(const char *name) {
  for (int i = 0; i < kIsaCount; i++)
    if (name && strcmp(name, kIsaNames[i]) == 0) return i;
  return -1;
}

#endif
