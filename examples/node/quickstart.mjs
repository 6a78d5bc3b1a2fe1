// Builds leveldb's bloom filter for three keys from Node.js and queries it, two ways: with a
// policy object (leveldb's C API, the filter copied out of C's buffer) and into a Buffer of our
// own, with no policy.
import { BloomFilterPolicy, buildFilter } from './leveldb_bloom.mjs';

const keys = ['apple', 'banana', 'cherry'].map((key) => Buffer.from(key));

const policy = new BloomFilterPolicy(10); // leveldb's NewBloomFilterPolicy(10)
const filter = policy.createFilter(keys);
console.log(`${policy.name}: ${filter.toString('hex')}`);
for (const key of ['banana', 'durian']) {
  console.log(`${key} may match: ${policy.keyMayMatch(Buffer.from(key), filter)}`);
}
policy.close();

if (!buildFilter(10, keys).equals(filter)) throw new Error('the two ways built different bytes');
