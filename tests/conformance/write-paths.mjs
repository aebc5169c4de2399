// Every write path × access (read-only, archived, read-write): the one table each
// runtime with mounts runs over its own stores (Node: directories; Chromium:
// IndexedDB; workerd: a Durable Object's storage). Plain JS with no imports, so a
// page and a Worker can load it as they are; each runner supplies the stores and
// checks that the read-only store's raw bytes are what they were.
//
// A runner, for each face:
//   1. opens each of two fresh stores alone at SEED_CLOCK and calls seed(memory);
//   2. mounts them, `team` with the access under test and `me` read-write, at
//      OPEN_CLOCK, and runs face.run(memory, 'team', ids) with team read-only: the
//      answer is face.readOnly and team's stored bytes are unchanged;
//   3. when face.readWrite is not null, mounts both read-write and runs
//      face.run(memory, 'me', meIds): the answer is face.readWrite;
//   4. when face.archived is not null, mounts both read-write, archives `team`
//      (store.archive through the API) and runs face.run(memory, 'team', ids): the
//      answer is face.archived (an archived store's memories are read and deleted,
//      not created or changed, whichever face asks; the MCP server's memory tool is
//      the `create` and `rename` faces' execute, tested over /mcp in
//      tests/node/mcp-http.test.mjs). Every face names its archived answer.

export const SEED_CLOCK = 1_795_000_000_000;
export const OPEN_CLOCK = 1_900_000_000_000;
export const STORE_ID = 'memstore_abcdefghjkmn0123456789ab';

/**
 * One memory, created then updated through the API (so it has an old version to
 * redact), in a store named Team. Returns the ids the faces act on.
 */
export async function seed(memory) {
  const made = await memory.api({ op: 'store.create', id: STORE_ID, body: JSON.stringify({ name: 'Team' }) });
  if (made.status !== 200) throw new Error(`store.create answered ${made.status}: ${JSON.stringify(made.body)}`);
  const mem = await memory.api({ op: 'memory.create', body: JSON.stringify({ path: '/doc.md', content: 'old' }) });
  if (mem.status !== 200) throw new Error(`memory.create answered ${mem.status}: ${JSON.stringify(mem.body)}`);
  await memory.api({ op: 'memory.update', id: mem.body.id, body: JSON.stringify({ content: 'kept' }) });
  const versions = await memory.api({ op: 'version.list', query: { memory_id: mem.body.id } });
  return { mem: mem.body.id, ver: versions.body.data[1].id };
}

/** Archives `at`'s store through the API (step 4), throwing unless it answers 200. */
export async function archive(memory, at) {
  const r = await memory.api({ mount: at, op: 'store.archive' });
  if (r.status !== 200) throw new Error(`store.archive answered ${r.status}: ${JSON.stringify(r.body)}`);
}

const RO_API = { status: 403, type: 'permission_error', message: 'This memory store is mounted read-only; nothing was changed.' };
const ARCHIVED_API = { status: 400, type: 'invalid_request_error', message: 'This memory store is archived: its memories can be read and deleted, not created or changed.' };
const ARCHIVED_TOOL = 'the memory store mounted at /memories/team is archived; its memories can be viewed and deleted, not created or changed';

async function api(memory, request) {
  const r = await memory.api(request);
  return r.status === 200 ? 'ok' : { status: r.status, type: r.body.error.type, message: r.body.error.message };
}
const toolset = (memory, name, input) => memory.toolset(name, input).then(
  () => 'ok',
  (e) => `${e.kind}: ${e.message}`,
);
const records = (memory, name, input) => memory.records(name, input).then(
  () => 'ok',
  (e) => `${e.kind}: ${e.message}`,
);
async function tool(memory, input) {
  const r = await memory.execute(input);
  return r.is_error ? r.content : 'ok';
}

/**
 * face -> { run(memory, at, ids), readOnly: its answer on read-only `team`, readWrite:
 * on `me`, archived: on `team` archived (null: not a per-store write) }.
 */
export const FACES = {
  create: {
    run: (m, at) => tool(m, { command: 'create', path: `/memories/${at}/new.md`, file_text: 'x' }),
    readOnly: 'Error: Cannot create /memories/team/new.md: the memory store mounted at /memories/team is read-only',
    readWrite: 'ok',
    archived: `Error: Cannot create /memories/team/new.md: ${ARCHIVED_TOOL}`,
  },
  rename: {
    run: (m, at) => tool(m, { command: 'rename', old_path: `/memories/${at}/doc.md`, new_path: `/memories/${at}/moved.md` }),
    readOnly: 'Error: Cannot rename /memories/team/doc.md: the memory store mounted at /memories/team is read-only',
    readWrite: 'ok',
    archived: `Error: Cannot rename /memories/team/doc.md: ${ARCHIVED_TOOL}`,
  },
  memory_write: {
    run: (m, at) => toolset(m, 'memory_write', { path: `/${at}/w.md`, content: 'x' }),
    readOnly: 'read_only: Cannot write /team/w.md: the memory store at /team is read-only; nothing was written.',
    readWrite: 'ok',
    archived: 'archived: This memory store is archived: its documents can be listed, searched, read and deleted, not written or edited.',
  },
  'memory_write /': {
    run: (m) => toolset(m, 'memory_write', { path: '/', content: 'x' }),
    readOnly: 'read_only: Cannot write /: the memory store at /team is read-only; nothing was written.',
    readWrite: null,
    archived: null,
  },
  'memory.create': {
    run: (m, at) => api(m, { mount: at, op: 'memory.create', body: '{"path":"/api.md","content":"x"}' }),
    readOnly: RO_API,
    readWrite: 'ok',
    archived: ARCHIVED_API,
  },
  'memory.update': {
    run: (m, at, ids) => api(m, { mount: at, op: 'memory.update', id: ids.mem, body: '{"content":"changed"}' }),
    readOnly: RO_API,
    readWrite: 'ok',
    archived: ARCHIVED_API,
  },
  'memory.delete': {
    run: (m, at, ids) => api(m, { mount: at, op: 'memory.delete', id: ids.mem }),
    readOnly: RO_API,
    readWrite: 'ok',
    archived: 'ok',
  },
  'version.redact': {
    run: (m, at, ids) => api(m, { mount: at, op: 'version.redact', id: ids.ver, body: '{}' }),
    readOnly: RO_API,
    readWrite: 'ok',
    archived: 'ok',
  },
  'store.update': {
    run: (m, at) => api(m, { mount: at, op: 'store.update', body: '{"name":"x"}' }),
    readOnly: RO_API,
    readWrite: 'ok',
    archived: { status: 400, type: 'invalid_request_error', message: 'This memory store is archived and cannot be updated.' },
  },
  // Seed 002's records toolset (docs/records.md): a record is stored into the first
  // read-write store (`me` while `team` is read-only, so team's bytes stay as they
  // were), and a delete names its store in the id, refused on a read-only one.
  'records memory_store': {
    run: (m) => records(m, 'memory_store', { content: 'A record.', category: 'task_progress', importance: 2 }),
    readOnly: 'ok',
    readWrite: 'ok',
    archived: 'refused: This memory store is archived: its memories can be read and deleted, not created or changed.',
  },
  'records memory_delete': {
    run: (m, at, ids) => records(m, 'memory_delete', { memory_id: `${at}/${ids.mem}`, reason: 'gone' }),
    readOnly: 'read_only: Cannot delete a memory record: the memory store at /team is read-only; nothing was written.',
    readWrite: null,
    archived: null,
  },
  // gc, expire and retain run over every store of the memory: what they report is
  // the writable store's work alone (its one document expired, its old objects
  // swept, its old version dropped).
  gc: {
    run: (m) => m.gc({ keepCommits: 0 }).then(() => m.gc({ keepCommits: 0 })).then((r) => (r.deleted > 0 ? 'swept' : 'none')),
    readOnly: 'swept',
    readWrite: null,
    archived: null,
  },
  expire: {
    run: (m) => m.expire({ olderThanMs: 0 }).then((r) => `removed ${r.removed}`),
    readOnly: 'removed 1',
    readWrite: null,
    archived: null,
  },
  retain: {
    run: (m) => m.retain({ olderThanMs: 0 }).then((r) => `dropped ${r.dropped}`),
    readOnly: 'dropped 1',
    readWrite: null,
    archived: null,
  },
  // sync (docs/sync.md): the store at `at` synced, by its mount, with an empty
  // remote store that this file plays (remoteApi), in every runtime alike. The
  // answer is the summary line or the SyncError's text, with every request the
  // remote received: on the read-only store, none (nothing pushed out), and the
  // runner finds its bytes unchanged (no sync record written).
  sync: {
    run: async (m, at) => {
      const remote = remoteApi();
      const said = await m
        .sync({ baseURL: 'http://remote.test', apiKey: 'remote-key', storeId: REMOTE_STORE, fetch: remote.fetch, mount: at })
        .then((s) => s.text, (e) => `${e.name}: ${e.message}`);
      return { said, remoteReceived: remote.received };
    },
    readOnly: {
      said: 'SyncError: This memory store is mounted read-only, and a sync writes to both stores; nothing was synced.',
      remoteReceived: [],
    },
    readWrite: {
      said: 'pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0',
      remoteReceived: ['GET /v1/memory_stores/memstore_remote/memories', 'POST /v1/memory_stores/memstore_remote/memories'],
    },
    archived: {
      said: 'SyncError: This memory store is archived, and a sync writes to both stores; nothing was synced.',
      remoteReceived: [],
    },
  },
};

// The remote store's id (read when a face runs, after the table is made).
const REMOTE_STORE = 'memstore_remote';

/**
 * An empty store of the Memory Stores API, as much of it as a sync into it uses
 * (list, create, retrieve), behind a fetch; `received` lists each request as
 * `METHOD /path`. Web APIs only (Response, crypto.subtle), so every runtime runs it.
 */
function remoteApi() {
  const memories = new Map();
  const received = [];
  const answer = (status, body) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  const sha256 = async (text) =>
    [...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const fetch = async (url, init) => {
    const { pathname } = new URL(url);
    received.push(`${init.method} ${pathname}`);
    const id = /\/memories\/([^/]+)$/.exec(pathname)?.[1];
    if (init.method === 'GET' && id === undefined) {
      return answer(200, { data: [...memories.values()].map(({ content, ...listed }) => listed), next_page: null });
    }
    if (init.method === 'GET' && memories.has(id)) return answer(200, memories.get(id));
    if (init.method === 'POST' && id === undefined) {
      const { path, content } = JSON.parse(init.body);
      const n = memories.size + 1;
      const made = { type: 'memory', id: `mem_${n}`, path, content, content_sha256: await sha256(content), memory_version_id: `memver_${n}` };
      memories.set(made.id, made);
      return answer(200, made);
    }
    return answer(404, { type: 'error', error: { type: 'not_found_error', message: 'Not here.' } });
  };
  return { fetch, received };
}
