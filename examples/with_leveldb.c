/* A program with leveldb's C API and this library in it: a database written and read through
 * leveldb's C API, with leveldb's own bloom filter policy, and a filter built and queried through
 * this library's own names (leveldb_bloom_*), which the build without leveldb's names
 * (libleveldb_bloom_prefixed) exports. Built and run as the README's "C next to leveldb's C API"
 * shows; it writes its database in ./with_leveldb.db and removes it. */
#include <stdio.h>
#include <stdlib.h>

#include <leveldb/c.h>

#include "leveldb_bloom.h"

static void check(char *err) {
  if (err != NULL) {
    fprintf(stderr, "leveldb: %s\n", err);
    exit(1);
  }
}

int main(void) {
  /* leveldb's names are leveldb's own here: its database, its policy. */
  const char *name = "with_leveldb.db";
  char *err = NULL;
  leveldb_options_t *options = leveldb_options_create();
  leveldb_options_set_create_if_missing(options, 1);
  leveldb_filterpolicy_t *leveldb_policy = leveldb_filterpolicy_create_bloom(10);
  leveldb_options_set_filter_policy(options, leveldb_policy);
  leveldb_t *db = leveldb_open(options, name, &err);
  check(err);
  leveldb_writeoptions_t *write = leveldb_writeoptions_create();
  leveldb_put(db, write, "apple", 5, "red", 3, &err);
  check(err);
  leveldb_readoptions_t *read = leveldb_readoptions_create();
  size_t value_length = 0;
  char *value = leveldb_get(db, read, "apple", 5, &value_length, &err);
  check(err);
  printf("leveldb: apple is %.*s\n", (int)value_length, value);
  leveldb_free(value);

  /* This library by its own names: a filter for three keys, and a query. */
  leveldb_bloom_filterpolicy_t *policy = leveldb_bloom_filterpolicy_create_bloom(10);
  if (policy == NULL) return 1;
  const char *keys[] = {"apple", "banana", "cherry"};
  size_t lengths[] = {5, 6, 6};
  size_t filter_length = 0;
  char *filter =
      leveldb_bloom_filterpolicy_create_filter(policy, keys, lengths, 3, &filter_length);
  if (filter == NULL) return 1;
  printf("leveldb-bloom: %s, %zu byte filter, banana may match: %d\n",
         leveldb_bloom_filterpolicy_name(policy), filter_length,
         leveldb_bloom_filterpolicy_key_may_match(policy, "banana", 6, filter, filter_length));
  leveldb_bloom_free(filter);
  leveldb_bloom_filterpolicy_destroy(policy);

  leveldb_readoptions_destroy(read);
  leveldb_writeoptions_destroy(write);
  leveldb_close(db);
  leveldb_destroy_db(options, name, &err);
  check(err);
  leveldb_options_destroy(options);
  leveldb_filterpolicy_destroy(leveldb_policy);
  return 0;
}
