/* leveldb-bloom's C++ shim: defines leveldb::NewBloomFilterPolicy(int) (from
 * <leveldb/filter_policy.h>) with filters built and queried by leveldb-bloom, byte-identical to
 * leveldb 1.23's util/bloom.cc, which it replaces. This header only adds two counters, so a
 * program can tell that the shim, and not leveldb's own bloom.cc, is the one doing the work. */
#ifndef LEVELDB_BLOOM_SHIM_H
#define LEVELDB_BLOOM_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Filters built by the shim's policies (CreateFilter calls) since the process started. */
uint64_t leveldb_bloom_shim_filters_built(void);

/* Keys tested against a filter by the shim's policies (KeyMayMatch calls) since the start. */
uint64_t leveldb_bloom_shim_keys_tested(void);

#ifdef __cplusplus
}
#endif

#endif
