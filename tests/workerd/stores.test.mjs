// The Workers stores inside workerd: the engine's store-contract suite against
// both (durableObjectStore on SQLite-backed and on key-value-backed objects, which
// it drives differently), and what the contract suite cannot see (values over a
// backend's limit, a commit that fails midway, racing swaps).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useService } from './client.js';

const { c } = useService();

// First in this file: the warning is given once per isolate.
test('kvStore warns once that KV is eventually consistent', async () => {
  assert.deepEqual(await c.test('kv-warning', {}), [
    'memdir: kvStore uses Workers KV, which is eventually consistent and has no atomic compare-and-swap: ' +
      'it is safe only with a single writer. Use durableObjectStore for several writers.',
  ]);
});

test('kvStore passes the store contract', async () => {
  assert.equal(await c.test('contract', { backend: 'kv', name: 'kv' }), 'ok');
});

const KIB = 1024;
const chunkKeys = (n) => [...Array.from({ length: n }, (_, i) => `chunks/c:tree/big/${i}`), 'chunks/r:tree/big'];

// Each Durable Object backend: what durableObjectStore must do on it.
const backends = [
  {
    storage: 'sqlite-backed',
    table: true,
    // Rows of durableObjectStore's table, one per key. A row takes up to 2 MB: a
    // value over the key-value API's 120 KiB chunk is stored whole, and only one
    // over the row limit is split.
    whole: { size: 300 * KIB, rawKeys: ['chunks/r:tree/big'], largest: 300 * KIB },
    split: { size: 4_500_000, rawKeys: chunkKeys(3), largest: 2_000_000 - 64 * KIB },
  },
  {
    storage: 'kv-backed',
    table: false,
    whole: { size: 100 * KIB, rawKeys: ['chunks/r:tree/big'], largest: 100 * KIB },
    split: { size: 300 * KIB, rawKeys: chunkKeys(3), largest: 120 * KIB },
  },
];

for (const b of backends) {
  const args = (more) => ({ storage: b.storage, name: `${b.storage}-${more}` });

  test(`durableObjectStore passes the store contract on ${b.storage} objects`, async () => {
    assert.equal(await c.test('contract', { ...args('contract'), backend: 'do' }), 'ok');
  });

  test(`durableObjectStore on ${b.storage} objects: the engine ${b.table ? 'calls the table at once, never through its async methods' : 'calls the async methods'}`, async () => {
    const r = await c.test('at-once', args('at-once'));
    assert.equal(r.view, "Here's the content of /memories/edge.md with line numbers:\n     1\tone\n     2\ttwo");
    if (b.table) assert.equal(r.publicCalls, 0);
    else assert.ok(r.publicCalls >= 3, `the engine called the store ${r.publicCalls} times`);
  });

  for (const [what, want] of [['under', b.whole], ['over', b.split]]) {
    test(`durableObjectStore on ${b.storage} objects: a ${want.size}-byte value (${what} the value limit) is stored as ${want.rawKeys.length} key(s) and read back whole`, async () => {
      const r = await c.test('chunks', { ...args('chunks'), size: want.size });
      assert.equal(r.roundTrip, true);
      assert.deepEqual(r.rawKeys, want.rawKeys);
      assert.equal(r.inKeyValueApi, b.table ? 0 : want.rawKeys.length, 'where the keys are stored');
      assert.equal(r.largestRaw, want.largest);
      assert.deepEqual(r.listed, ['tree/big'], 'a listing shows chunks');
      assert.equal(r.staleSwap, false);
      assert.equal(r.swap, true);
      assert.deepEqual(r.afterSwap, Array(10).fill(9));
      assert.deepEqual(r.rawAfterSwap, ['chunks/r:tree/big'], 'the old chunks were left behind');
      assert.deepEqual(r.rawAfterDelete, ['chunks/r:head', 'chunks/r:tree/big']);
      assert.equal(r.longKey, 'RangeError');
    });
  }

  test(`durableObjectStore on ${b.storage} objects: a commit that fails midway writes nothing`, async () => {
    assert.deepEqual(await c.test('all-or-nothing', args('aon')), {
      error: 'TypeError: a value must be a Uint8Array',
      raw: ['aon/r:head'],
      head: [1, 1, 1, 1],
      a: null,
    });
  });

  test(`durableObjectStore compare-and-swap on ${b.storage} objects loses no update among 50 racing callers`, async () => {
    const r = await c.test('race', { ...args('race'), n: 50 });
    // The control: a plain get-compare-put in the same object loses updates, so the
    // callers really do interleave.
    assert.ok(r.naive < 50, `the naive swap counted ${r.naive}`);
    assert.equal(r.store, 50);
  });
}

// SQLite-backed objects only: the table, and the move into it.

test('durableObjectStore moves what earlier releases wrote through storage.kv into its table on first use, once', async () => {
  const r = await c.test('migrate', { storage: 'sqlite-backed', name: 'migrate' });
  const chunks = ['old/c:tree/big/0', 'old/c:tree/big/1', 'old/c:tree/big/2'];
  assert.deepEqual(r.before, [...chunks, 'old/r:broken', 'old/r:small', 'old/r:tree/big', 'other/r:x', 'outside']);
  assert.deepEqual(r.small, [5, 5, 5]);
  assert.equal(r.big, true, 'the chunked value reads back whole');
  // Damage moves as damage: refused as before, not dropped.
  assert.equal(r.broken, 'Error: durableObjectStore: a stored record is not bytes');
  assert.deepEqual(r.listed, ['broken', 'small', 'tree/big']);
  assert.deepEqual(r.kvAfter, ['other/r:x', 'outside'], 'the moved keys are gone from storage.kv, the rest stays');
  assert.deepEqual(r.table, [...chunks, 'old/r:broken', 'old/r:small', 'old/r:tree/big']);
  assert.deepEqual(r.rewritten, [4, 4, 4, 4]);
  // A second open finds the table holding the store: a key-value record is not moved again.
  assert.equal(r.late, null);
  assert.deepEqual(r.againListed, ['broken', 'small', 'tree/big']);
  assert.deepEqual(r.other, [8, 8]);
  assert.deepEqual(r.kvEnd, ['old/r:late', 'outside']);
});

test('durableObjectStore refuses table rows it never writes with its clear error, binds every key, and outlives deleteAll', async () => {
  const notBytes = 'Error: durableObjectStore: a stored record is not bytes';
  const chunk = 'Error: durableObjectStore: a chunk of a stored record is missing or damaged';
  const refused = (e) => ({ get: e, swap: e });
  assert.deepEqual(await c.test('table-damage', { storage: 'sqlite-backed', name: 'table-damage' }), {
    text: refused(notBytes),
    null: refused(notBytes),
    integer: refused(notBytes),
    real: refused(notBytes),
    bothValueAndManifest: refused(notBytes),
    manifestChunksText: refused(notBytes),
    manifestOnlyChunks: refused(notBytes),
    chunkText: refused(chunk),
    chunkMissing: refused(chunk),
    hostileKey: { read: [6, 6], listed: [`it's "quoted"; DROP TABLE memdir_store; -- %_\\`] },
    afterDeleteAll: [3],
  });
});
