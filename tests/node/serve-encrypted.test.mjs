// memdir serve --encryption-key-file (issue 49, docs/encryption.md#memdir-serve), on
// a directory of stores and on a private PostgreSQL cluster, through the official
// SDK's beta.memoryStores: after a workload of stores (names, descriptions,
// metadata) in two workspaces, writes, edits, renames, a redaction and a search,
// every file of the directory and a pg_dump of the database hold no content, no
// path, no store name, description or metadata, no workspace name and no SHA-256
// of a content (the same workload on a plaintext server shows them: the scan can
// fail); a wrong master key, a plaintext catalog with a key and the reverse are
// refused at start in the engine's words, nothing written; a tampered value is a
// damage answer, the other stores unaffected; a deleted store is shredded before
// its data goes (what is left cannot be read with the master key); and
// serve-rekey rewraps the data keys only, resumably.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import pg from 'pg';
import { apiHandler, directoryCatalog, postgresCatalog } from 'memdir/server';
import { encryptionKeyId } from '../../js/core.js';
import { storeSealer } from '../../js/api/seal-stores.js';
import { directoryStore } from '../../js/stores/store-dir.js';
import { customStore } from '../../js/core.js';
import { postgresStore } from '../../js/stores/postgres.js';
import { startPostgres } from './pg-cluster.mjs';
import { MEMDIR_BIN, runNode, startServe, tempDir } from './helpers.mjs';

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** A key file (64 hex characters and a newline) in `dir`; its path and the key as serve reads it. */
function keyFile(dir, name) {
  const hex = randomBytes(32).toString('hex');
  const path = join(dir, name);
  fs.writeFileSync(path, `${hex}\n`, { mode: 0o600 });
  return { path, key: hex, keyId: encryptionKeyId(hex) };
}

const KEYS = 'sk-owner=teamquokka,sk-other=guildwombat';
const WORKSPACES = ['teamquokka', 'guildwombat'];

/**
 * The workload, through the SDK on `url`: resolves what must not be at rest (every
 * text a client sent that is not an id) and what it made.
 */
async function workload(url, tag) {
  const owner = new Anthropic({ apiKey: 'sk-owner', baseURL: url, maxRetries: 0, logLevel: 'off' });
  const other = new Anthropic({ apiKey: 'sk-other', baseURL: url, maxRetries: 0, logLevel: 'off' });
  const texts = {
    name: `Quokkaledger ${tag}`,
    description: `Marmalade archive of Adalbertine ${tag}`,
    metadata: `Pemberwick${tag}`,
    first: `Adalbertine drinks tangerinoolong every Thursday ${tag}.\n`,
    edited: `Adalbertine drinks persimmonoolong every Thursday ${tag}.\n`,
    secret: `the vault combination is zanzibarquill 8675309 ${tag}\n`,
    after: `nothing to see ${tag}\n`,
    otherName: `Wombatrolls ${tag}`,
    otherContent: `Guild meets under the jacarandagrove ${tag}.\n`,
  };
  const paths = ['/people/adalbertine-quokka.md', '/people/renamed-xylophonic.md', '/drafts/vaultwombat.md', '/guild/jacaranda-minutes.md'];
  const store = await owner.beta.memoryStores.create({ name: texts.name, description: texts.description, metadata: { owner: texts.metadata } });
  const m = await owner.beta.memoryStores.memories.create(store.id, { path: paths[0], content: texts.first });
  await owner.beta.memoryStores.memories.update(m.id, { memory_store_id: store.id, content: texts.edited });
  await owner.beta.memoryStores.memories.update(m.id, { memory_store_id: store.id, path: paths[1] });
  const s = await owner.beta.memoryStores.memories.create(store.id, { path: paths[2], content: texts.secret });
  await owner.beta.memoryStores.memories.update(s.id, { memory_store_id: store.id, content: texts.after });
  const versions = [];
  for await (const v of owner.beta.memoryStores.memoryVersions.list(store.id, { memory_id: s.id })) versions.push(v);
  const first = versions.find((v) => v.operation === 'created');
  await owner.beta.memoryStores.memoryVersions.redact(first.id, { memory_store_id: store.id });
  // memdir's own search route (the toolset's memory_search), indexed text included.
  const found = await fetch(`${url}/v1/memory_stores/${store.id}/memories/search?query=persimmonoolong`, { headers: { 'x-api-key': 'sk-owner' } });
  assert.equal(found.status, 200);
  assert.deepEqual((await found.json()).data.map((h) => h.path), [paths[1]]);
  const guild = await other.beta.memoryStores.create({ name: texts.otherName });
  await other.beta.memoryStores.memories.create(guild.id, { path: paths[3], content: texts.otherContent });
  // Read back as written: encryption changes no answer.
  const read = await owner.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: store.id });
  assert.deepEqual([read.path, read.content], [paths[1], texts.edited]);
  const words = Object.values(texts).flatMap((t) => t.split(/[^A-Za-z0-9]+/)).filter((w) => w.length >= 9);
  const names = paths.flatMap((p) => p.split('/').filter(Boolean)).map((n) => n.replace(/\.md$/, ''));
  const hashes = [texts.first, texts.edited, texts.secret, texts.after, texts.otherContent].map(sha256);
  return { secrets: [...new Set([...words, ...names, ...hashes, ...WORKSPACES])], stores: [store.id, guild.id], memory: m.id, texts, paths };
}

/** Which of `secrets` occur in `corpus` (Buffers), with how many times. */
function occurrences(corpus, secrets) {
  const found = {};
  for (const secret of secrets) {
    let n = 0;
    for (const buf of corpus) {
      for (let at = buf.indexOf(secret); at >= 0; at = buf.indexOf(secret, at + 1)) n++;
    }
    if (n > 0) found[secret] = n;
  }
  return found;
}

/** Every file under `root` (dot files and directories included): its bytes, and its path as a name. */
function filesUnder(root) {
  const out = new Map();
  for (const rel of fs.readdirSync(root, { recursive: true })) {
    const path = join(root, rel);
    if (fs.lstatSync(path).isFile()) out.set(relative(root, path), fs.readFileSync(path));
  }
  return out;
}

const dirCorpus = (root) => {
  const files = filesUnder(root);
  return [...files.values(), Buffer.from([...files.keys()].join('\n'))];
};

/** Starts serve on `store` with the two workspaces' keys, optionally a key file. */
const serveOn = (store, key, env = {}) => startServe(['--store', store, ...(key ? ['--encryption-key-file', key.path] : [])], { MEMDIR_API_KEYS: KEYS, ...env }, { timeoutMs: 60_000 });

/** `memdir serve` expected to refuse at start: resolves its exit code and stderr. */
const serveRefused = (store, key) =>
  runNode([MEMDIR_BIN, 'serve', '--port', '0', '--store', store, ...(key ? ['--encryption-key-file', key.path] : [])], { ...process.env, MEMDIR_API_KEYS: KEYS }, 60_000);

describe('memdir serve on a directory, encrypted', () => {
  let dir;
  let root;
  let key;
  let made;
  before(async () => {
    dir = tempDir('memdir-seal-serve-');
    root = join(dir, 'stores');
    key = keyFile(dir, 'master.key');
    // Two instances on one directory share the master key: what one wrote, the other reads.
    const [s, s2] = [await serveOn(root, key), await serveOn(root, key)];
    try {
      made = await workload(s.url, 'dir');
      const c2 = new Anthropic({ apiKey: 'sk-other', baseURL: s2.url, maxRetries: 0, logLevel: 'off' });
      const listed = [];
      for await (const m of c2.beta.memoryStores.memories.list(made.stores[1])) listed.push(m.path);
      assert.deepEqual(listed, [made.paths[3]]);
    } finally {
      await s.stop();
      await s2.stop();
    }
  });

  test('every file under --store: no content, path, name, description, metadata, workspace or content hash', () => {
    assert.deepEqual(occurrences(dirCorpus(root), made.secrets), {});
  });

  test('the same workload on a plaintext server shows them (the scan can fail)', async () => {
    const plain = join(dir, 'plain');
    const s = await serveOn(plain);
    let shown;
    try {
      shown = await workload(s.url, 'dir');
    } finally {
      await s.stop();
    }
    const found = occurrences(dirCorpus(plain), shown.secrets);
    for (const w of ['Quokkaledger', 'persimmonoolong', 'jacarandagrove', 'teamquokka', 'guildwombat', sha256(shown.texts.edited)]) {
      assert.ok(found[w] > 0, `${w} not found in the plaintext server's files`);
    }
  });

  test('a wrong master key, a plaintext catalog with a key and an encrypted one without: refused at start, nothing written', async () => {
    const wrong = keyFile(dir, 'wrong.key');
    const plain = join(dir, 'plain-refused');
    const s = await serveOn(plain);
    await workload(s.url, 'refusal');
    await s.stop();
    const cases = [
      [root, wrong, `memdir: serve: --store: this store is encrypted with key id ${key.keyId}, not ${wrong.keyId}\n`],
      [plain, key, 'memdir: serve: --store: this store is not encrypted: encrypt it first (memdir encrypt)\n'],
      [root, undefined, `memdir: serve: --store: this store is encrypted with key id ${key.keyId}: open it with that key\n`],
    ];
    for (const [store, k, stderr] of cases) {
      const before = filesUnder(store);
      const r = await serveRefused(store, k);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', stderr]);
      assert.deepEqual(filesUnder(store), before);
    }
  });

  test('a key file that is not a key is refused by name, never echoed', async () => {
    const bad = join(dir, 'bad.key');
    fs.writeFileSync(bad, 'not-a-key-0123\n');
    const r = await runNode([MEMDIR_BIN, 'serve', '--port', '0', '--store', root, '--encryption-key-file', bad], { ...process.env, MEMDIR_API_KEYS: KEYS }, 60_000);
    assert.deepEqual([r.code, r.stderr], [2, 'memdir: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n']);
    const missing = await runNode([MEMDIR_BIN, 'serve', '--port', '0', '--store', root, '--encryption-key-file', join(dir, 'none.key')], { ...process.env, MEMDIR_API_KEYS: KEYS }, 60_000);
    assert.deepEqual([missing.code, missing.stderr], [2, 'memdir: --encryption-key-file: the file cannot be read\n']);
  });
});

describe('memdir serve-rekey on a directory', () => {
  test('rewraps each store\'s data key only: every other byte unchanged, the old key refused, a rerun finishes what was left', async () => {
    const dir = tempDir('memdir-seal-rekey-');
    const root = join(dir, 'stores');
    const old = keyFile(dir, 'old.key');
    const next = keyFile(dir, 'new.key');
    const s = await serveOn(root, old);
    const made = await workload(s.url, 'rekey');
    await s.stop();
    const before = filesUnder(root);
    // One store rewrapped first, as a run cut short would leave it.
    const oldSealer = storeSealer(old);
    const first = directoryStore(storeDir(root, made.stores[0]));
    assert.equal(await oldSealer.rewrap(await first.engineStore(), storeSealer(next)), 'rewrapped');
    const r = await runNode([MEMDIR_BIN, 'serve-rekey', '--store', root, '--encryption-key-file', old.path, '--new-key-file', next.path], process.env, 60_000);
    // The two stores and the workspace labels store.
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '{"rewrapped":2,"already":1}\n', '']);
    const after = filesUnder(root);
    const changed = [...before.keys()].filter((f) => !after.get(f)?.equals(before.get(f)));
    const added = [...after.keys()].filter((f) => !before.has(f));
    // Each store's wrapped data key is all that changed (one key's file, or two
    // with the marker), never a file of its data.
    // Each store's encryption record (the file of its key `memdir-seal`) is all that
    // changed, never a file of its data; nothing was added but lock temporaries
    // (this process's own handle on the first store leaves one) and, of this
    // process's rewrap, the empty file it made ahead for its next pack.
    const record = (d) => relative(root, join(d, 'kmemdir-seal'));
    assert.deepEqual(changed.sort(), [join(root, '.memdir-serve'), storeDir(root, made.stores[0]), storeDir(root, made.stores[1])].map(record).sort());
    const ownStageSpare = (f) => f.includes(`/.tmp-stage-${process.pid}-`) && after.get(f).length === 0;
    assert.deepEqual(added.filter((f) => !/\/\.tmp-lock-[^/]*$/.test(f) && !ownStageSpare(f)), []);
    const again = await runNode([MEMDIR_BIN, 'serve-rekey', '--store', root, '--encryption-key-file', old.path, '--new-key-file', next.path], process.env, 60_000);
    assert.deepEqual([again.code, again.stdout], [0, '{"rewrapped":0,"already":3}\n']);
    // The old key opens none of the three; the new one opens each.
    const dirs = [join(root, '.memdir-serve'), storeDir(root, made.stores[0]), storeDir(root, made.stores[1])];
    for (const d of dirs) {
      await assert.rejects(storeSealer(old).open(await directoryStore(d).engineStore()), { name: 'EncryptionError', message: `this store is encrypted with key id ${next.keyId}, not ${old.keyId}` });
      await storeSealer(next).open(await directoryStore(d).engineStore());
    }
    const refused = await serveRefused(root, old);
    assert.deepEqual([refused.code, refused.stderr], [2, `memdir: serve: --store: this store is encrypted with key id ${next.keyId}, not ${old.keyId}\n`]);
    const s2 = await serveOn(root, next);
    try {
      const c = new Anthropic({ apiKey: 'sk-owner', baseURL: s2.url, maxRetries: 0, logLevel: 'off' });
      const read = await c.beta.memoryStores.memories.retrieve(made.memory, { memory_store_id: made.stores[0] });
      assert.deepEqual([read.path, read.content], [made.paths[1], made.texts.edited]);
    } finally {
      await s2.stop();
    }
  });
});

describe('memdir serve-rekey cut short', () => {
  test('killed with SIGKILL partway (later each time, until a cut lands midway), then run again: every store opens under the new key alone, nothing lost', async () => {
    const dir = tempDir('memdir-seal-kill-');
    const root = join(dir, 'stores');
    const old = keyFile(dir, 'old.key');
    const next = keyFile(dir, 'new.key');
    const catalog = directoryCatalog(root, { encryption: old });
    await catalog.ready([]);
    const handle = apiHandler({ catalog, keys: ['k'] });
    const post = async (path, body) => (await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method: 'POST', headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: JSON.stringify(body) }))).json();
    const ids = [];
    for (let i = 0; i < 120; i++) {
      const { id } = await post('', { name: `store ${i}` });
      await post(`/${id}/memories`, { path: '/n.md', content: `note ${i}` });
      ids.push(id);
    }
    await catalog.close();
    const args = [MEMDIR_BIN, 'serve-rekey', '--store', root, '--encryption-key-file', old.path, '--new-key-file', next.path];
    const record = (id) => fs.readFileSync(join(root, id, 'kmemdir-seal'));
    const original = new Map(ids.map((id) => [id, record(id)]));
    const rewrappedNow = () => ids.filter((id) => !record(id).equals(original.get(id))).length;
    // Killed later each time (the process's start, then its stores, take a while
    // that depends on the machine), until one run is cut with some stores done
    // and some not: a state under both keys.
    const cuts = [];
    for (let delay = 100; delay < 5_000 && !cuts.some((n) => n > 0 && n < ids.length); delay += 30) {
      const child = spawn(process.execPath, args, { stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const signal = await new Promise((r) => child.once('exit', (code, sig) => r(sig)));
      clearTimeout(timer);
      if (signal !== 'SIGKILL') break; // it finished: nothing left to cut
      cuts.push(rewrappedNow());
    }
    assert.ok(cuts.some((n) => n > 0 && n < ids.length), `no run was cut midway: ${cuts.join()}`);
    const r = await runNode(args, process.env, 60_000);
    assert.equal(r.code, 0, r.stderr);
    const { rewrapped, already } = JSON.parse(r.stdout);
    // The stores (no workspace but the default: no labels store); the last run
    // finished what the cut ones left.
    assert.deepEqual([rewrapped + already, already], [ids.length, cuts.at(-1)]);
    for (const id of ids) {
      const path = join(root, id);
      await assert.rejects(storeSealer(old).open(await directoryStore(path).engineStore()), { name: 'EncryptionError' });
    }
    const served = directoryCatalog(root, { encryption: next });
    try {
      await served.ready([]);
      const get = apiHandler({ catalog: served, keys: ['k'] });
      for (const [i, id] of ids.entries()) {
        const list = await (await get(new Request(`http://memdir.test/v1/memory_stores/${id}/memories?view=full`, { headers: { 'x-api-key': 'k' } }))).json();
        assert.deepEqual(list.data.map((m) => m.content), [`note ${i}`]);
      }
    } finally {
      await served.close();
    }
    process.stderr.write(`# serve-rekey cut ${cuts.length} times (stores done after each: ${cuts.join(', ')}); the last run rewrapped ${rewrapped}\n`);
  });
});

/** The directory of store `id` under `root`, in whichever workspace's (each named by a label, `ws-w` and 32 hex digits). */
function storeDir(root, id) {
  const dirs = fs.readdirSync(root).filter((n) => n.startsWith('ws-'));
  for (const d of dirs) assert.match(d, /^ws-w[0-9a-f]{32}$/);
  const holding = dirs.filter((d) => fs.existsSync(join(root, d, id)));
  assert.equal(holding.length, 1);
  return join(root, holding[0], id);
}

describe('the directory catalog, encrypted, in process', () => {
  const call = (handle, key) => async (method, path, body) => {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers, body: body && JSON.stringify(body) }));
    return { status: r.status, body: await r.json() };
  };

  test('a deleted store is shredded first: what a removal left cannot be read with the master key', async () => {
    const dir = tempDir('memdir-seal-shred-');
    const root = join(dir, 'stores');
    const key = keyFile(dir, 'master.key');
    const catalog = directoryCatalog(root, { encryption: key });
    await catalog.ready([]);
    const api = call(apiHandler({ catalog, keys: ['k'] }), 'k');
    const rmSync = fs.rmSync;
    try {
      const { id } = (await api('POST', '', { name: 'doomed' })).body;
      assert.equal((await api('POST', `/${id}/memories`, { path: '/a.md', content: 'shredded text' })).status, 200);
      // A copy taken before the delete opens with the master key (the control).
      const copy = join(dir, 'copy');
      fs.cpSync(join(root, id), copy, { recursive: true });
      await storeSealer(key).open(await directoryStore(copy).engineStore());
      // The removal fails: the store's directory stays, renamed away.
      fs.rmSync = () => {
        throw Object.assign(new Error('EBUSY: resource busy'), { code: 'EBUSY' });
      };
      syncBuiltinESMExports();
      assert.deepEqual(await api('DELETE', `/${id}`), { status: 200, body: { id, type: 'memory_store_deleted' } });
      const left = fs.readdirSync(root).filter((n) => n.startsWith(`.deleted-${id}`));
      assert.equal(left.length, 1);
      const remains = join(root, left[0]);
      assert.ok(filesUnder(remains).size > 1, 'the removal left the data');
      await assert.rejects(storeSealer(key).open(await directoryStore(remains).engineStore()), { name: 'EncryptionError', message: SHREDDED });
    } finally {
      fs.rmSync = rmSync;
      syncBuiltinESMExports();
      await catalog.close();
    }
  });

  test('a tampered value is a damage answer, nothing written, the store\'s other reads and the other stores answer as before', async () => {
    const dir = tempDir('memdir-seal-tamper-');
    const root = join(dir, 'stores');
    const key = keyFile(dir, 'master.key');
    let catalog = directoryCatalog(root, { encryption: key });
    await catalog.ready([]);
    let api = call(apiHandler({ catalog, keys: ['k'] }), 'k');
    const a = (await api('POST', '', { name: 'a' })).body.id;
    const b = (await api('POST', '', { name: 'b' })).body.id;
    const raw = directoryStore(join(root, a));
    const before = new Set((await raw.list('')).keys);
    const content = 'text of a, long enough to be the largest value the write stored. '.repeat(80);
    const ma = (await api('POST', `/${a}/memories`, { path: '/a.md', content })).body.id;
    const mb = (await api('POST', `/${b}/memories`, { path: '/b.md', content: 'text of b' })).body.id;
    await catalog.close();
    // The memory's content: the largest value its write added (names are sealed,
    // so it is found by size). One bit of it flipped, written back under its name.
    const added = [];
    for (const k of (await raw.list('')).keys) if (!before.has(k)) added.push([k, await raw.get(k)]);
    const [name, bytes] = added.sort((x, y) => y[1].length - x[1].length)[0];
    assert.ok(bytes.length > content.length, `${bytes.length}`);
    bytes[bytes.length - 1] ^= 1;
    await raw.set(name, bytes);
    const tampered = filesUnder(join(root, a));
    catalog = directoryCatalog(root, { encryption: key });
    await catalog.ready([]);
    api = call(apiHandler({ catalog, keys: ['k'], log: () => {} }), 'k');
    try {
      const r = await api('GET', `/${a}/memories/${ma}`);
      assert.deepEqual(r, { status: 500, body: DAMAGED_ANSWER });
      assert.deepEqual(filesUnder(join(root, a)), tampered);
      const listed = await api('GET', `/${a}/memories`);
      assert.deepEqual([listed.status, listed.body.data.map((m) => m.path)], [200, ['/a.md']]);
      const rb = await api('GET', `/${b}/memories/${mb}`);
      assert.deepEqual([rb.status, rb.body.content], [200, 'text of b']);
    } finally {
      await catalog.close();
    }
  });
});

describe('upkeep on an encrypted directory catalog', () => {
  test('retention and gc delete what no version needs from a sealed store, and it still reads', async () => {
    const { upkeepRound } = await import('../../js/api/upkeep.js');
    const dir = tempDir('memdir-seal-upkeep-');
    const root = join(dir, 'stores');
    const key = keyFile(dir, 'master.key');
    const catalog = directoryCatalog(root, { encryption: key });
    await catalog.ready([]);
    const api = async (method, path, body) => {
      const handle = apiHandler({ catalog, keys: ['k'] });
      const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers: { 'x-api-key': 'k', 'content-type': 'application/json' }, body: body && JSON.stringify(body) }));
      return { status: r.status, body: await r.json() };
    };
    try {
      const id = (await api('POST', '', { name: 'kept' })).body.id;
      const m = (await api('POST', `/${id}/memories`, { path: '/a.md', content: 'version 0' })).body.id;
      for (let i = 1; i <= 10; i++) assert.equal((await api('POST', `/${id}/memories/${m}`, { content: `version ${i}` })).status, 200);
      const raw = directoryStore(join(root, id));
      const before = (await raw.list('')).keys.length;
      // Every version but the current one dropped; gc deletes at its second pass
      // what its first found unreachable.
      const settings = { retentionMs: 0, minAgeMs: 0, keepCommits: 0 };
      await upkeepRound([catalog], settings);
      const r = await upkeepRound([catalog], settings);
      assert.deepEqual([r.stores, r.deleted > 0], [1, true]);
      const after = (await raw.list('')).keys;
      assert.ok(after.length < before, `${after.length} of ${before}`);
      assert.ok(after.includes('memdir-seal'));
      const read = await api('GET', `/${id}/memories/${m}`);
      assert.deepEqual([read.status, read.body.content], [200, 'version 10']);
    } finally {
      await catalog.close();
    }
  });
});

// What the engine answers once a store's wrapped data key is gone, and for a
// damaged stored value (filled in from the core's texts: docs/encryption.md).
const SHREDDED = 'this store is not encrypted: encrypt it first (memdir encrypt)';
const DAMAGED_ANSWER = { type: 'error', error: { type: 'api_error', message: 'The store holds a damaged record; nothing was changed.' } };

describe('memdir serve on PostgreSQL, encrypted', () => {
  let cluster;
  before(async () => {
    cluster = await startPostgres();
  });
  after(() => cluster?.stop());

  // pg_dump's text but its \restrict lines, whose token is random at each run.
  const dump = (db) => cluster.dump(db).replace(/^\\(un)?restrict .*$/gm, '');

  /** The database as pg_dump writes it, and every bytea in it decoded. */
  function dumpCorpus(db) {
    const text = dump(db);
    const decoded = [...text.matchAll(/\\\\x([0-9a-f]+)/g)].map((m) => Buffer.from(m[1], 'hex'));
    return [Buffer.from(text), ...decoded];
  }

  test('a pg_dump after the workload: no content, path, name, description, metadata, workspace or content hash; the plaintext control shows them', async () => {
    cluster.psql('CREATE DATABASE sealed');
    cluster.psql('CREATE DATABASE plain');
    const dir = tempDir('memdir-seal-pg-');
    const key = keyFile(dir, 'master.key');
    // Two instances on one database share the master key.
    const [s1, s2] = [await serveOn(cluster.url('sealed'), key), await serveOn(cluster.url('sealed'), key)];
    let made;
    try {
      made = await workload(s1.url, 'pg');
      const c2 = new Anthropic({ apiKey: 'sk-owner', baseURL: s2.url, maxRetries: 0, logLevel: 'off' });
      const read = await c2.beta.memoryStores.memories.retrieve(made.memory, { memory_store_id: made.stores[0] });
      assert.deepEqual([read.path, read.content], [made.paths[1], made.texts.edited]);
    } finally {
      await s1.stop();
      await s2.stop();
    }
    assert.deepEqual(occurrences(dumpCorpus('sealed'), made.secrets), {});
    const p = await serveOn(cluster.url('plain'));
    let shown;
    try {
      shown = await workload(p.url, 'pg');
    } finally {
      await p.stop();
    }
    const found = occurrences(dumpCorpus('plain'), shown.secrets);
    for (const w of ['Quokkaledger', 'persimmonoolong', 'jacarandagrove', 'teamquokka', 'guildwombat', sha256(shown.texts.edited)]) assert.ok(found[w] > 0, `${w} not in the plaintext dump`);
    // Refusals at start, nothing written.
    const wrong = keyFile(dir, 'wrong.key');
    const cases = [
      ['sealed', wrong, `memdir: serve: --store: this store is encrypted with key id ${key.keyId}, not ${wrong.keyId}\n`],
      ['plain', key, 'memdir: serve: --store: this store is not encrypted: encrypt it first (memdir encrypt)\n'],
      ['sealed', undefined, `memdir: serve: --store: this store is encrypted with key id ${key.keyId}: open it with that key\n`],
    ];
    for (const [db, k, stderr] of cases) {
      const before = dump(db);
      const r = await serveRefused(cluster.url(db), k);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', stderr]);
      assert.equal(dump(db), before);
    }
  });

  test('a tampered row is a damage answer, other stores unaffected; a delete shreds first; serve-rekey rewraps only', async () => {
    cluster.psql('CREATE DATABASE ops');
    const url = cluster.url('ops');
    const dir = tempDir('memdir-seal-pgops-');
    const key = keyFile(dir, 'master.key');
    const catalog = postgresCatalog(url, { encryption: key });
    await catalog.ready([]);
    const api = call(apiHandler({ catalog, keys: ['k'], log: () => {} }), 'k');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const a = (await api('POST', '', { name: 'a' })).body.id;
      const b = (await api('POST', '', { name: 'b' })).body.id;
      const content = 'text of a, long enough to be the largest value the write stored. '.repeat(80);
      const ma = (await api('POST', `/${a}/memories`, { path: '/a.md', content })).body.id;
      const mb = (await api('POST', `/${b}/memories`, { path: '/b.md', content: 'text of b' })).body.id;
      // Rekey: every row but the wrapped keys unchanged.
      const rows = async () => new Map((await client.query('SELECT namespace || \' \' || key AS k, md5(value) AS v FROM memdir_kv')).rows.map((r) => [r.k, r.v]));
      const before = await rows();
      const next = keyFile(dir, 'next.key');
      const { rewrapStores } = await import('../../bin/serve.js');
      assert.deepEqual(await rewrapStores({ store: url, encryption: key, next }), { rewrapped: 3, already: 0 });
      const after = await rows();
      assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
      const changed = [...before.keys()].filter((k) => after.get(k) !== before.get(k));
      assert.equal(changed.length, 3, JSON.stringify(changed));
      assert.deepEqual(await rewrapStores({ store: url, encryption: key, next }), { rewrapped: 0, already: 3 });
      for (const ns of ['.memdir-serve', a, b]) {
        const raw = postgresStore(url, { namespace: ns });
        try {
          await assert.rejects(storeSealer(key).open(customStore(raw)), { name: 'EncryptionError', message: `this store is encrypted with key id ${next.keyId}, not ${key.keyId}` });
        } finally {
          await raw.close();
        }
      }
      const fresh = postgresCatalog(url, { encryption: next });
      await fresh.check();
      await fresh.ready([]);
      const api2 = call(apiHandler({ catalog: fresh, keys: ['k'], log: () => {} }), 'k');
      try {
        // Tamper: one bit flipped of the memory's content (names are sealed: the
        // largest value of store a).
        const flipped = await client.query(
          `UPDATE memdir_kv SET value = set_byte(value, length(value) - 1, get_byte(value, length(value) - 1) # 1)
            WHERE namespace = $1 AND key = (SELECT key FROM memdir_kv WHERE namespace = $1 ORDER BY length(value) DESC LIMIT 1) RETURNING length(value) AS n`,
          [a],
        );
        assert.ok(flipped.rows[0].n > content.length);
        const tampered = await rows();
        assert.deepEqual(await api2('GET', `/${a}/memories/${ma}`), { status: 500, body: DAMAGED_ANSWER });
        assert.deepEqual(await rows(), tampered);
        const rb = await api2('GET', `/${b}/memories/${mb}`);
        assert.deepEqual([rb.status, rb.body.content], [200, 'text of b']);
        // Shred: the row and keys' delete fails (a trigger), the shredding has happened.
        await client.query(`CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql`);
        await client.query('CREATE TRIGGER refuse BEFORE DELETE ON memdir_stores FOR EACH STATEMENT EXECUTE FUNCTION refuse()');
        const del = await api2('DELETE', `/${b}`);
        assert.equal(del.status, 500);
        const left = (await client.query('SELECT count(*)::int AS n FROM memdir_kv WHERE namespace = $1', [b])).rows[0].n;
        assert.ok(left > 1, `${left} rows left`);
        const remains = postgresStore(url, { namespace: b });
        try {
          await assert.rejects(storeSealer(next).open(customStore(remains)), { name: 'EncryptionError', message: SHREDDED });
        } finally {
          await remains.close();
        }
      } finally {
        await fresh.close();
      }
    } finally {
      await client.end();
      await catalog.close();
    }
  });

  test('a store another instance deletes between its lookup and its opening read answers 404, not 500', async () => {
    cluster.psql('CREATE DATABASE race');
    const url = cluster.url('race');
    const key = keyFile(tempDir('memdir-seal-race-'), 'master.key');
    const maker = postgresCatalog(url, { encryption: key });
    await maker.ready([]);
    const id = (await call(apiHandler({ catalog: maker, keys: ['k'] }), 'k')('POST', '', { name: 'raced' })).body.id;
    await maker.close();
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    // Another instance's delete lands right after this one's lookup of the row.
    const query = pg.Pool.prototype.query;
    let armed = true;
    pg.Pool.prototype.query = async function (q, ...rest) {
      const r = await query.call(this, q, ...rest);
      if (armed && /^SELECT 1 FROM memdir_stores WHERE id = \$1 AND workspace = \$2$/.test(q?.text ?? '')) {
        armed = false;
        await other.query('DELETE FROM memdir_stores WHERE id = $1', [id]);
      }
      return r;
    };
    const catalog = postgresCatalog(url, { encryption: key });
    try {
      await catalog.ready([]);
      const api = call(apiHandler({ catalog, keys: ['k'], log: () => {} }), 'k');
      assert.deepEqual(await api('GET', `/${id}/memories`), { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'No memory store with this id.' } } });
      assert.equal(armed, false);
    } finally {
      pg.Pool.prototype.query = query;
      await other.end();
      await catalog.close();
    }
  });

  const call = (handle, key) => async (method, path, body) => {
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers, body: body && JSON.stringify(body) }));
    return { status: r.status, body: await r.json() };
  };
});
