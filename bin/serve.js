// memdir serve: the Memory Stores API (js/api/http.js, the fetch handler the edge
// worker serves too) on Node's http server, over a catalog of directory stores.
import { createServer } from 'node:http';
import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import { apiHandler, keysFrom, unservable } from '../js/api/http.js';
import { directoryCatalog } from '../js/api/catalog-dir.js';
import { postgresCatalog } from '../js/api/catalog-pg.js';

const CLOSE_GRACE_MS = 10_000;
// A body the handler refused part-way is read on and thrown away, so the client
// gets its 413 rather than a broken pipe; past this many bytes the connection is cut.
const DRAIN_LIMIT = 64 * 1024 * 1024;

export class ServeUsageError extends Error {}

/** True for a host that only this machine can reach. */
export function isLoopback(host) {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * The API keys: MEMDIR_API_KEYS (comma separated) and the lines of `keysFile`.
 * Blank entries are skipped; surrounding spaces are not part of a key.
 */
export async function readKeys(env, keysFile) {
  const keys = keysFrom(env.MEMDIR_API_KEYS);
  if (keysFile !== undefined) {
    let text;
    try {
      text = await readFile(keysFile, 'utf8');
    } catch (e) {
      throw new ServeUsageError(`--keys ${keysFile}: cannot read it (${e.code ?? 'error'})`);
    }
    keys.push(...text.split(/\r?\n/).map((k) => k.trim()).filter(Boolean));
  }
  return [...new Set(keys)];
}

/**
 * The request's body as a web stream, read as the handler reads it. Cancelled (the
 * handler refused it), the rest is drained unheld up to DRAIN_LIMIT bytes.
 */
function bodyStream(req) {
  let open = true;
  const settle = (f) => {
    if (!open) return;
    open = false;
    f();
  };
  return new ReadableStream(
    {
      start(controller) {
        req.on('data', (chunk) => {
          if (!open) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if (controller.desiredSize <= 0) req.pause();
        });
        req.once('end', () => settle(() => controller.close()));
        req.once('error', (e) => settle(() => controller.error(e)));
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        open = false;
        drain(req);
      },
    },
    { highWaterMark: 64 * 1024, size: (chunk) => chunk.byteLength },
  );
}

/** Reads the rest of a request body and throws it away, up to DRAIN_LIMIT bytes. */
function drain(req) {
  if (req.complete || req.destroyed) return;
  req.removeAllListeners('data');
  let drained = 0;
  req.on('data', (chunk) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_LIMIT) req.destroy();
  });
  req.resume();
}

/** A Node request as a fetch Request; its body streams, unread until the handler reads it. */
function toRequest(req, origin) {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
    } catch {
      // a header fetch cannot carry (Node accepted it): dropped
    }
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  let url;
  try {
    url = new URL(req.url ?? '/', origin);
  } catch {
    url = new URL('/', origin);
  }
  return new Request(url, {
    method,
    headers,
    body: hasBody ? bodyStream(req) : undefined,
    duplex: 'half',
  });
}

async function send(res, req, response) {
  const body = Buffer.from(await response.arrayBuffer());
  const headers = Object.fromEntries(response.headers);
  headers['content-length'] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(body);
  // A body the handler never read (refused by its declared length) is drained too.
  drain(req);
}

/**
 * Starts the server; resolves {url, close}. opts: {store, host, port, keys, noAuth}.
 */
export async function serve({ store, host, port, keys, noAuth }) {
  if (noAuth && !isLoopback(host)) {
    throw new ServeUsageError(`--no-auth serves without keys, so only on loopback; ${host} is not (use 127.0.0.1 or ::1)`);
  }
  if (!noAuth && keys.length === 0) {
    throw new ServeUsageError('no API key: set MEMDIR_API_KEYS (comma separated) or pass --keys FILE (one key a line); --no-auth serves loopback without keys');
  }
  // A postgres:// URL: the catalog and every store in that database, shared by any
  // number of instances; anything else: a directory of store directories.
  const catalog = /^postgres(ql)?:\/\//.test(store) ? postgresCatalog(store) : directoryCatalog(store);
  const handle = apiHandler({ catalog, keys, noAuth });
  const origin = `http://${host.includes(':') ? `[${host}]` : host}`;
  const server = createServer((req, res) => {
    // Nothing a client sends may end the process: a request fetch cannot carry
    // (TRACE makes `new Request` throw) is answered here, in the API's words.
    let answer;
    try {
      answer = handle(toRequest(req, origin));
    } catch {
      answer = Promise.resolve(unservable(req.method));
    }
    answer.then((response) => send(res, req, response)).catch(() => res.destroy());
  });
  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const addr = server.address();
  const url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
  let closing;
  const close = () => {
    closing ??= (async () => {
      await new Promise((r) => {
        server.close(() => r());
        server.closeIdleConnections();
        // Requests under way get a while to finish; then their connections go too.
        setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS).unref();
      });
      await catalog.close();
    })();
    return closing;
  };
  return { url, close, server };
}
