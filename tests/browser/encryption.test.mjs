// Encryption at rest over IndexedDB in Chromium (docs/encryption.md): after a
// workload of creates, edits, renames, API writes, a search and a redaction, no
// record of the database (its keys or its values) holds any content, path, or
// SHA-256 of a content; the same workload in plaintext shows the scan finds them.
// A record tampered with reads as damage and writes nothing; the wrong key and no
// key are refused in the engine's words, the database unchanged.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { useBrowser, watchErrors } from './chromium.mjs';

const env = useBrowser();

const KEY = Array.from({ length: 32 }, (_, i) => (i * 13 + 5) & 0xff);
const OTHER = Array.from({ length: 32 }, (_, i) => 255 - i);
const DAMAGED = "The memory directory's storage is damaged: a stored record is missing or unreadable.";
// The seal's record, the one value in clear (opening refuses it in its own words).
const RECORD_KEYS = ['memdir-seal'];

const CONTENTS = [
  'Quokkafjord meeting: the budget is 8141 crowns.\n',
  'Quokkafjord meeting: the budget is 9252 pelicanmarble.\n',
  'Wombatlagoon recipe: saffron.\n',
  'Wombatlagoon recipe: saffron.\nServe with narwhalbiscuit.\n',
  'Glacierotter holds marmotcipher.\n',
  'Glacierotter now holds tapirlantern.\n',
  'Lynxharbor gravelmoth.\n',
];
const NAMES = ['quokkafjord', 'wombatlagoon', 'ibexvault', 'heronspire', 'glacierotter', 'lynxharbor', 'pelicanmarble', 'narwhalbiscuit', 'marmotcipher', 'tapirlantern', 'gravelmoth'];
// Each needle as hex, the scan's alphabet: contents, names and words, and each
// content's SHA-256 as hex text and as raw bytes.
const NEEDLES = {
  content: CONTENTS.map((c) => Buffer.from(c).toString('hex')),
  name: NAMES.map((n) => Buffer.from(n).toString('hex')),
  sha256: CONTENTS.flatMap((c) => {
    const d = createHash('sha256').update(c).digest();
    return [Buffer.from(d.toString('hex')).toString('hex'), d.toString('hex')];
  }),
};

/** In the page: the workload on database `name` (with `key`, or in plaintext); resolves what it reads. */
function workloadIn(page, name, key) {
  return page.evaluate(
    async ({ name, key, contents }) => {
      const m = await import('/js/browser.js');
      const encryption = key ? { key: new Uint8Array(key), keyId: 'browser-1' } : undefined;
      const memory = await m.openMemory({ store: m.indexedDbStore(name), encryption, clock: () => 1_700_000_000_000 });
      await memory.create({ path: '/memories/projects/quokkafjord.md', file_text: contents[0] });
      await memory.create({ path: '/memories/recipes/wombatlagoon.md', file_text: contents[2] });
      await memory.str_replace({ path: '/memories/projects/quokkafjord.md', old_str: '8141 crowns', new_str: '9252 pelicanmarble' });
      await memory.insert({ path: '/memories/recipes/wombatlagoon.md', insert_line: 1, insert_text: 'Serve with narwhalbiscuit.' });
      await memory.rename({ old_path: '/memories/recipes', new_path: '/memories/ibexvault' });
      await memory.rename({ old_path: '/memories/projects/quokkafjord.md', new_path: '/memories/projects/heronspire.md' });
      const api = (request) => memory.api({ query: {}, body: null, ...request }).then((r) => r.body);
      const g = await api({ op: 'memory.create', body: { path: '/glacierotter.md', content: contents[4] } });
      await api({ op: 'memory.update', id: g.id, body: { content: contents[5] } });
      const l = await api({ op: 'memory.create', body: { path: '/lynxharbor.md', content: contents[6] } });
      await api({ op: 'memory.update', id: l.id, body: { path: '/public-note.md', content: 'Public now.\n' } });
      await api({ op: 'version.redact', id: l.id.replace('mem_', 'memver_') });
      const hits = (await memory.search('narwhalbiscuit')).map((h) => h.path);
      await memory.search('tapirlantern');
      const entries = await memory.entries();
      memory.close();
      return { hits, entries };
    },
    { name, key, contents: CONTENTS },
  );
}

// In the page: the IndexedDB of memory `name` raw, and the packs read as the engine
// reads them. A pack record (`packs`, one per commit: {keys, pack}) holds an index
// (MDP1, u32 count, per key u16 length, the key, u32 value length) then the values.
const RAW_HELPERS = `
  const opened = (r) => new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
  const every = (db, store) => new Promise((resolve, reject) => {
    const out = [];
    const c = db.transaction(store, 'readonly').objectStore(store).openCursor();
    c.onsuccess = () => {
      const cur = c.result;
      if (!cur) return resolve(out);
      out.push([cur.key, cur.value]);
      cur.continue();
    };
    c.onerror = () => reject(c.error);
  });
  const unpack = (pack) => {
    const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength);
    const count = view.getUint32(4, true);
    const entries = [];
    let at = 8;
    for (let i = 0; i < count; i++) {
      const klen = view.getUint16(at, true);
      const key = new TextDecoder().decode(pack.subarray(at + 2, at + 2 + klen));
      entries.push([key, view.getUint32(at + 2 + klen, true)]);
      at += 6 + klen;
    }
    return entries.map(([key, len]) => {
      const offset = at;
      at += len;
      return { key, offset, len };
    });
  };
`;

/**
 * In the page: every stored value of database `memdir:{name}` as
 * `[store, key, key hex, value hex]`: a `kv` record's, and each value in each pack
 * (the pack's index holds only the keys, scanned as keys, and the lengths).
 */
function recordsIn(page, name) {
  return page.evaluate(
    async ({ name, helpers }) => {
      const { opened, every, unpack } = new Function(`${helpers}; return { opened, every, unpack };`)();
      const db = await opened(indexedDB.open(`memdir:${name}`));
      const hex = (v) => {
        const bytes = typeof v === 'string' ? new TextEncoder().encode(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
        return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
      };
      const out = [];
      for (const [key, value] of await every(db, 'kv')) out.push(['kv', String(key), hex(String(key)), hex(value)]);
      for (const [, { pack }] of await every(db, 'packs')) {
        for (const { key, offset, len } of unpack(pack)) {
          out.push(['packs', key, hex(key), hex(pack.subarray(offset, offset + len))]);
        }
      }
      db.close();
      return out;
    },
    { name, helpers: RAW_HELPERS },
  );
}

/** In the page: value `key` of database `memdir:{name}` (in `kv` or in its packs) replaced by `valueHex`, same length. */
function setRecord(page, name, key, valueHex) {
  return page.evaluate(
    async ({ name, key, valueHex, helpers }) => {
      const { opened, every, unpack } = new Function(`${helpers}; return { opened, every, unpack };`)();
      const db = await opened(indexedDB.open(`memdir:${name}`));
      const bytes = new Uint8Array(valueHex.match(/../g).map((h) => parseInt(h, 16)));
      const packs = await every(db, 'packs');
      const tx = db.transaction(['kv', 'packs'], 'readwrite');
      const held = packs.filter(([, record]) => record.keys.includes(key));
      if (held.length === 0) tx.objectStore('kv').put(bytes, key);
      for (const [id, record] of held) {
        const pack = new Uint8Array(record.pack);
        const { offset, len } = unpack(pack).find((e) => e.key === key);
        if (len !== bytes.length) throw new Error('a replacement must keep the length');
        pack.set(bytes, offset);
        tx.objectStore('packs').put({ keys: record.keys, pack }, id);
      }
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onabort = () => reject(tx.error);
      });
      db.close();
    },
    { name, key, valueHex, helpers: RAW_HELPERS },
  );
}

/** In the page: database `memdir:{name}` raw, both object stores, to put back with `restoreIn`. */
function snapshotIn(page, name) {
  return page.evaluate(
    async ({ name, helpers }) => {
      const { opened, every } = new Function(`${helpers}; return { opened, every };`)();
      const db = await opened(indexedDB.open(`memdir:${name}`));
      const kv = (await every(db, 'kv')).map(([k, v]) => [k, Array.from(v)]);
      const packs = (await every(db, 'packs')).map(([id, r]) => [id, r.keys, Array.from(r.pack)]);
      db.close();
      return { kv, packs };
    },
    { name, helpers: RAW_HELPERS },
  );
}

/** In the page: database `memdir:{name}`'s records cleared and `snapshot` put back. */
function restoreIn(page, name, snapshot) {
  return page.evaluate(
    async ({ name, snapshot, helpers }) => {
      const { opened } = new Function(`${helpers}; return { opened };`)();
      const db = await opened(indexedDB.open(`memdir:${name}`));
      const tx = db.transaction(['kv', 'packs'], 'readwrite');
      tx.objectStore('kv').clear();
      tx.objectStore('packs').clear();
      for (const [key, bytes] of snapshot.kv) tx.objectStore('kv').put(new Uint8Array(bytes), key);
      for (const [id, keys, pack] of snapshot.packs) tx.objectStore('packs').put({ keys, pack: new Uint8Array(pack) }, id);
      await new Promise((resolve, reject) => {
        tx.oncomplete = resolve;
        tx.onabort = () => reject(tx.error);
      });
      db.close();
    },
    { name, snapshot, helpers: RAW_HELPERS },
  );
}

/** In the page: opening database `name` with `key` (or none), reading all, then a write; `{read, write}` or the refusal. */
function tryIn(page, name, key, keyId) {
  return page.evaluate(
    async ({ name, key, keyId }) => {
      const m = await import('/js/browser.js');
      const encryption = key ? { key: new Uint8Array(key), keyId } : undefined;
      let memory;
      try {
        memory = await m.openMemory({ store: m.indexedDbStore(name), encryption, clock: () => 1_700_000_000_001 });
      } catch (e) {
        return { refused: [e.name, e.message] };
      }
      const settle = (p) => p.then(() => 'ok', (e) => e.message);
      const read = await settle((async () => {
        await memory.entries();
        await memory.search('pelicanmarble');
      })());
      const write = await settle(memory.create({ path: '/memories/new.md', file_text: 'new' }));
      memory.close();
      return { read, write };
    },
    { name, key, keyId },
  );
}

function found(records) {
  const all = records.map(([, , k, v]) => `${k} ${v}`).join('\n');
  const hits = {};
  for (const [kind, list] of Object.entries(NEEDLES)) hits[kind] = list.filter((n) => all.includes(n)).length;
  return hits;
}

test('IndexedDB encrypted: no record holds a content, a path or a hash; tampering and wrong keys refused, nothing written', async (t) => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`);

  const plain = await workloadIn(page, 'enc-plain');
  const sealed = await workloadIn(page, 'enc-sealed', KEY);
  assert.deepEqual(sealed, plain);
  assert.deepEqual(sealed.hits, ['/memories/ibexvault/wombatlagoon.md']);
  // The scan finds each kind in plaintext: it can fail.
  const inPlain = found(await recordsIn(page, 'enc-plain'));
  for (const [kind, n] of Object.entries(inPlain)) assert.ok(n > 0, `no ${kind} in plaintext`);
  const records = await recordsIn(page, 'enc-sealed');
  assert.deepEqual(found(records), { content: 0, name: 0, sha256: 0 });
  assert.ok(records.length > 20, `${records.length} records`);

  // The wrong key, no key: refused, the database unchanged.
  const refusals = [
    [OTHER, 'browser-1', 'the key given as key id browser-1 does not open this store'],
    [KEY, 'other', 'this store is encrypted with key id browser-1, not other'],
    [undefined, undefined, 'this store is encrypted with key id browser-1: open it with that key'],
  ];
  for (const [key, keyId, message] of refusals) {
    assert.deepEqual(await tryIn(page, 'enc-sealed', key, keyId), { refused: ['EncryptionError', message] });
  }
  assert.deepEqual(await tryIn(page, 'enc-plain', KEY, 'browser-1'), {
    refused: ['EncryptionError', 'this store is not encrypted: encrypt it first (memdir encrypt)'],
  });
  assert.deepEqual(await recordsIn(page, 'enc-sealed'), records);

  // Each record with a bit flipped: a read that reaches it is refused as damage,
  // and a write that reaches it writes nothing.
  let damaged = 0;
  const snapshot = await snapshotIn(page, 'enc-sealed');
  for (const [, key, , valueHex] of records) {
    if (RECORD_KEYS.includes(key)) continue;
    const flipped = (parseInt(valueHex.slice(0, 2), 16) ^ 1).toString(16).padStart(2, '0') + valueHex.slice(2);
    await setRecord(page, 'enc-sealed', key, flipped);
    const before = await recordsIn(page, 'enc-sealed');
    const r = await tryIn(page, 'enc-sealed', KEY, 'browser-1');
    if (r.read !== 'ok') {
      assert.equal(r.read, DAMAGED, key);
      damaged += 1;
    }
    if (r.write !== 'ok') {
      assert.equal(r.write, DAMAGED, key);
      assert.deepEqual(await recordsIn(page, 'enc-sealed'), before, `${key}: a refused write wrote`);
    }
    // Put back as it was: a write that went through is undone too.
    await restoreIn(page, 'enc-sealed', snapshot);
  }
  assert.ok(damaged >= 10, `only ${damaged} tampered records refused`);
  t.diagnostic(`${records.length} records scanned; ${damaged} of the flipped ones refused as damage on reading`);
  assert.deepEqual(errors, []);
  await context.close();
});
