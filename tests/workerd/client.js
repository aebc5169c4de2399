// Talking to the service in miniflare: tokens, tool calls, test routes, and the
// conformance data's trees as engine entries.

import http from 'node:http';
import { mintToken } from '../../examples/worker/src/auth.js';
import { after } from 'node:test';
import { AUTH_SECRET, start } from './mf.js';

/**
 * One HTTP request on a fresh loopback connection, answered as a fetch-like
 * response. Not `fetch`: undici reuses a keep-alive connection that workerd resets
 * after a request of ten seconds or more (the KV contract run), and a new
 * connection per request is cheaper on loopback anyway (1.3 ms against 2.4 ms).
 */
export function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(parts).toString('utf8');
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) h.set(k, Array.isArray(v) ? v.join(', ') : v);
        resolve({ status: res.statusCode, headers: h, text: async () => text, json: async () => JSON.parse(text) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Requests go over loopback HTTP to the URL miniflare serves (`mf.ready`). */
export function client(mf) {
  const ready = mf.ready;
  const fetchAt = async (path, init) => request(new URL(path, await ready), init);
  const tokens = new Map();
  const token = async (user) => {
    if (!tokens.has(user)) tokens.set(user, await mintToken(AUTH_SECRET, user));
    return tokens.get(user);
  };
  const test = async (route, args) => {
    const r = await fetchAt(`/__test/${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    if (r.status !== 200) throw new Error(`/__test/${route}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  return {
    token,
    /** POST /memory as `user`; `body` is sent as is when a string, else as JSON. */
    async call(user, body, headers = {}) {
      const r = await fetchAt('/memory', {
        method: 'POST',
        headers: { authorization: `Bearer ${await token(user)}`, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      return { status: r.status, headers: r.headers, body: await r.json() };
    },
    raw: fetchAt,
    setup: (user, entries, limits, interleave) => test('setup', { user, entries, limits, interleave }),
    state: (user) => test('state', { user }),
    test,
  };
}

/** A conformance file value: a string or `{repeat, times}`. */
export function fileText(v) {
  return typeof v === 'string' ? v : v.repeat.repeat(v.times);
}

/**
 * The engine's `entries()` for a conformance tree `{files, dirs}`: every directory
 * (no content) and file, sorted by path, the root excluded.
 */
export function entriesOf(tree = {}) {
  const out = new Map();
  const addDirs = (path) => {
    const names = path.split('/').slice(2);
    for (let i = 1; i <= names.length; i++) {
      const dir = `/memories/${names.slice(0, i).join('/')}`;
      if (!out.has(dir)) out.set(dir, { path: dir });
    }
  };
  for (const [path, v] of Object.entries(tree.files ?? {})) {
    addDirs(path.slice(0, path.lastIndexOf('/')));
    out.set(path, { path, content: fileText(v) });
  }
  for (const dir of tree.dirs ?? []) addDirs(dir);
  out.delete('/memories');
  return sorted([...out.values()]);
}

/** Entries in byte order of their paths, to compare trees whatever order they came in. */
export function sorted(entries) {
  return [...entries].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
}

/** Entries as plain `{path, content?}` objects, whatever shape the engine returned. */
export function plain(entries) {
  return sorted(entries).map((e) => (e.content === undefined || e.content === null ? { path: e.path } : { path: e.path, content: e.content }));
}

/**
 * The example service in miniflare for one test file: started now, disposed after
 * the file's tests. `c` is its client (each call waits for it to be ready).
 */
export function useService(options) {
  const mf = start(options);
  after(() => mf.dispose());
  return { mf, c: client(mf) };
}
