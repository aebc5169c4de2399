// The Memory Stores API of the example Worker, in real workerd through miniflare,
// driven by the official SDK's own client (`@anthropic-ai/sdk`) with only its
// baseURL changed: every method of memoryStores, memories and memoryVersions, pages
// walked with `for await`, the API's errors as the SDK's error classes, and a
// redaction that leaves the redacted text, and a renamed memory's old path,
// nowhere in the store's Durable Object when it answers.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { request } from './client.js';
import { API_KEYS, TEAM_KEY, root, start } from './mf.js';

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');
/** How versions name the caller: the router's digest of its key, never the key. */
const actorOf = (key) => ({ type: 'api_actor', api_key_id: `apikey_${sha256(key).slice(0, 24)}` });

let mf;
let url;
/** The SDK on the first key; no retries, so a 409 or 5xx shows as it came. */
let client;
let other;

before(async () => {
  mf = start();
  url = await mf.ready;
  const baseURL = url.origin;
  client = new Anthropic({ apiKey: API_KEYS[0], baseURL, maxRetries: 0 });
  other = new Anthropic({ apiKey: API_KEYS[1], baseURL, maxRetries: 0 });
});
after(() => mf?.dispose());

/** The error a call rejects with (it must reject). */
async function failure(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the call succeeded');
}

/** Every item of a paged list, walked by the SDK. */
async function all(page) {
  const out = [];
  for await (const item of page) out.push(item);
  return out;
}

/** The store object's whole storage scanned for `text` (test route of the harness). */
async function scan(storeId, text) {
  const r = await request(new URL('/__test/store-scan', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: storeId, text }),
  });
  assert.equal(r.status, 200, await r.text());
  return r.json();
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const stores = () => client.beta.memoryStores;
const memories = () => client.beta.memoryStores.memories;
const versions = () => client.beta.memoryStores.memoryVersions;

describe('credentials', () => {
  test('no key or a wrong key is a 401 authentication_error; each configured key works', async () => {
    const bare = await request(new URL('/v1/memory_stores', url));
    assert.equal(bare.status, 401);
    const body = await bare.json();
    assert.deepEqual(body, {
      type: 'error',
      error: { type: 'authentication_error', message: 'An API key is required: send it as x-api-key or Authorization: Bearer.' },
    });
    assert.ok(bare.headers.get('request-id'), 'a 401 carries a request-id');

    const wrong = new Anthropic({ apiKey: 'not-a-key', baseURL: url.origin, maxRetries: 0 });
    const e = await failure(wrong.beta.memoryStores.list().then((p) => p.data));
    assert.ok(e instanceof Anthropic.AuthenticationError, String(e));
    assert.equal(e.status, 401);
    assert.deepEqual(e.error, { type: 'error', error: { type: 'authentication_error', message: 'Invalid API key.' } });
    // The same key as x-api-key (what curl sends) works too.
    const viaHeader = await request(new URL('/v1/memory_stores', url), { headers: { 'x-api-key': API_KEYS[0] } });
    assert.equal(viaHeader.status, 200, await viaHeader.text());

    const created = await other.beta.memoryStores.create({ name: 'second key' });
    assert.equal((await client.beta.memoryStores.retrieve(created.id)).name, 'second key');
  });
});

describe('stores', () => {
  test('create, retrieve, update, list, archive and delete', async () => {
    const made = await stores().create({ name: 'Prefs', description: 'What the user likes.', metadata: { team: 'edge' } });
    assert.match(made.id, /^memstore_/);
    assert.equal(made.type, 'memory_store');
    assert.equal(made.name, 'Prefs');
    assert.equal(made.description, 'What the user likes.');
    assert.deepEqual(made.metadata, { team: 'edge' });
    assert.equal(made.archived_at, null);
    assert.match(made.created_at, ISO);
    assert.match(made.updated_at, ISO);
    assert.deepEqual(await stores().retrieve(made.id), made);

    const updated = await stores().update(made.id, { name: 'Preferences', description: 'Per-user preferences.' });
    assert.equal(updated.id, made.id);
    assert.equal(updated.name, 'Preferences');
    assert.equal(updated.description, 'Per-user preferences.');
    assert.deepEqual(updated.metadata, { team: 'edge' });
    assert.equal(updated.created_at, made.created_at);
    assert.deepEqual(await stores().retrieve(made.id), updated);
    // Metadata updates merge; a null value removes its key.
    const remeta = await stores().update(made.id, { metadata: { team: null, tier: 'free' } });
    assert.deepEqual(remeta.metadata, { tier: 'free' });
    assert.equal(remeta.name, 'Preferences');

    const second = await stores().create({ name: 'Second' });
    const listed = await all(stores().list());
    const ids = listed.map((s) => s.id);
    assert.ok(ids.includes(made.id) && ids.includes(second.id), ids.join());
    // Newest first.
    assert.ok(ids.indexOf(second.id) < ids.indexOf(made.id));
    assert.deepEqual(
      listed.find((s) => s.id === made.id),
      remeta,
    );

    const archived = await stores().archive(second.id);
    assert.equal(archived.id, second.id);
    assert.match(archived.archived_at, ISO);
    assert.ok(!(await all(stores().list())).some((s) => s.id === second.id), 'an archived store is listed by default');
    const withArchived = await all(stores().list({ include_archived: true }));
    assert.deepEqual(
      withArchived.find((s) => s.id === second.id),
      archived,
    );
    // An archived store refuses writes and can still be read.
    const refused = await failure(memories().create(second.id, { path: '/a.md', content: 'x' }));
    assert.ok(refused instanceof Anthropic.BadRequestError, String(refused));
    assert.deepEqual(refused.error.error, {
      type: 'invalid_request_error',
      message: 'This memory store is archived: its memories can be read and deleted, not created or changed.',
    });
    assert.deepEqual(await all(memories().list(second.id)), []);

    assert.deepEqual(await stores().delete(second.id), { id: second.id, type: 'memory_store_deleted' });
    const gone = await failure(stores().retrieve(second.id));
    assert.ok(gone instanceof Anthropic.NotFoundError, String(gone));
    assert.deepEqual(gone.error.error, { type: 'not_found_error', message: 'No memory store with this id.' });
    assert.ok(!(await all(stores().list({ include_archived: true }))).some((s) => s.id === second.id));
    // Its object's storage is empty: nothing of the store outlives it.
    assert.equal((await scan(second.id, 'Second')).keys, 0);
  });

  test('a key of another workspace sees, lists and changes none of these stores', async () => {
    const team = new Anthropic({ apiKey: TEAM_KEY, baseURL: client.baseURL, maxRetries: 0 });
    const mine = await client.beta.memoryStores.create({ name: 'default workspace' });
    assert.ok(!(await team.beta.memoryStores.list()).data.some((s) => s.id === mine.id));
    for (const attempt of [() => team.beta.memoryStores.retrieve(mine.id), () => team.beta.memoryStores.delete(mine.id)]) {
      const status = await attempt().then(() => 200, (e) => [e.status, e.error?.error?.message]);
      assert.deepEqual(status, [404, 'No memory store with this id.']);
    }
    const theirs = await team.beta.memoryStores.create({ name: 'team b' });
    assert.ok(!(await client.beta.memoryStores.list()).data.some((s) => s.id === theirs.id));
    assert.equal((await team.beta.memoryStores.retrieve(theirs.id)).name, 'team b');
    await team.beta.memoryStores.delete(theirs.id);
    await client.beta.memoryStores.delete(mine.id);
  });

  test('an unknown store id is a 404', async () => {
    for (const id of ['memstore_0000000000000000000000000', 'nothing']) {
      const e = await failure(stores().retrieve(id));
      assert.ok(e instanceof Anthropic.NotFoundError, `${id}: ${e}`);
      assert.deepEqual(e.error.error, { type: 'not_found_error', message: 'No memory store with this id.' });
      const m = await failure(memories().create(id, { path: '/a.md', content: 'x' }));
      assert.ok(m instanceof Anthropic.NotFoundError, `${id}: ${m}`);
    }
  });
});

describe('memories', () => {
  let store;
  before(async () => {
    store = (await stores().create({ name: 'Memories' })).id;
  });

  test('create, retrieve, update with a precondition, rename, and delete with expected_content_sha256', async () => {
    const made = await memories().create(store, { path: '/notes/a.md', content: 'alpha' });
    assert.match(made.id, /^mem_/);
    assert.equal(made.type, 'memory');
    assert.equal(made.path, '/notes/a.md');
    assert.equal(made.memory_store_id, store);
    assert.match(made.memory_version_id, /^memver_/);
    assert.equal(made.content_sha256, sha256('alpha'));
    assert.equal(made.content_size_bytes, 5);
    assert.equal(made.content ?? null, null, 'create answers the basic view');
    assert.match(made.created_at, ISO);

    const read = await memories().retrieve(made.id, { memory_store_id: store });
    assert.deepEqual(read, { ...made, content: 'alpha' });
    const basic = await memories().retrieve(made.id, { memory_store_id: store, view: 'basic' });
    assert.equal(basic.content ?? null, null);

    // content_sha256 precondition: the stale hash is a 409, the current one applies.
    const stale = await failure(
      memories().update(made.id, {
        memory_store_id: store,
        content: 'lost',
        precondition: { type: 'content_sha256', content_sha256: sha256('not alpha') },
      }),
    );
    assert.ok(stale instanceof Anthropic.ConflictError, String(stale));
    assert.equal(stale.status, 409);
    assert.deepEqual(stale.error.error, {
      type: 'memory_precondition_failed_error',
      message: `The precondition content_sha256 failed: memory ${made.id} has changed since that hash was read.`,
    });
    assert.equal((await memories().retrieve(made.id, { memory_store_id: store })).content, 'alpha');

    const edited = await memories().update(made.id, {
      memory_store_id: store,
      content: 'alpha, edited',
      precondition: { type: 'content_sha256', content_sha256: sha256('alpha') },
    });
    assert.equal(edited.id, made.id);
    assert.equal(edited.content_sha256, sha256('alpha, edited'));
    assert.notEqual(edited.memory_version_id, made.memory_version_id);

    // Rename: same id, new path; the old path is free again.
    const renamed = await memories().update(made.id, { memory_store_id: store, path: '/archive/a.md', view: 'full' });
    assert.equal(renamed.id, made.id);
    assert.equal(renamed.path, '/archive/a.md');
    assert.equal(renamed.content, 'alpha, edited');
    const page = await all(memories().list(store));
    assert.deepEqual(
      page.map((m) => m.path),
      ['/archive/a.md'],
    );
    const moved = await all(versions().list(store, { memory_id: made.id }));
    assert.deepEqual(
      moved.map((v) => [v.operation, v.path]),
      [
        ['modified', '/archive/a.md'],
        ['modified', '/notes/a.md'],
        ['created', '/notes/a.md'],
      ],
    );

    // Delete: a wrong expected hash is a 409 and deletes nothing.
    const wrong = await failure(memories().delete(made.id, { memory_store_id: store, expected_content_sha256: sha256('alpha') }));
    assert.ok(wrong instanceof Anthropic.ConflictError, String(wrong));
    assert.deepEqual(wrong.error.error, {
      type: 'memory_precondition_failed_error',
      message: `The precondition expected_content_sha256 failed: memory ${made.id} has changed since that hash was read; nothing was deleted.`,
    });
    assert.deepEqual(await memories().delete(made.id, { memory_store_id: store, expected_content_sha256: sha256('alpha, edited') }), {
      id: made.id,
      type: 'memory_deleted',
    });
    const gone = await failure(memories().retrieve(made.id, { memory_store_id: store }));
    assert.ok(gone instanceof Anthropic.NotFoundError, String(gone));
    assert.deepEqual(gone.error.error, { type: 'not_found_error', message: `No memory ${JSON.stringify(made.id)} in this store.` });
  });

  test('path conflicts are 409 memory_path_conflict_error naming what blocks', async () => {
    const taken = await memories().create(store, { path: '/conflict/taken.md', content: 'first' });
    const moving = await memories().create(store, { path: '/conflict/moving.md', content: 'second' });
    const onTaken = `The path /conflict/taken.md conflicts with memory ${taken.id} at /conflict/taken.md.`;
    const cases = [
      ['the same path', () => memories().create(store, { path: '/conflict/taken.md', content: 'again' }), '/conflict/taken.md', taken.id, onTaken],
      [
        'beneath a memory',
        () => memories().create(store, { path: '/conflict/taken.md/under.md', content: 'x' }),
        '/conflict/taken.md',
        taken.id,
        `The path /conflict/taken.md/under.md conflicts with memory ${taken.id} at /conflict/taken.md.`,
      ],
      [
        'a directory holding memories',
        () => memories().create(store, { path: '/conflict', content: 'x' }),
        '/conflict/moving.md',
        moving.id,
        `The path /conflict conflicts with memory ${moving.id} at /conflict/moving.md.`,
      ],
      [
        'a rename onto a memory',
        () => memories().update(moving.id, { memory_store_id: store, path: '/conflict/taken.md' }),
        '/conflict/taken.md',
        taken.id,
        onTaken,
      ],
      [
        // The first memory beneath /conflict is the one moving: it never blocks itself.
        'a rename onto its own directory, which holds another memory',
        () => memories().update(moving.id, { memory_store_id: store, path: '/conflict' }),
        '/conflict/taken.md',
        taken.id,
        `The path /conflict conflicts with memory ${taken.id} at /conflict/taken.md.`,
      ],
    ];
    for (const [what, call, path, id, message] of cases) {
      const e = await failure(call());
      assert.ok(e instanceof Anthropic.ConflictError, `${what}: ${e}`);
      assert.equal(e.status, 409);
      assert.deepEqual(
        e.error.error,
        { type: 'memory_path_conflict_error', conflicting_memory_id: id, conflicting_path: path, message },
        what,
      );
    }
    assert.equal((await memories().retrieve(moving.id, { memory_store_id: store })).path, '/conflict/moving.md');
    // Alone beneath a directory, a memory moves up onto it.
    const alone = await memories().create(store, { path: '/alone/a.md', content: 'a' });
    assert.equal((await memories().update(alone.id, { memory_store_id: store, path: '/alone' })).path, '/alone');
  });

  test('list: path_prefix, depth and view', async () => {
    const s = (await stores().create({ name: 'Listing' })).id;
    const files = { '/a.md': 'A', '/docs/b.md': 'B', '/docs/deep/c.md': 'C', '/docs_backup/d.md': 'D' };
    for (const [path, content] of Object.entries(files)) await memories().create(s, { path, content });

    // In path order, segment by segment.
    const everything = await all(memories().list(s));
    assert.deepEqual(
      everything.map((m) => m.path),
      ['/a.md', '/docs/b.md', '/docs/deep/c.md', '/docs_backup/d.md'],
    );
    assert.ok(everything.every((m) => m.type === 'memory' && (m.content ?? null) === null), 'the basic view has no content');

    const docs = await all(memories().list(s, { path_prefix: '/docs/' }));
    assert.deepEqual(
      docs.map((m) => m.path),
      ['/docs/b.md', '/docs/deep/c.md'],
    );

    const top = await all(memories().list(s, { depth: 1 }));
    assert.deepEqual(
      top.map((m) => [m.type, m.path]),
      [
        ['memory', '/a.md'],
        ['memory_prefix', '/docs/'],
        ['memory_prefix', '/docs_backup/'],
      ],
    );
    const docsTop = await all(memories().list(s, { path_prefix: '/docs/', depth: 1 }));
    assert.deepEqual(
      docsTop.map((m) => [m.type, m.path]),
      [
        ['memory', '/docs/b.md'],
        ['memory_prefix', '/docs/deep/'],
      ],
    );

    const full = await all(memories().list(s, { path_prefix: '/docs/', view: 'full' }));
    assert.deepEqual(full.map((m) => [m.path, m.content]), [
      ['/docs/b.md', 'B'],
      ['/docs/deep/c.md', 'C'],
    ]);
  });

  test('an id of another store is a 404 there', async () => {
    const mine = await memories().create(store, { path: '/mine.md', content: 'mine' });
    const elsewhere = (await stores().create({ name: 'Elsewhere' })).id;
    const calls = {
      'memories.retrieve': () => memories().retrieve(mine.id, { memory_store_id: elsewhere }),
      'memories.update': () => memories().update(mine.id, { memory_store_id: elsewhere, content: 'stolen' }),
      'memories.delete': () => memories().delete(mine.id, { memory_store_id: elsewhere }),
      'memoryVersions.retrieve': () => versions().retrieve(mine.memory_version_id, { memory_store_id: elsewhere }),
      'memoryVersions.redact': () => versions().redact(mine.memory_version_id, { memory_store_id: elsewhere }),
    };
    for (const [what, call] of Object.entries(calls)) {
      const e = await failure(call());
      assert.ok(e instanceof Anthropic.NotFoundError, `${what}: ${e}`);
      assert.equal(e.error.error.type, 'not_found_error', what);
      assert.match(e.error.error.message, what.startsWith('memories') ? /^No memory "mem_/ : /^No memory version "memver_/, what);
    }
    assert.equal((await memories().retrieve(mine.id, { memory_store_id: store })).content, 'mine');
  });
});

describe('versions', () => {
  test('list by memory and operation, retrieve, and redact: the redacted text is gone from the object', async () => {
    const s = (await stores().create({ name: 'Versions' })).id;
    const secret = 'API token sk-live-7f3a9c, do not keep';
    const m = await memories().create(s, { path: '/creds.md', content: secret });
    const kept = await memories().update(m.id, { memory_store_id: s, content: 'the token was rotated' });
    await memories().update(m.id, { memory_store_id: s, content: 'nothing secret here' });
    const bystander = await memories().create(s, { path: '/other.md', content: 'unrelated' });

    const history = await all(versions().list(s, { memory_id: m.id }));
    assert.deepEqual(
      history.map((v) => v.operation),
      ['modified', 'modified', 'created'],
    );
    assert.equal(history[2].id, m.memory_version_id);
    assert.equal(history[1].id, kept.memory_version_id);
    assert.ok(history.every((v) => v.type === 'memory_version' && v.memory_id === m.id && v.memory_store_id === s));
    const created = await all(versions().list(s, { operation: 'created' }));
    assert.deepEqual(
      created.map((v) => v.memory_id),
      [bystander.id, m.id],
    );

    const first = await versions().retrieve(m.memory_version_id, { memory_store_id: s });
    assert.equal(first.content, secret);
    assert.equal(first.content_sha256, sha256(secret));
    assert.equal(first.path, '/creds.md');
    assert.equal(first.operation, 'created');
    assert.deepEqual(first.created_by, actorOf(API_KEYS[0]));

    // The scan does find the text before: it can fail.
    const before = await scan(s, secret);
    assert.ok(before.hits.length > 0, `the text is not in the object before redaction: ${JSON.stringify(before)}`);

    const redacted = await versions().redact(m.memory_version_id, { memory_store_id: s });
    assert.equal(redacted.id, m.memory_version_id);
    assert.match(redacted.redacted_at, ISO);
    assert.deepEqual(redacted.redacted_by, actorOf(API_KEYS[0]));
    for (const field of ['content', 'content_sha256', 'content_size_bytes', 'path']) {
      assert.equal(redacted[field] ?? null, null, field);
    }
    assert.equal(redacted.created_at, first.created_at);
    assert.deepEqual(redacted.created_by, first.created_by);
    assert.deepEqual(await versions().retrieve(m.memory_version_id, { memory_store_id: s }), redacted);

    const afterwards = await scan(s, secret);
    assert.deepEqual(afterwards.hits, [], `the redacted text is still in the object: ${JSON.stringify(afterwards)}`);
    assert.ok(afterwards.keys > 0);
    // (Its SHA-256 may remain in older commits' nodes: docs/memory-stores.md says
    // older commits keep only hashes of what was deleted.)
    // No API key is ever stored, only its digest.
    assert.deepEqual((await scan(s, API_KEYS[0])).hits, []);

    // Every other version still reads back.
    assert.equal((await versions().retrieve(kept.memory_version_id, { memory_store_id: s })).content, 'the token was rotated');
    assert.equal((await memories().retrieve(m.id, { memory_store_id: s })).content, 'nothing secret here');
    assert.equal((await versions().retrieve(bystander.memory_version_id, { memory_store_id: s })).content, 'unrelated');

    // The version holding the live content cannot be redacted.
    const live = await failure(versions().redact(history[0].id, { memory_store_id: s }));
    assert.ok(live instanceof Anthropic.BadRequestError, String(live));
    assert.deepEqual(live.error.error, {
      type: 'invalid_request_error',
      message: `Version ${history[0].id} holds the current content of memory ${m.id}; update or delete the memory first, then redact this version.`,
    });
  });

  test('a renamed memory\'s old path and content are in no byte of the object when the redaction answers', async () => {
    const s = (await stores().create({ name: 'Renamed' })).id;
    await memories().create(s, { path: '/other.md', content: 'other' });
    const m = await memories().create(s, { path: '/ssn-LYNX-4471.md', content: 'lynx one' });
    await memories().create(s, { path: '/later.md', content: 'later' });
    await memories().update(m.id, { memory_store_id: s, path: '/public.md', content: 'lynx two' });
    const [, older] = await all(versions().list(s, { memory_id: m.id }));
    assert.equal(older.path, '/ssn-LYNX-4471.md');
    // The scan finds both before: it can fail.
    assert.ok((await scan(s, 'ssn-LYNX-4471')).hits.length > 0, 'the path is in the object before');
    assert.ok((await scan(s, 'lynx one')).hits.length > 0, 'the content is in the object before');
    assert.equal((await versions().redact(older.id, { memory_store_id: s })).path ?? null, null);
    // Right after the call (this worker's gc runs hourly): in no key or value.
    assert.deepEqual((await scan(s, 'ssn-LYNX-4471')).hits, []);
    assert.deepEqual((await scan(s, 'lynx one')).hits, []);
    assert.deepEqual(
      (await all(memories().list(s))).map((x) => x.path),
      ['/later.md', '/other.md', '/public.md'],
    );
    assert.equal((await memories().retrieve(m.id, { memory_store_id: s })).content, 'lynx two');
  });
});

describe('pages', () => {
  test('for await walks more than 250 memories and more than 250 versions', async (t) => {
    const s = (await stores().create({ name: 'Many' })).id;
    const N = 260;
    const paths = Array.from({ length: N }, (_, i) => `/many/m${String(i).padStart(3, '0')}.md`);
    const started = performance.now();
    const made = [];
    for (const path of paths) made.push(await memories().create(s, { path, content: `note ${path}` }));
    t.diagnostic(`${N} creates: ${(performance.now() - started).toFixed(0)} ms`);

    const listed = await all(memories().list(s));
    assert.equal(listed.length, N);
    assert.deepEqual(
      listed.map((m) => m.path),
      paths,
    );
    assert.deepEqual(new Set(listed.map((m) => m.id)), new Set(made.map((m) => m.id)));

    const full = await all(memories().list(s, { view: 'full', path_prefix: '/many/' }));
    assert.deepEqual(
      full.map((m) => [m.path, m.content]),
      paths.map((p) => [p, `note ${p}`]),
    );

    const log = await all(versions().list(s));
    assert.equal(log.length, N);
    assert.deepEqual(
      log.map((v) => v.id),
      made.map((m) => m.memory_version_id).reverse(),
      'versions newest first',
    );
    t.diagnostic(`listing: ${(performance.now() - started).toFixed(0)} ms in all`);
  });
});

/** `memdir serve` on a free loopback port over `dir`, with `key`: {url, stop()}. */
function startServe(dir, key) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/memdir.js'), 'serve', '--port', '0', '--store', dir], {
      env: { PATH: process.env.PATH, MEMDIR_API_KEYS: key },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      if (out.includes('\n')) {
        const exited = new Promise((r) => child.once('exit', r));
        resolve({ url: out.slice(0, out.indexOf('\n')), stop: () => (child.kill('SIGTERM'), exited) });
      }
    });
    child.on('exit', (code) => reject(new Error(`memdir serve exited ${code}: ${err}`)));
  });
}

/**
 * One session of SDK calls, errors included, as a list of [call, answer]; the
 * answers with ids, times and page tokens replaced by what they stand for, so two
 * servers' sessions compare equal when they answered alike.
 */
async function session(c) {
  const log = [];
  const call = async (what, promise) => {
    try {
      const answer = await promise;
      log.push([what, answer]);
      return answer;
    } catch (e) {
      log.push([what, e.status ?? String(e), e.error ?? null]);
      return undefined;
    }
  };
  const page = async (what, promise) => {
    const p = await promise;
    log.push([what, p.data, p.next_page === null ? null : 'a page token']);
    return p;
  };
  const ms = c.beta.memoryStores;
  const s = await call('store create', ms.create({ name: 'Same', description: 'on both', metadata: { k: 'v' } }));
  await call('store create, no name', ms.create({}));
  await call('store update', ms.update(s.id, { name: 'Same, renamed', metadata: { k: null, j: 'w' } }));
  const a = await call('memory create', ms.memories.create(s.id, { path: '/n/a.md', content: 'alpha' }));
  await call('memory create, full', ms.memories.create(s.id, { path: '/n/b.md', content: 'beta', view: 'full' }));
  await call('memory create, bad path', ms.memories.create(s.id, { path: '/n/../x.md', content: 'x' }));
  await call('memory create, taken', ms.memories.create(s.id, { path: '/n/a.md', content: 'again' }));
  await call('memory create, directory', ms.memories.create(s.id, { path: '/n', content: 'x' }));
  await call('memory retrieve', ms.memories.retrieve(a.id, { memory_store_id: s.id }));
  await call('memory update, stale', ms.memories.update(a.id, { memory_store_id: s.id, content: 'x', precondition: { type: 'content_sha256', content_sha256: sha256('x') } }));
  await call('memory update', ms.memories.update(a.id, { memory_store_id: s.id, content: 'alpha 2', precondition: { type: 'content_sha256', content_sha256: sha256('alpha') } }));
  await call('memory rename', ms.memories.update(a.id, { memory_store_id: s.id, path: '/m/a.md' }));
  const first = await page('memory list, limit 1', ms.memories.list(s.id, { limit: 1 }));
  await page('memory list, page 2', ms.memories.list(s.id, { limit: 1, page: first.next_page }));
  await page('memory list, depth 1', ms.memories.list(s.id, { depth: 1 }));
  await page('memory list, prefix, full', ms.memories.list(s.id, { path_prefix: '/m/', view: 'full' }));
  await call('memory list, bad limit', ms.memories.list(s.id, { limit: 1000 }));
  const history = await page('version list, memory', ms.memoryVersions.list(s.id, { memory_id: a.id }));
  await page('version list, modified', ms.memoryVersions.list(s.id, { operation: 'modified' }));
  const oldest = history.data.at(-1);
  await call('version retrieve', ms.memoryVersions.retrieve(oldest.id, { memory_store_id: s.id }));
  await call('version redact, live', ms.memoryVersions.redact(history.data[0].id, { memory_store_id: s.id }));
  await call('version redact', ms.memoryVersions.redact(oldest.id, { memory_store_id: s.id }));
  await call('version retrieve, redacted', ms.memoryVersions.retrieve(oldest.id, { memory_store_id: s.id }));
  await call('memory delete, stale', ms.memories.delete(a.id, { memory_store_id: s.id, expected_content_sha256: sha256('alpha') }));
  await call('memory delete', ms.memories.delete(a.id, { memory_store_id: s.id, expected_content_sha256: sha256('alpha 2') }));
  await call('memory retrieve, deleted', ms.memories.retrieve(a.id, { memory_store_id: s.id }));
  await call('store archive', ms.archive(s.id));
  await page('store list', ms.list());
  await page('store list, archived', ms.list({ include_archived: true }));
  await call('memory create, archived', ms.memories.create(s.id, { path: '/z.md', content: 'z' }));
  await call('store delete', ms.delete(s.id));
  await call('store retrieve, deleted', ms.retrieve(s.id));

  const ids = new Map();
  const named = (kind, id) => {
    if (!ids.has(id)) ids.set(id, `${kind}#${ids.size}`);
    return ids.get(id);
  };
  return JSON.parse(
    JSON.stringify(log)
      .replace(/memstore_[0-9a-z]+/g, (id) => named('store', id))
      .replace(/\b(mem|memver)_[0-9a-z]+_(\d+)/g, (id, kind, n) => `${kind}#${n}`)
      .replace(/apikey_[0-9a-f]+/g, 'apikey')
      .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, 'a time'),
  );
}

describe('concurrent requests to one store object', () => {
  test('parallel creates all land; parallel creates of one path: one wins, the rest are path conflicts', async () => {
    const s = (await stores().create({ name: 'Busy' })).id;
    const paths = Array.from({ length: 20 }, (_, i) => `/busy/${i}.md`);
    const made = await Promise.all(paths.map((path) => memories().create(s, { path, content: path })));
    assert.equal(new Set(made.map((m) => m.id)).size, 20);
    assert.deepEqual((await all(memories().list(s, { path_prefix: '/busy/' }))).map((m) => m.path).sort(), [...paths].sort());

    const race = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => memories().create(s, { path: '/one.md', content: `writer ${i}` })));
    const won = race.filter((r) => r.status === 'fulfilled');
    const lost = race.filter((r) => r.status === 'rejected').map((r) => r.reason);
    assert.equal(won.length, 1);
    assert.equal(lost.length, 9);
    for (const e of lost) {
      assert.ok(e instanceof Anthropic.ConflictError, String(e));
      assert.equal(e.error.error.type, 'memory_path_conflict_error');
      assert.equal(e.error.error.conflicting_memory_id, won[0].value.id);
    }
    const winner = await memories().retrieve(won[0].value.id, { memory_store_id: s });
    assert.equal(winner.content_sha256, won[0].value.content_sha256);
    assert.equal((await all(versions().list(s, { operation: 'created' }))).length, 21);
  });
});

describe('the same answers as memdir serve', () => {
  test('one session of SDK calls, errors included, answers alike on the worker and on memdir serve', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memdir-serve-'));
    const worker = start();
    const node = await startServe(join(dir, 'stores'), API_KEYS[0]);
    try {
      const workerUrl = await worker.ready;
      const onWorker = await session(new Anthropic({ apiKey: API_KEYS[0], baseURL: workerUrl.origin, maxRetries: 0 }));
      const onNode = await session(new Anthropic({ apiKey: API_KEYS[0], baseURL: node.url, maxRetries: 0 }));
      assert.equal(onWorker.length, 32);
      // Some errors are in the session: it compares refusals too.
      assert.ok(onWorker.filter((entry) => typeof entry[1] === 'number').length >= 10);
      assert.deepEqual(onWorker, onNode);
    } finally {
      await node.stop();
      await worker.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('upkeep in each store object\'s alarm', () => {
  test('versions past MEMDIR_RETENTION go, and their text is nowhere in the object', async () => {
    const upkept = start({ bindings: { MEMDIR_RETENTION: '2s', MEMDIR_UPKEEP_EVERY: '1s' } });
    try {
      const base = await upkept.ready;
      const c = new Anthropic({ apiKey: API_KEYS[0], baseURL: base.origin, maxRetries: 0 });
      const { id } = await c.beta.memoryStores.create({ name: 'Churn' });
      const m = await c.beta.memoryStores.memories.create(id, { path: '/churn.md', content: 'churn KIWI 0' });
      for (let i = 1; i <= 10; i++) await c.beta.memoryStores.memories.update(m.id, { memory_store_id: id, content: `churn KIWI ${i}` });
      const scanned = async (text) => {
        const r = await request(new URL('/__test/store-scan', base), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id, text }),
        });
        return r.json();
      };
      assert.ok((await scanned('churn KIWI 3')).hits.length > 0, 'the text is there before');
      const deadline = Date.now() + 30_000;
      while ((await scanned('churn KIWI 3')).hits.length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual((await scanned('churn KIWI 3')).hits, []);
      assert.deepEqual((await all(c.beta.memoryStores.memoryVersions.list(id))).length, 1);
      assert.equal((await c.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: id })).content, 'churn KIWI 10');
    } finally {
      await upkept.dispose();
    }
  });

  test('with retention off, the alarm\'s gc after a redaction leaves the store whole and the path gone', async () => {
    const upkept = start({ bindings: { MEMDIR_RETENTION: 'off', MEMDIR_UPKEEP_EVERY: '1s' } });
    try {
      const base = await upkept.ready;
      const c = new Anthropic({ apiKey: API_KEYS[0], baseURL: base.origin, maxRetries: 0 });
      const { id } = await c.beta.memoryStores.create({ name: 'Paths' });
      const m = await c.beta.memoryStores.memories.create(id, { path: '/ssn-LYNX-4471.md', content: 'lynx one' });
      await c.beta.memoryStores.memories.update(m.id, { memory_store_id: id, path: '/public.md', content: 'lynx two' });
      const [, older] = await all(c.beta.memoryStores.memoryVersions.list(id, { memory_id: m.id }));
      assert.equal((await c.beta.memoryStores.memoryVersions.redact(older.id, { memory_store_id: id })).path ?? null, null);
      const scanned = async (text) =>
        (
          await request(new URL('/__test/store-scan', base), {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ id, text }),
          })
        ).json();
      assert.deepEqual((await scanned('ssn-LYNX-4471')).hits, []);
      // Two of the alarm's gc passes later (each a second apart), the store reads whole.
      await new Promise((r) => setTimeout(r, 2500));
      assert.deepEqual((await scanned('ssn-LYNX-4471')).hits, []);
      assert.deepEqual((await scanned('lynx one')).hits, []);
      // Retention off: both versions are still listed.
      assert.equal((await all(c.beta.memoryStores.memoryVersions.list(id, { memory_id: m.id }))).length, 2);
      assert.equal((await c.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: id })).content, 'lynx two');
    } finally {
      await upkept.dispose();
    }
  });
});
