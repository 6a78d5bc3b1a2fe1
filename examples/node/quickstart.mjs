// Builds leveldb's bloom filter for three keys from Node.js and queries it, two ways: through
// leveldb's C API (a policy object, a malloc'ed filter) and into a Buffer of our own.
import koffi from 'koffi';
import { buildFilter, c } from './leveldb_bloom.mjs';

const keys = ['apple', 'banana', 'cherry'].map((key) => Buffer.from(key));

const policy = c.create_bloom(10); // leveldb's NewBloomFilterPolicy(10)
const length = [0];
const pointer = c.create_filter(policy, keys, keys.map((key) => key.length), keys.length, length);
const filter = Buffer.from(koffi.decode(pointer, 'uint8_t', length[0]));
c.free(pointer);
console.log(`${c.name(policy)}: ${filter.toString('hex')}`);
for (const key of ['banana', 'durian']) {
  console.log(`${key} may match: ${c.key_may_match(policy, Buffer.from(key), key.length,
    filter, filter.length)}`);
}
c.destroy(policy);

if (!buildFilter(10, keys).equals(filter)) throw new Error('the two ways built different bytes');
