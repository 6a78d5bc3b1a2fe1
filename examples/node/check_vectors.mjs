// Checks this Node.js binding against the reference vectors leveldb 1.23 made (vectors/): every
// filter built byte for byte, every KeyMayMatch answer. Usage: node check_vectors.mjs VECTORS_DIR
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFilter, c } from './leveldb_bloom.mjs';

const bytes = (hex) => Buffer.from(hex === '-' ? '' : hex, 'hex');
let checked = 0;
let failed = 0;

function check(file) {
  const lines = readFileSync(join(process.argv[2], file), 'utf8').split('\n');
  const policy = c.create_bloom(10); // queries read k from the filter, not from the policy
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
    if (kind === 'filter' && !buildFilter(Number(fields[0]), keys).equals(filter)) {
      failed++;
      console.log(`${file}:${i + 1}: a different filter`);
    }
    const got = probes.map((probe) =>
      c.key_may_match(policy, probe, probe.length, filter, filter.length)).join('');
    if (got !== (answers === '-' ? '' : answers)) {
      failed++;
      console.log(`${file}:${i + 1}: different answers`);
    }
    checked++;
  }
  c.destroy(policy);
}

check('build.txt');
check('match.txt');
console.log(`path: ${c.isa()}`);
console.log(`${checked - failed} passed, ${failed} failed`);
process.exitCode = failed === 0 && checked > 0 ? 0 : 1;
