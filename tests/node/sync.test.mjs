// Sync over HTTP: two directory stores (two devices) and memdir serve between
// them, through the package's syncMemory and the official SDK's client for the
// remote's side of the story. Exact summaries and contents; a sync with nothing
// changed makes no new version on either side; a connection cut after each request
// in turn, then a rerun, converges with no duplicate.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { MEMDIR_BIN, isOwnSpare, memdir, runNode, startServe, tempDir } from './helpers.mjs';

const KEY = 'sync-key';
let server;
let client;
before(async () => {
  server = await startServe(['--store', tempDir('memdir-sync-serve-')], { MEMDIR_API_KEYS: KEY });
  client = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
});
after(() => server?.stop());

const device = () => memdir.openMemory({ store: memdir.directoryStore(tempDir('memdir-sync-device-')) });
const read = async (memory) => {
  const r = await memory.api({ op: 'memory.list', query: { view: 'full', limit: '20' } });
  return Object.fromEntries(r.body.data.map((m) => [m.path, m.content]));
};
const versions = async (memory) => (await memory.api({ op: 'version.list', query: { limit: '100' } })).body.data.length;

test('two devices sync through memdir serve: copies, merges, conflicts, nothing written when nothing changed', async () => {
  const store = await client.beta.memoryStores.create({ name: 'Devices' });
  const options = { baseURL: server.url, apiKey: KEY, storeId: store.id };
  const [laptop, phone] = [await device(), await device()];
  await laptop.execute({ command: 'create', path: '/memories/plan.md', file_text: 'one\ntwo\nthree\n' });

  assert.deepEqual(await memdir.syncMemory(laptop, options), { pulled: 0, pushed: 1, merged: 0, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await phone.sync(options), { pulled: 1, pushed: 0, merged: 0, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await read(phone), { '/plan.md': 'one\ntwo\nthree\n' });

  // Edits to different lines on each device merge; the remote holds both.
  await laptop.execute({ command: 'str_replace', path: '/memories/plan.md', old_str: 'one', new_str: 'one (laptop)' });
  await phone.execute({ command: 'str_replace', path: '/memories/plan.md', old_str: 'three', new_str: 'three (phone)' });
  assert.deepEqual(await laptop.sync(options), { pulled: 0, pushed: 1, merged: 0, conflicts: 0, unchanged: 0 });
  assert.deepEqual(await phone.sync(options), { pulled: 0, pushed: 0, merged: 1, conflicts: 0, unchanged: 0 });
  const [memory] = (await client.beta.memoryStores.memories.list(store.id, { view: 'full' })).data;
  assert.equal(memory.content, 'one (laptop)\ntwo\nthree (phone)\n');

  // The same line on both: both texts stay, between markers.
  await laptop.sync(options);
  await laptop.execute({ command: 'str_replace', path: '/memories/plan.md', old_str: 'two', new_str: 'two: laptop' });
  await phone.execute({ command: 'str_replace', path: '/memories/plan.md', old_str: 'two', new_str: 'two: phone' });
  await laptop.sync(options);
  assert.deepEqual(await phone.sync(options), { pulled: 0, pushed: 0, merged: 0, conflicts: 1, unchanged: 0 });
  await laptop.sync(options);
  const conflict = 'one (laptop)\n<<<<<<< ours\ntwo: phone\n=======\ntwo: laptop\n>>>>>>> theirs\nthree (phone)\n';
  assert.deepEqual(await read(laptop), { '/plan.md': conflict });
  assert.deepEqual(await read(phone), { '/plan.md': conflict });

  // Nothing changed: no new version anywhere.
  const counts = [await versions(laptop), await versions(phone), (await client.beta.memoryStores.memoryVersions.list(store.id, { limit: 100 })).data.length];
  assert.deepEqual(await laptop.sync(options), { pulled: 0, pushed: 0, merged: 0, conflicts: 0, unchanged: 1 });
  assert.deepEqual(await phone.sync(options), { pulled: 0, pushed: 0, merged: 0, conflicts: 0, unchanged: 1 });
  assert.deepEqual([await versions(laptop), await versions(phone), (await client.beta.memoryStores.memoryVersions.list(store.id, { limit: 100 })).data.length], counts);
  laptop.close();
  phone.close();
});

test('a connection cut after each request in turn, then a rerun: the same memories, no duplicates', async (t) => {
  const store = await client.beta.memoryStores.create({ name: 'Cut' });
  for (let cut = 0; ; cut++) {
    const [a, b] = [await device(), await device()];
    for (const [i, m] of [a, b].entries()) {
      await m.execute({ command: 'create', path: `/memories/from-${i}.md`, file_text: `device ${i}\n` });
      await m.execute({ command: 'create', path: '/memories/both.md', file_text: `both ${i}\n` });
    }
    const remoteStore = await client.beta.memoryStores.create({ name: `cut ${cut}` });
    const options = { baseURL: server.url, apiKey: KEY, storeId: remoteStore.id };
    await a.sync(options);
    // b's sync, its connection dropped after `cut` requests (the request at `cut`
    // is sent and carried out, its answer lost).
    let sent = 0;
    const cutting = async (url, init) => {
      const r = await fetch(url, init);
      if (sent++ === cut) throw new TypeError('fetch failed');
      return r;
    };
    const first = await b.sync({ ...options, fetch: cutting }).then(() => 'finished', (e) => e.name);
    await b.sync(options);
    await a.sync(options);
    await b.sync(options);
    const [ca, cb] = [await read(a), await read(b)];
    assert.deepEqual(ca, cb, `cut at request ${cut}`);
    assert.deepEqual(Object.keys(ca).sort(), ['/both.md', '/from-0.md', '/from-1.md'], `cut at request ${cut}`);
    assert.equal(ca['/both.md'], '<<<<<<< ours\nboth 1\n=======\nboth 0\n>>>>>>> theirs\n', `cut at request ${cut}`);
    a.close();
    b.close();
    if (first === 'finished') {
      t.diagnostic(`cut after each of ${cut} requests in turn, then a sync with all of them: each converged`);
      break;
    }
    assert.equal(first, 'SyncError');
  }
  await client.beta.memoryStores.delete(store.id);
});

test('bad options are refused before any request', async () => {
  const m = await device();
  await assert.rejects(m.sync({ baseURL: 'ftp://x', apiKey: 'k', storeId: 'memstore_a' }), { name: 'TypeError', message: 'sync: baseURL must be an http or https URL' });
  await assert.rejects(m.sync({ baseURL: server.url, apiKey: '', storeId: 'memstore_a' }), { message: "sync: apiKey must be the remote's API key (a non-empty string)" });
  await assert.rejects(m.sync({ baseURL: server.url, apiKey: 'k', storeId: '../x' }), { message: 'sync: storeId must be a memory store id (memstore_…)' });
  // A refused key: the remote's answer, named, its text not shown.
  await assert.rejects(m.sync({ baseURL: server.url, apiKey: 'wrong', storeId: 'memstore_abcdefghjkmn0123456789ab' }), {
    name: 'SyncError',
    message: 'The remote memory store refused to list its memories (401 authentication_error); nothing more was synced.',
  });
  m.close();
});

test('the CLI syncs a store directory: one line, the key from a file or the environment', async () => {
  const store = await client.beta.memoryStores.create({ name: 'CLI' });
  await client.beta.memoryStores.memories.create(store.id, { path: '/remote.md', content: 'from the remote\n' });
  const dir = tempDir('memdir-sync-cli-');
  const keyFile = join(tempDir('memdir-sync-key-'), 'key');
  writeFileSync(keyFile, `${KEY}\n`);
  const env = { PATH: process.env.PATH };
  const cli = (args, extra = {}) => runNode([MEMDIR_BIN, '--store', join(dir, 'store'), ...args], { ...env, ...extra });
  assert.deepEqual(await cli(['create', 'local.md', 'from the CLI']), { code: 0, stdout: 'File created successfully at: /memories/local.md\n', stderr: '' });
  const sync = ['sync', '--remote', server.url, '--remote-store', store.id];
  assert.deepEqual(await cli([...sync, '--key-file', keyFile]), { code: 0, stdout: 'pulled 1, pushed 1, merged 0, conflicts 0, unchanged 0\n', stderr: '' });
  assert.deepEqual(await cli(sync, { ANTHROPIC_API_KEY: KEY }), { code: 0, stdout: 'pulled 0, pushed 0, merged 0, conflicts 0, unchanged 2\n', stderr: '' });
  assert.equal((await cli(['view', 'remote.md'])).stdout, "Here's the content of /memories/remote.md with line numbers:\n     1\tfrom the remote\n     2\t\n");
  const paths = (await client.beta.memoryStores.memories.list(store.id)).data.map((m) => m.path).sort();
  assert.deepEqual(paths, ['/local.md', '/remote.md']);
  // A missing key and a refused one: a usage error (2), the sync's own error (1).
  assert.deepEqual(await cli(sync), { code: 2, stdout: '', stderr: "memdir: sync needs the remote's key: --key-file FILE or $ANTHROPIC_API_KEY\n" });
  assert.deepEqual(await cli(sync, { ANTHROPIC_API_KEY: 'wrong' }), {
    code: 1,
    stdout: '',
    stderr: 'memdir: The remote memory store refused to list its memories (401 authentication_error); nothing more was synced.\n',
  });
});

test('a sync of 2,000 memories with nothing changed reads one list and writes nothing', async (t) => {
  const store = await client.beta.memoryStores.create({ name: 'Large' });
  const options = { baseURL: server.url, apiKey: KEY, storeId: store.id };
  const m = await device();
  await m.import(Array.from({ length: 2000 }, (_, i) => ({ path: `/memories/n/${i}.md`, content: `note ${i}\n` })));
  const first = await m.sync(options);
  assert.deepEqual(first, { pulled: 0, pushed: 2000, merged: 0, conflicts: 0, unchanged: 0 });
  let requests = 0;
  let bytes = 0;
  const methods = new Set();
  const counting = async (url, init) => {
    requests += 1;
    methods.add(init.method);
    bytes += String(url).length + (init.body?.length ?? 0);
    const r = await fetch(url, init);
    const body = await r.arrayBuffer();
    bytes += body.byteLength;
    return new Response(body, { status: r.status, headers: r.headers });
  };
  const before = (await client.beta.memoryStores.memoryVersions.list(store.id, { limit: 1 })).data[0].id;
  assert.deepEqual(await m.sync({ ...options, fetch: counting }), { pulled: 0, pushed: 0, merged: 0, conflicts: 0, unchanged: 2000 });
  assert.equal(requests, 20);
  assert.deepEqual([...methods], ['GET']);
  assert.equal((await client.beta.memoryStores.memoryVersions.list(store.id, { limit: 1 })).data[0].id, before);
  t.diagnostic(`no-change sync of 2,000 memories: ${requests} requests, all GET, ${(bytes / 1024).toFixed(1)} KiB moved`);
  m.close();
});

/** Every file of the store directory `dir` (its locks and temporaries too, not this process's spare files), with its bytes. */
const files = (dir) => Object.fromEntries(readdirSync(dir).filter((f) => !isOwnSpare(f, dir)).map((f) => [f, readFileSync(join(dir, f), 'hex')]));

test('a store mounted read-only is refused before any request: not a file written in it, nothing pushed out', async () => {
  const store = await client.beta.memoryStores.create({ name: 'Read-only' });
  const options = { baseURL: server.url, apiKey: KEY, storeId: store.id };
  const dir = tempDir('memdir-sync-read-only-');
  const writer = await memdir.openMemory({ store: memdir.directoryStore(dir) });
  await writer.execute({ command: 'create', path: '/memories/local.md', file_text: 'only here\n' });
  writer.close();
  const before = files(dir);
  // The review's case: the store alone, read-only.
  const memory = await memdir.openMemory({ mounts: [{ name: '', store: memdir.directoryStore(dir), access: 'read_only' }] });
  await assert.rejects(memdir.syncMemory(memory, options), {
    name: 'SyncError',
    message: 'This memory store is mounted read-only, and a sync writes to both stores; nothing was synced.',
  });
  memory.close();
  assert.deepEqual(files(dir), before);
  assert.deepEqual((await client.beta.memoryStores.memories.list(store.id)).data, []);
});

test('a memory of several stores syncs the one its mount names', async () => {
  const store = await client.beta.memoryStores.create({ name: 'Mounts' });
  const options = { baseURL: server.url, apiKey: KEY, storeId: store.id };
  const [teamDir, meDir] = [tempDir('memdir-sync-team-'), tempDir('memdir-sync-me-')];
  const me = await memdir.openMemory({ store: memdir.directoryStore(meDir) });
  await me.execute({ command: 'create', path: '/memories/mine.md', file_text: 'mine\n' });
  me.close();
  const memory = await memdir.openMemory({
    mounts: [
      { name: 'team', store: memdir.directoryStore(teamDir), access: 'read_only' },
      { name: 'me', store: memdir.directoryStore(meDir) },
    ],
  });
  await assert.rejects(memory.sync(options), { name: 'Error', message: "sync works on one store: name its mount (mount: 'name') or open that store alone" });
  await assert.rejects(memory.sync({ ...options, mount: 'nope' }), { name: 'Error', message: 'sync: no memory store is mounted at "nope"' });
  await assert.rejects(memory.sync({ ...options, mount: 1 }), { name: 'TypeError', message: 'sync: mount must be the name of a mount (a string)' });
  await assert.rejects(memory.sync({ ...options, mount: 'team' }), {
    name: 'SyncError',
    message: 'This memory store is mounted read-only, and a sync writes to both stores; nothing was synced.',
  });
  assert.deepEqual(await memory.sync({ ...options, mount: 'me' }), { pulled: 0, pushed: 1, merged: 0, conflicts: 0, unchanged: 0 });
  const [pushed] = (await client.beta.memoryStores.memories.list(store.id, { view: 'full' })).data;
  assert.deepEqual([pushed.path, pushed.content], ['/mine.md', 'mine\n']);
  memory.close();
});

test('a redirect is not followed: the other origin receives nothing, not the key, not a listing', async () => {
  const listen = (srv) => new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${srv.address().port}`)));
  // Two ports, two origins: the remote named, and where it points.
  const received = [];
  const other = createServer((req, res) => {
    received.push(`${req.method} ${req.url} ${req.headers['x-api-key']}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":[],"next_page":null}');
  });
  let status = 0;
  const asked = [];
  const named = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    res.writeHead(status, { location: `${otherURL}${req.url}` }).end();
  });
  const otherURL = await listen(other);
  const baseURL = await listen(named);
  try {
    const m = await device();
    await m.execute({ command: 'create', path: '/memories/secret.md', file_text: 'not for the other origin\n' });
    const storeId = 'memstore_abcdefghjkmn0123456789ab';
    for (status of [301, 302, 303, 307, 308]) {
      asked.length = 0;
      await assert.rejects(m.sync({ baseURL, apiKey: 'redirect-test-key', storeId }), {
        name: 'SyncError',
        message: 'The remote memory store answered with a redirect, which sync does not follow (the key goes to the URL given and nowhere else); nothing more was synced.',
      });
      // The sync stopped at its first request.
      assert.deepEqual(asked, [`GET /v1/memory_stores/${storeId}/memories?limit=100`], String(status));
    }
    assert.deepEqual(received, []);
    m.close();
  } finally {
    named.close();
    other.close();
  }
});
