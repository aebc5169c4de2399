// One client of `npm run bench:serve`: a closed loop (one call at a time) over
// memories only it writes, in a store it shares with other clients. Because no one
// else touches its memories, its model of them (path, content, hash, newest version,
// number of versions) is exact, so every answer is checked against it: a retrieve
// returns what this client wrote last, a list its paths with their hashes, a
// version list its newest version first; any other status than 200, including a
// 409, is a wrong answer.
import { createHash } from 'node:crypto';
import { call } from './wire.mjs';

export const READS = ['memory.retrieve', 'memory.list', 'version.list'];
export const WRITES = ['memory.create', 'memory.update', 'memory.delete'];
export const KINDS = [...READS, ...WRITES];
export const READ_PERCENT = 70;

// A client starts with INITIAL memories and keeps between MIN and MAX: a delete at
// MIN becomes a create, a create at MAX a delete, so every call has a target and a
// list always fits in one page. With the equal odds of create and delete, the
// count wanders around where it started.
const INITIAL = 8;
const MIN = 1;
const MAX = 32;
const LIST_LIMIT = 100;
const VERSION_PAGE = 20;
// Contents of about this size (a note of a few paragraphs).
const CONTENT_BYTES = 1024;

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

class Wrong extends Error {}

function expect(ok, what, answer) {
  if (!ok) throw new Wrong(`${what}; answered ${answer.status || answer.error} ${answer.text.slice(0, 200)}`);
}

function content(client, n, edit) {
  const head = `client ${client}, memory ${n}, edit ${edit}\n`;
  const line = `${head.trim()}: a line of a note the agent keeps.\n`;
  return (head + line.repeat(Math.ceil(CONTENT_BYTES / line.length))).slice(0, CONTENT_BYTES);
}

/**
 * A client `index` on server `base` (its key `key`) in store `storeId`; `rand()`
 * in [0, 1) picks its calls. `setup()` makes its first memories and resolves
 * undefined or {kind, error}; `step()` makes one call and resolves {kind, ms} or
 * {kind, error}. After an error the client's next
 * setup or step first starts over under a new path prefix, forgetting every
 * memory, since what the server did with the failed call is unknown.
 */
export function client({ index, base, key, storeId, rand, timeoutMs }) {
  const memories = new Map(); // id -> {path, content, sha, versionId, versions, n, edits}
  let generation = 0;
  let made = 0;
  let stale = false;
  const prefix = () => `/c${index}g${generation}/`;
  const at = (path, opts = {}) => call(base, key, opts.method ?? 'GET', `/v1/memory_stores/${storeId}${path}`, { ...opts, timeoutMs });
  const pick = () => {
    const ids = [...memories.keys()];
    return ids[Math.floor(rand() * ids.length)];
  };

  async function create() {
    const n = ++made;
    const path = `${prefix()}m${String(n).padStart(6, '0')}.md`;
    const text = content(index, n, 0);
    const r = await at('/memories', { method: 'POST', body: { path, content: text } });
    const b = r.body;
    expect(r.status === 200 && b?.type === 'memory' && /^mem_/.test(b.id) && !memories.has(b.id), `create ${path}: a new memory`, r);
    expect(b.path === path && b.content_sha256 === sha256(text) && b.content_size_bytes === Buffer.byteLength(text), `create ${path}: its path and hash`, r);
    expect(b.memory_store_id === storeId && typeof b.memory_version_id === 'string', `create ${path}: its store and version`, r);
    memories.set(b.id, { path, content: text, sha: b.content_sha256, versionId: b.memory_version_id, versions: 1, n, edits: 0 });
    return r;
  }

  async function retrieve() {
    const id = pick();
    const m = memories.get(id);
    const r = await at(`/memories/${id}`);
    const b = r.body;
    expect(r.status === 200 && b?.id === id && b.path === m.path && b.content === m.content, `retrieve ${m.path}: what this client wrote last`, r);
    expect(b.content_sha256 === m.sha && b.memory_version_id === m.versionId, `retrieve ${m.path}: its hash and newest version`, r);
    return r;
  }

  async function update() {
    const id = pick();
    const m = memories.get(id);
    const text = content(index, m.n, m.edits + 1);
    const r = await at(`/memories/${id}`, { method: 'POST', body: { content: text, precondition: { type: 'content_sha256', content_sha256: m.sha } } });
    const b = r.body;
    expect(r.status === 200 && b?.id === id && b.path === m.path && b.content_sha256 === sha256(text), `update ${m.path} (precondition ${m.sha.slice(0, 8)}): the new hash`, r);
    expect(typeof b.memory_version_id === 'string' && b.memory_version_id !== m.versionId, `update ${m.path}: a new version`, r);
    Object.assign(m, { content: text, sha: b.content_sha256, versionId: b.memory_version_id, versions: m.versions + 1, edits: m.edits + 1 });
    return r;
  }

  async function remove() {
    const id = pick();
    const r = await at(`/memories/${id}`, { method: 'DELETE' });
    expect(r.status === 200 && r.body?.id === id && r.body.type === 'memory_deleted' && Object.keys(r.body).length === 2, `delete ${memories.get(id).path}`, r);
    memories.delete(id);
    return r;
  }

  async function list() {
    const r = await at('/memories', { query: { path_prefix: prefix(), limit: String(LIST_LIMIT) } });
    const want = [...memories].sort(([, a], [, b]) => (a.path < b.path ? -1 : 1));
    const got = r.body?.data;
    expect(r.status === 200 && Array.isArray(got) && r.body.next_page === null && got.length === want.length, `list ${prefix()}: ${want.length} memories, one page`, r);
    want.forEach(([id, m], i) => {
      const g = got[i];
      expect(g?.type === 'memory' && g.id === id && g.path === m.path && g.content_sha256 === m.sha && g.content === null, `list ${prefix()}: ${m.path} at ${i}, its hash`, r);
    });
    return r;
  }

  async function versions() {
    const id = pick();
    const m = memories.get(id);
    const r = await at('/memory_versions', { query: { memory_id: id, limit: String(VERSION_PAGE) } });
    const got = r.body?.data;
    expect(r.status === 200 && Array.isArray(got) && got.length === Math.min(m.versions, VERSION_PAGE), `versions of ${m.path}: ${m.versions}`, r);
    const [newest] = got;
    expect(newest.id === m.versionId && newest.memory_id === id && newest.content_sha256 === m.sha, `versions of ${m.path}: its newest first`, r);
    expect(newest.operation === (m.versions === 1 ? 'created' : 'modified') && newest.path === m.path, `versions of ${m.path}: the newest's operation and path`, r);
    expect(new Set(got.map((v) => v.id)).size === got.length, `versions of ${m.path}: distinct`, r);
    // Exactly a page's worth may or may not offer a next page; fewer must not, more must.
    if (m.versions < VERSION_PAGE) expect(r.body.next_page === null, `versions of ${m.path}: no next page`, r);
    if (m.versions > VERSION_PAGE) expect(typeof r.body.next_page === 'string', `versions of ${m.path}: a next page`, r);
    return r;
  }

  const calls = { 'memory.retrieve': retrieve, 'memory.list': list, 'version.list': versions, 'memory.create': create, 'memory.update': update, 'memory.delete': remove };

  /** The next call: READ_PERCENT reads, the rest writes, each kind of a side equally likely. */
  function choose() {
    const r = rand() * 100;
    const side = r < READ_PERCENT ? READS : WRITES;
    const within = r < READ_PERCENT ? r / READ_PERCENT : (r - READ_PERCENT) / (100 - READ_PERCENT);
    const kind = side[Math.min(Math.floor(within * side.length), side.length - 1)];
    if (kind === 'memory.delete' && memories.size <= MIN) return 'memory.create';
    if (kind === 'memory.create' && memories.size >= MAX) return 'memory.delete';
    return kind;
  }

  async function run(kind, f) {
    try {
      const r = await f();
      return { kind, ms: r.ms };
    } catch (e) {
      if (!(e instanceof Wrong)) throw e;
      stale = true;
      return { kind, error: `client ${index}: ${e.message}` };
    }
  }

  /** The first memories (untimed), under a new prefix after an error; an error answer or undefined. */
  async function setup() {
    if (stale) {
      memories.clear();
      generation += 1;
      stale = false;
    }
    while (memories.size < INITIAL) {
      const r = await run('memory.create', create);
      if (r.error) return r;
    }
    return undefined;
  }

  return {
    setup,
    async step() {
      if (stale) {
        const failed = await setup();
        if (failed) return failed;
      }
      const kind = choose();
      return run(kind, calls[kind]);
    },
  };
}
