/*
 * leveldb-bloom: LevelDB's built-in bloom filter (leveldb.BuiltinBloomFilter2), byte-identical to
 * leveldb 1.23, for C: policy objects, building filters, single and batch queries, custom
 * policies and leveldb's filter blocks. This header can be included together with <leveldb/c.h>.
 *
 * Names, and which build to link
 * - leveldb_bloom_*: all of it under this library's own names, in every build. A policy is a
 *   leveldb_bloom_filterpolicy_t; leveldb_bloom_filter_length, _fill_filter and _key_may_match
 *   build and query without one, in the caller's buffer (the C++ shim, shim/, calls them).
 * - leveldb_filterpolicy_*, leveldb_free (leveldb's C API names) and leveldb_filterblock_*: the
 *   same functions over a leveldb_filterpolicy_t (the same objects, cast), in the default build,
 *   libleveldb_bloom: a drop-in for leveldb's C API in programs without leveldb.
 * - A program that also links leveldb, whose C API defines leveldb_filterpolicy_create_bloom,
 *   _create, _destroy and leveldb_free too, links libleveldb_bloom_prefixed instead: the build
 *   without leveldb's names (CMake: leveldb_bloom::leveldb_bloom_prefixed; pkg-config:
 *   leveldb_bloom_prefixed), whose flags define LEVELDB_BLOOM_PREFIXED, with which this header
 *   declares only leveldb_bloom_*. To have leveldb's own policy build its filters with this
 *   library, link or preload the C++ shim (README, "Inside leveldb").
 * - The default build linked with leveldb anyway neither crashes nor gives a wrong filter: a
 *   static link stops at the names' clash; linked shared or loaded with dlopen, in any order,
 *   either library's leveldb_filterpolicy_create_bloom gives a policy leveldb can use, and every
 *   function here answers a policy this library did not make as bad input (see the table).
 *
 * Conventions
 * - Ownership: a policy from ..._filterpolicy_create_bloom or ..._filterpolicy_create is
 *   released with ..._filterpolicy_destroy. A filter from ..._filterpolicy_create_filter is a
 *   malloc'ed buffer the caller owns: release it with leveldb_bloom_free or leveldb_free (or
 *   free). Strings from ..._filterpolicy_name live as long as the policy. A filter block
 *   builder from ..._filterblock_builder_create is released with ..._filterblock_builder_destroy,
 *   and its policy must stay live until then; the block from ..._filterblock_builder_finish is
 *   malloc'ed, released as a filter is.
 * - Threads: policies are immutable. Any number of threads may use one policy at once (create
 *   filters, query, read its name); only destroy must not race with other uses. Callbacks of a
 *   custom policy must be safe to call from several threads, as leveldb requires. A filter
 *   block builder is used by one thread at a time; queries of one block may run at once.
 * - Errors: no call aborts or lets a Rust panic escape (beside leveldb's C API, see
 *   leveldb_filterpolicy_create_bloom for the two ends leveldb's own code has). Functions
 *   returning a pointer return NULL on bad input or when memory runs out. Queries answer 1
 *   ("may match") on bad input: an error must never cause a false negative. A NULL pointer with length 0 is an empty byte string.
 *
 * Version and language
 * - LEVELDB_BLOOM_VERSION_MAJOR, _MINOR and _PATCH are this header's version;
 *   leveldb_bloom_version() is the loaded library's, "MAJOR.MINOR.PATCH".
 * - The header is C89 (with <stdint.h>) and C++98 or later.
 *
 * For bindings from other languages
 * - The policy types are opaque: declare them as opaque pointer types.
 * - Keys and filters are bytes, not strings: declare `const char *` keys and filters, and the
 *   `char *` filter that ..._filterpolicy_create_filter returns, as byte pointers (uint8_t or
 *   void), never as NUL-terminated strings. Keep that returned pointer to pass to
 *   leveldb_bloom_free; its length comes back through the size_t out-parameter filter_length.
 * - leveldb_bloom_fill_filter builds into a buffer the caller allocates, of
 *   leveldb_bloom_filter_length() bytes, with nothing to free: often the easier call to bind.
 * - examples/node/leveldb_bloom.mjs declares the functions this way for Node.js (koffi).
 *
 * Bad input (calls of either family: create_bloom is leveldb_bloom_filterpolicy_create_bloom
 * and leveldb_filterpolicy_create_bloom, and so on)
 * | call          | input                                                   | result            |
 * |---------------|---------------------------------------------------------|-------------------|
 * | every call    | a policy this library did not make (e.g. one from       | as for a NULL     |
 * | with a policy | leveldb's own C API); nothing but its first word is read| policy            |
 * | create_bloom  | bits_per_key < 0                                        | NULL              |
 * | create_bloom  | 0                                                       | policy, k = 1     |
 * | create_bloom  | huge, e.g. INT_MAX                                      | policy, k = 30    |
 * | create_filter | NULL policy; NULL filter_length; num_keys < 0;          | NULL              |
 * |               | NULL key_array or key_length_array with num_keys > 0;   |                   |
 * |               | a NULL key with length > 0; a filter too large to       |                   |
 * |               | allocate                                                |                   |
 * | create_filter | a NULL key with length 0                                | the empty key     |
 * | key_may_match | NULL policy; NULL key or filter with length > 0         | 1                 |
 * | key_may_match | any filter bytes (empty, k byte > 30, garbage)          | leveldb's answer  |
 * | ..._batch     | NULL results, or num_keys 0                             | nothing written   |
 * | ..._batch     | NULL policy; NULL keys or key_lengths with num_keys > 0;| every result 1    |
 * |               | NULL filter with filter_length > 0                      |                   |
 * | ..._batch     | a NULL key with length > 0                              | that result 1     |
 * | name          | NULL policy                                             | NULL              |
 * | create        | NULL create_filter, key_may_match or name               | NULL              |
 * | destroy, free | NULL                                                    | nothing happens   |
 *
 * | call                        | input                                     | result          |
 * |-----------------------------|-------------------------------------------|-----------------|
 * | leveldb_bloom_filter_length | bits_per_key < 0; length past SIZE_MAX    | 0               |
 * | leveldb_bloom_fill_filter   | bits_per_key < 0; out_length not the      | 0, out untouched|
 * |                             | filter length; NULL out; NULL keys with   |                 |
 * |                             | num_keys > 0; num_keys past what memory   |                 |
 * |                             | holds; a NULL data with size > 0          |                 |
 * | leveldb_bloom_fill_filter   | a NULL data with size 0                   | the empty key   |
 * | leveldb_bloom_key_may_match | NULL key or filter with length > 0        | 1               |
 * | leveldb_bloom_key_may_match | any filter bytes                          | leveldb's answer|
 *
 * | call (..._filterblock_)     | input                                     | result          |
 * |-----------------------------|-------------------------------------------|-----------------|
 * | builder_create              | NULL policy                               | NULL            |
 * | builder_start_block         | NULL or finished builder; an offset in an | 0, builder      |
 * |                             | earlier 2 KB range than the previous one  | unchanged       |
 * | builder_add_key             | NULL or finished builder; a NULL key with | 0, builder      |
 * |                             | length > 0                                | unchanged       |
 * | builder_add_key             | a NULL key with length 0                  | the empty key   |
 * | builder_finish              | NULL builder or length; a finished one    | NULL, length 0  |
 * |                             | (finish twice)                            |                 |
 * | builder_destroy             | NULL                                      | nothing happens |
 * | key_may_match               | NULL policy; NULL contents or key with    | 1               |
 * |                             | length > 0                                |                 |
 * | key_may_match               | any contents bytes                        | leveldb's answer|
 * | key_may_match_batch         | NULL results, or num_keys 0               | nothing written |
 * | key_may_match_batch         | NULL policy, block_offsets, keys or       | every result 1  |
 * |                             | key_lengths; NULL contents with length > 0|                 |
 * | key_may_match_batch         | a NULL key with length > 0                | that result 1   |
 */

#ifndef LEVELDB_BLOOM_H
#define LEVELDB_BLOOM_H

/* The declarations of leveldb's names, unless the program links the build without them. */
#if !defined(LEVELDB_BLOOM_PREFIXED)
#define LEVELDB_BLOOM_LEVELDB_NAMES
#endif

/* Generated by cbindgen from src/ffi/: do not edit.
   Regenerate with UPDATE_HEADER=1 cargo test --test header */

#include <stddef.h>
#include <stdint.h>

#define LEVELDB_BLOOM_VERSION_MAJOR 1
#define LEVELDB_BLOOM_VERSION_MINOR 0
#define LEVELDB_BLOOM_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

/*
 A filter block builder: leveldb's `FilterBlockBuilder` over a policy. Opaque to C.
 */
typedef struct leveldb_bloom_filterblock_builder_t leveldb_bloom_filterblock_builder_t;

/*
 A filter policy of this library: leveldb's built-in bloom filter, or one made of C callbacks.
 Opaque to C.
 */
typedef struct leveldb_bloom_filterpolicy_t leveldb_bloom_filterpolicy_t;

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 A filter block builder under leveldb's prefix: a `leveldb_bloom_filterblock_builder_t`, cast.
 Opaque to C.
 */
typedef struct leveldb_filterblock_builder_t leveldb_filterblock_builder_t;
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 leveldb's filter policy type: a `leveldb_bloom_filterpolicy_t` of this library (the same
 object, cast), or a policy of leveldb's own C API, which the functions here answer as bad
 input. Opaque to C.
 */
typedef struct leveldb_filterpolicy_t leveldb_filterpolicy_t;
#endif

/*
 A key: `size` bytes at `data`. Laid out as `leveldb::Slice` (`const char* data_; size_t
 size_;`), so the C++ shim passes leveldb's array of keys as it is, without copying.
 */
typedef struct {
  /*
   The key's first byte; NULL is allowed with `size` 0.
   */
  const char *data;
  /*
   The key's length in bytes.
   */
  size_t size;
} leveldb_bloom_slice_t;

/*
 A custom policy's destructor: called once with `state` when the policy is destroyed.
 */
typedef void (*leveldb_bloom_destructor_fn)(void *state);

/*
 A custom policy's `create_filter`: returns a `malloc`ed filter for the keys and stores its
 length in `*filter_length`.
 */
typedef char *(*leveldb_bloom_create_filter_fn)(void *state,
                                                const char *const *key_array,
                                                const size_t *key_length_array,
                                                int num_keys,
                                                size_t *filter_length);

/*
 A custom policy's `key_may_match`: 0 only if the key is certainly not in the filter's set.
 */
typedef uint8_t (*leveldb_bloom_key_may_match_fn)(void *state,
                                                  const char *key,
                                                  size_t length,
                                                  const char *filter,
                                                  size_t filter_length);

/*
 A custom policy's `name`: a string that lives as long as the policy.
 */
typedef const char *(*leveldb_bloom_name_fn)(void *state);

/*
 This library's version, `"MAJOR.MINOR.PATCH"`, in static storage: what the header's
 `LEVELDB_BLOOM_VERSION_*` macros say at compile time, for the library loaded at run time.

 # Threads
 Any number of threads may call it at once.
 */
const char *leveldb_bloom_version(void);

/*
 The name leveldb records in a table for these filters: `"leveldb.BuiltinBloomFilter2"`, in
 static storage.

 # Threads
 Any number of threads may call it at once.
 */
const char *leveldb_bloom_policy_name(void);

/*
 The kernels this process runs: `"avx512"`, `"avx2"` or `"portable"`, in static storage (never
 to be freed), from any thread. The best the CPU supports, unless the environment variable
 `LEVELDB_BLOOM_ISA` names a slower one: then the best not above the one named (`avx512` on a
 CPU with only AVX2 runs `avx2`). Any other value is ignored. Chosen once per process, at the
 first call of this or of any build or query; the bytes and answers are the same on every path.

 # Threads
 Any number of threads may call it at once.
 */
const char *leveldb_bloom_isa(void);

/*
 Length in bytes of the filter leveldb's `NewBloomFilterPolicy(bits_per_key)` builds for
 `num_keys` keys. Returns 0, which no filter is, if `bits_per_key < 0` or the length would
 exceed `SIZE_MAX`.

 # Threads
 Any number of threads may call it at once.
 */
size_t leveldb_bloom_filter_length(int bits_per_key, size_t num_keys);

/*
 Builds the filter of `NewBloomFilterPolicy(bits_per_key)` for the `num_keys` keys at `keys`
 (duplicates allowed) in place, over the `out_length` bytes at `out`: the caller grows its own
 buffer once, by exactly `leveldb_bloom_filter_length(bits_per_key, num_keys)` bytes, as
 leveldb's `CreateFilter` grows its `std::string`. The bytes are leveldb 1.23's.

 Returns 1 once the filter is written. Returns 0, leaving `out` untouched, for: `bits_per_key
 < 0`; an `out_length` other than that length (a filter too large to exist has length 0); a
 NULL `out`; a NULL `keys` with `num_keys > 0`; more keys than memory can hold; a key with NULL
 `data` and a `size` above 0. A key with NULL `data` and `size` 0 is the empty key.

 # Threads
 Any number of threads may call it at once, each with its own `out`; keys may be shared.

 # Safety
 A non-NULL `keys` must point to `num_keys` entries, each non-NULL `data` to `size` readable
 bytes; a non-NULL `out` to `out_length` writable bytes that overlap no key.
 */
int leveldb_bloom_fill_filter(int bits_per_key,
                              const leveldb_bloom_slice_t *keys,
                              size_t num_keys,
                              char *out,
                              size_t out_length);

/*
 leveldb's `KeyMayMatch`: whether the key of `key_length` bytes at `key` may be in the set the
 filter of `filter_length` bytes at `filter` was built from; 0 only if it certainly is not. It
 answers exactly as leveldb 1.23 does for any filter bytes, corrupt ones included, whatever
 `bits_per_key` built them (the filter records what a query needs).

 Returns 1 ("may match": an error must never cause a false negative) for a NULL `key` or
 `filter` with a length above 0, and for a length above `PTRDIFF_MAX`, which no object has
 (nothing is read). A NULL `key` or `filter` with length 0 is empty.

 # Threads
 Any number of threads may call it at once, on one filter too.

 # Safety
 A non-NULL `key` and `filter` must point to their length in readable bytes.
 */
uint8_t leveldb_bloom_key_may_match(const char *key,
                                    size_t key_length,
                                    const char *filter,
                                    size_t filter_length);

/*
 Creates a filter block builder over `policy`, as leveldb's `FilterBlockBuilder(policy)`: the
 calls `(start_block add_key*)* finish` give the block leveldb 1.23 writes for them, whose
 filters the policy builds (the bloom policy's, byte-identical to leveldb's; a custom
 policy's `create_filter` callback, once per filter).

 Returns NULL for a NULL policy or one this library did not make, or if memory runs out. The
 builder keeps a pointer to the policy, which must stay live until the builder is destroyed
 (as in leveldb). Release the builder with `leveldb_bloom_filterblock_builder_destroy`.

 # Threads
 Any number of threads may call it at once, with one policy too. A builder is used by one
 thread at a time.

 # Safety
 `policy` must be NULL or a live policy (from this library, or leveldb's).
 */
leveldb_bloom_filterblock_builder_t *leveldb_bloom_filterblock_builder_create(const leveldb_bloom_filterpolicy_t *policy);

/*
 Destroys a builder, finished or not. NULL: does nothing.

 # Threads
 Must not run while another thread uses the same builder.

 # Safety
 `builder` must be NULL or a live builder from this library, not used again afterwards.
 */
void leveldb_bloom_filterblock_builder_destroy(leveldb_bloom_filterblock_builder_t *builder);

/*
 The data block at `block_offset` starts, as leveldb's `StartBlock`: the filter of each 2 KB
 range of offsets before its own is built, the first from the keys added so far, the others
 empty.

 Returns 1 on success. Returns 0, leaving the builder unchanged, for: a NULL or finished
 builder; a `block_offset` past 2^63 - 1, the largest file offset (refused before anything is
 allocated); one in an earlier 2 KB range than the previous call's (leveldb asserts); memory
 running out (an offset far out needs 4 bytes per 2 KB skipped); a custom policy's
 `create_filter` returning NULL.

 # Threads
 One thread at a time per builder.

 # Safety
 `builder` must be NULL or a live builder from this library.
 */
uint8_t leveldb_bloom_filterblock_builder_start_block(leveldb_bloom_filterblock_builder_t *builder,
                                                      uint64_t block_offset);

/*
 Adds a key of the current data block, as leveldb's `AddKey`; the builder copies it.

 Returns 1 on success. Returns 0, leaving the builder unchanged, for: a NULL or finished
 builder; a NULL `key` with `length` above 0 (NULL with 0 is the empty key); memory running
 out; more than `INT_MAX` keys for one filter.

 # Threads
 One thread at a time per builder.

 # Safety
 `builder` must be NULL or a live builder from this library; a non-NULL `key` must point to
 `length` readable bytes.
 */
uint8_t leveldb_bloom_filterblock_builder_add_key(leveldb_bloom_filterblock_builder_t *builder,
                                                  const char *key,
                                                  size_t length);

/*
 The block, as leveldb's `Finish`: the filter of the keys added since the last built one,
 then the offset of every filter, the offset of that array and the base lg byte (11). It is
 returned in a `malloc`ed buffer (release it with `leveldb_bloom_free`), its length in `*length`;
 the builder is finished then, and every later call on it but destroy fails.

 Returns NULL, with `*length` set to 0 when `length` is not NULL, for: a NULL builder or
 `length`; a finished builder; memory running out, or a custom policy's `create_filter`
 returning NULL, after which the builder can be finished again. Past 4 GiB of filters,
 offsets keep their low 32 bits, as leveldb's `uint32_t`s do.

 # Threads
 One thread at a time per builder.

 # Safety
 `builder` must be NULL or a live builder from this library; a non-NULL `length` must be
 writable.
 */
char *leveldb_bloom_filterblock_builder_finish(leveldb_bloom_filterblock_builder_t *builder,
                                               size_t *length);

/*
 leveldb's `FilterBlockReader(policy, contents).KeyMayMatch(block_offset, key)`: whether the
 key of `key_length` bytes at `key` may be in the data block at `block_offset`, by the filter
 block of `contents_length` bytes at `contents`; 0 only if its filter says it certainly is
 not. The answer equals leveldb 1.23's for any contents, corrupt ones included (errors are
 potential matches; an empty filter range matches nothing). `policy` tests the filter: the
 bloom policy as leveldb's, a custom policy by its `key_may_match` callback.

 Returns 1 ("may match") for: a NULL policy or one this library did not make; a NULL
 `contents` or `key` with a length above 0; a length above `PTRDIFF_MAX`. A NULL `contents` or
 `key` with length 0 is empty.

 # Threads
 Any number of threads may call it at once, with one policy and block too.

 # Safety
 A non-NULL `contents` and `key` must point to their length in readable bytes; `policy` must
 be NULL or a live policy (from this library, or leveldb's).
 */
uint8_t leveldb_bloom_filterblock_key_may_match(const leveldb_bloom_filterpolicy_t *policy,
                                                const char *contents,
                                                size_t contents_length,
                                                uint64_t block_offset,
                                                const char *key,
                                                size_t key_length);

/*
 `leveldb_bloom_filterblock_key_may_match` for `num_keys` (block offset, key) pairs against one
 filter block, in one call: `results[i]` (0 or 1) is its answer for the key of
 `key_lengths[i]` bytes at `keys[i]` in the data block at `block_offsets[i]`, bad input
 included. Each run of keys of one filter, as they come, is tested together: with the bloom
 policy, keys in block order (as sorted keys lie in a table) are much faster than a loop of
 single queries; keys in random order are as fast as that loop.

 - NULL `results`, or `num_keys` 0 or above `PTRDIFF_MAX / 8`: nothing is written.
 - NULL policy or one this library did not make; NULL `block_offsets`, `keys` or
   `key_lengths`; NULL `contents` with `contents_length > 0`; memory running out: every result
   is 1.
 - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.

 Every result is set to 1 before any work, so not even an internal failure yields a false
 negative.

 # Threads
 Any number of threads may call it at once, with one policy and block too, each with its own
 `results`.

 # Safety
 A non-NULL `results` must have `num_keys` writable bytes; non-NULL `block_offsets`, `keys`
 and `key_lengths` must hold `num_keys` entries, each non-NULL key its length in readable
 bytes; a non-NULL `contents` must point to `contents_length` readable bytes; `policy` must be
 NULL or a live policy (from this library, or leveldb's).
 */
void leveldb_bloom_filterblock_key_may_match_batch(const leveldb_bloom_filterpolicy_t *policy,
                                                   const char *contents,
                                                   size_t contents_length,
                                                   const uint64_t *block_offsets,
                                                   const char *const *keys,
                                                   const size_t *key_lengths,
                                                   size_t num_keys,
                                                   uint8_t *results);

/*
 Creates leveldb's built-in bloom filter policy, as `NewBloomFilterPolicy(bits_per_key)`; its
 filters are byte-identical to leveldb 1.23's.

 - `bits_per_key < 0`: returns NULL.
 - `bits_per_key == 0`: a policy with k = 1 and the 64-bit minimum filter, as leveldb.
 - any larger value, up to `INT_MAX`: a policy with k = `bits_per_key * 0.69` clamped to 1..30.

 Returns NULL if memory runs out. Release the policy with `leveldb_bloom_filterpolicy_destroy`.

 # Threads
 Any number of threads may call it at once.
 */
leveldb_bloom_filterpolicy_t *leveldb_bloom_filterpolicy_create_bloom(int bits_per_key);

/*
 Creates a policy from callbacks, as `leveldb_filterpolicy_create` in leveldb's C API does.
 `leveldb_bloom_filterpolicy_create_filter`, `_key_may_match` and `_name` call them with
 `state`.

 - NULL `create_filter`, `key_may_match` or `name`: returns NULL.
 - `destructor` may be NULL; otherwise `leveldb_bloom_filterpolicy_destroy` calls it exactly
   once.
 - Out of memory: returns NULL. Whenever NULL is returned, `destructor` is not called.

 The callbacks may be called from several threads at once and must allow it, as in leveldb.
 `create_filter` must return a `malloc`ed buffer (or NULL), which the caller frees.

 # Threads
 Any number of threads may call it at once.
 */
leveldb_bloom_filterpolicy_t *leveldb_bloom_filterpolicy_create(void *state,
                                                                leveldb_bloom_destructor_fn destructor,
                                                                leveldb_bloom_create_filter_fn create_filter,
                                                                leveldb_bloom_key_may_match_fn key_may_match,
                                                                leveldb_bloom_name_fn name);

/*
 Destroys a policy made by `leveldb_bloom_filterpolicy_create_bloom` or
 `leveldb_bloom_filterpolicy_create` (calling the latter's destructor once). NULL, or a policy
 this library did not make (one of leveldb's own): does nothing.

 # Threads
 Must not run while another thread uses the same policy; other policies are unaffected.

 # Safety
 `policy` must be NULL or a live policy (from this library, or leveldb's), not used again
 afterwards if it is this library's.
 */
void leveldb_bloom_filterpolicy_destroy(leveldb_bloom_filterpolicy_t *policy);

/*
 Frees a buffer this library returned (a filter, a filter block); it is libc `free`. NULL:
 does nothing.

 # Threads
 Any thread may free a buffer, once, whichever thread it came from.

 # Safety
 `ptr` must be NULL or a `malloc`ed pointer not freed yet.
 */
void leveldb_bloom_free(void *ptr);

/*
 The policy's name: `"leveldb.BuiltinBloomFilter2"` for the bloom policy, what the `name`
 callback returns for a custom one. Valid as long as the policy. NULL, or a policy this
 library did not make: returns NULL.

 # Threads
 Any number of threads may call it at once, with one policy too.

 # Safety
 `policy` must be NULL or a live policy (from this library, or leveldb's).
 */
const char *leveldb_bloom_filterpolicy_name(const leveldb_bloom_filterpolicy_t *policy);

/*
 Builds the filter for `num_keys` keys (key `i` is `key_length_array[i]` bytes at
 `key_array[i]`; duplicates allowed) and returns it in a `malloc`ed buffer, storing its length
 in `*filter_length`. Release it with `leveldb_bloom_free` (or `free`). Same shape as leveldb's
 `create_filter` callback; a custom policy's callback is called with these arguments once they
 pass the checks below.

 Returns NULL, with `*filter_length` set to 0 when `filter_length` is not NULL, for: a NULL
 policy or one this library did not make; a NULL `filter_length`; `num_keys < 0`; a NULL
 `key_array` or `key_length_array` with `num_keys > 0`; a NULL key with a length above 0; a
 filter too large to allocate. A NULL key with length 0 is the empty key.

 # Threads
 Any number of threads may call it at once, with one policy too (a custom policy's callbacks must
 allow that).

 # Safety
 Non-NULL arrays must hold `num_keys` entries, each non-NULL key its length in readable bytes;
 `policy` must be NULL or a live policy (from this library, or leveldb's).
 */
char *leveldb_bloom_filterpolicy_create_filter(const leveldb_bloom_filterpolicy_t *policy,
                                               const char *const *key_array,
                                               const size_t *key_length_array,
                                               int num_keys,
                                               size_t *filter_length);

/*
 Whether the key of `length` bytes at `key` may be in the set `filter` (of `filter_length`
 bytes) was built from: 0 only if it certainly is not. For the bloom policy the answer equals
 leveldb 1.23's `KeyMayMatch` for any filter bytes, corrupt ones included; a custom policy's
 callback answers (normalised to 0 or 1).

 Returns 1 ("may match"; an error must never cause a false negative) for: a NULL policy or one
 this library did not make; a NULL `key` or `filter` with a length above 0; a length above
 `PTRDIFF_MAX`, which no object has (nothing is read). A NULL `key` or `filter` with length 0
 is empty.

 # Threads
 Any number of threads may call it at once, with one policy and filter too (a custom policy's
 callbacks must allow that).

 # Safety
 A non-NULL `key` and `filter` must point to their length in readable bytes; `policy` must be
 NULL or a live policy (from this library, or leveldb's).
 */
uint8_t leveldb_bloom_filterpolicy_key_may_match(const leveldb_bloom_filterpolicy_t *policy,
                                                 const char *key,
                                                 size_t length,
                                                 const char *filter,
                                                 size_t filter_length);

/*
 `leveldb_bloom_filterpolicy_key_may_match` for `num_keys` keys against one filter, in one
 call: `results[i]` (0 or 1) is its answer for the key of `key_lengths[i]` bytes at `keys[i]`,
 bad input included. For the bloom policy this is much faster than a loop of single queries; a
 custom policy's `key_may_match` callback is called once per key.

 - NULL `results`: nothing is written.
 - NULL policy or one this library did not make; NULL `keys` or `key_lengths` with
   `num_keys > 0`; NULL `filter` with `filter_length > 0`: every result is 1.
 - A NULL key with a length above 0: its result is 1. A NULL key with length 0 is empty.
 - `num_keys` above `PTRDIFF_MAX / 8`, more than any array can hold: nothing is written.

 Every result is set to 1 before any work, so not even an internal failure yields a false
 negative.

 # Threads
 Any number of threads may call it at once, with one policy and filter too, each with its own
 `results`.

 # Safety
 A non-NULL `results` must have `num_keys` writable bytes; non-NULL `keys` and `key_lengths`
 must hold `num_keys` entries, each non-NULL key its length in readable bytes; a non-NULL
 `filter` must point to `filter_length` readable bytes; `policy` must be NULL or a live policy
 (from this library, or leveldb's).
 */
void leveldb_bloom_filterpolicy_key_may_match_batch(const leveldb_bloom_filterpolicy_t *policy,
                                                    const char *const *keys,
                                                    const size_t *key_lengths,
                                                    size_t num_keys,
                                                    const char *filter,
                                                    size_t filter_length,
                                                    uint8_t *results);

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 leveldb's `leveldb_filterpolicy_create_bloom`: `leveldb_bloom_filterpolicy_create_bloom`,
 with the same filters and bad input. Where leveldb's own C API is loaded in the process
 (linked, or with `dlopen`), the policy is an object of leveldb's, made by leveldb's
 `leveldb_filterpolicy_create` over this library's filter: leveldb's
 `leveldb_options_set_filter_policy` can take it, and every function here takes it (looking
 it up on each call, with no lock: the `leveldb_bloom_*` functions with a
 `leveldb_bloom_filterpolicy_t` answer a single query a little faster). Inside leveldb, a
 filter that memory cannot hold aborts the process, as leveldb's own code does. If leveldb's
 `leveldb_filterpolicy_create` throws (`std::bad_alloc` when memory runs out), the process
 aborts: this library has no C++ to catch it, and a C program calling leveldb's C API ends
 there too.

 # Threads
 Any number of threads may call it at once.
 */
leveldb_filterpolicy_t *leveldb_filterpolicy_create_bloom(int bits_per_key);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 leveldb's `leveldb_filterpolicy_create`: `leveldb_bloom_filterpolicy_create`, with the same
 rules for the callbacks and bad input. Where leveldb's own C API is loaded in the process,
 the policy is an object of leveldb's over them, as `leveldb_filterpolicy_create_bloom` says.

 # Threads
 Any number of threads may call it at once.
 */
leveldb_filterpolicy_t *leveldb_filterpolicy_create(void *state,
                                                    leveldb_bloom_destructor_fn destructor,
                                                    leveldb_bloom_create_filter_fn create_filter,
                                                    leveldb_bloom_key_may_match_fn key_may_match,
                                                    leveldb_bloom_name_fn name);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 leveldb's `leveldb_filterpolicy_destroy`: `leveldb_bloom_filterpolicy_destroy`, for a policy
 made by `leveldb_filterpolicy_create_bloom` or `leveldb_filterpolicy_create` of this library.

 # Threads
 Must not run while another thread uses the same policy; other policies are unaffected.

 # Safety
 As `leveldb_bloom_filterpolicy_destroy`.
 */
void leveldb_filterpolicy_destroy(leveldb_filterpolicy_t *policy);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 leveldb's `leveldb_free`: libc `free`, as `leveldb_bloom_free`.

 # Threads
 Any thread may free a buffer, once, whichever thread it came from.

 # Safety
 `ptr` must be NULL or a `malloc`ed pointer not freed yet.
 */
void leveldb_free(void *ptr);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterpolicy_name` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy too.

 # Safety
 As `leveldb_bloom_filterpolicy_name`.
 */
const char *leveldb_filterpolicy_name(const leveldb_filterpolicy_t *policy);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterpolicy_create_filter` for a `leveldb_filterpolicy_t`: a `malloc`ed
 filter, to release with `leveldb_free`.

 # Threads
 Any number of threads may call it at once, with one policy too.

 # Safety
 As `leveldb_bloom_filterpolicy_create_filter`.
 */
char *leveldb_filterpolicy_create_filter(const leveldb_filterpolicy_t *policy,
                                         const char *const *key_array,
                                         const size_t *key_length_array,
                                         int num_keys,
                                         size_t *filter_length);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterpolicy_key_may_match` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy and filter too.

 # Safety
 As `leveldb_bloom_filterpolicy_key_may_match`.
 */
uint8_t leveldb_filterpolicy_key_may_match(const leveldb_filterpolicy_t *policy,
                                           const char *key,
                                           size_t length,
                                           const char *filter,
                                           size_t filter_length);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterpolicy_key_may_match_batch` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy and filter too, each with its own
 `results`.

 # Safety
 As `leveldb_bloom_filterpolicy_key_may_match_batch`.
 */
void leveldb_filterpolicy_key_may_match_batch(const leveldb_filterpolicy_t *policy,
                                              const char *const *keys,
                                              const size_t *key_lengths,
                                              size_t num_keys,
                                              const char *filter,
                                              size_t filter_length,
                                              uint8_t *results);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_builder_create` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy too. A builder is used by one
 thread at a time.

 # Safety
 As `leveldb_bloom_filterblock_builder_create`.
 */
leveldb_filterblock_builder_t *leveldb_filterblock_builder_create(const leveldb_filterpolicy_t *policy);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_builder_destroy`.

 # Threads
 Must not run while another thread uses the same builder.

 # Safety
 As `leveldb_bloom_filterblock_builder_destroy`.
 */
void leveldb_filterblock_builder_destroy(leveldb_filterblock_builder_t *builder);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_builder_start_block`.

 # Threads
 One thread at a time per builder.

 # Safety
 As `leveldb_bloom_filterblock_builder_start_block`.
 */
uint8_t leveldb_filterblock_builder_start_block(leveldb_filterblock_builder_t *builder,
                                                uint64_t block_offset);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_builder_add_key`.

 # Threads
 One thread at a time per builder.

 # Safety
 As `leveldb_bloom_filterblock_builder_add_key`.
 */
uint8_t leveldb_filterblock_builder_add_key(leveldb_filterblock_builder_t *builder,
                                            const char *key,
                                            size_t length);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_builder_finish`: the block, to release with `leveldb_free`.

 # Threads
 One thread at a time per builder.

 # Safety
 As `leveldb_bloom_filterblock_builder_finish`.
 */
char *leveldb_filterblock_builder_finish(leveldb_filterblock_builder_t *builder, size_t *length);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_key_may_match` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy and block too.

 # Safety
 As `leveldb_bloom_filterblock_key_may_match`.
 */
uint8_t leveldb_filterblock_key_may_match(const leveldb_filterpolicy_t *policy,
                                          const char *contents,
                                          size_t contents_length,
                                          uint64_t block_offset,
                                          const char *key,
                                          size_t key_length);
#endif

#if defined(LEVELDB_BLOOM_LEVELDB_NAMES)
/*
 `leveldb_bloom_filterblock_key_may_match_batch` for a `leveldb_filterpolicy_t`.

 # Threads
 Any number of threads may call it at once, with one policy and block too, each with its own
 `results`.

 # Safety
 As `leveldb_bloom_filterblock_key_may_match_batch`.
 */
void leveldb_filterblock_key_may_match_batch(const leveldb_filterpolicy_t *policy,
                                             const char *contents,
                                             size_t contents_length,
                                             const uint64_t *block_offsets,
                                             const char *const *keys,
                                             const size_t *key_lengths,
                                             size_t num_keys,
                                             uint8_t *results);
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LEVELDB_BLOOM_H */
