// Encryption at rest through the npm package on Node (docs/encryption.md): after a
// workload of creates, edits, renames, API writes, search-indexed and embedded text
// and a redaction, no stored byte of the in-memory store, of a directory store (every
// file's name and bytes) or of a custom store holds any content, path, or SHA-256
// of a content; tampered values read as damage and write nothing; the wrong key, a
// missing key and a plaintext store opened with a key are refused in the engine's
// words, the store unchanged; rekey and encryptStore keep every memory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { glue } from '../../js/glue.js';
import { testEmbedder } from '../../examples/embedders/test-embedder.mjs';
import { MapStore, memdir, tempDir } from './helpers.mjs';

// Fixed keys, so a failure reproduces; a key is 32 bytes of anything.
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i * 7 + 1);
const OTHER = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
const hex = (bytes) => Buffer.from(bytes).toString('hex');

const DAMAGED = "The memory directory's storage is damaged: a stored record is missing or unreadable.";
// The one value stored in clear: the seal's record (the key id, the names' tag and
// the wrapped data key), which opening reads and refuses in its own words.
const RECORD_NAMES = ['memdir-seal'];
const idOf = (key, keyId) => memdir.encryptionKeyId(key, keyId);

/**
 * The workload every store kind runs: creates, a str_replace, an insert, a file
 * and a directory renamed, API creates and updates, a search (so the index is
 * stored), and a redaction. Resolves every content written and every path used.
 */
async function workload(memory) {
  const contents = [];
  const paths = [];
  const create = async (path, text) => {
    await memory.create({ path, file_text: text });
    contents.push(text);
    paths.push(path);
  };
  await create('/memories/projects/quokkafjord.md', 'Quokkafjord meeting: the budget is 8141 crowns.\n');
  await create('/memories/recipes/wombatlagoon.md', 'Wombatlagoon recipe: saffron and cardamom.\n');
  await memory.str_replace({ path: '/memories/projects/quokkafjord.md', old_str: '8141 crowns', new_str: '9252 pelicanmarble' });
  contents.push('Quokkafjord meeting: the budget is 9252 pelicanmarble.\n');
  await memory.insert({ path: '/memories/recipes/wombatlagoon.md', insert_line: 1, insert_text: 'Serve with narwhalbiscuit.' });
  contents.push('Wombatlagoon recipe: saffron and cardamom.\nServe with narwhalbiscuit.\n');
  await memory.rename({ old_path: '/memories/recipes', new_path: '/memories/ibexvault' });
  paths.push('/memories/ibexvault/wombatlagoon.md');
  await memory.rename({ old_path: '/memories/projects/quokkafjord.md', new_path: '/memories/projects/heronspire.md' });
  paths.push('/memories/projects/heronspire.md');
  const api = async (request) => {
    const r = await memory.api({ query: {}, body: null, ...request });
    assert.ok(r.status === 200, JSON.stringify(r.body));
    return r.body;
  };
  const m = await api({ op: 'memory.create', body: { path: '/glacierotter.md', content: 'Glacierotter holds marmotcipher.\n' } });
  contents.push('Glacierotter holds marmotcipher.\n');
  paths.push('/glacierotter.md', '/memories/glacierotter.md');
  await api({ op: 'memory.update', id: m.id, body: { content: 'Glacierotter now holds tapirlantern.\n' } });
  contents.push('Glacierotter now holds tapirlantern.\n');
  const hits = await memory.search('narwhalbiscuit', { mode: 'lexical' });
  assert.deepEqual(hits.map((h) => h.path), ['/memories/ibexvault/wombatlagoon.md']);
  await memory.search('tapirlantern');
  // A redaction: the memory renamed away from its secret name, then its first
  // version redacted.
  const r = await api({ op: 'memory.create', body: { path: '/lynxharbor.md', content: 'Lynxharbor gravelmoth.\n' } });
  contents.push('Lynxharbor gravelmoth.\n');
  paths.push('/lynxharbor.md', '/memories/lynxharbor.md');
  await api({ op: 'memory.update', id: r.id, body: { path: '/public-note.md', content: 'Public now.\n' } });
  contents.push('Public now.\n');
  paths.push('/public-note.md');
  await api({ op: 'version.redact', id: r.id.replace('mem_', 'memver_') });
  await memory.search('gravelmoth');
  assert.deepEqual((await memory.searchStatus()).pending, false);
  // Every live text embedded: its vector stored beside the index.
  await memory.reindex();
  return { contents, paths };
}

/** The words of the workload no other text shares: what a search index would hold. */
const WORDS = ['quokkafjord', 'wombatlagoon', 'pelicanmarble', 'narwhalbiscuit', 'ibexvault', 'heronspire', 'glacierotter', 'marmotcipher', 'tapirlantern', 'lynxharbor', 'gravelmoth'];

/**
 * Every needle a store must not hold, by what it is: each content whole, each path
 * and each of its names, each word, each content's SHA-256 as hex and raw.
 */
function needles({ contents, paths }) {
  const out = { content: [], path: [], word: [], sha256: [] };
  for (const c of contents) {
    out.content.push(Buffer.from(c));
    const digest = createHash('sha256').update(c).digest();
    out.sha256.push(Buffer.from(digest.toString('hex')), digest);
  }
  for (const p of paths) {
    out.path.push(Buffer.from(p));
    for (const name of p.split('/').filter((n) => n.length >= 6 && n !== 'memories')) out.path.push(Buffer.from(name));
  }
  for (const w of WORDS) out.word.push(Buffer.from(w), Buffer.from(w[0].toUpperCase() + w.slice(1)));
  // A stored vector's magic (src/search/vectors.rs), and its key's prefix.
  out.vector = [Buffer.from('MDVE'), Buffer.from('vec/')];
  return out;
}

/** The needles found in `blobs` (Buffers), by kind: `{content: [...], …}` of their texts. */
function found(blobs, all) {
  const hits = {};
  for (const [kind, list] of Object.entries(all)) {
    hits[kind] = list.filter((n) => blobs.some((b) => b.includes(n))).map((n) => (n.length === 32 && kind === 'sha256' ? `raw:${n.toString('hex')}` : n.toString()));
  }
  return hits;
}
const NOTHING = { content: [], path: [], word: [], sha256: [], vector: [] };

/** Every key and value of a native store handle, as Buffers. */
async function nativeBlobs(handle) {
  const out = [];
  for (const [key, value] of await glue.rawEntries(handle)) out.push(Buffer.from(key), Buffer.from(value));
  return out;
}

/** Every file name (relative) and file under `dir`, as Buffers. */
function dirBlobs(dir, prefix = '') {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    out.push(Buffer.from(prefix + e.name));
    if (e.isDirectory()) out.push(...dirBlobs(join(dir, e.name), `${prefix}${e.name}/`));
    else if (e.isFile()) out.push(readFileSync(join(dir, e.name)));
  }
  return out;
}

/** A custom store's keys and values, as Buffers. */
const mapBlobs = (s) => [...s.map].flatMap(([k, v]) => [Buffer.from(k), Buffer.from(v)]);

const API_DAMAGED = 'The store holds a damaged record; nothing was changed.';

/**
 * What a reader sees of a memory: every entry, a search, the API's versions. An
 * API error answer rejects with its message, as the other calls do.
 */
async function readAll(memory) {
  const entries = await memory.entries();
  const search = await memory.search('pelicanmarble');
  const listed = await memory.api({ op: 'version.list', query: {}, body: null });
  if (listed.status !== 200) throw new Error(listed.body.error.message);
  return { entries, search, versions: listed.body.data.map((v) => [v.operation, v.path ?? null, v.content_sha256 ?? null]) };
}

// Each store kind: a fresh store, and its every stored byte.
const KINDS = {
  memory: () => {
    const store = memdir.inMemoryStore();
    return { store, blobs: () => nativeBlobs(store) };
  },
  directory: () => {
    const dir = join(tempDir('memdir-enc-'), 'store');
    return { store: memdir.directoryStore(dir), blobs: async () => dirBlobs(dir) };
  },
  custom: () => {
    const store = new MapStore();
    return { store, blobs: async () => mapBlobs(store) };
  },
};

describe('no stored byte holds a content, a path or a content hash', () => {
  for (const [kind, make] of Object.entries(KINDS)) {
    test(`the ${kind} store, encrypted`, async () => {
      const { store, blobs } = make();
      const memory = await memdir.openMemory({ store, encryption: { key: KEY }, clock: () => 1_700_000_000_000, embedder: testEmbedder() });
      const written = await workload(memory);
      const before = await readAll(memory);
      memory.close();
      assert.deepEqual(found(await blobs(), needles(written)), NOTHING);
      // And the memory reads whole again with the key.
      const again = await memdir.openMemory({ store, encryption: { key: KEY }, clock: () => 1_700_000_000_000, embedder: testEmbedder() });
      assert.deepEqual(await readAll(again), before);
      again.close();
    });

    test(`the ${kind} store in plaintext holds them (the scan can fail)`, async () => {
      const { store, blobs } = make();
      const memory = await memdir.openMemory({ store, clock: () => 1_700_000_000_000, embedder: testEmbedder() });
      const written = await workload(memory);
      memory.close();
      const hits = found(await blobs(), needles(written));
      for (const kind of Object.keys(NOTHING)) assert.ok(hits[kind].length > 0, `no ${kind} found in plaintext`);
      // The current texts, their names and their hashes, at least.
      const current = 'Wombatlagoon recipe: saffron and cardamom.\nServe with narwhalbiscuit.\n';
      assert.ok(hits.content.includes(current));
      assert.ok(hits.path.includes('wombatlagoon.md'));
      assert.ok(hits.sha256.includes(createHash('sha256').update(current).digest('hex')));
      assert.ok(hits.word.includes('narwhalbiscuit'));
    });
  }

  test('equal texts in two stores under one key look unrelated', async () => {
    const a = memdir.inMemoryStore();
    const b = memdir.inMemoryStore();
    for (const store of [a, b]) {
      const memory = await memdir.openMemory({ store, encryption: { key: KEY }, clock: () => 1_700_000_000_000 });
      await memory.create({ path: '/memories/same.md', file_text: 'the very same text\n' });
      memory.close();
    }
    const [ka, kb] = [await glue.rawEntries(a), await glue.rawEntries(b)];
    const names = (entries) => new Set(entries.map(([k]) => k));
    const shared = [...names(ka)].filter((k) => names(kb).has(k));
    // A stored name is its generation's tag, a slash and the sealed name: the
    // sealed parts must differ too, not only the tags.
    const sealedParts = (entries) => new Set(entries.map(([k]) => k.split('/').slice(1).join('/')).filter(Boolean));
    const sharedParts = [...sealedParts(ka)].filter((k) => sealedParts(kb).has(k));
    const values = (entries) => new Set(entries.map(([, v]) => hex(v)));
    const sameValues = [...values(ka)].filter((v) => values(kb).has(v));
    assert.ok(sealedParts(ka).size > 5);
    assert.deepEqual({ shared, sharedParts, sameValues }, { shared: RECORD_NAMES, sharedParts: [], sameValues: [] });
  });
});

/** A custom store holding the workload, encrypted with KEY; and what it reads as. */
async function filledMap() {
  const store = new MapStore();
  const memory = await memdir.openMemory({ store, encryption: { key: KEY }, clock: () => 1_700_000_000_000 });
  await workload(memory);
  const seen = await readAll(memory);
  memory.close();
  return { store, seen };
}

const copyMap = (store) => {
  const c = new MapStore();
  for (const [k, v] of store.map) c.map.set(k, Uint8Array.from(v));
  return c;
};
const snapshot = (store) => [...store.map].map(([k, v]) => [k, hex(v)]).sort();

/** The names a store reads through the seal, each with its value or its error. */
async function opened(store) {
  const memory = memdir.customStore(store);
  const handle = await glue.openSealed(memory, KEY, undefined, undefined, new Uint8Array(32));
  return new Map((await glue.openedEntries(handle)).map(([name, v]) => [name, typeof v === 'string' ? v : hex(v)]));
}

describe('tampering', () => {
  const STORE_DAMAGED = 'stored data is damaged';
  // Each mechanism of tampering with one stored value, or two.
  const TAMPER = {
    'a bit flipped': (c, k) => {
      const v = c.map.get(k);
      v[v.length >> 1] ^= 0x10;
    },
    'truncated': (c, k) => c.map.set(k, c.map.get(k).slice(0, -1)),
    'swapped with the next value': (c, k, next) => {
      const v = c.map.get(k);
      c.map.set(k, c.map.get(next));
      c.map.set(next, v);
    },
    "replayed under the next value's name": (c, k, next) => c.map.set(next, Uint8Array.from(c.map.get(k))),
  };

  for (const [how, tamper] of Object.entries(TAMPER)) {
    test(`a value ${how} reads as damage, under exactly the names touched`, async () => {
      const { store } = await filledMap();
      const intact = await opened(store);
      const raw = [...store.map.keys()].sort();
      // The seal's own record is refused at open, in its own words (below); every
      // other value is tried.
      const values = raw.filter((k) => !RECORD_NAMES.includes(k));
      assert.ok(values.length > 20, `only ${values.length} values`);
      for (let i = 0; i < values.length; i++) {
        const k = values[i];
        const next = values[(i + 1) % values.length];
        const c = copyMap(store);
        tamper(c, k, next);
        const now = await opened(c);
        const damaged = [...now].filter(([, v]) => v === STORE_DAMAGED).map(([n]) => n);
        const changed = [...now].filter(([n, v]) => v !== STORE_DAMAGED && v !== intact.get(n)).map(([n]) => n);
        assert.deepEqual(changed, [], `${how} ${k}: a name reads another value`);
        assert.equal(damaged.length, how.startsWith('swapped') ? 2 : 1, `${how} ${k}: ${JSON.stringify(damaged)}`);
      }
    });
  }

  test('through the engine: a damage error for every read, and no write', async () => {
    const { store, seen } = await filledMap();
    const values = [...store.map.keys()].filter((k) => !RECORD_NAMES.includes(k)).sort();
    let refused = 0;
    for (const k of values) {
      const c = copyMap(store);
      const v = c.map.get(k);
      v[0] ^= 1;
      const memory = await memdir.openMemory({ store: c, encryption: { key: KEY }, clock: () => 1_700_000_000_001 });
      let read;
      try {
        read = await readAll(memory);
      } catch (e) {
        assert.ok([DAMAGED, API_DAMAGED].includes(e.message), `${k}: ${e.message}`);
        refused += 1;
      }
      if (read !== undefined) assert.deepEqual(read, seen, `${k}: tampered, yet read other answers`);
      // A write over a tampered value: the damage error and not a byte written,
      // or (the value not on its way) the write.
      const before = snapshot(c);
      const r = await memory.execute({ command: 'create', path: '/memories/new.md', file_text: 'new' });
      if (r.is_error) {
        assert.deepEqual(r, { content: `Error: ${DAMAGED}`, is_error: true });
        assert.deepEqual(snapshot(c), before, `${k}: a refused write wrote`);
      }
      memory.close();
    }
    // The head, the tree, the live texts, the log and the index are read by every
    // pass: far from all of them can be left unread.
    assert.ok(refused >= 10, `only ${refused} of ${values.length} tampered values refused`);
  });
});

describe('refusals, the store unchanged', () => {
  const refusal = (message) => ({ name: 'EncryptionError', message, kind: 'encryption' });

  for (const [kind, make] of Object.entries(KINDS)) {
    test(`the ${kind} store: the wrong key, no key, a key for a plaintext store`, async () => {
      const { store, blobs } = make();
      const memory = await memdir.openMemory({ store, encryption: { key: KEY, keyId: 'main-2026' } });
      await memory.create({ path: '/memories/a.md', file_text: 'alpha\n' });
      memory.close();
      const bytes = async () => (await blobs()).map((b) => hex(b)).sort();
      const before = await bytes();
      const cases = [
        [{ key: OTHER }, `this store is encrypted with key id main-2026, not ${idOf(OTHER)}`],
        [{ key: OTHER, keyId: 'main-2026' }, 'the key given as key id main-2026 does not open this store'],
        [{ key: KEY, keyId: 'other' }, 'this store is encrypted with key id main-2026, not other'],
        [undefined, 'this store is encrypted with key id main-2026: open it with that key'],
      ];
      for (const [encryption, message] of cases) {
        await assert.rejects(memdir.openMemory({ store, encryption }), refusal(message), JSON.stringify(encryption));
        assert.deepEqual(await bytes(), before);
      }
      const ok = await memdir.openMemory({ store, encryption: { key: KEY, keyId: 'main-2026' } });
      assert.equal(await ok.view({ path: '/memories/a.md' }), "Here's the content of /memories/a.md with line numbers:\n     1\talpha\n     2\t");
      ok.close();

      const plain = make();
      const p = await memdir.openMemory({ store: plain.store });
      await p.create({ path: '/memories/a.md', file_text: 'alpha\n' });
      p.close();
      const plainBefore = (await plain.blobs()).map((b) => hex(b)).sort();
      await assert.rejects(memdir.openMemory({ store: plain.store, encryption: { key: KEY } }), refusal('this store is not encrypted: encrypt it first (memdir encrypt)'));
      assert.deepEqual((await plain.blobs()).map((b) => hex(b)).sort(), plainBefore);
    });
  }

  test('a key that is not one: the engine\'s rule, nothing opened', async () => {
    const store = new MapStore();
    const bad = [
      [{ key: new Uint8Array(31) }, 'an encryption key is 32 bytes (64 hex characters)'],
      [{ key: new Uint8Array(33) }, 'an encryption key is 32 bytes (64 hex characters)'],
      [{ key: 'ab'.repeat(31) }, 'an encryption key is 32 bytes (64 hex characters)'],
      [{ key: 'zz'.repeat(32) }, 'an encryption key is 32 bytes (64 hex characters)'],
      [{ key: KEY, keyId: '' }, "a key id is 1 to 64 letters, digits, '.', '_' or '-'"],
      [{ key: KEY, keyId: 'a b' }, "a key id is 1 to 64 letters, digits, '.', '_' or '-'"],
      [{ key: KEY, keyId: 'x'.repeat(65) }, "a key id is 1 to 64 letters, digits, '.', '_' or '-'"],
    ];
    for (const [encryption, message] of bad) {
      await assert.rejects(memdir.openMemory({ store, encryption }), refusal(message));
    }
    assert.equal(store.map.size, 0);
    // Only the types are JS's.
    await assert.rejects(memdir.openMemory({ store, encryption: { key: [1, 2, 3] } }), {
      name: 'TypeError',
      message: 'openMemory: encryption.key must be a Uint8Array of 32 bytes (or a string of their 64 hex characters)',
    });
    await assert.rejects(memdir.openMemory({ store, encryption: 'key' }), { name: 'TypeError', message: 'openMemory: encryption must be an object {key, keyId?}' });
    await assert.rejects(memdir.openMemory({ store, encryption: { key: KEY, keyId: 7 } }), { name: 'TypeError', message: 'openMemory: encryption.keyId must be a string' });
    assert.equal(store.map.size, 0);
    // The hex text and the bytes are one key.
    assert.equal(idOf(hex(KEY)), idOf(KEY));
    assert.equal(idOf(`${hex(KEY)}\n`), idOf(KEY));
    assert.equal(idOf(KEY, 'named'), 'named');
  });

  test('a memory tool input naming rekey is an unknown command, not a rotation', async () => {
    const store = new MapStore();
    const memory = await memdir.openMemory({ store, encryption: { key: KEY } });
    const before = snapshot(store);
    await assert.rejects(memory.rekey({ command: 'rekey', key: hex(OTHER) }), { kind: 'input' });
    assert.deepEqual(snapshot(store), before);
    memory.close();
  });
});

describe('rotation and migration', () => {
  for (const [kind, make] of Object.entries(KINDS)) {
    test(`the ${kind} store: rekey, then only the new key opens it, every memory kept`, async () => {
      const { store, blobs } = make();
      const memory = await memdir.openMemory({ store, encryption: { key: KEY, keyId: 'old' }, clock: () => 1_700_000_000_000 });
      const written = await workload(memory);
      const before = await readAll(memory);
      const done = await memory.rekey({ key: OTHER, keyId: 'new' });
      assert.equal(done.keyId, 'new');
      assert.ok(done.moved > 20, JSON.stringify(done));
      // The memory open across the rotation reads on.
      assert.deepEqual(await readAll(memory), before);
      memory.close();
      await assert.rejects(memdir.openMemory({ store, encryption: { key: KEY, keyId: 'old' } }), { message: 'this store is encrypted with key id new, not old' });
      const again = await memdir.openMemory({ store, encryption: { key: OTHER, keyId: 'new' }, clock: () => 1_700_000_000_000 });
      assert.deepEqual(await readAll(again), before);
      again.close();
      assert.deepEqual(found(await blobs(), needles(written)), NOTHING);
    });

    test(`the ${kind} store: encryptStore turns a plaintext store encrypted`, async () => {
      const { store, blobs } = make();
      const memory = await memdir.openMemory({ store, clock: () => 1_700_000_000_000 });
      const written = await workload(memory);
      const before = await readAll(memory);
      memory.close();
      assert.equal(await memdir.encryptStore(store, { key: KEY, keyId: 'first' }), 'first');
      // Again: nothing left to do, the same answer.
      assert.equal(await memdir.encryptStore(store, { key: KEY, keyId: 'first' }), 'first');
      await assert.rejects(memdir.openMemory({ store }), { message: 'this store is encrypted with key id first: open it with that key' });
      const again = await memdir.openMemory({ store, encryption: { key: KEY, keyId: 'first' }, clock: () => 1_700_000_000_000 });
      assert.deepEqual(await readAll(again), before);
      again.close();
      assert.deepEqual(found(await blobs(), needles(written)), NOTHING);
    });
  }

  test('a plaintext memory cannot be rekeyed', async () => {
    const memory = await memdir.openMemory({});
    await assert.rejects(memory.rekey({ key: KEY }), { name: 'EncryptionError', message: 'this store is not encrypted: encrypt it first (memdir encrypt)' });
    memory.close();
  });
});

describe('mounts', () => {
  test('each mount carries its own key, or none', async () => {
    const secret = new MapStore();
    const open = new MapStore();
    const mounts = (enc) => [
      { name: 'private', store: secret, encryption: enc },
      { name: 'shared', store: open },
    ];
    const memory = await memdir.openMemory({ mounts: mounts({ key: KEY, keyId: 'diary-key' }) });
    await memory.create({ path: '/memories/private/diary.md', file_text: 'okapiwhisper\n' });
    await memory.create({ path: '/memories/shared/board.md', file_text: 'public board\n' });
    assert.deepEqual((await memory.search('okapiwhisper')).map((h) => h.path), ['/memories/private/diary.md']);
    memory.close();
    assert.deepEqual(found(mapBlobs(secret), needles({ contents: ['okapiwhisper\n'], paths: ['/memories/private/diary.md'] })), NOTHING);
    assert.ok(mapBlobs(open).some((b) => b.includes('public board')));
    await assert.rejects(memdir.openMemory({ mounts: mounts(undefined) }), { message: 'this store is encrypted with key id diary-key: open it with that key' });
    await assert.rejects(memdir.openMemory({ mounts: mounts({ key: KEY, keyId: 'diary-key' }), encryption: { key: KEY } }), {
      name: 'TypeError',
      message: 'openMemory: with mounts, give each mount its own encryption',
    });
    const again = await memdir.openMemory({ mounts: mounts({ key: KEY, keyId: 'diary-key' }) });
    const rotated = await again.rekey({ key: OTHER, keyId: 'diary-2', mount: 'private' });
    assert.equal(rotated.keyId, 'diary-2');
    await assert.rejects(again.rekey({ key: OTHER, mount: 'shared' }), { message: 'this store is not encrypted: encrypt it first (memdir encrypt)' });
    assert.equal(await again.view({ path: '/memories/private/diary.md' }), "Here's the content of /memories/private/diary.md with line numbers:\n     1\tokapiwhisper\n     2\t");
    again.close();
    // Mounted read-only, the store is not re-keyed: not one stored byte changes.
    const before = [...secret.map.entries()].map(([k, v]) => [k, Buffer.from(v).toString('hex')]);
    const reader = await memdir.openMemory({ mounts: [{ name: 'private', store: secret, access: 'read_only', encryption: { key: OTHER, keyId: 'diary-2' } }] });
    await assert.rejects(reader.rekey({ key: KEY, keyId: 'diary-3', mount: 'private' }), {
      message: 'rekey: the store at /memories/private is mounted read-only; re-key it where it is opened read-write',
    });
    reader.close();
    assert.deepEqual([...secret.map.entries()].map(([k, v]) => [k, Buffer.from(v).toString('hex')]), before);
  });
});

describe('the same answers encrypted as in plaintext', () => {
  // One script of the Memory Stores API, the toolset and the records toolset, good
  // requests and refused ones, run on a plaintext store and an encrypted one.
  const API = [
    { op: 'store.create', id: 'memstore_abcdefghjkmn0123456789ab', body: { name: 'Notes' } },
    { op: 'store.retrieve' },
    { op: 'memory.create', body: { path: '/a.md', content: 'alpha one\n' } },
    { op: 'memory.create', body: { path: '/a.md', content: 'again' } },
    { op: 'memory.create', body: { path: '/dir/b.md', content: 'bravo two\n' } },
    { op: 'memory.create', body: { path: 'no-slash', content: 'x' } },
    { op: 'memory.list', query: {} },
    { op: 'memory.list', query: { path_prefix: '/dir/', depth: '1' } },
    { op: 'memory.search', query: { query: 'bravo' } },
    { op: 'memory.retrieve', id: 'mem_nope' },
    { op: 'version.list', query: {} },
    { op: 'store.update', body: { name: 'Renamed' } },
  ];
  const TOOLSET = [
    ['memory_write', { path: '/t.md', content: 'toolset text' }],
    ['memory_read', { path: '/t.md' }],
    ['memory_edit', { path: '/t.md', old_str: 'text', new_str: 'words' }],
    ['memory_search', { query: 'words' }],
    ['memory_list', {}],
    ['memory_delete', { path: '/t.md' }],
    ['memory_read', { path: '/t.md' }],
  ];
  const RECORDS = [
    ['memory_store', { content: 'The user drinks green tea.', importance: 0.8 }],
    ['memory_retrieve', { query: 'tea' }],
    ['memory_delete', { memory_id: 'mem_local_9', reason: 'gone' }],
  ];

  async function script(encryption) {
    const memory = await memdir.openMemory({ store: new MapStore(), encryption, clock: () => 1_700_000_000_000 });
    const answers = [];
    const settle = (p) => p.then((v) => ['ok', v], (e) => ['error', e.message, e.kind]);
    for (const request of API) {
      const r = await memory.api({ query: {}, body: null, ...request });
      answers.push(r);
      // Each id an answer names, retrieved, updated and its version listed.
      if (request.op === 'memory.create' && r.status === 200) {
        answers.push(await memory.api({ op: 'memory.retrieve', id: r.body.id, query: {}, body: null }));
        answers.push(await memory.api({ op: 'memory.update', id: r.body.id, query: {}, body: { content: 'changed\n' } }));
      }
    }
    const versions = (await memory.api({ op: 'version.list', query: {}, body: null })).body.data;
    answers.push(await memory.api({ op: 'version.retrieve', id: versions.at(-1).id, query: {}, body: null }));
    answers.push(await memory.api({ op: 'version.redact', id: versions.at(-1).id, query: {}, body: null }));
    for (const [name, input] of TOOLSET) answers.push(await settle(memory.toolset(name, input)));
    for (const [name, input] of RECORDS) answers.push(await settle(memory.records(name, input)));
    answers.push(await memory.execute({ command: 'view', path: '/memories' }));
    answers.push(await memory.entries());
    memory.close();
    return answers;
  }

  test('the Memory Stores API, the toolset and the records toolset', async () => {
    const plain = await script(undefined);
    assert.ok(plain.some((a) => a.status === 400) && plain.some((a) => a.status === 404), 'the script has refusals too');
    assert.deepEqual(await script({ key: KEY }), plain);
  });
});
