// memdir serve: the Memory Stores API (js/api/http.js, the fetch handler the edge
// worker serves too) on Node's http server, over a catalog of directory stores.
import { createServer, STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { readFile } from 'node:fs/promises';
import { DEFAULT_WORKSPACE, WORKSPACE_NAME, apiHandler, keyEntry, keysFrom, unparsable, unservable } from '../js/api/http.js';
import { directoryCatalog } from '../js/api/catalog-dir.js';
import { postgresCatalog } from '../js/api/catalog-pg.js';
import { everyInterval, upkeepRound } from '../js/api/upkeep.js';
import { defaults } from '../js/node.js';

// On SIGTERM, requests under way get closeGraceMs to finish (a write its answer);
// then their connections are cut, and the stores are closed once their handlers end.
// A body the handler refused part-way (or never read) is read on and thrown away
// before the answer goes, so the client gets its 413 (or 403...) rather than a broken
// pipe; past drainMaxBytes, or drainWaitMs, the answer goes and the connection is cut.
// The three are the engine's (src/config.rs), as every limit is.
const { closeGraceMs: CLOSE_GRACE_MS, drainMaxBytes: DRAIN_MAX_BYTES, drainWaitMs: DRAIN_WAIT_MS } = defaults();

export class ServeUsageError extends Error {}

/** True for a host that only this machine can reach. */
export function isLoopback(host) {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/**
 * The API keys as {key, workspace}: MEMDIR_API_KEYS (comma separated, `KEY` or
 * `KEY=WORKSPACE`) and the lines of `keysFile` (`KEY`, or `KEY WORKSPACE`). Blank
 * entries are skipped; surrounding spaces are not part of a key. A key listed twice
 * with two workspaces is refused: which one it acts in would be a guess.
 */
export async function readKeys(env, keysFile) {
  const keys = keysFrom(env.MEMDIR_API_KEYS).map(keyEntry);
  if (keysFile !== undefined) {
    let text;
    try {
      text = await readFile(keysFile, 'utf8');
    } catch (e) {
      throw new ServeUsageError(`--keys ${keysFile}: cannot read it (${e.code ?? 'error'})`);
    }
    for (const line of text.split(/\r?\n/)) {
      const [key, workspace = DEFAULT_WORKSPACE, extra] = line.trim().split(/\s+/);
      if (!key) continue;
      if (extra !== undefined || !WORKSPACE_NAME.test(workspace)) {
        throw new ServeUsageError(`--keys ${keysFile}: a line is a key, then optionally a workspace name (letters, digits, "_", "-")`);
      }
      keys.push({ key, workspace });
    }
  }
  const byKey = new Map();
  for (const k of keys) {
    if (byKey.has(k.key) && byKey.get(k.key).workspace !== k.workspace) {
      throw new ServeUsageError('an API key is given twice, with two workspaces');
    }
    byKey.set(k.key, k);
  }
  return [...byKey.values()];
}

/**
 * The request's body as a web stream, read as the handler reads it. Cancelled (the
 * handler refused it), the rest is drained unheld up to DRAIN_MAX_BYTES bytes.
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

const DRAINING = Symbol('draining');

/** Reads the rest of a request body and throws it away, up to DRAIN_MAX_BYTES bytes. */
function drain(req) {
  if (req.complete || req.destroyed || req[DRAINING]) return;
  req[DRAINING] = true;
  req.removeAllListeners('data');
  let drained = 0;
  req.on('data', (chunk) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_MAX_BYTES) req.destroy();
  });
  req.resume();
}

/**
 * Resolves once the body nobody read is drained (drain) to its end, or cut, or after
 * DRAIN_WAIT_MS; at once when it declares more than DRAIN_MAX_BYTES. An answer sent
 * first would close the connection with bytes still arriving, which resets it, and
 * a client still sending then sees that reset (EPIPE) instead of the answer: 9 of
 * 100 refused 4 MiB uploads here. A slow sender holds only its own answer.
 */
function drained(req) {
  if (req.complete || req.destroyed || Number(req.headers['content-length']) > DRAIN_MAX_BYTES) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const event of ['end', 'close', 'error']) req.off(event, done);
      resolve();
    };
    const timer = setTimeout(done, DRAIN_WAIT_MS);
    for (const event of ['end', 'close', 'error']) req.once(event, done);
    drain(req);
  });
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

async function send(res, req, response, closing) {
  const body = Buffer.from(await response.arrayBuffer());
  await drained(req);
  const headers = Object.fromEntries(response.headers);
  headers['content-length'] = String(body.byteLength);
  // Stopping: this connection takes no further request.
  if (closing()) headers.connection = 'close';
  res.writeHead(response.status, headers);
  res.end(body);
  // One declared over the limit, answered at once, is read on until the cut.
  drain(req);
}

/**
 * What answers `/mcp`: a stateless MCP server (the one `memdir mcp` runs) over the
 * chosen store, on the MCP SDK's web-standard Streamable HTTP transport, JSON
 * answers, one server per request. Without the SDK (an optional peer dependency)
 * there is no /mcp route, said once on stderr.
 */
async function mcpAnswerer(log) {
  let mcp;
  let Transport;
  try {
    [mcp, { WebStandardStreamableHTTPServerTransport: Transport }] = await Promise.all([
      import('./mcp.js'),
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
    ]);
  } catch {
    log('no /mcp route: the MCP SDK is not installed (npm install @modelcontextprotocol/sdk)');
    return undefined;
  }
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  return async (memory, request) => {
    const server = mcp.createMcpServer(memory, { version });
    const transport = new Transport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  };
}

/**
 * Starts the server; resolves {url, close}. opts: {store, host, port, keys, noAuth,
 * allowOrigins (pages that may call with a key: CORS), retentionMs (null: keep every version; default defaults().retentionMs), upkeepMs
 * (how often every store gets its retention pass and gc; default
 * defaults().upkeepIntervalMs)}.
 */
export async function serve({ store, host, port, keys, noAuth, allowOrigins = [], retentionMs = defaults().retentionMs, upkeepMs = defaults().upkeepIntervalMs }) {
  if (noAuth && !isLoopback(host)) {
    throw new ServeUsageError(`--no-auth serves without keys, so only on loopback; ${host} is not (use 127.0.0.1 or ::1)`);
  }
  if (noAuth && allowOrigins.length > 0) {
    throw new ServeUsageError('--allow-origin lets pages call with a key; --no-auth has none, and no page may reach it');
  }
  if (!noAuth && keys.length === 0) {
    throw new ServeUsageError('no API key: set MEMDIR_API_KEYS (comma separated) or pass --keys FILE (one key a line); --no-auth serves loopback without keys');
  }
  // A postgres:// URL: the catalog and every store in that database, shared by any
  // number of instances; anything else: a directory of store directories.
  const catalog = /^postgres(ql)?:\/\//.test(store) ? postgresCatalog(store) : directoryCatalog(store);
  const log = (line) => process.stderr.write(`memdir serve: ${line.replace(/[\r\n]+/g, ' ')}\n`);
  let handle; // made once the port is known: without keys, the Host names it
  const origin = `http://${host.includes(':') ? `[${host}]` : host}`;
  const inFlight = new Set();
  // Each connection with the number of its requests under way: stopping, those
  // with none are closed at once (one that never sent a request included).
  const sockets = new Map();
  let closing;
  const server = createServer((req, res) => {
    const socket = req.socket;
    sockets.set(socket, (sockets.get(socket) ?? 0) + 1);
    res.once('close', () => {
      if (sockets.has(socket)) sockets.set(socket, sockets.get(socket) - 1);
    });
    // Nothing a client sends may end the process: a request fetch cannot carry
    // (TRACE makes `new Request` throw) is answered here, in the API's words.
    let answer;
    try {
      answer = handle(toRequest(req, origin));
    } catch {
      answer = Promise.resolve(unservable(req.method));
    }
    const done = answer.then((response) => send(res, req, response, () => closing !== undefined)).catch(() => res.destroy());
    inFlight.add(done);
    done.finally(() => inFlight.delete(done));
  });
  // Bytes Node cannot parse as a request (a bad header, a body with no length on a
  // kept-alive connection) get the API's error object too, and the connection ends.
  server.on('clientError', (err, socket) => {
    if (err?.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const response = unparsable(err?.code === 'HPE_HEADER_OVERFLOW');
    response.text().then(
      (text) => {
        const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status]}`, ...[...response.headers].map(([k, v]) => `${k}: ${v}`)];
        head.push(`content-length: ${Buffer.byteLength(text)}`, 'connection: close');
        socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
      },
      () => socket.destroy(),
    );
  });
  server.on('connection', (socket) => {
    sockets.set(socket, 0);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolveListen();
    });
  });
  const addr = server.address();
  const bracket = (h) => (h.includes(':') ? `[${h}]` : h);
  const url = `http://${bracket(addr.address)}:${addr.port}`;
  // The names this server is reached by: as given, as bound, and localhost.
  const hosts = [...new Set([host, addr.address, 'localhost'])].flatMap((h) =>
    addr.port === 80 ? [`${bracket(h)}:80`, bracket(h)] : [`${bracket(h)}:${addr.port}`],
  );
  try {
    handle = apiHandler({ catalog, keys, noAuth, hosts: noAuth ? hosts : undefined, allowOrigins, log, mcp: await mcpAnswerer(log) });
  } catch (e) {
    server.close();
    if (e instanceof TypeError && e.message.startsWith('apiHandler: allowOrigins')) {
      throw new ServeUsageError(e.message.replace('apiHandler: allowOrigins', '--allow-origin'));
    }
    throw e;
  }
  // Every workspace a key can reach has its stores kept up; gc waits a whole
  // interval before deleting, so instances on one database never race a write.
  const workspaces = [...new Set(keys.map((k) => k.workspace ?? DEFAULT_WORKSPACE))].filter((w) => w !== DEFAULT_WORKSPACE);
  const catalogs = [catalog, ...workspaces.map((w) => catalog.inWorkspace(w))];
  const upkeep = everyInterval(async (stopped) => {
    const r = await upkeepRound(catalogs, { retentionMs, minAgeMs: upkeepMs, keepCommits: defaults().upkeepKeepCommits, log, stopped });
    if (r.dropped + r.deleted > 0) log(`upkeep: ${r.stores} stores, ${r.dropped} versions dropped, ${r.deleted} objects deleted`);
  }, upkeepMs);
  const close = () => {
    closing ??= (async () => {
      const upkeepStopped = upkeep.stop();
      const grace = () => new Promise((r) => setTimeout(r, CLOSE_GRACE_MS).unref());
      // No new connection; idle ones go now, busy ones once their answer is sent.
      const closed = new Promise((r) => server.close(() => r()));
      for (const [socket, requests] of sockets) if (requests === 0) socket.destroy();
      await Promise.race([closed, grace()]);
      server.closeAllConnections();
      // A handler may still be writing when its connection went: it ends first.
      await Promise.race([Promise.allSettled([...inFlight]), grace()]);
      await Promise.race([upkeepStopped, grace()]);
      await catalog.close();
    })();
    return closing;
  };
  return { url, close, server };
}
