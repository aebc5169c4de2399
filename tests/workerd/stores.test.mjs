// The Workers stores inside workerd: the engine's store-contract suite against
// both, and what the contract suite cannot see (chunked values, racing swaps).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { client } from './client.js';
import { start } from './mf.js';

let mf;
let c;
before(async () => {
  mf = start();
  c = client(mf);
  await mf.ready;
});
after(() => mf?.dispose());

// First in this file: the warning is given once per isolate.
test('kvStore warns once that KV is eventually consistent', async () => {
  assert.deepEqual(await c.test('kv-warning', {}), [
    'memdir: kvStore uses Workers KV, which is eventually consistent and has no atomic compare-and-swap: ' +
      'it is safe only with a single writer. Use durableObjectStore for several writers.',
  ]);
});

test('durableObjectStore passes the store contract', async () => {
  assert.equal(await c.test('contract', { backend: 'do' }), 'ok');
});

test('kvStore passes the store contract', async () => {
  assert.equal(await c.test('contract', { backend: 'kv', name: 'kv' }), 'ok');
});

test('durableObjectStore splits values over the 128 KiB limit and reads them back whole', async () => {
  const r = await c.test('chunks', {});
  assert.equal(r.roundTrip, true);
  assert.deepEqual(r.rawKeys, ['chunks/c:tree/big/0', 'chunks/c:tree/big/1', 'chunks/c:tree/big/2', 'chunks/r:tree/big']);
  assert.ok(r.largestRaw <= 120 * 1024, `a stored value of ${r.largestRaw} bytes`);
  assert.deepEqual(r.listed, ['tree/big'], 'a listing shows chunks');
  assert.equal(r.staleSwap, false);
  assert.equal(r.swap, true);
  assert.deepEqual(r.afterSwap, Array(10).fill(9));
  assert.deepEqual(r.rawAfterSwap, ['chunks/r:tree/big'], 'the old chunks were left behind');
  assert.deepEqual(r.rawAfterDelete, ['chunks/r:head', 'chunks/r:tree/big']);
  assert.equal(r.longKey, 'RangeError');
});

test('durableObjectStore compare-and-swap loses no update among 50 racing callers', async () => {
  const r = await c.test('race', { n: 50, name: 'race' });
  // The control: a plain get-compare-put in the same object loses updates, so the
  // callers really do interleave.
  assert.ok(r.naive < 50, `the naive swap counted ${r.naive}`);
  assert.equal(r.store, 50);
});
