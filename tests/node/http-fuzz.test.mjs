// The Memory Stores API's HTTP handler under seeded random requests
// (tests/conformance/http-fuzz.mjs): in process over a directory catalog, and over
// HTTP against `memdir serve --no-auth`. No request may crash it, get a 5xx (the
// stores are healthy, so no 5xx is a storage fault), an answer that is not the
// API's, or one naming the store directory; and it still serves afterwards.
// MEMDIR_FUZZ_SEED=N replays one seed.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { apiHandler, directoryCatalog } from 'memdir/server';
import { fuzz } from '../conformance/http-fuzz.mjs';
import { over } from '../conformance/http-over.mjs';
import { memdir, startServe, tempDir } from './helpers.mjs';

const KEY = 'sk-fuzz-key';
const MAX = memdir.defaults().maxApiBodyBytes;
const SEEDS = process.env.MEMDIR_FUZZ_SEED ? [Number(process.env.MEMDIR_FUZZ_SEED)] : [1, 2];

describe('the HTTP handler under random requests', () => {
  test('in process, over a directory catalog, with keys', async () => {
    const root = join(tempDir('memdir-fuzz-'), 'stores');
    const catalog = directoryCatalog(root);
    const handle = apiHandler({ catalog, keys: [KEY] });
    const send = async ({ method, path, headers, body }) => {
      const r = await handle(new Request(`http://memdir.test${path}`, { method, headers, body, duplex: 'half' }));
      return { status: r.status, headers: r.headers, text: await r.text() };
    };
    const spoil = [{ 'x-api-key': 'sk-wrong' }, { 'x-api-key': '' }, { 'x-api-key': '', authorization: 'Bearer sk-wrong' }, { 'x-api-key': '', authorization: KEY }];
    for (const seed of SEEDS) {
      const started = Date.now();
      const { problems, statuses, world } = await fuzz({ seed: seed * 1000 + 1, count: 1500, send, auth: { 'x-api-key': KEY }, spoil, maxBody: MAX, secret: root });
      assert.deepEqual(problems, []);
      // The run reached the engine: stores made, memories written, pages walked.
      assert.ok(statuses[200] > 150 && world.stores.length > 0 && world.memories.size > 0, JSON.stringify(statuses));
      assert.ok(Date.now() - started < 120_000);
    }
    const made = await send({ method: 'POST', path: '/v1/memory_stores', headers: { 'x-api-key': KEY }, body: '{"name":"after"}' });
    assert.equal(made.status, 200);
    await catalog.close();
  });

  describe('over HTTP, memdir serve --no-auth', () => {
    let server;
    let root;
    before(async () => {
      root = join(tempDir('memdir-fuzz-serve-'), 'stores');
      server = await startServe(['--store', root, '--no-auth']);
    });
    after(async () => {
      if (server) assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.stderr());
    });

    test('every answer is the API\'s, and it serves afterwards', async () => {
      const spoil = [{ host: 'evil.example' }, { origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }];
      for (const seed of SEEDS) {
        const { problems, statuses } = await fuzz({ seed: seed * 1000 + 2, count: 600, send: (req) => over(server.url, req), auth: {}, spoil, maxBody: MAX, secret: root });
        // What the server said on stderr goes with a failure: a request it left
        // unanswered is otherwise a bare "no answer".
        assert.deepEqual(problems, [], `memdir serve's stderr:\n${server.stderr()}`);
        assert.ok(statuses[200] > 50 && statuses[403] > 0 && statuses[415] > 0, JSON.stringify(statuses));
      }
      const made = await over(server.url, { method: 'POST', path: '/v1/memory_stores', headers: { 'content-type': 'application/json' }, body: '{"name":"after"}' });
      assert.equal(made.status, 200);
      const id = JSON.parse(made.text).id;
      const again = await over(server.url, { method: 'GET', path: `/v1/memory_stores/${id}`, headers: {} });
      assert.equal(JSON.parse(again.text).name, 'after');
      assert.equal((await over(server.url, { method: 'GET', path: '/v1/memory_stores?limit=100', headers: {} })).status, 200);
    });
  });
});
