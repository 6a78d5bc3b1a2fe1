// Checks this Node.js binding against the reference vectors leveldb 1.23 made (vectors/): every
// filter built byte for byte by both helpers, every KeyMayMatch answer; then that the helpers
// refuse what is not a byte buffer, take lengths from the buffers, and say why the library
// cannot be loaded. Usage: node check_vectors.mjs VECTORS_DIR
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BloomFilterPolicy, buildFilter, isa } from './leveldb_bloom.mjs';

const bytes = (hex) => Buffer.from(hex === '-' ? '' : hex, 'hex');
let checked = 0;
let failed = 0;

function fail(message) {
  failed++;
  console.log(message);
}

const policies = new Map();
const policyFor = (bitsPerKey) => policies.get(bitsPerKey) ??
  policies.set(bitsPerKey, new BloomFilterPolicy(bitsPerKey)).get(bitsPerKey);

function check(file) {
  const lines = readFileSync(join(process.argv[2], file), 'utf8').split('\n');
  let keys = [];
  let probes = [];
  for (let i = 0; i < lines.length; i++) {
    const [kind, ...fields] = lines[i].split(' ');
    if (kind === 'keys' || kind === 'probes') {
      const set = lines.slice(i + 1, i + 1 + Number(fields[0])).map(bytes);
      i += set.length;
      if (kind === 'keys') keys = set; else probes = set;
      continue;
    }
    if (kind !== 'filter' && kind !== 'match') continue;
    const filter = kind === 'filter' ? bytes(fields[1]) : bytes(fields[0]);
    const answers = kind === 'filter' ? fields[2] : fields[1];
    if (kind === 'filter') {
      const bitsPerKey = Number(fields[0]);
      if (!policyFor(bitsPerKey).createFilter(keys).equals(filter)) {
        fail(`${file}:${i + 1}: createFilter built a different filter`);
      }
      if (!buildFilter(bitsPerKey, keys).equals(filter)) {
        fail(`${file}:${i + 1}: buildFilter built a different filter`);
      }
    }
    // Queries read k from the filter, not from the policy.
    const got = probes.map((probe) => Number(policyFor(10).keyMayMatch(probe, filter))).join('');
    if (got !== (answers === '-' ? '' : answers)) fail(`${file}:${i + 1}: different answers`);
    checked++;
  }
}

check('build.txt');
check('match.txt');

// `expect(what, f, Type)`: f() must throw a Type.
function expect(what, f, Type) {
  try {
    f();
  } catch (error) {
    if (error instanceof Type) return;
    return fail(`${what}: threw ${error}, not a ${Type.name}`);
  }
  fail(`${what}: threw nothing, not a ${Type.name}`);
}

const policy = policyFor(10);
const keys = ['apple', 'banana', 'cherry'].map((key) => Buffer.from(key));
const filter = policy.createFilter(keys);
// Anything but a Buffer or Uint8Array, as a key, a list of keys or a filter: a TypeError.
for (const bad of [42, 12345n, 'apple', null, undefined, [97], {}, new Uint16Array(2),
  new ArrayBuffer(2), new DataView(new ArrayBuffer(2))]) {
  expect(`createFilter([${typeof bad}])`, () => policy.createFilter([keys[0], bad]), TypeError);
  expect(`buildFilter(10, [${typeof bad}])`, () => buildFilter(10, [bad]), TypeError);
  expect(`keyMayMatch(${typeof bad}, filter)`, () => policy.keyMayMatch(bad, filter), TypeError);
  expect(`keyMayMatch(key, ${typeof bad})`, () => policy.keyMayMatch(keys[0], bad), TypeError);
}
for (const bad of [keys[0], 'apple', 42, null, new Set(keys)]) {
  expect(`createFilter(${typeof bad})`, () => policy.createFilter(bad), TypeError);
  expect(`buildFilter(10, ${typeof bad})`, () => buildFilter(10, bad), TypeError);
}
for (const [bad, Type] of [['10', TypeError], [1.5, TypeError], [-1, RangeError],
  [2 ** 31, RangeError]]) {
  expect(`bits_per_key ${bad}`, () => new BloomFilterPolicy(bad), Type);
  expect(`buildFilter(${bad}, keys)`, () => buildFilter(bad, keys), Type);
}
// Lengths come from the buffers: a view into a larger buffer is its own bytes, nothing past.
const backing = Buffer.from('xxapplexxbananaxx');
const views = [backing.subarray(2, 7), new Uint8Array(backing.buffer, backing.byteOffset + 9, 6)];
if (!policy.createFilter([...views, keys[2]]).equals(filter) ||
  !buildFilter(10, [...views, keys[2]]).equals(filter)) {
  fail('keys as views into a larger buffer built a different filter');
}
const prefix = Buffer.from('apples').subarray(0, 5);
if (!policy.keyMayMatch(prefix, filter) ||
  !policy.keyMayMatch(keys[0], Buffer.concat([filter, Buffer.from('junk')]).subarray(0, 9))) {
  fail('a key or filter that is a view was not read as its own bytes');
}
// A closed policy refuses every call; closing again does nothing.
const closed = new BloomFilterPolicy(10);
closed.close();
closed.close();
expect('createFilter after close', () => closed.createFilter(keys), Error);
expect('keyMayMatch after close', () => closed.keyMayMatch(keys[0], filter), Error);
// A library that cannot be loaded: the error names the path and what to do.
const missing = '/nonexistent/libleveldb_bloom.so';
const child = spawnSync(process.execPath, ['-e', "import('./leveldb_bloom.mjs')"], {
  cwd: import.meta.dirname, env: { ...process.env, LEVELDB_BLOOM_LIBRARY: missing },
  encoding: 'utf8',
});
const fixes = ['cargo rustc --release --lib --crate-type cdylib', 'LEVELDB_BLOOM_LIBRARY', missing];
if (child.status === 0 || !fixes.every((words) => child.stderr.includes(words))) {
  fail(`a library that cannot be loaded: ${child.stderr}`);
}

for (const each of policies.values()) each.close();
console.log(`path: ${isa()}`);
console.log(`${checked - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && checked > 0 ? 0 : 1;
