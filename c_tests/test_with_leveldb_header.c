/* leveldb's own <leveldb/c.h> and our header in one translation unit: the shared declarations
 * must agree, so a program can switch between the two by changing only what it links. */
#include <leveldb/c.h>

#include "check.h"
#include "leveldb_bloom.h"

int main(void) {
  /* Taking each shared function's address with leveldb's types proves the types are compatible. */
  leveldb_filterpolicy_t *(*create_bloom)(int) = leveldb_filterpolicy_create_bloom;
  void (*destroy)(leveldb_filterpolicy_t *) = leveldb_filterpolicy_destroy;
  void (*release)(void *) = leveldb_free;
  leveldb_filterpolicy_t *(*create)(void *, void (*)(void *),
                                    char *(*)(void *, const char *const *, const size_t *, int, size_t *),
                                    uint8_t (*)(void *, const char *, size_t, const char *, size_t),
                                    const char *(*)(void *)) = leveldb_filterpolicy_create;
  CHECK(create != NULL);

  leveldb_filterpolicy_t *policy = create_bloom(10);
  const char *keys[] = {"hello"};
  size_t lengths[] = {5}, len = 0;
  char *filter = leveldb_filterpolicy_create_filter(policy, keys, lengths, 1, &len);
  CHECK(filter != NULL && leveldb_filterpolicy_key_may_match(policy, "hello", 5, filter, len) == 1);
  release(filter);
  destroy(policy);
  return finish();
}
