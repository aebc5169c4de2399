// The Memory Stores API of the example Worker (apiHandler over one Durable Object
// per store, in real workerd through miniflare) under the seeded random requests
// of tests/conformance/http-fuzz.mjs: no crash, no 5xx (the objects' storage is
// healthy, so none is a storage fault), every answer the API's, and the service
// still answers afterwards. MEMDIR_FUZZ_SEED=N replays one seed.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fuzz, METHODS } from '../conformance/http-fuzz.mjs';
import { over as overAt } from '../conformance/http-over.mjs';
import { defaults } from 'memdir';
import { API_KEYS, start } from './mf.js';

const SEED = process.env.MEMDIR_FUZZ_SEED ? Number(process.env.MEMDIR_FUZZ_SEED) : 3;
const MAX = defaults().maxApiBodyBytes;

// workerd answers a method it does not know (X-Odd) itself, 501, before any Worker.
const WORKERD_METHODS = METHODS.filter((m) => m !== 'X-Odd');

let mf;
let url;
before(async () => {
  mf = start();
  url = await mf.ready;
});
after(() => mf?.dispose());

const over = (request) => overAt(url, request);

test('random requests to the Memory Stores API in workerd: every answer the API\'s, none a 5xx', async () => {
  const spoil = [{ 'x-api-key': 'sk-wrong' }, { 'x-api-key': '' }, { 'x-api-key': '', authorization: `Bearer ${API_KEYS[1]}x` }];
  const started = Date.now();
  const { problems, statuses, world } = await fuzz({ seed: SEED, count: 1500, send: over, methods: WORKERD_METHODS, auth: { 'x-api-key': API_KEYS[0] }, spoil, maxBody: MAX });
  assert.deepEqual(problems, []);
  assert.ok(statuses[200] > 150 && world.stores.length > 0 && world.memories.size > 0, JSON.stringify(statuses));
  assert.ok(Date.now() - started < 240_000);
  const made = await over({ method: 'POST', path: '/v1/memory_stores', headers: { 'x-api-key': API_KEYS[0], 'content-type': 'application/json' }, body: '{"name":"after"}' });
  assert.equal(made.status, 200);
  const back = await over({ method: 'GET', path: `/v1/memory_stores/${JSON.parse(made.text).id}`, headers: { 'x-api-key': API_KEYS[0] } });
  assert.equal(JSON.parse(back.text).name, 'after');
});
