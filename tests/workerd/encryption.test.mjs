// Encryption at rest on Durable Objects inside workerd (docs/encryption.md), on
// SQLite-backed and key-value-backed objects: after a workload of creates, edits,
// renames, API writes, a search and a redaction (tests/workerd/harness.js,
// `encryption`), no stored key or value under the store's prefix holds a content,
// a path or a SHA-256 of a content, while the same workload in plaintext shows the
// scan finds them; each value with a bit flipped reads as damage and a refused
// write changes nothing; the wrong key and no key are refused, nothing changed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { useService } from './client.js';

const { c } = useService();

const KEY = Array.from({ length: 32 }, (_, i) => (i * 29 + 3) & 0xff);
const DAMAGED = "The memory directory's storage is damaged: a stored record is missing or unreadable.";
// The seal's record as durableObjectStore keeps it (its record-key form, `r:`):
// the one value in clear, which opening refuses in its own words.
const RECORD_NAMES = ['r:memdir-seal'];
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
const NEEDLES = {
  content: CONTENTS.map((t) => Buffer.from(t).toString('hex')),
  name: NAMES.map((n) => Buffer.from(n).toString('hex')),
  sha256: CONTENTS.flatMap((t) => {
    const d = createHash('sha256').update(t).digest();
    return [Buffer.from(d.toString('hex')).toString('hex'), d.toString('hex')];
  }),
};

function found(raw) {
  // Keys and values as hex; a chunk manifest (a JSON text) as the hex of its text.
  const all = raw.map(([k, v]) => `${k} ${/^[0-9a-f]*$/.test(v) ? v : Buffer.from(v).toString('hex')}`).join('\n');
  const hits = {};
  for (const [kind, list] of Object.entries(NEEDLES)) hits[kind] = list.filter((n) => all.includes(n)).length;
  return hits;
}

for (const storage of ['sqlite-backed', 'kv-backed']) {
  test(`durableObjectStore on ${storage} objects, encrypted: no stored byte holds a content, a path or a hash; tampering and wrong keys refused`, async (t) => {
    const plain = await c.test('encryption', { storage, name: `${storage}-enc` });
    for (const [kind, n] of Object.entries(found(plain.raw))) assert.ok(n > 0, `no ${kind} found in plaintext`);
    // Every value but the seal's own record is flipped once.
    const sealed = await c.test('encryption', { storage, name: `${storage}-enc`, key: KEY, keyId: 'edge-1', skip: RECORD_NAMES });
    const names = sealed.raw.map(([k]) => Buffer.from(k, 'hex').toString());
    assert.ok(RECORD_NAMES.every((n) => names.includes(n)), JSON.stringify(names.slice(0, 5)));
    assert.deepEqual([sealed.hits, sealed.entries], [plain.hits, plain.entries]);
    assert.deepEqual(sealed.hits, ['/memories/ibexvault/wombatlagoon.md']);
    assert.deepEqual(found(sealed.raw), { content: 0, name: 0, sha256: 0 });
    assert.ok(sealed.tampered.length > 20, `${sealed.tampered.length} values tampered`);
    let refused = 0;
    for (const t of sealed.tampered) {
      if (t.read !== 'ok') {
        assert.equal(t.read, DAMAGED, t.name);
        refused += 1;
      }
      if (t.write !== 'ok') {
        assert.equal(t.write, DAMAGED, t.name);
        assert.equal(t.unchanged, true, `${t.name}: a refused write wrote`);
      }
    }
    assert.ok(refused >= 10, `only ${refused} tampered values refused`);
    t.diagnostic(`${sealed.raw.length} stored keys scanned; ${sealed.tampered.length} values flipped, ${refused} refused as damage on reading`);
    assert.deepEqual(sealed.refused, [
      ['EncryptionError', 'the key given as key id edge-1 does not open this store'],
      ['EncryptionError', 'this store is encrypted with key id edge-1: open it with that key'],
    ]);
    assert.equal(sealed.unchanged, true);
  });
}
