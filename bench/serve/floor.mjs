#!/usr/bin/env node
// The floor of `npm run bench:serve`: the least a durable server must do to answer
// the bench's calls, so memdir serve's figures have a peer measured on the same
// machine in the same run. A bare node:http server, one process, one JSON file per
// memory (its record, content and versions), every write made durable before it
// is answered: a temporary file written and fsynced, renamed over the memory's
// file, then the directory fsynced. Reads read the file (the page cache, as any
// file-backed server would), except a list, which an in-memory index of paths
// answers, as a single process may keep one.
//
// Only what the bench checks is implemented, in the API's wire shape (the fields
// memdir serve answers, so both send bodies of the same size): creating a store,
// and a memory's create, retrieve, update with a content_sha256 precondition,
// delete, list by path prefix and its versions' list. No path conflicts, no
// pages past the first (the bench's lists fit in one), no history after a delete,
// no lock per memory: the bench never sends two writes for one memory at once.
//   node bench/serve/floor.mjs --dir DIR [--host 127.0.0.1] [--port 0]
//   keys: MEMDIR_API_KEYS (comma separated), sent as x-api-key or Authorization: Bearer
import { createServer } from 'node:http';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROOT = arg('dir');
const HOST = arg('host', '127.0.0.1');
const PORT = Number(arg('port', 0));
if (!ROOT) {
  console.error('usage: floor.mjs --dir DIR [--host H] [--port N]');
  process.exit(2);
}
// memdir serve's cap on a body (MAX_API_BODY_BYTES); and a memory's file keeps only
// its newest versions (a list answers at most 100), so no file grows with its history.
const MAX_BODY = 1 << 20;
const KEPT_VERSIONS = 100;

const digest = (text) => createHash('sha256').update(text).digest();
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const keys = (process.env.MEMDIR_API_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean).map(digest);
if (keys.length === 0) {
  console.error('floor.mjs: no key (MEMDIR_API_KEYS)');
  process.exit(2);
}

class HttpError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

// ---- durable files ----------------------------------------------------------------

let tmpSeq = 0;

async function syncDir(dir) {
  const fh = await open(dir, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** `name` in `dir` holds `text`, durably, or is as it was: temp file, fsync, rename, fsync dir. */
async function writeDurably(dir, name, text) {
  const tmp = join(dir, `.tmp-${process.pid}-${++tmpSeq}`);
  const fh = await open(tmp, 'wx', 0o600);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, join(dir, name));
  await syncDir(dir);
}

async function removeDurably(dir, name) {
  await unlink(join(dir, name));
  await syncDir(dir);
}

// ---- stores -----------------------------------------------------------------------

/** id -> {id, tag, dir, record, seq (last number used), index: mem id -> memory record} */
const stores = new Map();
const now = () => new Date().toISOString();

async function createStore(body) {
  if (typeof body?.name !== 'string' || body.name === '') throw new HttpError(400, 'invalid_request_error', 'name: required');
  const tag = randomBytes(6).toString('hex');
  const id = `memstore_${tag}`;
  const dir = join(ROOT, id);
  await mkdir(dir, { mode: 0o700 });
  const at = now();
  const record = { archived_at: null, created_at: at, description: '', id, metadata: {}, name: body.name, type: 'memory_store', updated_at: at };
  await writeDurably(dir, 'store.json', JSON.stringify(record));
  await syncDir(ROOT);
  stores.set(id, { id, tag, dir, record, seq: 0, index: new Map() });
  return record;
}

const basic = (memory) => ({ ...memory, content: null });
const fileOf = (id) => `${id}.json`;

function memoryOf(store, id) {
  const memory = store.index.get(id);
  if (!memory) throw new HttpError(404, 'not_found_error', 'No memory with this id.');
  return memory;
}

async function readMemoryFile(store, id) {
  return JSON.parse(await readFile(join(store.dir, fileOf(id)), 'utf8'));
}

function version(store, memory, operation, at) {
  return {
    content: null,
    content_sha256: memory.content_sha256,
    content_size_bytes: memory.content_size_bytes,
    created_at: at,
    created_by: { type: 'api_actor', api_key_id: 'apikey_floor' },
    id: memory.memory_version_id,
    memory_id: memory.id,
    memory_store_id: store.id,
    operation,
    path: memory.path,
    redacted_at: null,
    redacted_by: null,
    type: 'memory_version',
  };
}

async function createMemory(store, body) {
  if (typeof body?.path !== 'string' || !body.path.startsWith('/') || typeof body.content !== 'string') {
    throw new HttpError(400, 'invalid_request_error', 'path and content: required');
  }
  const n = ++store.seq;
  const at = now();
  const memory = {
    content: null,
    content_sha256: sha256(body.content),
    content_size_bytes: Buffer.byteLength(body.content),
    created_at: at,
    id: `mem_${store.tag}_${n}`,
    memory_store_id: store.id,
    memory_version_id: `memver_${store.tag}_${n}`,
    path: body.path,
    type: 'memory',
    updated_at: at,
  };
  const file = { memory, content: body.content, versions: [version(store, memory, 'created', at)] };
  await writeDurably(store.dir, fileOf(memory.id), JSON.stringify(file));
  store.index.set(memory.id, memory);
  return memory;
}

async function updateMemory(store, id, body) {
  const current = memoryOf(store, id);
  if (typeof body?.content !== 'string') throw new HttpError(400, 'invalid_request_error', 'content: required');
  const want = body.precondition?.type === 'content_sha256' ? body.precondition.content_sha256 : undefined;
  if (want !== undefined && want !== current.content_sha256) {
    throw new HttpError(409, 'memory_precondition_failed_error', 'The memory content_sha256 precondition does not hold.');
  }
  const file = await readMemoryFile(store, id);
  const at = now();
  const memory = {
    ...current,
    content_sha256: sha256(body.content),
    content_size_bytes: Buffer.byteLength(body.content),
    memory_version_id: `memver_${store.tag}_${++store.seq}`,
    updated_at: at,
  };
  const versions = [version(store, memory, 'modified', at), ...file.versions].slice(0, KEPT_VERSIONS);
  await writeDurably(store.dir, fileOf(id), JSON.stringify({ memory, content: body.content, versions }));
  store.index.set(id, memory);
  return memory;
}

async function deleteMemory(store, id) {
  memoryOf(store, id);
  await removeDurably(store.dir, fileOf(id));
  store.index.delete(id);
  return { id, type: 'memory_deleted' };
}

async function retrieveMemory(store, id) {
  memoryOf(store, id);
  const file = await readMemoryFile(store, id);
  return { ...file.memory, content: file.content };
}

const limitOf = (query) => Math.min(Math.max(Number(query.get('limit') ?? 20) || 20, 1), 100);

function listMemories(store, query) {
  const prefix = query.get('path_prefix') ?? '/';
  const all = [...store.index.values()].filter((m) => m.path.startsWith(prefix)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const limit = limitOf(query);
  return { data: all.slice(0, limit).map(basic), next_page: all.length > limit ? 'floor-has-no-pages' : null };
}

async function listVersions(store, query) {
  const id = query.get('memory_id');
  if (id === null) throw new HttpError(400, 'invalid_request_error', 'memory_id: the floor lists one memory\'s versions');
  memoryOf(store, id);
  const { versions } = await readMemoryFile(store, id);
  const limit = limitOf(query);
  return { data: versions.slice(0, limit), next_page: versions.length > limit ? 'floor-has-no-pages' : null };
}

// ---- HTTP -------------------------------------------------------------------------

function authorized(req) {
  const bearer = /^Bearer +(\S+)$/i.exec(req.headers.authorization ?? '');
  const key = req.headers['x-api-key'] || bearer?.[1];
  if (!key) return false;
  const d = digest(key);
  return keys.some((k) => timingSafeEqual(k, d));
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(new HttpError(413, 'request_too_large', 'The request body is too large.'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => {
      if (size === 0) return resolve(undefined);
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new HttpError(400, 'invalid_request_error', 'The body is not JSON.'));
      }
    });
    req.on('error', reject);
  });
}

async function route(req) {
  if (!authorized(req)) throw new HttpError(401, 'authentication_error', 'Invalid API key.');
  const url = new URL(req.url, 'http://floor');
  const parts = url.pathname.split('/').slice(1).map(decodeURIComponent);
  if (parts[0] !== 'v1' || parts[1] !== 'memory_stores') throw new HttpError(404, 'not_found_error', 'No such route.');
  const [, , storeId, collection, id, extra] = parts;
  const method = req.method;
  const body = method === 'POST' || method === 'PATCH' ? await readJson(req) : undefined;
  if (storeId === undefined && method === 'POST') return createStore(body);
  const store = stores.get(storeId);
  if (!store) throw new HttpError(404, 'not_found_error', 'No memory store with this id.');
  if (collection === 'memories' && extra === undefined) {
    if (id === undefined && method === 'POST') return createMemory(store, body);
    if (id === undefined && method === 'GET') return listMemories(store, url.searchParams);
    if (id !== undefined && method === 'GET') return retrieveMemory(store, id);
    if (id !== undefined && (method === 'POST' || method === 'PATCH')) return updateMemory(store, id, body);
    if (id !== undefined && method === 'DELETE') return deleteMemory(store, id);
  }
  if (collection === 'memory_versions' && id === undefined && method === 'GET') return listVersions(store, url.searchParams);
  throw new HttpError(404, 'not_found_error', 'No such route in the floor.');
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': `req_${randomBytes(12).toString('hex')}`,
  });
  res.end(text);
}

const server = createServer((req, res) => {
  route(req).then(
    (body) => send(res, 200, body),
    (e) => {
      if (e instanceof HttpError) send(res, e.status, { type: 'error', error: { type: e.type, message: e.message } });
      else {
        console.error(`floor: ${req.method} ${req.url}: ${e?.stack ?? e}`);
        send(res, 500, { type: 'error', error: { type: 'api_error', message: 'Internal server error.' } });
      }
    },
  );
});

await mkdir(ROOT, { recursive: true, mode: 0o700 });
server.listen(PORT, HOST, () => {
  const { address, port } = server.address();
  // The first line is the URL, as memdir serve prints it (tests/node/child-server.mjs).
  console.log(`http://${address.includes(':') ? `[${address}]` : address}:${port}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // A request still under way after this is cut: the bench stops it only when idle.
  setTimeout(() => process.exit(0), 2000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
