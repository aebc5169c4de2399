// Every tampered store of tests/conformance/hostile-stores.json on
// durableObjectStore inside workerd, on SQLite-backed and key-value-backed objects:
// the exact answers, the store left as loaded, and the Durable Object's storage
// outside the store's prefix untouched.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { expected } from '../conformance/hostile-stores.mjs';
import { client } from './client.js';
import { start } from './mf.js';

const { probes, cases } = JSON.parse(readFileSync(new URL('../conformance/hostile-stores.json', import.meta.url), 'utf8'));

let mf;
let c;
before(async () => {
  mf = start();
  c = client(mf);
  await mf.ready;
});
after(() => mf?.dispose());

// On both kinds of object: durableObjectStore takes a different path on each.
for (const storage of ['sqlite-backed', 'kv-backed']) {
  for (const kase of cases) {
    test(`${kase.name} (${storage} object)`, async () => {
      const seen = await c.test('hostile', { storage, name: `hostile-${storage}-${kase.name}`, case: kase, probes });
      assert.deepEqual(seen, { ...expected(kase), outside: [['outside', 'beside the store']] });
    });
  }
}

test('the data holds cases', () => {
  assert.ok(cases.length > 0 && probes.length > 0);
});
