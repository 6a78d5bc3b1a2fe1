// leveldb-bloom's C ABI declared for koffi: what a binding declares where the header's C types
// say too little. Filters are bytes, not C strings (`uint8_t *`, so koffi never stops at a NUL),
// the filter's length comes back through an out-parameter, and keys are byte buffers. koffi takes
// a number where a pointer is declared as an address, so the raw functions stay in this module:
// the helpers it exports check every argument and take lengths from the buffers themselves.
import { fileURLToPath } from 'node:url';
import koffi from 'koffi';

// The library as `cargo rustc --release --lib --crate-type cdylib` builds it in this repository,
// named as each platform names a shared library.
const libraryFile = { win32: 'leveldb_bloom.dll', darwin: 'libleveldb_bloom.dylib' }[
  process.platform] ?? 'libleveldb_bloom.so';
const defaultPath = fileURLToPath(
  new URL(`../../target/release/${libraryFile}`, import.meta.url));
const lib = load(process.env.LEVELDB_BLOOM_LIBRARY || defaultPath);

// The library, or an error naming the path tried and what to do.
function load(path) {
  try {
    return koffi.load(path);
  } catch (error) {
    const why = process.env.LEVELDB_BLOOM_LIBRARY ? 'the path LEVELDB_BLOOM_LIBRARY names'
      : 'the default path; LEVELDB_BLOOM_LIBRARY is not set';
    throw new Error(`leveldb-bloom's library could not be loaded from ${path} (${why}): ` +
      `${error.message}\nTo fix: build it with \`cargo rustc --release --lib --crate-type cdylib\` ` +
      `in the leveldb-bloom repository, or set LEVELDB_BLOOM_LIBRARY to the path of a built ` +
      `${libraryFile}.`,
    { cause: error });
  }
}

koffi.opaque('leveldb_filterpolicy_t');
koffi.struct('leveldb_bloom_slice_t', { data: 'const uint8_t *', size: 'size_t' });

const c = {
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

const INT_MAX = 2 ** 31 - 1;

function typeName(value) {
  if (value === null || typeof value !== 'object') return value === null ? 'null' : typeof value;
  return Array.isArray(value) ? 'an array' : value.constructor?.name ?? 'an object';
}

// `value` if it is a Buffer or Uint8Array (a Buffer is one), else a TypeError.
function bytes(value, what) {
  if (!(value instanceof Uint8Array)) {
    throw new TypeError(`${what} must be a Buffer or Uint8Array, not ${typeName(value)}`);
  }
  return value;
}

function checkKeys(keys) {
  if (!Array.isArray(keys)) {
    throw new TypeError(`keys must be an array of Buffers or Uint8Arrays, not ${typeName(keys)}`);
  }
  keys.forEach((key, i) => bytes(key, `keys[${i}]`));
  if (keys.length > INT_MAX) throw new RangeError(`at most ${INT_MAX} keys fit in one filter`);
  return keys;
}

function checkBitsPerKey(bitsPerKey) {
  if (!Number.isInteger(bitsPerKey)) {
    throw new TypeError(`bits_per_key must be an integer, not ${typeName(bitsPerKey)}`);
  }
  if (bitsPerKey < 0 || bitsPerKey > INT_MAX) {
    throw new RangeError(`bits_per_key must be in 0..${INT_MAX}, not ${bitsPerKey}`);
  }
  return bitsPerKey;
}

// Policies dropped without close() are destroyed when collected.
const unclosed = new FinalizationRegistry((policy) => c.destroy(policy));

// leveldb's NewBloomFilterPolicy(bitsPerKey): filters byte for byte leveldb 1.23's, and its
// KeyMayMatch answers. close() frees it; later calls throw.
export class BloomFilterPolicy {
  #policy;

  constructor(bitsPerKey) {
    this.#policy = c.create_bloom(checkBitsPerKey(bitsPerKey));
    if (this.#policy === null) throw new Error('leveldb_filterpolicy_create_bloom returned NULL');
    unclosed.register(this, this.#policy, this);
  }

  #live() {
    if (this.#policy === null) throw new Error('the BloomFilterPolicy is closed');
    return this.#policy;
  }

  get name() {
    return c.name(this.#live());
  }

  // The filter of `keys` (Buffers or Uint8Arrays) in a Buffer: one C call for all the keys,
  // the fastest way here to build a filter of many keys.
  createFilter(keys) {
    checkKeys(keys);
    const length = [0];
    const pointer = c.create_filter(this.#live(), keys, keys.map((key) => key.length),
      keys.length, length);
    if (pointer === null) throw new Error(`no memory for a filter of ${keys.length} keys`);
    const filter = Buffer.from(koffi.decode(pointer, 'uint8_t', length[0]));
    c.free(pointer);
    return filter;
  }

  // Whether `key` may be in the set `filter` was built from: leveldb's KeyMayMatch.
  keyMayMatch(key, filter) {
    bytes(key, 'key');
    bytes(filter, 'filter');
    return c.key_may_match(this.#live(), key, key.length, filter, filter.length) === 1;
  }

  close() {
    if (this.#policy !== null) {
      unclosed.unregister(this);
      c.destroy(this.#policy);
      this.#policy = null;
    }
  }
}

// The filter of `keys` (Buffers or Uint8Arrays) at `bitsPerKey`, built straight into a Buffer of
// ours with no policy object; koffi converts one slice object per key, so for many keys it
// takes about twice as long as BloomFilterPolicy's createFilter.
export function buildFilter(bitsPerKey, keys) {
  checkBitsPerKey(bitsPerKey);
  checkKeys(keys);
  const filter = Buffer.alloc(Number(c.filter_length(bitsPerKey, keys.length)));
  const slices = keys.map((key) => ({ data: key, size: key.length }));
  if (filter.length === 0 || c.fill_filter(bitsPerKey, slices, keys.length, filter,
    filter.length) !== 1) {
    throw new Error(`no filter for bits_per_key ${bitsPerKey}`);
  }
  return filter;
}

// The kernels the library runs: "avx512", "avx2" or "portable".
export function isa() {
  return c.isa();
}
