// `memdir serve` against clients that do not play by the rules, on raw sockets: any
// method, target, header or body gets an answer in the API's error object and the
// process goes on serving; with --no-auth, requests that a web page could have made
// (another Host, another Origin, a body that is not JSON) are refused.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { join } from 'node:path';
import { startServe, tempDir } from './helpers.mjs';

const KEY = 'sk-hostile-test-key';

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
      [`GET /v1/memory_stores HTTP/1.1\r\n${host}\r\nx-api-key: ${KEY}\r\nx-odd: \x01\r\n\r\n`, 400, ''],
    ];
    for (const [request, status, body] of cases) {
      const r = await raw(keyed.url, request);
      assert.equal(r.status, status, request);
      if (body) assert.equal(r.body, body, request);
    }
  });
});
