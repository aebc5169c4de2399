// How `memdir serve` reads Node's requests for the API's answerer (bin/serve-http.js),
// on a real node:http server and raw sockets: headers as fetch reads them, a body read
// only when asked for, and a client that goes before its body is read.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { nodeRequest } from '../../bin/serve-http.js';

describe('memdir serve reads a Node request', () => {
  let server;
  let port;
  let next;
  // Each test takes the next request the server gets, unanswered.
  const nextRequest = () => new Promise((resolve) => (next = resolve));
  before(async () => {
    server = createServer((req, res) => next({ req, res }));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = server.address().port;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const send = (text) => {
    const socket = connect(port, '127.0.0.1');
    socket.write(text);
    return socket;
  };

  async function readAll(body) {
    const reader = body.getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += Buffer.from(value).toString();
    }
  }

  test('headers read as fetch reads them: any case, a repeated one joined, pairs when iterated', async () => {
    const got = nextRequest();
    const socket = send('GET /v1/memory_stores?limit=2 HTTP/1.1\r\nHost: a.test\r\nX-Thing: one\r\nx-thing: two\r\n\r\n');
    const { req, res } = await got;
    const { request } = nodeRequest(req, 'http://127.0.0.1');
    assert.equal(request.method, 'GET');
    assert.equal(request.url, 'http://127.0.0.1/v1/memory_stores?limit=2');
    assert.equal(request.headers.get('X-THING'), 'one, two');
    assert.equal(request.headers.has('x-thing'), true);
    assert.equal(request.headers.get('x-other'), null);
    assert.deepEqual([...request.headers], [['host', 'a.test'], ['x-thing', 'one, two']]);
    assert.equal(request.body, null);
    res.end();
    socket.destroy();
  });

  test('a body sent in pieces is read whole, in order, as the reader asks', async () => {
    const got = nextRequest();
    const body = '{"path":"/a.md","content":"in three pieces"}';
    const socket = send(`POST /x HTTP/1.1\r\nHost: a.test\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 7)}`);
    const { req, res } = await got;
    const { request } = nodeRequest(req, 'http://127.0.0.1');
    setTimeout(() => socket.write(body.slice(7, 20)), 50);
    setTimeout(() => socket.write(body.slice(20)), 100);
    assert.equal(await readAll(request.body), body);
    res.end();
    socket.destroy();
  });

  test('a client gone before its body was asked for fails the read at once', async () => {
    const got = nextRequest();
    const socket = send('POST /x HTTP/1.1\r\nHost: a.test\r\ncontent-length: 1000\r\n\r\n{"path"');
    const { req } = await got;
    const closed = new Promise((resolve) => req.once('close', resolve));
    socket.destroy();
    await closed;
    const { request } = nodeRequest(req, 'http://127.0.0.1');
    const late = new Promise((_, reject) => setTimeout(() => reject(new Error('the read still waits')), 2000).unref());
    await assert.rejects(Promise.race([readAll(request.body), late]), { message: 'the request ended before its body did' });
  });

  test('a client gone while its body is read fails the read', async () => {
    const got = nextRequest();
    const socket = send('POST /x HTTP/1.1\r\nHost: a.test\r\ncontent-length: 1000\r\n\r\n{"path"');
    const { req } = await got;
    const { request } = nodeRequest(req, 'http://127.0.0.1');
    setTimeout(() => socket.destroy(), 50);
    await assert.rejects(readAll(request.body));
  });

  test('TRACE, which no fetch Request carries, is answered at once', async () => {
    // (TRACK and CONNECT never reach a request handler: Node's parser takes them.)
    const got = nextRequest();
    const socket = send('TRACE / HTTP/1.1\r\nHost: a.test\r\n\r\n');
    const { req, res } = await got;
    const { request, answer } = nodeRequest(req, 'http://127.0.0.1');
    assert.equal(request, undefined);
    assert.equal(answer.status, 405);
    assert.equal(answer.text, JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'TRACE is not a method this API serves.' } }));
    // Every method a route takes, the list the preflight allows (js/api/http.js, METHODS).
    assert.equal(answer.headers.allow, 'GET, POST, PATCH, DELETE');
    res.end();
    socket.destroy();
  });
});
