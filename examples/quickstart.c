/* Quickstart: leveldb's bloom filter from C. Builds the filter leveldb would store for 10,000
 * keys, checks that every key is found, and counts how often absent keys are claimed.
 * Built and run by `cmake -S . -B build && cmake --build build --target run_quickstart`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "leveldb_bloom.h"

enum { NUM_KEYS = 10000, NUM_ABSENT = 100000, KEY_SIZE = 16 };

int main(void) {
  /* Keys are any bytes, given as pointers and lengths, as leveldb's C API takes them. */
  static char storage[NUM_KEYS][KEY_SIZE];
  static const char *keys[NUM_KEYS];
  static size_t lengths[NUM_KEYS];
  for (int i = 0; i < NUM_KEYS; i++) {
    lengths[i] = (size_t)snprintf(storage[i], KEY_SIZE, "user:%08d", i);
    keys[i] = storage[i];
  }

  /* 10 bits per key is leveldb's usual setting: about 1% false positives. */
  leveldb_filterpolicy_t *policy = leveldb_filterpolicy_create_bloom(10);
  size_t filter_length = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, keys, lengths, NUM_KEYS, &filter_length);
  if (policy == NULL || filter == NULL) {
    fputs("out of memory\n", stderr);
    return 1;
  }
  printf("%s: %d keys -> %zu byte filter, k = %d\n", leveldb_filterpolicy_name(policy), NUM_KEYS,
         filter_length, filter[filter_length - 1]);

  /* A bloom filter never misses a key it was built from: here all are asked in one batch call. */
  static uint8_t found[NUM_KEYS];
  leveldb_filterpolicy_key_may_match_batch(policy, keys, lengths, NUM_KEYS, filter, filter_length,
                                           found);
  int members = 0;
  for (int i = 0; i < NUM_KEYS; i++) members += found[i];
  printf("members found:   %d of %d\n", members, NUM_KEYS);

  /* ...and rarely claims one it was not built from: one key at a time here. */
  int false_positives = 0;
  for (int i = 0; i < NUM_ABSENT; i++) {
    char key[KEY_SIZE];
    size_t length = (size_t)snprintf(key, sizeof key, "absent:%08d", i);
    false_positives += leveldb_filterpolicy_key_may_match(policy, key, length, filter, filter_length);
  }
  printf("false positives: %d of %d (%.2f%%)\n", false_positives, NUM_ABSENT,
         100.0 * false_positives / NUM_ABSENT);

  leveldb_free(filter);
  leveldb_filterpolicy_destroy(policy);
  return members == NUM_KEYS ? EXIT_SUCCESS : EXIT_FAILURE;
}
