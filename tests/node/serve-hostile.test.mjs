// `memdir serve` against clients that do not play by the rules, on raw sockets: any
// method, target, header or body gets an answer in the API's error object and the
// process goes on serving; with --no-auth, requests that a web page could have made
// (another Host, another Origin, a body that is not JSON) are refused.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { memdir, startServe, tempDir } from './helpers.mjs';
import { over } from '../conformance/http-over.mjs';

const KEY = 'sk-hostile-test-key';
const MAX_BODY = memdir.defaults().maxApiBodyBytes;

/**
 * Sends `text` as it is on a fresh connection and reads until the server closes it
 * or answers once: `{status, headers, body}` (status 0: closed without an answer).
 */
function raw(url, text) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let got = '';
    const done = () => {
      socket.destroy();
      const head = got.split('\r\n\r\n', 1)[0];
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      const headers = Object.fromEntries(
        head.split('\r\n').slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const body = got.slice(head.length + 4);
      resolve({ status, headers, body });
    };
    socket.setEncoding('latin1');
    socket.on('data', (d) => {
      got += d;
      const head = got.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(got.slice(0, head))?.[1];
      if (head >= 0 && length !== undefined && got.length >= head + 4 + Number(length)) done();
    });
    socket.on('end', done);
    socket.on('error', (e) => (e.code === 'ECONNRESET' ? done() : reject(e)));
    socket.setTimeout(10_000, () => reject(new Error(`no answer to ${JSON.stringify(text.slice(0, 60))}`)));
    socket.write(text, 'latin1');
  });
}

const envelope = (type, message) => JSON.stringify({ type: 'error', error: { type, message } });
const WRONG_HOST = envelope('permission_error', 'Without API keys this server answers only requests addressed to its own loopback address and port (the Host header).');
const CROSS_ORIGIN = envelope('permission_error', 'Without API keys this server answers no request that a web page of another origin sent (its Origin or Sec-Fetch-Site header).');
const NOT_JSON = envelope('invalid_request_error', 'A request body must be JSON, sent with Content-Type: application/json.');
const NO_STORE = envelope('not_found_error', 'No memory store with this id.');
const INTERNAL = envelope('api_error', 'Internal server error.');

/** An HTTP/1.1 request as text: `headers` an object, `body` a string (its length declared). */
function http11(method, target, headers, body) {
  const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

describe('memdir serve against hostile clients', () => {
  let keyed;
  let open;
  before(async () => {
    const dir = tempDir('memdir-hostile-');
    keyed = await startServe(['--store', join(dir, 'keyed')], { MEMDIR_API_KEYS: KEY });
    open = await startServe(['--store', join(dir, 'open'), '--no-auth']);
  });
  after(async () => {
    for (const s of [keyed, open]) {
      if (!s) continue;
      const stderr = s.stderr();
      assert.deepEqual(await s.stop(), { code: 0, signal: null }, stderr);
    }
  });

  test('TRACE, CONNECT and methods fetch cannot carry are 405, and the server goes on', async () => {
    for (const server of [keyed, open]) {
      for (const method of ['TRACE', 'TRACK']) {
        const r = await raw(server.url, `${method} / HTTP/1.1\r\nHost: ${new URL(server.url).host}\r\n\r\n`);
        assert.equal(r.status, method === 'TRACE' ? 405 : 400, method);
        if (method === 'TRACE') {
          assert.equal(r.body, envelope('invalid_request_error', 'TRACE is not a method this API serves.'));
          assert.equal(r.headers['content-type'], 'application/json');
          assert.match(r.headers['request-id'], /^req_[0-9a-f]{24}$/);
        }
      }
      // CONNECT: Node's server closes it without handing it over.
      await raw(server.url, `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`);
      const alive = await fetch(`${server.url}/v1/memory_stores`, { headers: { 'x-api-key': KEY } });
      assert.equal(alive.status, 200);
      assert.deepEqual(await alive.json(), { data: [], next_page: null });
    }
  });

  test('other methods, odd targets and headers get the API error object', async () => {
    const host = `Host: ${new URL(keyed.url).host}`;
    const cases = [
      [`PROPFIND /v1/memory_stores HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\n\r\n`, 405, envelope('invalid_request_error', 'PROPFIND is not allowed here; this route takes GET, POST.')],
      [`GET * HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\n\r\n`, 404, envelope('not_found_error', 'No such route: the Memory Stores API serves /v1/memory_stores and the routes beneath it.')],
      [`GET http://elsewhere.example/v1/memory_stores/%FF HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\n\r\n`, 404, envelope('not_found_error', 'No such route: the Memory Stores API serves /v1/memory_stores and the routes beneath it.')],
      [`GET http://user:pw@elsewhere.example/v1/memory_stores HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\n\r\n`, 400, envelope('invalid_request_error', 'The request target is not a path this API can read.')],
      // Not HTTP at all, as Node's parser sees it: the API's 400 and 431 all the same.
      [`GET /v1/memory_stores HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\nx-odd: \x01\r\n\r\n`, 400, envelope('invalid_request_error', 'The request is not valid HTTP/1.1.')],
      [`GET /v1/memory_stores HTTP/1.1\r\n${host}\r\nx-big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, envelope('request_too_large', 'The request headers are too large.')],
      [`NOT HTTP\r\n\r\n`, 400, envelope('invalid_request_error', 'The request is not valid HTTP/1.1.')],
      // Header names in any case; a header sent twice is its values joined by ", ", as
      // fetch reads it, so a key sent twice is no key of the list.
      [`GET /v1/memory_stores HTTP/1.1\r\n${host}\r\nX-API-Key: ${KEY}\r\n\r\n`, 200, undefined],
      [`GET /v1/memory_stores HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\nX-Api-Key: ${KEY}\r\n\r\n`, 401, envelope('authentication_error', 'Invalid API key.')],
    ];
    for (const [request, status, body] of cases) {
      const r = await raw(keyed.url, request);
      assert.equal(r.status, status, request);
      if (body) assert.equal(r.body, body, request);
    }
  });
});

describe('memdir serve --no-auth is for this machine, not its web pages', () => {
  let server;
  let host;
  before(async () => {
    server = await startServe(['--store', join(tempDir('memdir-loopback-'), 'stores'), '--no-auth']);
    host = new URL(server.url).host;
  });
  after(async () => {
    if (server) assert.deepEqual(await server.stop(), { code: 0, signal: null }, server.stderr());
  });

  const list = async () => (await raw(server.url, http11('GET', '/v1/memory_stores', { host }))).body;

  test('another Host (DNS rebinding), another Origin or a body that is not JSON is refused and changes nothing', async () => {
    const port = new URL(server.url).port;
    const create = '{"name":"x"}';
    const cases = [
      // curl -H 'Host: evil.example:PORT' -H 'Content-Type: text/plain' -d '{"name":"x"}'
      [{ host: `evil.example:${port}`, 'content-type': 'text/plain' }, 403, WRONG_HOST],
      [{ host: `evil.example:${port}`, 'content-type': 'application/json' }, 403, WRONG_HOST],
      [{ host: `127.0.0.1:${Number(port) + 1}`, 'content-type': 'application/json' }, 403, WRONG_HOST],
      [{ host, origin: 'http://evil.example', 'content-type': 'application/json' }, 403, CROSS_ORIGIN],
      [{ host, origin: 'null', 'content-type': 'application/json' }, 403, CROSS_ORIGIN],
      [{ host, 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, 403, CROSS_ORIGIN],
      [{ host, 'content-type': 'text/plain' }, 415, NOT_JSON],
      [{ host, 'content-type': 'application/x-www-form-urlencoded' }, 415, NOT_JSON],
      [{ host }, 415, NOT_JSON],
    ];
    for (const [headers, status, body] of cases) {
      const r = await raw(server.url, http11('POST', '/v1/memory_stores', headers, create));
      assert.deepEqual([r.status, r.body], [status, body], JSON.stringify(headers));
    }
    // HTTP/1.0 sends no Host at all.
    const bare = await raw(server.url, 'GET /v1/memory_stores HTTP/1.0\r\n\r\n');
    assert.deepEqual([bare.status, bare.body], [403, WRONG_HOST]);
    assert.equal(await list(), JSON.stringify({ data: [], next_page: null }));
    const own = await raw(server.url, http11('POST', '/v1/memory_stores', { host, origin: server.url, 'content-type': 'application/json' }, create));
    assert.equal(own.status, 200);
    const byName = await raw(server.url, http11('GET', '/v1/memory_stores', { host: `localhost:${port}` }));
    assert.equal(JSON.parse(byName.body).data.length, 1);
  });

  test('an upload refused before it is read still gets its answer, not a reset connection', async () => {
    // Each on a connection the client closes (Connection: close), still sending 4 MiB
    // when the refusal is ready: answered before the body was read to its end, 9 of
    // 100 of these saw a reset (EPIPE) and no answer.
    const big = 'x'.repeat(4 * 1024 * 1024);
    const refusals = [
      [{ 'sec-fetch-site': 'cross-site', 'content-type': 'application/json' }, 403, CROSS_ORIGIN],
      [{ 'content-type': 'application/json' }, 413, envelope('request_too_large', `The request body is larger than ${MAX_BODY} bytes.`)],
    ];
    const upload = ([headers]) =>
      over(server.url, { method: 'POST', path: '/v1/memory_stores', headers, body: big }).then(
        (r) => [r.status, r.text],
        (e) => [e.code ?? e.message],
      );
    const batch = Array.from({ length: 10 }, (_, j) => refusals[j % 2]);
    const before = await list();
    for (let round = 0; round < 10; round++) {
      assert.deepEqual(await Promise.all(batch.map(upload)), batch.map(([, status, body]) => [status, body]), `round ${round}`);
    }
    assert.equal(await list(), before);
  });

  test('the SDK, which sends JSON and no Origin, is served', async () => {
    const client = new Anthropic({ apiKey: 'unused', baseURL: server.url, maxRetries: 0, logLevel: 'off' });
    const made = await client.beta.memoryStores.create({ name: 'sdk' });
    await client.beta.memoryStores.memories.create(made.id, { path: '/a.md', content: 'a' });
    await client.beta.memoryStores.archive(made.id);
    const deleted = await client.beta.memoryStores.delete(made.id);
    assert.equal(deleted.id, made.id);
  });
});

describe('the store catalog of memdir serve, damaged and shared', () => {
  let root;
  let a;
  let b;
  before(async () => {
    root = join(tempDir('memdir-catalog-'), 'stores');
    a = await startServe(['--store', root, '--no-auth']);
    b = await startServe(['--store', root, '--no-auth']);
  });
  after(async () => {
    for (const s of [a, b]) if (s) assert.deepEqual(await s.stop(), { code: 0, signal: null }, s.stderr());
  });

  const at = (server) => {
    const host = new URL(server.url).host;
    return async (method, path, body) => {
      const r = await raw(server.url, http11(method, `/v1/memory_stores${path}`, body === undefined ? { host } : { host, 'content-type': 'application/json' }, body));
      return { status: r.status, body: r.body, json: () => JSON.parse(r.body) };
    };
  };
  const ids = async (server) => (await at(server)('GET', '')).json().data.map((s) => s.id);

  test('a store deleted through one server is gone on the other', async () => {
    const made = (await at(a)('POST', '', '{"name":"shared"}')).json();
    assert.equal((await at(a)('POST', `/${made.id}/memories`, '{"path":"/m.md","content":"m"}')).status, 200);
    // b opens it (and keeps it open) before a deletes it.
    assert.equal(JSON.parse((await at(b)('GET', `/${made.id}/memories`)).body).data.length, 1);
    assert.equal((await at(a)('DELETE', `/${made.id}`)).status, 200);
    for (const path of [`/${made.id}`, `/${made.id}/memories`, `/${made.id}/memory_versions`]) {
      const r = await at(b)('GET', path);
      assert.deepEqual([r.status, r.body], [404, NO_STORE], path);
    }
    const write = await at(b)('POST', `/${made.id}/memories`, '{"path":"/n.md","content":"n"}');
    assert.deepEqual([write.status, write.body], [404, NO_STORE]);
    assert.deepEqual(await ids(b), []);
    assert.deepEqual(readdirSync(root), [], 'nothing of the store is left behind');
  });

  test('a damaged or copied store directory is left out of the list, reported, and never a 500 for the rest', async () => {
    const one = (await at(a)('POST', '', '{"name":"one"}')).json();
    const two = (await at(a)('POST', '', '{"name":"two"}')).json();
    // Another name of the same shape (its last character changed, never to itself).
    const copy = `${two.id.slice(0, -1)}${two.id.endsWith('x') ? 'y' : 'x'}`;
    cpSync(join(root, two.id), join(root, copy), { recursive: true });
    writeFileSync(join(root, one.id, 'stray.txt'), 'not memdir');
    mkdirSync(join(root, 'foreign'));
    writeFileSync(join(root, 'foreign', 'notes.txt'), 'not memdir');
    mkdirSync(join(root, 'emptydir'));
    // b has opened none of them: it sees them as they are on disk now.
    const listed = await at(b)('GET', '');
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.json().data.map((s) => s.id), [two.id]);
    for (const id of [one.id, copy, 'foreign', 'emptydir']) {
      const r = await at(b)('GET', `/${id}`);
      assert.deepEqual([r.status, r.body], [500, INTERNAL], id);
    }
    const log = b.stderr();
    for (const [id, why] of [
      [one.id, 'its directory is not a store directory memdir can open'],
      [copy, `its directory holds the record of another store, "${two.id}" (a copy?)`],
      ['foreign', 'its directory is not a store directory memdir can open'],
      ['emptydir', 'its directory holds no store record'],
    ]) {
      assert.ok(log.includes(`memdir serve: memory store ${id} left out: ${why}`), `${id} reported:\n${log}`);
    }
    assert.ok(!listed.body.includes(root));
    // a, which made `one`, still serves it from the store it holds open.
    assert.deepEqual((await ids(a)).sort(), [one.id, two.id].sort());
  });
});

describe('memdir serve on SIGTERM', () => {
  test('a write under way is finished and answered, no new connection is taken, and the process exits 0', async () => {
    const root = join(tempDir('memdir-sigterm-'), 'stores');
    const server = await startServe(['--store', root, '--no-auth']);
    const host = new URL(server.url).host;
    const port = Number(new URL(server.url).port);
    const made = JSON.parse((await raw(server.url, http11('POST', '/v1/memory_stores', { host, 'content-type': 'application/json' }, '{"name":"s"}'))).body);
    // An idle keep-alive connection, and a write whose body is half sent.
    const idle = connect(port, '127.0.0.1');
    const idleClosed = new Promise((r) => idle.once('close', r));
    idle.on('error', () => {});
    const body = JSON.stringify({ path: '/last.md', content: 'written while stopping' });
    const half = Math.floor(body.length / 2);
    const writer = connect(port, '127.0.0.1');
    let got = '';
    writer.setEncoding('utf8').on('data', (d) => (got += d));
    const writerClosed = new Promise((r) => writer.once('close', r));
    await new Promise((r) => writer.once('connect', r));
    writer.write(http11('POST', `/v1/memory_stores/${made.id}/memories`, { host, 'content-type': 'application/json' }, body).slice(0, -(body.length - half)));
    await new Promise((r) => setTimeout(r, 300));
    const exited = server.stop();
    await idleClosed;
    const refused = await new Promise((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve('connected');
      });
      s.once('error', (e) => resolve(e.code));
    });
    assert.equal(refused, 'ECONNREFUSED');
    assert.equal(got, '', 'no answer before the body is whole');
    writer.write(body.slice(half));
    await writerClosed;
    const [head, answer] = got.split('\r\n\r\n');
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(head, /\r\nconnection: close\r\n/i);
    assert.equal(JSON.parse(answer).path, '/last.md');
    assert.deepEqual(await exited, { code: 0, signal: null }, server.stderr());
    // It is in the store: another server reads it back.
    const again = await startServe(['--store', root, '--no-auth']);
    try {
      const r = await raw(again.url, http11('GET', `/v1/memory_stores/${made.id}/memories/${JSON.parse(answer).id}?view=full`, { host: new URL(again.url).host }));
      assert.equal(JSON.parse(r.body).content, 'written while stopping');
    } finally {
      assert.deepEqual(await again.stop(), { code: 0, signal: null });
    }
  });
});

test('SIGTERM the moment the URL is printed stops memdir serve cleanly, not by the default action', async () => {
  const root = tempDir('memdir-sigterm-early-');
  const exits = [];
  for (let i = 0; i < 12; i++) {
    const s = await startServe(['--store', join(root, String(i)), '--no-auth']);
    exits.push(await s.stop());
  }
  assert.deepEqual(exits, Array(12).fill({ code: 0, signal: null }));
});
