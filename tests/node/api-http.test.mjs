// The Memory Stores API's fetch handler (js/api/http.js) on its own, over a
// recording catalog: which engine request each route becomes, the API key, the
// body cap before the body is read, the request id, and that nothing thrown below
// reaches the client. The engine's answers are the SDK tests' (memory-stores.test.mjs).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { memdir } from './helpers.mjs';
import { apiHandler, requestId } from 'memdir/server';

const KEY = 'sk-test-key-1';
const OTHER_KEY = 'sk-test-key-2';
const ACTOR = { type: 'api_actor', api_key_id: `apikey_${createHash('sha256').update(KEY).digest('hex').slice(0, 24)}` };
const MAX = memdir.defaults().maxApiBodyBytes;
const BASE = 'http://memdir.test';
const utf8 = (text) => new TextEncoder().encode(text);

/** A catalog whose stores record each engine request and answer `reply(request)`. */
function recordingCatalog(reply = () => ({ status: 200, body: { ok: true } })) {
  const calls = [];
  const dropped = [];
  const stores = new Map([['memstore_a', true]]);
  const store = (storeId) => ({
    api: async (request) => {
      calls.push({ storeId, request });
      return reply(request);
    },
  });
  return {
    calls,
    dropped,
    async create() {
      stores.set('memstore_new', true);
      return { id: 'memstore_new', store: store('memstore_new') };
    },
    async open(id) {
      return stores.has(id) ? store(id) : null;
    },
    async ids() {
      return [...stores.keys()];
    },
    async drop(id) {
      dropped.push(id);
      stores.delete(id);
    },
  };
}

async function call(handle, method, path, { key = KEY, body, headers = {} } = {}) {
  const h = new Headers(headers);
  if (key !== null) h.set('x-api-key', key);
  const r = await handle(new Request(BASE + path, { method, headers: h, body, duplex: 'half' }));
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: JSON.parse(text) };
}

const NO_KEY = 'An API key is required: send it as x-api-key or Authorization: Bearer.';
const apiError = (type, message) => ({ type: 'error', error: { type, message } });

describe('the Memory Stores API fetch handler', () => {
  test('each route becomes its engine request, with the key as a digest actor', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, keys: [KEY, OTHER_KEY] });
    const cases = [
      ['GET', '/v1/memory_stores/memstore_a', { op: 'store.retrieve' }],
      ['POST', '/v1/memory_stores/memstore_a', { op: 'store.update' }, '{"name":"n"}'],
      ['PATCH', '/v1/memory_stores/memstore_a', { op: 'store.update' }, '{"name":"n"}'],
      ['POST', '/v1/memory_stores/memstore_a/archive', { op: 'store.archive' }],
      ['GET', '/v1/memory_stores/memstore_a/memories?path_prefix=%2Fa%2F&depth=1', { op: 'memory.list', query: { path_prefix: '/a/', depth: '1' } }],
      ['POST', '/v1/memory_stores/memstore_a/memories?view=full', { op: 'memory.create', query: { view: 'full' } }, '{"path":"/a","content":"x"}'],
      ['GET', '/v1/memory_stores/memstore_a/memories/search?query=hi', { op: 'memory.search', query: { query: 'hi' } }],
      ['GET', '/v1/memory_stores/memstore_a/memories/mem_1', { op: 'memory.retrieve', id: 'mem_1' }],
      ['POST', '/v1/memory_stores/memstore_a/memories/mem_1', { op: 'memory.update', id: 'mem_1' }, '{"content":"y"}'],
      ['PATCH', '/v1/memory_stores/memstore_a/memories/mem_1', { op: 'memory.update', id: 'mem_1' }, '{"content":"y"}'],
      ['DELETE', '/v1/memory_stores/memstore_a/memories/mem_1?expected_content_sha256=ab', { op: 'memory.delete', id: 'mem_1', query: { expected_content_sha256: 'ab' } }],
      ['GET', '/v1/memory_stores/memstore_a/memory_versions?memory_id=mem_1&operation=created', { op: 'version.list', query: { memory_id: 'mem_1', operation: 'created' } }],
      ['GET', '/v1/memory_stores/memstore_a/memory_versions/memver_2', { op: 'version.retrieve', id: 'memver_2' }],
      ['POST', '/v1/memory_stores/memstore_a/memory_versions/memver_2/redact', { op: 'version.redact', id: 'memver_2' }],
      // An id is decoded from the path as the SDK encodes it.
      ['GET', '/v1/memory_stores/memstore_a/memories/mem%2F..%2Fx', { op: 'memory.retrieve', id: 'mem/../x' }],
    ];
    for (const [method, path, want, body] of cases) {
      catalog.calls.length = 0;
      const r = await call(handle, method, path, { body });
      assert.equal(r.status, 200, `${method} ${path}: ${r.text}`);
      assert.deepEqual(r.json, { ok: true });
      assert.equal(catalog.calls.length, 1, `${method} ${path}`);
      const expected = { op: want.op, query: want.query ?? {}, body: body ?? null, actor: ACTOR };
      if (want.id !== undefined) expected.id = want.id;
      assert.deepEqual(catalog.calls[0], { storeId: 'memstore_a', request: expected }, `${method} ${path}`);
    }
  });

  test('store.create hands the catalog\'s new id to the engine and drops the storage when the engine refuses', async () => {
    let answer = { status: 400, body: apiError('invalid_request_error', 'name: bad') };
    const catalog = recordingCatalog(() => answer);
    const handle = apiHandler({ catalog, keys: [KEY] });
    const refused = await call(handle, 'POST', '/v1/memory_stores', { body: '{"name":""}' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.json, apiError('invalid_request_error', 'name: bad'));
    assert.deepEqual(catalog.calls, [{ storeId: 'memstore_new', request: { op: 'store.create', id: 'memstore_new', query: {}, body: '{"name":""}', actor: ACTOR } }]);
    assert.deepEqual(catalog.dropped, ['memstore_new']);
    answer = { status: 200, body: { id: 'memstore_new', type: 'memory_store' } };
    const made = await call(handle, 'POST', '/v1/memory_stores', { body: '{"name":"ok"}' });
    assert.equal(made.status, 200);
    assert.deepEqual(catalog.dropped, ['memstore_new']);
    answer = { status: 200, body: { id: 'memstore_a', type: 'memory_store_deleted' } };
    const gone = await call(handle, 'DELETE', '/v1/memory_stores/memstore_a');
    assert.equal(gone.status, 200);
    assert.deepEqual(catalog.dropped, ['memstore_new', 'memstore_a']);
  });

  test('a missing or wrong key is 401 before anything is opened; every answer has its own request-id', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, keys: [KEY] });
    const ids = new Set();
    for (const [key, message] of [
      [null, NO_KEY],
      ['', NO_KEY],
      [OTHER_KEY, 'Invalid API key.'],
      [`${KEY}x`, 'Invalid API key.'],
      [KEY.slice(0, -1), 'Invalid API key.'],
    ]) {
      const r = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { key });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, apiError('authentication_error', message));
      assert.equal(r.headers.get('x-should-retry'), 'false');
      assert.match(r.headers.get('request-id'), /^req_[0-9a-f]{24}$/);
      ids.add(r.headers.get('request-id'));
    }
    for (const [authorization, message] of [
      [`Bearer ${OTHER_KEY}`, 'Invalid API key.'],
      [`Basic ${KEY}`, NO_KEY],
      ['Bearer', NO_KEY],
    ]) {
      const r = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { key: null, headers: { authorization } });
      assert.equal(r.status, 401);
      assert.deepEqual(r.json, apiError('authentication_error', message));
    }
    assert.equal(catalog.calls.length, 0);
    // The SDK sends its apiKey as a bearer token: the same key, the same actor.
    const bearer = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { key: null, headers: { authorization: `Bearer ${KEY}` } });
    assert.equal(bearer.status, 200);
    assert.deepEqual(catalog.calls.at(-1).request.actor, ACTOR);
    const ok = await call(handle, 'GET', '/v1/memory_stores/memstore_a');
    assert.match(ok.headers.get('request-id'), /^req_[0-9a-f]{24}$/);
    ids.add(ok.headers.get('request-id'));
    assert.equal(ids.size, 6);
    assert.equal(catalog.calls.length, 2);
    assert.throws(() => apiHandler({ catalog }), /at least one API key/);
  });

  test('request ids are fresh past each batch of random bytes drawn for them', () => {
    // 1,000 ids take four of the batches of 256 that requestId draws at a time.
    const ids = Array.from({ length: 1000 }, () => requestId());
    for (const id of ids) assert.match(id, /^req_[0-9a-f]{24}$/);
    assert.equal(new Set(ids).size, 1000);
  });

  test('noAuth serves without a key and gives the engine no actor', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, noAuth: true, hosts: ['memdir.test'] });
    const r = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { key: null, headers: { host: 'memdir.test' } });
    assert.equal(r.status, 200);
    assert.deepEqual(catalog.calls[0].request, { op: 'store.retrieve', query: {}, body: null });
    assert.throws(() => apiHandler({ catalog, noAuth: true }), /noAuth needs the hosts the server is reached by/);
  });

  test('noAuth answers only its own Host, no other origin, and JSON bodies', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, noAuth: true, hosts: ['127.0.0.1:8787', 'localhost:8787'] });
    const own = { host: '127.0.0.1:8787' };
    const wrongHost = apiError('permission_error', 'Without API keys this server answers only requests addressed to its own loopback address and port (the Host header).');
    const crossOrigin = apiError('permission_error', 'Without API keys this server answers no request that a web page of another origin sent (its Origin or Sec-Fetch-Site header).');
    const notJson = apiError('invalid_request_error', 'A request body must be JSON, sent with Content-Type: application/json.');
    const cases = [
      // DNS rebinding: the page's own name, on this port
      ['POST', '/v1/memory_stores', { host: 'evil.example:8787', 'content-type': 'application/json' }, '{"name":"x"}', 403, wrongHost],
      ['GET', '/v1/memory_stores', { host: '127.0.0.1:9999' }, undefined, 403, wrongHost],
      ['GET', '/v1/memory_stores', { host: '127.0.0.1' }, undefined, 403, wrongHost],
      ['GET', '/v1/memory_stores', {}, undefined, 403, wrongHost],
      ['GET', '/v1/nothing', { host: 'evil.example' }, undefined, 403, wrongHost],
      // another origin, or a page that hides its own
      ['POST', '/v1/memory_stores', { ...own, origin: 'http://evil.example', 'content-type': 'application/json' }, '{"name":"x"}', 403, crossOrigin],
      ['POST', '/v1/memory_stores', { ...own, origin: 'http://127.0.0.1:3000', 'content-type': 'application/json' }, '{"name":"x"}', 403, crossOrigin],
      ['POST', '/v1/memory_stores', { ...own, origin: 'http://localhost:8787', 'content-type': 'application/json' }, '{"name":"x"}', 403, crossOrigin],
      ['DELETE', '/v1/memory_stores/memstore_a', { ...own, origin: 'null' }, undefined, 403, crossOrigin],
      ['GET', '/v1/memory_stores', { ...own, 'sec-fetch-site': 'cross-site' }, undefined, 403, crossOrigin],
      ['GET', '/v1/memory_stores', { ...own, 'sec-fetch-site': 'same-site' }, undefined, 403, crossOrigin],
      // what a form or a simple fetch can send
      ['POST', '/v1/memory_stores', { ...own, 'content-type': 'text/plain' }, '{"name":"x"}', 415, notJson],
      ['POST', '/v1/memory_stores/memstore_a/archive', { ...own, 'content-type': 'application/x-www-form-urlencoded' }, undefined, 415, notJson],
      ['PATCH', '/v1/memory_stores/memstore_a', { ...own, 'content-type': 'application/json; charset=latin1' }, '{}', 415, notJson],
      ['POST', '/v1/memory_stores/memstore_a/memories', own, new Uint8Array(utf8('{"path":"/a.md","content":"a"}')), 415, notJson],
    ];
    for (const [method, path, headers, body, status, error] of cases) {
      const r = await call(handle, method, path, { key: null, headers, body });
      assert.deepEqual([r.status, r.json], [status, error], `${method} ${path} ${JSON.stringify(headers)}`);
    }
    assert.deepEqual(catalog.calls, [], 'no refused request reached a store');
    // Its own host, origin and JSON (or no body at all) are served.
    const served = [
      ['GET', '/v1/memory_stores/memstore_a', { host: 'LOCALHOST:8787' }, undefined],
      ['GET', '/v1/memory_stores/memstore_a', { ...own, origin: 'http://127.0.0.1:8787', 'sec-fetch-site': 'same-origin' }, undefined],
      ['GET', '/v1/memory_stores/memstore_a', { ...own, 'sec-fetch-site': 'none', 'content-type': 'text/plain' }, undefined],
      ['POST', '/v1/memory_stores/memstore_a/memories', { ...own, 'content-type': 'application/json; charset=utf-8' }, '{"path":"/a.md","content":"a"}'],
      ['DELETE', '/v1/memory_stores/memstore_a/memories/mem_1', own, undefined],
    ];
    for (const [method, path, headers, body] of served) {
      const r = await call(handle, method, path, { key: null, headers, body });
      assert.equal(r.status, 200, `${method} ${path} ${JSON.stringify(headers)}`);
    }
    assert.equal(catalog.calls.length, served.length);
    // With keys, a body's type is the engine's business: the SDK always sends JSON,
    // and a page cannot send the key.
    const keyed = apiHandler({ catalog, keys: [KEY] });
    const plain = await call(keyed, 'POST', '/v1/memory_stores/memstore_a/memories', { headers: { host: 'evil.example', 'content-type': 'text/plain' }, body: '{}' });
    assert.equal(plain.status, 200);
  });

  test('unknown routes, wrong methods, unknown stores and repeated query names answer the API error object', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, keys: [KEY] });
    const noRoute = apiError('not_found_error', 'No such route: the Memory Stores API serves /v1/memory_stores and the routes beneath it.');
    for (const path of ['/', '/v1', '/v1/memory_stores/../memories', '/v1/memory_stores/', '/v1/memory_stores/memstore_a/', '/v1/memory_stores//memories', '/v1/messages', '/v1/memory_stores/memstore_a/memories/mem_1/extra', '/v1/memory_stores/%E0%A4%A']) {
      const r = await call(handle, 'GET', path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.json, noRoute, path);
    }
    const put = await call(handle, 'PUT', '/v1/memory_stores/memstore_a/memories/mem_1');
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, POST, PATCH, DELETE');
    assert.deepEqual(put.json, apiError('invalid_request_error', 'PUT is not allowed here; this route takes GET, POST, PATCH, DELETE.'));
    const delVersion = await call(handle, 'DELETE', '/v1/memory_stores/memstore_a/memory_versions/memver_1');
    assert.equal(delVersion.status, 405);
    for (const id of ['memstore_zzz', 'memstore_a%2F..', '%2E']) {
      const r = await call(handle, 'GET', `/v1/memory_stores/${id}/memories`);
      assert.equal(r.status, 404, id);
      assert.deepEqual(r.json, apiError('not_found_error', 'No memory store with this id.'));
    }
    const twice = await call(handle, 'GET', '/v1/memory_stores/memstore_a/memories?limit=1&limit=2');
    assert.equal(twice.status, 400);
    assert.deepEqual(twice.json, apiError('invalid_request_error', 'The query parameter "limit" is given more than once.'));
    assert.equal(catalog.calls.length, 0);
  });

  test('a body over the cap is 413 before it is read whole; a declared one before it is read at all', async () => {
    const catalog = recordingCatalog();
    const handle = apiHandler({ catalog, keys: [KEY] });
    const chunk = new Uint8Array(64 * 1024).fill(0x61);
    let pulled = 0;
    const endless = new ReadableStream({
      pull(controller) {
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const r = await call(handle, 'POST', '/v1/memory_stores/memstore_a/memories', { body: endless });
    assert.equal(r.status, 413);
    assert.deepEqual(r.json, apiError('request_too_large', `The request body is larger than ${MAX} bytes.`));
    assert.ok(pulled <= MAX + 2 * chunk.byteLength, `read ${pulled} bytes of an endless body`);
    let touched = false;
    const declared = new ReadableStream(
      {
        pull(controller) {
          touched = true;
          controller.close();
        },
      },
      { highWaterMark: 0 }, // pulled only when read
    );
    const r2 = await call(handle, 'POST', '/v1/memory_stores/memstore_a/memories', { body: declared, headers: { 'content-length': String(MAX + 1) } });
    assert.equal(r2.status, 413);
    assert.equal(touched, false);
    // Exactly the cap is let through to the engine.
    const atCap = await call(handle, 'POST', '/v1/memory_stores/memstore_a/memories', { body: 'a'.repeat(MAX) });
    assert.equal(atCap.status, 200);
    assert.equal(catalog.calls.length, 1);
    assert.equal(catalog.calls[0].request.body.length, MAX);
    const notUtf8 = await call(handle, 'POST', '/v1/memory_stores/memstore_a/memories', { body: new Uint8Array([0x7b, 0xff, 0x7d]) });
    assert.equal(notUtf8.status, 400);
    assert.deepEqual(notUtf8.json, apiError('invalid_request_error', 'The request body is not valid UTF-8.'));
  });

  test('anything thrown below answers 500 with fixed text, never its own', async () => {
    const secret = '/home/someone/private/memory-stores/memstore_a/k_6865616400';
    for (const fail of [
      () => {
        throw new Error(`EACCES: permission denied, open '${secret}'`);
      },
      () => Promise.reject(new TypeError(secret)),
      () => undefined,
      () => ({ body: secret }),
    ]) {
      const handle = apiHandler({ catalog: recordingCatalog(fail), keys: [KEY] });
      const r = await call(handle, 'GET', '/v1/memory_stores/memstore_a');
      assert.equal(r.status, 500);
      assert.deepEqual(r.json, apiError('api_error', 'Internal server error.'));
      assert.ok(!r.text.includes('private'));
      assert.match(r.headers.get('request-id'), /^req_[0-9a-f]{24}$/);
      assert.equal(r.headers.get('x-should-retry'), null);
    }
    const throwingCatalog = { ...recordingCatalog(), open: async () => Promise.reject(new Error(secret)) };
    const r = await call(apiHandler({ catalog: throwingCatalog, keys: [KEY] }), 'GET', '/v1/memory_stores/memstore_a');
    assert.deepEqual(r.json, apiError('api_error', 'Internal server error.'));
  });

  test('a request past the deadline is a 504 while the others are answered', { timeout: 20_000 }, async () => {
    // The first request's store never answers (a stalled backend); the second's does.
    // The deadline leaves the second room on a loaded machine: at 200 ms, a clean-clone
    // CI run once answered it 504 too.
    let calls = 0;
    const stalling = () => (++calls === 1 ? new Promise(() => {}) : { status: 200, body: { ok: true } });
    const handle = apiHandler({ catalog: recordingCatalog(stalling), keys: [KEY], deadlineMs: 2000 });
    const stuck = call(handle, 'GET', '/v1/memory_stores/memstore_a');
    const other = await call(handle, 'GET', '/v1/memory_stores/memstore_a');
    assert.deepEqual([other.status, other.json], [200, { ok: true }]);
    const r = await stuck;
    assert.equal(r.status, 504);
    assert.deepEqual(
      r.json,
      apiError('api_error', 'The request did not finish within 2 seconds. A write still under way commits whole or not at all: read before you retry it.'),
    );
    assert.match(r.headers.get('request-id'), /^req_[0-9a-f]{24}$/);
    assert.throws(() => apiHandler({ catalog: recordingCatalog(), keys: [KEY], deadlineMs: 0 }), { message: 'apiHandler: deadlineMs must be a positive integer' });
  });
  test('/mcp has the API\'s deadline, and its server acts as the key\'s actor', { timeout: 20_000 }, async () => {
    const seen = [];
    // The MCP request of id 1 never answers (a store that stalls under a tool call);
    // picked by its id, not by which of the two concurrent requests arrives first.
    const mcp = async (memory, request, actor) => {
      seen.push(actor);
      const { id } = await request.json();
      return id === 1 ? new Promise(() => {}) : new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
    };
    const handle = apiHandler({ catalog: recordingCatalog(), keys: [KEY], deadlineMs: 1500, mcp });
    const post = (id) =>
      call(handle, 'POST', '/mcp?store=memstore_a', { body: `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`, headers: { 'content-type': 'application/json' } });
    const stuck = post(1);
    assert.deepEqual((await post(2)).json, { ok: true });
    const r = await stuck;
    assert.equal(r.status, 504);
    assert.deepEqual(
      r.json,
      apiError('api_error', 'The request did not finish within 1.5 seconds. A write still under way commits whole or not at all: read before you retry it.'),
    );
    assert.match(r.headers.get('request-id'), /^req_[0-9a-f]{24}$/);
    assert.deepEqual(seen, [ACTOR, ACTOR]);
  });

  test('pages of an allowed origin may call with a key (CORS); others get no CORS headers', async () => {
    const handle = apiHandler({ catalog: recordingCatalog(), keys: [KEY], allowOrigins: ['http://127.0.0.1:8080'] });
    const page = 'http://127.0.0.1:8080';
    const preflight = await handle(
      new Request(`${BASE}/v1/memory_stores/memstore_a/memories`, {
        method: 'OPTIONS',
        headers: { origin: page, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key, content-type' },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.deepEqual(
      Object.fromEntries([...preflight.headers].filter(([k]) => k.startsWith('access-control-') || k === 'vary')),
      {
        'access-control-allow-headers': 'x-api-key, authorization, anthropic-version, anthropic-beta, anthropic-workspace-id, content-type',
        'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
        'access-control-allow-origin': page,
        'access-control-expose-headers': 'request-id',
        'access-control-max-age': '600',
        vary: 'Origin',
      },
    );
    const allowed = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { headers: { origin: page } });
    assert.equal(allowed.status, 200);
    assert.equal(allowed.headers.get('access-control-allow-origin'), page);
    // The key still decides: a page without one gets the 401, readable by it.
    const keyless = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { key: null, headers: { origin: page } });
    assert.deepEqual([keyless.status, keyless.headers.get('access-control-allow-origin')], [401, page]);
    const other = await call(handle, 'GET', '/v1/memory_stores/memstore_a', { headers: { origin: 'http://evil.example' } });
    assert.equal(other.headers.get('access-control-allow-origin'), null);
    const otherPreflight = await handle(new Request(`${BASE}/v1/memory_stores`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } }));
    assert.equal(otherPreflight.headers.get('access-control-allow-origin'), null);
    assert.throws(() => apiHandler({ catalog: recordingCatalog(), keys: [KEY], allowOrigins: ['http://x/path'] }), {
      message: 'apiHandler: allowOrigins must be origins (scheme://host[:port]) or "*"',
    });
    assert.throws(() => apiHandler({ catalog: recordingCatalog(), noAuth: true, hosts: ['127.0.0.1:1'], allowOrigins: ['*'] }), {
      message: 'apiHandler: allowOrigins needs API keys, not noAuth',
    });
  });
});
