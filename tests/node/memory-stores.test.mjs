// `memdir serve` end to end with the official SDK: a real server process on a temp
// directory, driven by `new Anthropic({apiKey, baseURL})` with nothing else
// changed: every method of beta.memoryStores, memories and memoryVersions, pages
// followed with `for await`, preconditions and path conflicts as the SDK's 409,
// redaction, bad input answered with the API error object and changing nothing,
// and the SDK's own SessionMemoryStores syncing a local folder both ways.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { SessionMemoryStores } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { loadJson, memdir, runNode, startServe, tempDir } from './helpers.mjs';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));
const KEY = 'sk-memdir-test-0123456789';
const KEY_ID = `apikey_${createHash('sha256').update(KEY).digest('hex').slice(0, 24)}`;
const ACTOR = { type: 'api_actor', api_key_id: KEY_ID };
const MAX_BODY = memdir.defaults().maxApiBodyBytes;
const sha = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Runs `memdir serve` expecting it to refuse to start: resolves {code, stdout, stderr}. */
function serveRefused(args, env = {}) {
  return runNode([BIN, 'serve', '--port', '0', ...args], { ...process.env, MEMDIR_API_KEYS: '', ...env }, 10_000);
}

/** The API error an SDK call rejected with: {status, type, error (the error object)}. */
async function apiErrorOf(promise) {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof Anthropic.APIError, `not an APIError: ${e}`);
    assert.equal(e.error?.type, 'error', JSON.stringify(e.error));
    assert.equal(typeof e.error.error.message, 'string');
    assert.match(e.requestID ?? '', /^req_[0-9a-f]{24}$/);
    return { status: e.status, type: e.error.error.type, error: e.error.error, e };
  }
  assert.fail('the call succeeded');
}

/**
 * The files of a store directory that hold `text`. The store may be live while this
 * reads it: a lock or staged file can go between the listing and the read, and
 * holds nothing then.
 */
function filesHolding(dir, text) {
  return readdirSync(dir).filter((f) => {
    try {
      return readFileSync(join(dir, f)).includes(text);
    } catch (e) {
      if (e.code === 'ENOENT') return false;
      throw e;
    }
  });
}

async function all(pagePromise) {
  const out = [];
  for await (const item of pagePromise) out.push(item);
  return out;
}

let dir;
let server;
let client;
// Every response body the client saw, to check none names the store directory.
const seen = [];
// Every request the client sent: {method, path, body}.
const sent = [];

function recordingFetch(input, init) {
  const url = new URL(typeof input === 'string' ? input : input.url);
  sent.push({ method: init?.method ?? 'GET', path: url.pathname, query: url.search, body: typeof init?.body === 'string' ? init.body : null });
  return fetch(input, init).then(async (r) => {
    seen.push(await r.clone().text());
    return r;
  });
}

before(async () => {
  dir = tempDir('memdir-serve-');
  server = await startServe(['--store', join(dir, 'stores')], { MEMDIR_API_KEYS: `other-key,${KEY}` });
  client = new Anthropic({ apiKey: KEY, baseURL: server.url, fetch: recordingFetch, logLevel: 'off' });
});

after(async () => {
  if (server) {
    const { code, signal } = await server.stop();
    assert.equal(signal, null, server.stderr());
    assert.equal(code, 0, server.stderr());
    assert.equal(server.stderr(), '');
  }
  for (const text of seen) assert.ok(!text.includes(dir), `a response names the store directory: ${text.slice(0, 300)}`);
});

const stores = () => client.beta.memoryStores;
const memories = () => client.beta.memoryStores.memories;
const versions = () => client.beta.memoryStores.memoryVersions;

describe('memdir serve', () => {
  test('refuses to start without a key, and --no-auth off loopback', async () => {
    const noKey = await serveRefused(['--store', join(dir, 'refused')]);
    assert.equal(noKey.code, 2);
    assert.equal(noKey.stdout, '');
    assert.equal(noKey.stderr, 'memdir: serve: no API key: set MEMDIR_API_KEYS (comma separated) or pass --keys FILE (one key a line); --no-auth serves loopback without keys\n');
    const open = await serveRefused(['--store', join(dir, 'refused'), '--no-auth', '--host', '0.0.0.0']);
    assert.equal(open.code, 2);
    assert.equal(open.stderr, 'memdir: serve: --no-auth serves without keys, so only on loopback; 0.0.0.0 is not (use 127.0.0.1 or ::1)\n');
    const missingFile = await serveRefused(['--store', join(dir, 'refused'), '--keys', join(dir, 'no-such-file')]);
    assert.equal(missingFile.code, 2);
    assert.equal(missingFile.stderr, `memdir: serve: --keys ${join(dir, 'no-such-file')}: cannot read it (ENOENT)\n`);
    assert.equal(existsSync(join(dir, 'refused')), false);
  });

  test('--keys FILE and --no-auth on loopback serve', async () => {
    const keys = join(dir, 'keys.txt');
    writeFileSync(keys, '\n  file-key-1  \nfile-key-2\n');
    const s = await startServe(['--store', join(dir, 'by-file'), '--keys', keys]);
    try {
      const ok = new Anthropic({ apiKey: 'file-key-2', baseURL: s.url, logLevel: 'off' });
      assert.deepEqual((await ok.beta.memoryStores.list()).data, []);
      const wrong = new Anthropic({ apiKey: KEY, baseURL: s.url, logLevel: 'off' });
      const r = await apiErrorOf(wrong.beta.memoryStores.list());
      assert.equal(r.status, 401);
      assert.ok(r.e instanceof Anthropic.AuthenticationError);
    } finally {
      assert.deepEqual(await s.stop(), { code: 0, signal: null });
    }
    const n = await startServe(['--store', join(dir, 'no-auth'), '--no-auth']);
    try {
      assert.match(n.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const r = await fetch(`${n.url}/v1/memory_stores`);
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), { data: [], next_page: null });
    } finally {
      assert.deepEqual(await n.stop(), { code: 0, signal: null });
    }
  });

  test('workspaces: a key sees, lists and changes only its own workspace\'s stores', async () => {
    const keys = join(dir, 'workspace-keys.txt');
    writeFileSync(keys, 'key-team-a team-a\nkey-plain\n');
    const s = await startServe(['--store', join(dir, 'by-workspace'), '--keys', keys], { MEMDIR_API_KEYS: 'key-team-b=team-b' });
    try {
      const as = (apiKey) => new Anthropic({ apiKey, baseURL: s.url, logLevel: 'off', maxRetries: 0 });
      const [a, b, plain] = [as('key-team-a'), as('key-team-b'), as('key-plain')];
      const mine = await a.beta.memoryStores.create({ name: 'A only' });
      await a.beta.memoryStores.memories.create(mine.id, { path: '/a.md', content: 'for team a' });
      for (const other of [b, plain]) {
        assert.deepEqual((await other.beta.memoryStores.list()).data, []);
        for (const attempt of [
          () => other.beta.memoryStores.retrieve(mine.id),
          () => other.beta.memoryStores.memories.create(mine.id, { path: '/b.md', content: 'x' }),
          () => other.beta.memoryStores.delete(mine.id),
        ]) {
          const r = await apiErrorOf(attempt());
          assert.deepEqual([r.status, r.type, r.error.message], [404, 'not_found_error', 'No memory store with this id.']);
        }
      }
      assert.deepEqual((await a.beta.memoryStores.list()).data.map((x) => x.id), [mine.id]);
      // The SDK's workspace_id must match the key's workspace.
      assert.equal((await a.beta.memoryStores.retrieve(mine.id, { workspace_id: 'team-a' })).id, mine.id);
      const wrong = await apiErrorOf(a.beta.memoryStores.retrieve(mine.id, { workspace_id: 'team-b' }));
      assert.deepEqual([wrong.status, wrong.type, wrong.error.message], [403, 'permission_error', 'This API key belongs to another workspace than anthropic-workspace-id names.']);
      // Versions still record which key acted.
      const [v] = (await a.beta.memoryStores.memoryVersions.list(mine.id)).data;
      assert.match(v.created_by.api_key_id, /^apikey_[0-9a-f]{24}$/);
    } finally {
      assert.deepEqual(await s.stop(), { code: 0, signal: null });
    }
  });

  test('memory stores: create, retrieve, update (POST and PATCH), list with include_archived, archive, delete', async () => {
    const a = await stores().create({ name: 'Project notes', description: 'what we learned', metadata: { owner: 'ada', team: 'x' } });
    assert.match(a.id, /^memstore_/);
    assert.equal(a.type, 'memory_store');
    assert.equal(a.name, 'Project notes');
    assert.equal(a.description, 'what we learned');
    assert.deepEqual(a.metadata, { owner: 'ada', team: 'x' });
    assert.equal(a.archived_at, null);
    assert.ok(!Number.isNaN(Date.parse(a.created_at)));
    assert.deepEqual(await stores().retrieve(a.id), a);
    // The store's storage is a subdirectory named by its id.
    assert.ok(existsSync(join(dir, 'stores', a.id)));

    const renamed = await stores().update(a.id, { name: 'Renamed', metadata: { team: null, extra: 'y' } });
    assert.equal(renamed.name, 'Renamed');
    assert.equal(renamed.description, 'what we learned');
    assert.deepEqual(renamed.metadata, { owner: 'ada', extra: 'y' });
    const patched = await fetch(`${server.url}/v1/memory_stores/${a.id}`, {
      method: 'PATCH',
      headers: { 'x-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ description: '' }),
    });
    assert.equal(patched.status, 200);
    assert.match(patched.headers.get('request-id'), /^req_/);
    assert.equal((await patched.json()).description, '');

    // A store the engine refuses leaves no directory behind.
    for (const params of [{ name: '' }, { name: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, {}]) {
      const refused = await apiErrorOf(stores().create(params));
      assert.equal(refused.status, 400);
      assert.equal(refused.type, 'invalid_request_error');
    }
    assert.deepEqual(readdirSync(join(dir, 'stores')), [a.id]);
    const b = await stores().create({ name: 'Second' });
    const listed = await all(stores().list());
    assert.deepEqual(listed.map((s) => s.id).sort(), [a.id, b.id].sort());
    const archived = await stores().archive(b.id);
    assert.equal(archived.id, b.id);
    assert.ok(!Number.isNaN(Date.parse(archived.archived_at)));
    assert.deepEqual((await all(stores().list())).map((s) => s.id), [a.id]);
    assert.deepEqual((await all(stores().list({ include_archived: true }))).map((s) => s.id).sort(), [a.id, b.id].sort());
    // An archived store refuses writes and changes, and can still be read and deleted.
    const write = await apiErrorOf(memories().create(b.id, { path: '/x.md', content: 'x' }));
    assert.equal(write.status, 400);
    assert.equal(write.type, 'invalid_request_error');
    assert.equal((await apiErrorOf(stores().update(b.id, { name: 'no' }))).status, 400);
    assert.deepEqual(await stores().retrieve(b.id), archived);

    assert.deepEqual(await stores().delete(b.id), { id: b.id, type: 'memory_store_deleted' });
    const gone = await apiErrorOf(stores().retrieve(b.id));
    assert.equal(gone.status, 404);
    assert.ok(gone.e instanceof Anthropic.NotFoundError);
    assert.equal(gone.type, 'not_found_error');
    assert.equal(existsSync(join(dir, 'stores', b.id)), false);
    assert.deepEqual((await all(stores().list({ include_archived: true }))).map((s) => s.id), [a.id]);
    await stores().delete(a.id);
  });

  test('memories: create, retrieve, update with rename and content_sha256, list by prefix, depth and view, delete with expected_content_sha256', async () => {
    const store = await stores().create({ name: 'memories' });
    const id = store.id;
    const a = await memories().create(id, { path: '/notes/a.md', content: 'hello' });
    assert.match(a.id, /^mem_/);
    assert.match(a.memory_version_id, /^memver_/);
    assert.equal(a.type, 'memory');
    assert.equal(a.path, '/notes/a.md');
    assert.equal(a.memory_store_id, id);
    assert.equal(a.content_sha256, sha('hello'));
    assert.equal(a.content_size_bytes, 5);
    assert.equal(a.content ?? null, null); // view basic by default
    const full = await memories().retrieve(a.id, { memory_store_id: id });
    assert.equal(full.content, 'hello');
    assert.equal((await memories().retrieve(a.id, { memory_store_id: id, view: 'basic' })).content ?? null, null);
    const b = await memories().create(id, { path: '/notes/deep/b.md', content: 'bee' });
    const c = await memories().create(id, { path: '/top.md', content: 'top' }, {});

    // Search is memdir's own route (the SDK has no method for it): its generic get.
    const found = await client.get(`/v1/memory_stores/${id}/memories/search`, { query: { query: 'BEE' } });
    assert.deepEqual(found, {
      data: [{ type: 'memory_search_result', memory_id: b.id, path: '/notes/deep/b.md', score: 0.8990934819274162, matches: [{ line_number: 1, text: 'bee' }] }],
      next_page: null,
      query: 'BEE',
    });

    // The precondition holds: the update lands; it does not: 409, nothing changes.
    const updated = await memories().update(a.id, { memory_store_id: id, content: 'hello 2', precondition: { type: 'content_sha256', content_sha256: sha('hello') } });
    assert.equal(updated.content_sha256, sha('hello 2'));
    assert.notEqual(updated.memory_version_id, a.memory_version_id);
    const stale = await apiErrorOf(memories().update(a.id, { memory_store_id: id, content: 'lost', precondition: { type: 'content_sha256', content_sha256: sha('hello') } }));
    assert.equal(stale.status, 409);
    assert.ok(stale.e instanceof Anthropic.ConflictError);
    assert.equal(stale.type, 'memory_precondition_failed_error');
    assert.equal((await memories().retrieve(a.id, { memory_store_id: id })).content, 'hello 2');

    // A rename keeps the id; onto a taken path it is a path conflict naming the holder.
    const moved = await memories().update(a.id, { memory_store_id: id, path: '/notes/renamed.md' });
    assert.equal(moved.id, a.id);
    assert.equal(moved.path, '/notes/renamed.md');
    const taken = await apiErrorOf(memories().update(a.id, { memory_store_id: id, path: '/top.md' }));
    assert.equal(taken.status, 409);
    assert.equal(taken.type, 'memory_path_conflict_error');
    assert.equal(taken.error.conflicting_path, '/top.md');
    assert.equal(taken.error.conflicting_memory_id, c.id);
    const dup = await apiErrorOf(memories().create(id, { path: '/top.md', content: 'again' }));
    assert.equal(dup.type, 'memory_path_conflict_error');
    assert.equal(dup.error.conflicting_memory_id, c.id);
    // A directory holding memories: the conflict names the first of them.
    const onDir = await apiErrorOf(memories().create(id, { path: '/notes', content: 'a directory' }));
    assert.equal(onDir.status, 409);
    assert.equal(onDir.type, 'memory_path_conflict_error');
    assert.equal(onDir.error.conflicting_path, '/notes/deep/b.md');
    assert.equal(onDir.error.message, `The path /notes conflicts with memory ${b.id} at /notes/deep/b.md.`);
    assert.equal(onDir.error.conflicting_memory_id, b.id);
    // Paths conflict only with memories: a directory its deletes emptied gives way.
    const other = (await stores().create({ name: 'Emptied' })).id;
    const gone = await memories().create(other, { path: '/emptied/a.md', content: 'soon gone' });
    await memories().delete(gone.id, { memory_store_id: other });
    const there = await memories().create(other, { path: '/emptied', content: 'a memory now' });
    assert.equal(there.path, '/emptied');
    // A memory never conflicts with itself: onto its own parent directory, and back.
    const self = await memories().create(other, { path: '/self/a.md', content: 'mine' });
    const up = await memories().update(self.id, { memory_store_id: other, path: '/self' });
    assert.deepEqual([up.id, up.path], [self.id, '/self']);
    const down = await memories().update(self.id, { memory_store_id: other, path: '/self/a.md', precondition: { type: 'not_exists' } });
    assert.deepEqual([down.id, down.path], [self.id, '/self/a.md']);

    const paths = (items) => items.map((m) => `${m.type}:${m.path}`).sort();
    assert.deepEqual(paths(await all(memories().list(id))), ['memory:/notes/deep/b.md', 'memory:/notes/renamed.md', 'memory:/top.md']);
    assert.deepEqual(paths(await all(memories().list(id, { path_prefix: '/notes/' }))), ['memory:/notes/deep/b.md', 'memory:/notes/renamed.md']);
    assert.deepEqual(paths(await all(memories().list(id, { depth: 1 }))), ['memory:/top.md', 'memory_prefix:/notes/']);
    const withContent = await all(memories().list(id, { path_prefix: '/notes/', view: 'full' }));
    assert.deepEqual(withContent.map((m) => m.content).sort(), ['bee', 'hello 2']);
    const basic = await all(memories().list(id, { path_prefix: '/notes/' }));
    assert.deepEqual(basic.map((m) => m.content ?? null), [null, null]);

    const wrongSha = await apiErrorOf(memories().delete(c.id, { memory_store_id: id, expected_content_sha256: sha('not it') }));
    assert.equal(wrongSha.status, 409);
    assert.equal(wrongSha.type, 'memory_precondition_failed_error');
    assert.deepEqual(await memories().delete(c.id, { memory_store_id: id, expected_content_sha256: sha('top') }), { id: c.id, type: 'memory_deleted' });
    assert.equal((await apiErrorOf(memories().retrieve(c.id, { memory_store_id: id }))).status, 404);
    assert.deepEqual(paths(await all(memories().list(id))), ['memory:/notes/deep/b.md', 'memory:/notes/renamed.md']);

    // Versions: the memory's history newest first, filtered, retrieved, redacted.
    const history = await all(versions().list(id, { memory_id: a.id }));
    assert.deepEqual(history.map((v) => v.operation), ['modified', 'modified', 'created']);
    assert.deepEqual(history.map((v) => v.path), ['/notes/renamed.md', '/notes/a.md', '/notes/a.md']);
    for (const v of history) {
      assert.equal(v.memory_id, a.id);
      assert.equal(v.memory_store_id, id);
      assert.deepEqual(v.created_by, ACTOR);
    }
    const created = await all(versions().list(id, { operation: 'created' }));
    assert.equal(created.length, 3);
    assert.deepEqual((await all(versions().list(id, { operation: 'deleted' }))).map((v) => v.memory_id), [c.id]);
    const first = await versions().retrieve(history[2].id, { memory_store_id: id });
    assert.equal(first.content, 'hello');
    assert.equal(first.content_sha256, sha('hello'));
    const current = await apiErrorOf(versions().redact(history[0].id, { memory_store_id: id }));
    assert.equal(current.status, 400);
    assert.equal(current.type, 'invalid_request_error');
    const redacted = await versions().redact(history[2].id, { memory_store_id: id });
    assert.equal(redacted.id, history[2].id);
    assert.equal(redacted.content ?? null, null);
    assert.ok(!Number.isNaN(Date.parse(redacted.redacted_at)));
    assert.deepEqual(redacted.redacted_by, ACTOR);
    const after = await versions().retrieve(history[2].id, { memory_store_id: id });
    assert.equal(after.content ?? null, null);
    assert.equal(after.content_sha256 ?? null, null);
    assert.equal(after.path ?? null, null);
    assert.equal(after.redacted_at, redacted.redacted_at);
    assert.equal((await memories().retrieve(a.id, { memory_store_id: id })).content, 'hello 2');

    // Redaction really forgets: no file of the store's directory holds the text
    // any more, while the version after it still reads back.
    const secret = await memories().create(id, { path: '/secret.md', content: 'the code is QUINCE-48213' });
    await memories().update(secret.id, { memory_store_id: id, content: 'nothing here' });
    const [newer, older] = await all(versions().list(id, { memory_id: secret.id }));
    const storeDir = join(dir, 'stores', id);
    const holding = () => filesHolding(storeDir, 'QUINCE-48213');
    assert.ok(holding().length > 0, 'the text is on disk before');
    await versions().redact(older.id, { memory_store_id: id });
    assert.deepEqual(holding(), [], 'no file holds the redacted text');
    assert.equal((await versions().retrieve(newer.id, { memory_store_id: id })).content, 'nothing here');

    // And the path: moved away (renamed, then renamed with new content), then the
    // version that held it redacted, it is in no file as soon as the call answers,
    // not even in the trees of the commits made while the memory lived there.
    const renamed = await memories().create(id, { path: '/secret-name.md', content: 'first' });
    await memories().update(renamed.id, { memory_store_id: id, path: '/moved.md' });
    await memories().update(renamed.id, { memory_store_id: id, path: '/public.md', content: 'second' });
    const [, , named] = await all(versions().list(id, { memory_id: renamed.id }));
    assert.equal(named.path, '/secret-name.md');
    const naming = () => filesHolding(storeDir, 'secret-name');
    assert.ok(naming().length > 0, 'the path is on disk before');
    await versions().redact(named.id, { memory_store_id: id });
    assert.deepEqual(naming(), [], 'no file holds the redacted path');
    assert.equal((await memories().retrieve(renamed.id, { memory_store_id: id })).content, 'second');
    // What is left is whole: gc keeping every commit, then the head only.
    const maintenance = await memdir.openMemory({ store: memdir.directoryStore(storeDir) });
    for (const keepCommits of [1000, 0, 0]) await maintenance.gc({ keepCommits });
    maintenance.close();
    assert.equal((await memories().retrieve(renamed.id, { memory_store_id: id })).content, 'second');
  });

  test('upkeep: versions past --retention go with their bytes, a live memory\'s current one stays', async () => {
    const root = join(dir, 'upkeep');
    const s = await startServe(['--store', root, '--retention', '3s', '--upkeep-every', '1s'], { MEMDIR_API_KEYS: KEY });
    try {
      const c = new Anthropic({ apiKey: KEY, baseURL: s.url, logLevel: 'off' });
      const { id } = await c.beta.memoryStores.create({ name: 'Churn' });
      const m = await c.beta.memoryStores.memories.create(id, { path: '/churn.md', content: 'churn text 0' });
      for (let i = 1; i <= 20; i++) await c.beta.memoryStores.memories.update(m.id, { memory_store_id: id, content: `churn text ${i}` });
      const gone = await c.beta.memoryStores.memories.create(id, { path: '/gone-ZEBRA.md', content: 'deleted ZEBRA text' });
      await c.beta.memoryStores.memories.delete(gone.id, { memory_store_id: id });
      const history = async () => (await all(c.beta.memoryStores.memoryVersions.list(id))).map((v) => v.id);
      const before = await history();
      assert.equal(before.length, 23);
      const storeDir = join(root, id);
      const holding = (text) => filesHolding(storeDir, text);
      assert.ok(holding('churn text 7').length > 0 && holding('ZEBRA').length > 0, 'on disk before');
      // Past the period, a round drops every version but the memory's current one;
      // the round after deletes what they held, the deleted memory's path included.
      const deadline = Date.now() + 20_000;
      while ((holding('churn text 7').length > 0 || holding('ZEBRA').length > 0) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.deepEqual(await history(), [before[2]]);
      assert.deepEqual(holding('churn text 7'), [], 'no file holds a dropped version\'s text');
      assert.deepEqual(holding('ZEBRA'), [], 'no file holds the deleted memory\'s path or text');
      const kept = await c.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: id });
      assert.equal(kept.content, 'churn text 20');
      assert.equal(kept.memory_version_id, before[2]);
      const dropped = await apiErrorOf(c.beta.memoryStores.memoryVersions.retrieve(before[3], { memory_store_id: id }));
      assert.equal(dropped.status, 404);
      assert.equal(dropped.error.message, `No memory version ${JSON.stringify(before[3])} in this store.`);
      // The store keeps a few files, not one per version made (23): its head, commit,
      // tree, one record and blob, three log nodes (a top over the two leaves of 16
      // slots that still hold a slot), gc's two notes, the marker and the spare locks
      // (and, not counted, the server's empty file made ahead for its next pack).
      const files = readdirSync(storeDir).filter((n) => !(n.startsWith('.tmp-stage-') && statSync(join(storeDir, n)).size === 0));
      assert.ok(files.length < 14, files.join(' '));
      // The operator's log: a line for each round that changed something.
      const rounds = s.stderr().trimEnd().split('\n').map((line) => /^memdir serve: upkeep: 1 stores, (\d+) versions dropped, (\d+) objects deleted$/.exec(line));
      assert.ok(rounds.every(Boolean), s.stderr());
      assert.equal(rounds.reduce((n, r) => n + Number(r[1]), 0), 22);
    } finally {
      assert.deepEqual(await s.stop(), { code: 0, signal: null });
    }
    const refused = await serveRefused(['--store', root, '--retention', '30 days'], { MEMDIR_API_KEYS: KEY });
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, 'memdir: --retention needs a duration: a positive whole number and a unit, ms, s, m, h or d (30d), or off\n');
  });

  test('more than 250 memories and versions, followed page by page with for await', async () => {
    const { id } = await stores().create({ name: 'many' });
    const made = [];
    for (let i = 0; i < 260; i++) {
      made.push(await memories().create(id, { path: `/m/${String(i).padStart(3, '0')}.md`, content: `memory ${i}` }));
    }
    const listed = await all(memories().list(id));
    assert.equal(listed.length, 260);
    assert.deepEqual(listed.map((m) => m.id).sort(), made.map((m) => m.id).sort());
    const byHundred = await all(memories().list(id, { limit: 100 }));
    assert.deepEqual(byHundred.map((m) => m.id).sort(), made.map((m) => m.id).sort());
    // A full page holds at most 20, whatever limit asks (the SDK's sync counts on the server's cap).
    const bigFull = await memories().list(id, { view: 'full', limit: 100 });
    assert.equal(bigFull.data.length, 20);
    assert.equal(typeof bigFull.next_page, 'string');
    const fullPages = await all(memories().list(id, { view: 'full', limit: 20 }));
    assert.deepEqual(fullPages.map((m) => m.content).sort(), made.map((_, i) => `memory ${i}`).sort());
    const history = await all(versions().list(id));
    assert.equal(history.length, 260);
    assert.deepEqual(history.map((v) => v.id), made.map((m) => m.memory_version_id).reverse());
    const firstPage = await versions().list(id, { limit: 100 });
    assert.equal(firstPage.data.length, 100);
    assert.equal(typeof firstPage.next_page, 'string');
  });

  test('bad input answers the API error object and changes nothing', async () => {
    const { id } = await stores().create({ name: 'bad input' });
    const other = await stores().create({ name: 'other' });
    const a = await memories().create(id, { path: '/a.md', content: 'alpha' });
    await memories().create(id, { path: '/dir/b.md', content: 'beta' });
    const foreign = await memories().create(other.id, { path: '/a.md', content: 'foreign' });
    const snapshot = async () => ({
      memories: await all(memories().list(id, { view: 'full' })),
      versions: await all(versions().list(id)),
      store: await stores().retrieve(id),
    });
    const before = await snapshot();
    const expectError = async (promise, status, type) => {
      const r = await apiErrorOf(promise);
      assert.equal(r.status, status, JSON.stringify(r.error));
      assert.equal(r.type, type, JSON.stringify(r.error));
      return r;
    };

    await expectError(memories().retrieve('mem_nope', { memory_store_id: id }), 404, 'not_found_error');
    await expectError(memories().retrieve(foreign.id, { memory_store_id: id }), 404, 'not_found_error');
    await expectError(memories().update(foreign.id, { memory_store_id: id, content: 'x' }), 404, 'not_found_error');
    await expectError(memories().delete(foreign.id, { memory_store_id: id }), 404, 'not_found_error');
    await expectError(versions().retrieve(foreign.memory_version_id, { memory_store_id: id }), 404, 'not_found_error');
    await expectError(versions().redact(foreign.memory_version_id, { memory_store_id: id }), 404, 'not_found_error');
    await expectError(memories().list('memstore_nope'), 404, 'not_found_error');

    const page = await memories().list(id, { limit: 1 });
    assert.equal(typeof page.next_page, 'string');
    await expectError(memories().list(id, { limit: 1, path_prefix: '/dir/', page: page.next_page }), 400, 'invalid_request_error');
    await expectError(memories().list(other.id, { limit: 1, page: page.next_page }), 400, 'invalid_request_error');
    await expectError(versions().list(id, { limit: 1, page: page.next_page }), 400, 'invalid_request_error');
    await expectError(memories().list(id, { path_prefix: '/dir' }), 400, 'invalid_request_error');
    await expectError(memories().list(id, { depth: -1 }), 400, 'invalid_request_error');
    await expectError(memories().list(id, { limit: 101 }), 400, 'invalid_request_error');
    await expectError(memories().list(id, { limit: 0 }), 400, 'invalid_request_error');

    await expectError(memories().create(id, { path: '/big.md', content: 'a'.repeat(102_401) }), 400, 'invalid_request_error');
    await expectError(memories().create(id, { path: '/big.md', content: 'é'.repeat(51_201) }), 400, 'invalid_request_error');
    await expectError(memories().update(a.id, { memory_store_id: id, content: 'a'.repeat(102_401) }), 400, 'invalid_request_error');

    // Wrong JSON types, and no JSON at all.
    await expectError(memories().create(id, { path: 5, content: 'x' }), 400, 'invalid_request_error');
    await expectError(memories().create(id, { path: '/t.md', content: 7 }), 400, 'invalid_request_error');
    await expectError(memories().update(a.id, { memory_store_id: id, precondition: 'sha' }), 400, 'invalid_request_error');
    await expectError(stores().update(id, { name: 123 }), 400, 'invalid_request_error');
    await expectError(stores().update(id, { metadata: 'x' }), 400, 'invalid_request_error');
    const notJson = await fetch(`${server.url}/v1/memory_stores/${id}/memories`, { method: 'POST', headers: { 'x-api-key': KEY }, body: '{"path": "/n.md", ' });
    assert.equal(notJson.status, 400);
    assert.equal((await notJson.json()).error.type, 'invalid_request_error');

    // The memory tool's hostile paths, as store paths (the tool's /memories prefix taken off).
    const hostile = loadJson('hostile-paths.json')
      .paths.filter((p) => p.rule !== 'prefix' && p.path.startsWith('/memories/'))
      .map((p) => p.path.slice('/memories'.length));
    assert.ok(hostile.length > 1500);
    const accepted = [];
    for (const path of hostile) {
      try {
        await memories().create(id, { path, content: 'x' });
        accepted.push(path);
      } catch (e) {
        assert.equal(e.status, 400, `${JSON.stringify(path)}: ${e}`);
        assert.equal(e.error.error.type, 'invalid_request_error');
      }
    }
    assert.deepEqual(accepted, []);

    // A body over the engine's cap is 413, whatever it holds.
    const huge = await expectError(memories().create(id, { path: '/huge.md', content: 'a'.repeat(MAX_BODY) }), 413, 'request_too_large');
    assert.ok(huge.e instanceof Anthropic.APIError);

    // No key, a wrong key.
    const noKey = await fetch(`${server.url}/v1/memory_stores/${id}/memories`, { method: 'POST', body: JSON.stringify({ path: '/k.md', content: 'k' }) });
    assert.equal(noKey.status, 401);
    assert.deepEqual(await noKey.json(), { type: 'error', error: { type: 'authentication_error', message: 'An API key is required: send it as x-api-key or Authorization: Bearer.' } });
    const wrong = new Anthropic({ apiKey: `${KEY}-wrong`, baseURL: server.url, logLevel: 'off' });
    const bad = await apiErrorOf(wrong.beta.memoryStores.memories.create(id, { path: '/k.md', content: 'k' }));
    assert.equal(bad.status, 401);
    assert.equal(bad.type, 'authentication_error');
    assert.ok(bad.e instanceof Anthropic.AuthenticationError);

    assert.deepEqual(await snapshot(), before);
  });

  test("the SDK's SessionMemoryStores syncs a local folder with a memdir store both ways", async () => {
    const store = await stores().create({ name: 'session' });
    const id = store.id;
    const a = await memories().create(id, { path: '/a.md', content: 'one' });
    const b = await memories().create(id, { path: '/dir/b.md', content: 'two' });
    const logs = [];
    const logger = Object.fromEntries(['debug', 'info', 'warn', 'error'].map((level) => [level, (message) => logs.push(`${level}: ${message}`)]));
    const syncClient = new Anthropic({ apiKey: KEY, baseURL: server.url, fetch: recordingFetch, logger, logLevel: 'warn' });
    const work = tempDir('memdir-session-');
    const mount = join(work, 'mnt', 'memory', 'session');
    mkdirSync(join(work, 'mnt', 'memory'), { recursive: true });
    const session = { resources: [{ type: 'memory_store', memory_store_id: id, mount_path: mount, access: 'read_write', name: 'session' }] };
    const sync = new SessionMemoryStores(syncClient, { workdir: work, syncIntervalMs: 5000 });
    await sync.download(session);
    assert.equal(readFileSync(join(mount, 'a.md'), 'utf8'), 'one');
    assert.equal(readFileSync(join(mount, 'dir/b.md'), 'utf8'), 'two');

    // syncIfDue runs once its interval has passed: the clock is moved on for it.
    let c;
    const realNow = Date.now;
    let offset = 0;
    Date.now = () => realNow() + offset;
    const syncNow = async () => {
      offset += 10_000;
      await sync.syncIfDue();
    };
    try {
      // A remote edit is pulled; a local edit is pushed with its precondition; a new file is created.
      await memories().update(a.id, { memory_store_id: id, content: 'one (remote)' });
      writeFileSync(join(mount, 'dir/b.md'), 'two (local)');
      writeFileSync(join(mount, 'c.md'), 'three');
      sent.length = 0;
      await syncNow();
      assert.deepEqual(logs, []);
      assert.equal(readFileSync(join(mount, 'a.md'), 'utf8'), 'one (remote)');
      const pushed = sent.filter((r) => r.method === 'POST' && r.path === `/v1/memory_stores/${id}/memories/${b.id}`);
      assert.equal(pushed.length, 1);
      assert.deepEqual(JSON.parse(pushed[0].body), { content: 'two (local)', precondition: { type: 'content_sha256', content_sha256: sha('two') } });
      assert.equal((await memories().retrieve(b.id, { memory_store_id: id })).content, 'two (local)');
      const bHistory = await all(versions().list(id, { memory_id: b.id, view: 'full' }));
      assert.deepEqual(bHistory.map((v) => [v.operation, v.content]), [['modified', 'two (local)'], ['created', 'two']]);
      c = (await all(memories().list(id, { view: 'full' }))).find((m) => m.path === '/c.md');
      assert.equal(c.content, 'three');

      // Both sides change: the server's version wins, on disk too.
      await memories().update(b.id, { memory_store_id: id, content: 'two (remote again)' });
      writeFileSync(join(mount, 'dir/b.md'), 'two (local again)');
      await syncNow();
      assert.equal(readFileSync(join(mount, 'dir/b.md'), 'utf8'), 'two (remote again)');
      assert.equal((await memories().retrieve(b.id, { memory_store_id: id })).content, 'two (remote again)');
      assert.deepEqual(logs, ['warn: memory changed both locally and remotely; keeping the remote version']);

      // A remote delete removes the file; a local delete goes out on the last sync, with its sha.
      await memories().delete(a.id, { memory_store_id: id });
      rmSync(join(mount, 'c.md'));
      sent.length = 0;
      offset += 10_000;
      await sync.finish();
    } finally {
      Date.now = realNow;
    }
    assert.equal(existsSync(join(mount, 'a.md')), false);
    const deleted = sent.filter((r) => r.method === 'DELETE');
    assert.deepEqual(deleted.map((r) => [r.path, r.query]), [[`/v1/memory_stores/${id}/memories/${c.id}`, `?expected_content_sha256=${sha('three')}`]]);
    assert.deepEqual((await all(memories().list(id))).map((m) => m.path), ['/dir/b.md']);
    await sync.dispose();
    assert.equal(existsSync(mount), false);
  });
});
