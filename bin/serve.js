// memdir serve: the Memory Stores API (js/api/http.js, whose answers the edge
// worker serves too) on Node's http server (./serve-http.js), over a catalog of
// directory stores or a PostgreSQL database.
import { createServer, STATUS_CODES } from 'node:http';
import { isIP } from 'node:net';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DEFAULT_WORKSPACE, WORKSPACE_NAME, apiAnswerer, keyEntry, keysFrom, unparsable } from '../js/api/http.js';
import { WorkspaceNameClash, directoryCatalog } from '../js/api/catalog-dir.js';
import { postgresCatalog } from '../js/api/catalog-pg.js';
import { everyInterval, upkeepRound } from '../js/api/upkeep.js';
import { isSealRefusal, storeSealer } from '../js/api/seal-stores.js';
import { defaults, inMemoryStore, openMemory } from '../js/node.js';
import { nodeRequest, send } from './serve-http.js';

// On SIGTERM, requests under way get closeGraceMs to finish (a write its answer);
// then their connections are cut, and the stores are closed once their handlers end.
// It is the engine's (src/config.rs), as every limit is.
const { closeGraceMs: CLOSE_GRACE_MS } = defaults();

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
 * What answers `/mcp`: a stateless MCP server (the one `memdir mcp` runs) over the
 * chosen store, on the MCP SDK's web-standard Streamable HTTP transport, JSON
 * answers, one server per request. Without the SDK (an optional peer dependency,
 * found as `memdir mcp` finds it: ./mcp-sdk.js) there is no /mcp route, said once
 * on stderr.
 */
async function mcpAnswerer(log) {
  const { SDK_INSTALL, SdkMissing, importSdk } = await import('./mcp-sdk.js');
  let mcp;
  let Transport;
  try {
    [mcp, [{ WebStandardStreamableHTTPServerTransport: Transport }]] = await Promise.all([
      import('./mcp.js'),
      importSdk('server/webStandardStreamableHttp.js'),
    ]);
  } catch (e) {
    log(e instanceof SdkMissing ? `no /mcp route: the MCP SDK is not installed (${SDK_INSTALL})` : `no /mcp route: the MCP SDK failed to load: ${e?.message ?? e}`);
    return undefined;
  }
  const { version } = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
  return async (memory, request, actor, tools) => {
    const server = mcp.createMcpServer(memory, { version, actor, tools });
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
 * Makes sure `root` is a directory the catalog can keep its stores in (made, mode
 * 0700, when missing), or says why not: a file there would otherwise start a server
 * whose every request fails. Only the path as given is named.
 */
function catalogRoot(root) {
  const named = `--store ${JSON.stringify(root)}`;
  let st;
  try {
    st = statSync(root);
  } catch (e) {
    if (e?.code !== 'ENOENT') throw new ServeUsageError(`${named}: cannot be read (${e?.code ?? 'error'})`);
  }
  if (st !== undefined && !st.isDirectory()) {
    throw new ServeUsageError(`${named} is not a directory: serve keeps its stores in a directory (made when missing) or a postgres:// database`);
  }
  try {
    mkdirSync(root, { recursive: true, mode: 0o700 });
    readdirSync(root);
  } catch (e) {
    throw new ServeUsageError(`${named}: cannot keep stores there (${e?.code ?? 'error'})`);
  }
}

/**
 * Starts the server; resolves {url, close}. opts: {store, host, port, keys, noAuth,
 * allowOrigins (pages that may call with a key: CORS), retentionMs (null: keep every version; default defaults().retentionMs), upkeepMs
 * (how often every store gets its retention pass and gc; default
 * defaults().upkeepIntervalMs), encryption (the master key every store is sealed
 * under, `{key, keyId?}` as readKeyFile gives it; undefined: plaintext), embedder
 * (every store's, docs/semantic.md: its searches take mode semantic and hybrid;
 * undefined: lexical only)}.
 */
export async function serve({ store, host, port, keys, noAuth, allowOrigins = [], retentionMs = defaults().retentionMs, upkeepMs = defaults().upkeepIntervalMs, encryption, embedder }) {
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
  if (embedder !== undefined) {
    // Checked once, as openMemory checks it, before any store opens with it: an
    // object that is not an embedder is a usage error at start, not a 500 on every
    // request.
    try {
      await openMemory({ store: inMemoryStore(), embedder });
    } catch (e) {
      if (e instanceof TypeError) throw new ServeUsageError(`--embedder: ${e.message.replace(/^openMemory: /, '')}`);
      throw e;
    }
  }
  const postgres = /^postgres(ql)?:\/\//.test(store);
  if (!postgres) catalogRoot(store);
  const catalog = postgres ? postgresCatalog(store, { encryption, embedder }) : directoryCatalog(store, { encryption, embedder });
  const workspaces = [...new Set(keys.map((k) => k.workspace ?? DEFAULT_WORKSPACE))].filter((w) => w !== DEFAULT_WORKSPACE);
  let catalogs;
  try {
    // The key is tried on a store already there before anything is written: a
    // wrong master key, or a plaintext catalog served with one (or the reverse),
    // is an error at start in the engine's words (no key, no path), not a 500 on
    // every request. A PostgreSQL catalog connects and brings its tables up to
    // date first: `pg` missing, a database it cannot reach or a table it cannot
    // use is a startup error in those words too.
    await catalog.check();
    // An encrypted catalog finds each workspace's label (js/api/seal-stores.js).
    await catalog.ready(workspaces);
    // Every workspace a key can reach, its catalog made now: one the catalog refuses
    // (two names a case-insensitive file system would make one directory) is an
    // error at start, not a 500 on the first request.
    catalogs = [catalog, ...workspaces.map((w) => catalog.inWorkspace(w))];
  } catch (e) {
    await catalog.close();
    if (e instanceof WorkspaceNameClash) throw new ServeUsageError(e.message);
    if (isSealRefusal(e)) throw new ServeUsageError(`--store: ${e.message}`);
    throw e;
  }
  const log = (line) => process.stderr.write(`memdir serve: ${line.replace(/[\r\n]+/g, ' ')}\n`);
  let answer; // made once the port is known: without keys, the Host names it
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
    // Nothing a client sends may end the process: whatever fails on the way cuts
    // this connection alone.
    const done = Promise.resolve()
      .then(() => {
        const read = nodeRequest(req, origin);
        return read.answer ?? answer(read.request);
      })
      .then((answered) => send(res, req, answered, () => closing !== undefined))
      .catch(() => res.destroy());
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
    const { status, headers, text } = unparsable(err?.code === 'HPE_HEADER_OVERFLOW');
    const head = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
    head.push(`content-length: ${Buffer.byteLength(text)}`, 'connection: close');
    socket.end(`${head.join('\r\n')}\r\n\r\n${text}`);
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
    answer = apiAnswerer({ catalog, keys, noAuth, hosts: noAuth ? hosts : undefined, allowOrigins, log, mcp: await mcpAnswerer(log) });
  } catch (e) {
    server.close();
    if (e instanceof TypeError && e.message.startsWith('apiHandler: allowOrigins')) {
      throw new ServeUsageError(e.message.replace('apiHandler: allowOrigins', '--allow-origin'));
    }
    throw e;
  }
  // Every workspace a key can reach has its stores kept up; gc waits a whole
  // interval before deleting, so instances on one database never race a write.
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

/**
 * `memdir serve-rekey`: the master key of the stores under `store` (a directory or
 * a postgres:// URL) rotated from `encryption` to `next` (each `{key, keyId?}`):
 * each store's data key, and the workspace labels store's, re-wrapped under the new
 * key, one store at a time; no data is rewritten. Resumable: a store a run before
 * this one re-wrapped already opens under the new key and is counted `already`, so
 * a run cut short is finished by running it again. Resolves `{rewrapped, already}`;
 * a store neither key opens stops it with a ServeUsageError naming the store by id
 * and the engine's refusal (no key, no path).
 */
export async function rewrapStores({ store, encryption, next }) {
  const postgres = /^postgres(ql)?:\/\//.test(store);
  if (!postgres) {
    let st;
    try {
      st = statSync(store);
    } catch {
      // said below
    }
    if (!st?.isDirectory()) throw new ServeUsageError(`--store ${JSON.stringify(store)} is not a directory of memdir serve's stores`);
  }
  const catalog = postgres ? postgresCatalog(store, { encryption }) : directoryCatalog(store, { encryption });
  const to = storeSealer(next);
  if (to.keyId === catalog.sealer.keyId) {
    await catalog.close();
    throw new ServeUsageError('the new key is the key the stores are encrypted with');
  }
  const done = { rewrapped: 0, already: 0 };
  try {
    for await (const { id, handle, inTurn = (fn) => fn() } of catalog.everyStore()) {
      let outcome;
      try {
        outcome = await inTurn(() => catalog.sealer.rewrap(handle, to));
      } catch (e) {
        if (isSealRefusal(e)) throw new ServeUsageError(`store ${id}: ${e.message}`);
        throw e;
      }
      done[outcome === 'already' ? 'already' : 'rewrapped'] += 1;
    }
  } finally {
    await catalog.close();
  }
  return done;
}
