// Sync against the edge example's Memory Stores API in workerd: two Node devices
// (directory stores) keep one memory through it. The same calls as against memdir
// serve, so the remote may be any implementation of the documented API.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { directoryStore, openMemory, syncMemory } from '../../js/node.js';
import { API_KEYS, start } from './mf.js';
import { client as testClient } from './client.js';

let mf;
let baseURL;
before(async () => {
  mf = start();
  baseURL = (await mf.ready).origin;
});
// Each device's directory is removed after the run, so test runs leave no store behind.
const dirs = [];
after(async () => {
  await mf?.dispose();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const device = () => {
  const dir = mkdtempSync(join(tmpdir(), 'memdir-sync-edge-'));
  dirs.push(dir);
  return openMemory({ store: directoryStore(dir) });
};
const read = async (memory) => {
  const r = await memory.api({ op: 'memory.list', query: { view: 'full', limit: '20' } });
  return Object.fromEntries(r.body.data.map((m) => [m.path, m.content]));
};

test('two devices sync through the edge service: copy, merge, then nothing to do', async () => {
  const client = new Anthropic({ apiKey: API_KEYS[0], baseURL, maxRetries: 0 });
  const store = await client.beta.memoryStores.create({ name: 'Edge sync' });
  const options = { baseURL, apiKey: API_KEYS[0], storeId: store.id };
  const [a, b] = [await device(), await device()];
  await a.execute({ command: 'create', path: '/memories/todo.md', file_text: 'buy\ncook\neat\n' });
  assert.deepEqual(await syncMemory(a, options), { pulled: 0, pushed: 1, merged: 0, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await syncMemory(b, options), { pulled: 1, pushed: 0, merged: 0, conflicts: 0, unchanged: 0 });
  await a.execute({ command: 'str_replace', path: '/memories/todo.md', old_str: 'buy', new_str: 'buy bread' });
  await b.execute({ command: 'str_replace', path: '/memories/todo.md', old_str: 'eat', new_str: 'eat early' });
  await syncMemory(a, options);
  assert.deepEqual(await syncMemory(b, options), { pulled: 0, pushed: 0, merged: 1, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await syncMemory(a, options), { pulled: 1, pushed: 0, merged: 0, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await read(a), { '/todo.md': 'buy bread\ncook\neat early\n' });
  assert.deepEqual(await read(b), await read(a));
  assert.deepEqual(await syncMemory(b, options), { pulled: 0, pushed: 0, merged: 0, conflicts: 0, unchanged: 1 });
  a.close();
  b.close();
});

test('memdir syncs from inside workerd too: the package\'s workerd build, the example\'s API as the remote', async () => {
  const client = new Anthropic({ apiKey: API_KEYS[0], baseURL, maxRetries: 0 });
  const store = await client.beta.memoryStores.create({ name: 'Inside' });
  const seen = await testClient(mf).test('sync', { apiKey: API_KEYS[0], storeId: store.id });
  assert.deepEqual(seen, {
    first: { pulled: 0, pushed: 1, merged: 0, conflicts: 0, unchanged: 0 },
    second: { pulled: 1, pushed: 0, merged: 0, conflicts: 0, unchanged: 0 },
    read: "Here's the content of /memories/edge.md with line numbers:\n     1\tone\n     2\ttwo\n     3\t",
    again: 'pulled 0, pushed 0, merged 0, conflicts 0, unchanged 1',
  });
  const [m] = (await client.beta.memoryStores.memories.list(store.id, { view: 'full' })).data;
  assert.equal(m.content, 'one\ntwo\n');
});

test('memdir inside workerd follows no redirect: workerd\'s own fetch, the other origin receives nothing', async () => {
  const listen = (srv) => new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${srv.address().port}`)));
  // Two loopback ports, two origins: the remote named, and where it points.
  const received = [];
  const other = createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers['x-api-key']}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"next_page":null}');
  });
  const asked = [];
  const named = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(307, { location: `${otherURL}${req.url}` }).end();
  });
  const otherURL = await listen(other);
  const baseURL = await listen(named);
  try {
    const storeId = 'memstore_abcdefghjkmn0123456789ab';
    const seen = await testClient(mf).test('sync-redirect', { baseURL, apiKey: 'redirect-test-key', storeId });
    assert.deepEqual(seen, {
      said: 'SyncError: The remote memory store answered with a redirect, which sync does not follow (the key goes to the URL given and nowhere else); nothing more was synced.',
    });
    assert.deepEqual(asked, [`GET /v1/memory_stores/${storeId}/memories?limit=100`]);
    assert.deepEqual(received, []);
  } finally {
    named.close();
    other.close();
  }
});
