/* A program using an installed leveldb_bloom: builds a filter and queries it, by the library's
 * own names, which every build has. Exits 0 only if every key put in the filter is found. */
#include <stdio.h>

#include <leveldb_bloom.h>

int main(void) {
  leveldb_bloom_filterpolicy_t *policy = leveldb_bloom_filterpolicy_create_bloom(10);
  if (policy == NULL) return 1;
  const char *keys[] = {"apple", "banana", "cherry"};
  size_t lengths[] = {5, 6, 6};
  size_t filter_length = 0;
  char *filter =
      leveldb_bloom_filterpolicy_create_filter(policy, keys, lengths, 3, &filter_length);
  if (filter == NULL) return 1;
  int found = 0;
  for (int i = 0; i < 3; i++) {
    found += leveldb_bloom_filterpolicy_key_may_match(policy, keys[i], lengths[i], filter,
                                                      filter_length);
  }
  printf("%s: %zu byte filter, %d of 3 keys found\n", leveldb_bloom_filterpolicy_name(policy),
         filter_length, found);
  leveldb_bloom_free(filter);
  leveldb_bloom_filterpolicy_destroy(policy);
  return found == 3 ? 0 : 1;
}
