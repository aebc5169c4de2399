// The Memory Stores API of the example Worker (apiHandler over one Durable Object
// per store, in real workerd through miniflare) under the seeded random requests
// of tests/conformance/http-fuzz.mjs: no crash, no 5xx (the objects' storage is
// healthy, so none is a storage fault), every answer the API's, and the service
// still answers afterwards. MEMDIR_FUZZ_SEED=N replays one seed.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { fuzz, METHODS } from '../conformance/http-fuzz.mjs';
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

/** A request on a fresh loopback connection, its body's length declared. */
function over({ method, path, headers, body }) {
  const framed = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname: url.hostname, port: url.port, path, method, headers: framed, agent: false, timeout: 20_000 }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode, headers: h, text: Buffer.concat(parts).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer in 20 s')));
    req.on('error', reject);
    req.end(body);
  });
}

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
