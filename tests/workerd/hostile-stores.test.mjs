// Every tampered store of tests/conformance/hostile-stores.json on
// durableObjectStore inside workerd, on SQLite-backed and key-value-backed objects:
// the exact answers, the store left as loaded, and the Durable Object's storage
// outside the store's prefix untouched.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { expected } from '../conformance/hostile-stores.mjs';
import { useService } from './client.js';
import { defaults } from 'memdir';

const { probes, cases } = JSON.parse(readFileSync(new URL('../conformance/hostile-stores.json', import.meta.url), 'utf8'));

const { c } = useService();

// On both kinds of object: durableObjectStore takes a different path on each.
for (const storage of ['sqlite-backed', 'kv-backed']) {
  for (const kase of cases) {
    test(`${kase.name} (${storage} object)`, async () => {
      const seen = await c.test('hostile', { storage, name: `hostile-${storage}-${kase.name}`, case: kase, probes });
      assert.deepEqual(seen, { ...expected(kase), outside: [['outside', 'beside the store']] });
    });
  }
}

// A record tampered into a manifest beyond any value memdir writes is refused by
// every read before a chunk key is built or read (the old code built 2^40 keys).
const beyond = 'Error: durableObjectStore: a stored record claims a size beyond any value memdir writes';
const refused = { get: beyond, swap: beyond, commit: beyond };
for (const storage of ['sqlite-backed', 'kv-backed']) {
  test(`a manifest beyond the largest value is refused (${storage} object)`, async () => {
    const seen = await c.test('huge-manifests', { storage, name: `huge-${storage}` });
    assert.deepEqual(seen, {
      count: refused,
      length: refused,
      chunks: refused,
      afterSet: [1, 1, 1],
      raw: ['huge/r:chunks', 'huge/r:count'],
    });
  });
}

test('the store bound is the engine limit, read from the engine', () => {
  const rust = readFileSync(new URL('../../src/config.rs', import.meta.url), 'utf8');
  const [, a, b] = rust.match(/pub const MAX_VALUE_BYTES: usize = (\d+) << (\d+);/);
  assert.equal(defaults().maxValueBytes, Number(a) * 2 ** Number(b));
});

test('the data holds cases', () => {
  assert.ok(cases.length > 0 && probes.length > 0);
});
