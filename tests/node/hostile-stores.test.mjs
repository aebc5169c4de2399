// Every tampered store of tests/conformance/hostile-stores.json on the directory
// store and on a custom JS store: the exact answers, and nothing written, in the
// store or beside it. (The native memory store runs it in tests/all/hostile_store.rs.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { expected, observe } from '../conformance/hostile-stores.mjs';
import { nameToKey } from '../../js/stores/store-dir.js';
import { MapStore, isOwnSpare, loadJson, memdir, tempDir } from './helpers.mjs';

const { probes, cases } = loadJson('hostile-stores.json');

describe('tampered stores on the directory store', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const base = tempDir();
      writeFileSync(join(base, 'outside.txt'), 'beside the store');
      const dir = join(base, 'store');
      const store = memdir.directoryStore(dir);
      await store.open();
      const notKeys = () => readdirSync(dir).filter((n) => nameToKey(n) === undefined && !isOwnSpare(n, dir));
      const before = notKeys();
      const seen = await observe(store, () => memdir.openMemory({ store }), probes, c);
      assert.deepEqual(seen, expected(c));
      // Nothing beside the store, and no file in it that is not a key (no lock or
      // temporary left behind; this process's spare files aside).
      assert.deepEqual(readdirSync(base).sort(), ['outside.txt', 'store']);
      assert.equal(readFileSync(join(base, 'outside.txt'), 'utf8'), 'beside the store');
      assert.deepEqual(notKeys(), before);
    });
  }
});

describe('tampered stores on a custom store', () => {
  for (const c of cases) {
    test(c.name, async () => {
      const store = new MapStore();
      assert.deepEqual(await observe(store, () => memdir.openMemory({ store }), probes, c), expected(c));
    });
  }
});

test('the data holds cases', () => {
  assert.ok(cases.length > 0 && probes.length > 0);
});
