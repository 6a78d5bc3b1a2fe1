// A leveldb database written or read through npm's classic-level (its leveldb is inside its addon,
// which always makes its filter policy with NewBloomFilterPolicy(10)), to run once stock and once
// with the shim (preloaded, or built into the addon) and compare the table files.
//
//   node classic_level_db.js PACKAGE write DIR   creates DIR: 200,000 keys of 4 to 64 bytes (any
//                                                byte value), then compacts every key and closes.
//   node classic_level_db.js PACKAGE read DIR    every key written must be found with its value,
//                                                and 100,000 absent keys must not be.
//
// PACKAGE is the classic-level folder to load. Prints "passed" or "failed" last.
'use strict'

const NUM_KEYS = 200000
const NUM_ABSENT = 100000
// One memtable holds every key, so the tables depend only on the keys, never on when a
// background compaction happened to run.
const WRITE_BUFFER_SIZE = 64 << 20
// Past every key of 64 bytes or fewer: the end of the range compacted.
const COMPACT_STOP = Buffer.alloc(65, 0xff)

// mulberry32: the same bytes in every run.
function generator (seed) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return (z ^ (z >>> 14)) >>> 0
  }
}

// Key `i`: 0 to 60 random bytes, then i in 4 big-endian bytes, so keys are distinct. Absent keys
// use indexes past NUM_KEYS, so none equals a key written.
function key (i) {
  const next = generator(i * 7919 + 1)
  const key = Buffer.alloc((next() % 61) + 4)
  for (let j = 0; j < key.length - 4; j++) key[j] = next() & 0xff
  key.writeUInt32BE(i, key.length - 4)
  return key
}

function value (i) {
  return Buffer.from(`value-${i}`)
}

async function write (ClassicLevel, dir) {
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  await db.open({ createIfMissing: true, errorIfExists: true, writeBufferSize: WRITE_BUFFER_SIZE })
  const batch = []
  for (let i = 0; i < NUM_KEYS; i++) batch.push({ type: 'put', key: key(i), value: value(i) })
  await db.batch(batch)
  await db.compactRange(Buffer.alloc(0), COMPACT_STOP)
  await db.close()
  return true
}

// How many of keys `from` to `to` (excluded) getMany finds with their values.
async function found (db, from, to) {
  let count = 0
  for (let start = from; start < to; start += 10000) {
    const end = Math.min(start + 10000, to)
    const keys = []
    for (let i = start; i < end; i++) keys.push(key(i))
    const values = await db.getMany(keys)
    values.forEach((got, j) => {
      if (got !== undefined && (start + j >= NUM_KEYS || got.equals(value(start + j)))) count++
    })
  }
  return count
}

async function read (ClassicLevel, dir) {
  const db = new ClassicLevel(dir, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  await db.open({ createIfMissing: false })
  const present = await found(db, 0, NUM_KEYS)
  const absent = await found(db, NUM_KEYS, NUM_KEYS + NUM_ABSENT)
  await db.close()
  console.log(`present keys found: ${present} of ${NUM_KEYS}; ` +
              `absent keys found: ${absent} of ${NUM_ABSENT}`)
  return present === NUM_KEYS && absent === 0
}

async function main (argv) {
  if (argv.length !== 3 || !['write', 'read'].includes(argv[1])) {
    console.error('usage: node classic_level_db.js PACKAGE write DIR | PACKAGE read DIR')
    return 2
  }
  const { ClassicLevel } = require(argv[0])
  const ok = await (argv[1] === 'write' ? write : read)(ClassicLevel, argv[2])
  console.log(ok ? 'passed' : 'failed')
  return ok ? 0 : 1
}

main(process.argv.slice(2)).then((status) => { process.exitCode = status })
