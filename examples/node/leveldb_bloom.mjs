// leveldb-bloom's C ABI declared for koffi: what a binding declares where the header's C types
// say too little. Filters are bytes, not C strings (`uint8_t *`, so koffi never stops at a NUL),
// the filter's length comes back through an out-parameter, and keys are byte buffers.
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';

// cargo's build of the library, named as each platform names a shared library.
const libraryFile = { win32: 'leveldb_bloom.dll', darwin: 'libleveldb_bloom.dylib' }[
  process.platform] ?? 'libleveldb_bloom.so';
const defaultPath = fileURLToPath(
  new URL(`../../target/release/${libraryFile}`, import.meta.url));
const lib = koffi.load(process.env.LEVELDB_BLOOM_LIBRARY || defaultPath);

koffi.opaque('leveldb_filterpolicy_t');
koffi.struct('leveldb_bloom_slice_t', { data: 'const uint8_t *', size: 'size_t' });

export const c = {
  create_bloom: lib.func(
    'leveldb_filterpolicy_t *leveldb_filterpolicy_create_bloom(int bits_per_key)'),
  destroy: lib.func('void leveldb_filterpolicy_destroy(leveldb_filterpolicy_t *policy)'),
  name: lib.func('const char *leveldb_filterpolicy_name(const leveldb_filterpolicy_t *policy)'),
  create_filter: lib.func(
    'uint8_t *leveldb_filterpolicy_create_filter(const leveldb_filterpolicy_t *policy, ' +
    'const uint8_t **key_array, const size_t *key_length_array, int num_keys, ' +
    '_Out_ size_t *filter_length)'),
  key_may_match: lib.func(
    'uint8_t leveldb_filterpolicy_key_may_match(const leveldb_filterpolicy_t *policy, ' +
    'const uint8_t *key, size_t length, const uint8_t *filter, size_t filter_length)'),
  free: lib.func('void leveldb_free(void *ptr)'),
  filter_length: lib.func('size_t leveldb_bloom_filter_length(int bits_per_key, size_t num_keys)'),
  fill_filter: lib.func(
    'int leveldb_bloom_fill_filter(int bits_per_key, const leveldb_bloom_slice_t *keys, ' +
    'size_t num_keys, _Out_ uint8_t *out, size_t out_length)'),
  // A string in static storage: koffi's `const char *` return copies it, nothing to free.
  isa: lib.func('const char *leveldb_bloom_isa(void)'),
};

// The filter of `keys` (Buffers) at `bitsPerKey`, built straight into a Buffer of ours.
export function buildFilter(bitsPerKey, keys) {
  const filter = Buffer.alloc(Number(c.filter_length(bitsPerKey, keys.length)));
  const slices = keys.map((key) => ({ data: key, size: key.length }));
  if (filter.length === 0 || c.fill_filter(bitsPerKey, slices, keys.length, filter,
    filter.length) !== 1) {
    throw new Error(`no filter for bits_per_key ${bitsPerKey}`);
  }
  return filter;
}
