// A file's history in the memory explorer (www/history.js) end to end in Chromium:
// versions recorded by the page's own tool commands, shown newest first with the
// API's operation, time, actor and size; a version's content; restore (a new
// version); redaction through the page, refused for the current version; and then
// every key and value of the origin's IndexedDB read back raw, to see that the
// redacted text is gone from storage while the other versions still read back.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { OUT, readIndexedDb, useBrowser } from './chromium.mjs';

const SCREENSHOT = join(OUT, 'explorer-history.png');

const PATH = '/memories/notes/plan.md';
// Three texts no other part of a version shares, so finding one finds its content.
const FIRST = 'alpha-3f9c: the plan as first written';
const MIDDLE = 'bravo-81d2: a draft holding a secret to redact';
const LAST = 'charlie-c47e: the plan as it stands';

const env = useBrowser();

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const row = (page, path) => page.locator(`.tree .row[title="${path}"]`);
const version = (page, id) => page.locator(`#history-panel tr.version[data-id="${id}"]`);

const open = (context, memory) => env.openExplorer(context, `?memory=${encodeURIComponent(memory)}`);

/** The history table as shown: one `[id, operation, time, actor, size]` per row. */
function shownRows(page) {
  return page
    .locator('#history-panel tr.version')
    .evaluateAll((rows) => rows.map((r) => [r.dataset.id, ...[...r.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent)]));
}

async function waitForRows(page, n) {
  await page.waitForFunction((count) => document.querySelectorAll('#history-panel tr.version').length === count, n);
}

async function waitForNotice(page, text) {
  await page.waitForFunction((t) => document.querySelector('#history-panel .history-notice')?.textContent === t, text);
}

async function edit(page, text) {
  await page.click('#view-head button:has-text("Edit")');
  await page.fill('textarea.editor', text);
  await page.click('#view-head button:has-text("Save")');
  await page.waitForFunction((t) => [...document.querySelectorAll('.code .lt')].some((l) => l.textContent === t), text);
}

/**
 * A raw record as text to search: strings as they are, bytes decoded as UTF-8
 * (bytes that are not UTF-8 turn into U+FFFD and cannot match), objects as their
 * fields and values.
 */
function text(x) {
  if (typeof x === 'string') return x;
  if (Array.isArray(x)) return x.map(text).join('\n');
  const keys = x !== null && typeof x === 'object' ? Object.keys(x) : [];
  if (keys.length === 1 && keys[0] === 'bytes' && /^(?:[0-9a-f]{2})*$/.test(x.bytes)) return Buffer.from(x.bytes, 'hex').toString('utf8');
  if (keys.length) return Object.entries(x).map(([k, v]) => `${k}\n${text(v)}`).join('\n');
  return String(x);
}

/**
 * A pack record's values (`packs`: one record per commit, `{keys, pack}`; the pack
 * an index, MDP1, u32 count, per key u16 length, the key, u32 value length, then
 * the values), each `[key, bytes]`; fails unless index and values are every byte.
 */
function unpack(hex) {
  const pack = Buffer.from(hex, 'hex');
  assert.equal(pack.subarray(0, 4).toString('latin1'), 'MDP1');
  const index = [];
  let at = 8;
  for (let i = 0; i < pack.readUInt32LE(4); i++) {
    const klen = pack.readUInt16LE(at);
    index.push([pack.subarray(at + 2, at + 2 + klen).toString('utf8'), pack.readUInt32LE(at + 2 + klen)]);
    at += 6 + klen;
  }
  const values = index.map(([key, len]) => [key, pack.subarray(at, (at += len))]);
  assert.equal(at, pack.length, 'a pack holds its index and its values, nothing else');
  return values;
}

/**
 * Every database of the origin, every object store, every key and value, read raw,
 * as text; a pack record as each of its values under its key.
 */
async function readAllIndexedDb(page) {
  const databases = await page.evaluate(readIndexedDb);
  return databases.flatMap(({ name, stores }) =>
    Object.entries(stores).flatMap(([store, records]) =>
      records.flatMap(([key, value]) =>
        store === 'packs'
          ? unpack(value.pack.bytes).map(([k, v]) => ({ db: name, store, key: k, value: v.toString('utf8') }))
          : [{ db: name, store, key: text(key), value: text(value) }],
      ),
    ),
  );
}

test('history: versions of a file, its content, restore and redact through the page; the redacted text is gone from IndexedDB', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'history');

  // Created through the page's dialog, then edited twice with Edit/Save.
  await page.click('#new-file');
  await page.fill('dialog input[name="path"]', PATH);
  await page.fill('dialog textarea[name="file_text"]', FIRST);
  await page.click('dialog button[type="submit"]');
  await row(page, PATH).waitFor();
  await row(page, PATH).click();
  await page.waitForFunction((t) => document.querySelector('.code .lt')?.textContent === t, FIRST);
  await edit(page, MIDDLE);
  await edit(page, LAST);

  await page.click('#view-head button:has-text("History")');
  await waitForRows(page, 3);
  // Exactly what the API says, as the page words it.
  const api = await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    return (await m.api({ op: 'version.list', query: { memory_id: 'mem_local_1' } })).body;
  });
  assert.deepEqual(
    api.data.map((v) => [v.id, v.operation, v.content_size_bytes, v.created_by]),
    [
      ['memver_local_3', 'modified', Buffer.byteLength(LAST), { type: 'session_actor', session_id: 'explorer' }],
      ['memver_local_2', 'modified', Buffer.byteLength(MIDDLE), { type: 'session_actor', session_id: 'explorer' }],
      ['memver_local_1', 'created', Buffer.byteLength(FIRST), { type: 'session_actor', session_id: 'explorer' }],
    ],
  );
  const time = (iso) => `${iso.slice(0, 10)} ${iso.slice(11, 19)}Z`;
  assert.deepEqual(await shownRows(page), [
    ['memver_local_3', 'modified', time(api.data[0].created_at), 'session:explorer', `${Buffer.byteLength(LAST)} B`],
    ['memver_local_2', 'modified', time(api.data[1].created_at), 'session:explorer', `${Buffer.byteLength(MIDDLE)} B`],
    ['memver_local_1', 'created', time(api.data[2].created_at), 'session:explorer', `${Buffer.byteLength(FIRST)} B`],
  ]);
  // The current version cannot be restored (it is what the file holds).
  assert.equal(await version(page, 'memver_local_3').locator('button:has-text("Restore")').isDisabled(), true);
  assert.equal(await page.locator('#history-panel .history-pager button:has-text("Older")').isDisabled(), true);

  // Any version's content.
  await version(page, 'memver_local_1').locator('button:has-text("Show")').click();
  await page.waitForSelector('#history-panel .version-text');
  assert.equal(await page.locator('#history-panel .version-head').textContent(), `memver_local_1 · created · ${time(api.data[2].created_at)}`);
  assert.equal(await page.locator('#history-panel .version-text').textContent(), FIRST);

  // Restore the first: a new `modified` version holding its text.
  await version(page, 'memver_local_1').locator('button:has-text("Restore")').click();
  await waitForNotice(page, 'Restored memver_local_1 as memver_local_4.');
  await waitForRows(page, 4);
  assert.deepEqual(
    (await shownRows(page)).map(([id, op]) => [id, op]),
    [
      ['memver_local_4', 'modified'],
      ['memver_local_3', 'modified'],
      ['memver_local_2', 'modified'],
      ['memver_local_1', 'created'],
    ],
  );
  assert.deepEqual(await page.evaluate((path) => window.memdirExplorer.memory.execute({ command: 'view', path }), PATH), {
    content: `Here's the content of ${PATH} with line numbers:\n     1\t${FIRST}`,
    is_error: false,
  });

  // Before the redaction the raw read finds the middle text, where its content is kept.
  const holdingIn = (entries, t) => entries.filter((e) => e.key.includes(t) || e.value.includes(t)).map((e) => e.key);
  assert.deepEqual(holdingIn(await readAllIndexedDb(page), MIDDLE), [`blob/${sha256(MIDDLE)}`]);

  // Redact the middle one through the page (after its confirmation).
  await version(page, 'memver_local_2').locator('button:has-text("Redact")').click();
  assert.equal(await page.locator('dialog h2').textContent(), 'Redact memver_local_2?');
  await page.click('dialog button[type="submit"]');
  await waitForNotice(page, 'Redacted memver_local_2.');
  await page.waitForSelector('#history-panel tr.version.redacted[data-id="memver_local_2"]');
  assert.equal(await version(page, 'memver_local_2').locator('td.size').textContent(), 'redacted');
  assert.equal(await version(page, 'memver_local_2').locator('button:has-text("Redact")').isDisabled(), true);
  assert.equal(await version(page, 'memver_local_2').locator('button:has-text("Restore")').isDisabled(), true);

  // The current version's redaction is refused, in the API's words, and changes nothing.
  await version(page, 'memver_local_4').locator('button:has-text("Redact")').click();
  await page.click('dialog button[type="submit"]');
  const refusal =
    'Version memver_local_4 holds the current content of memory mem_local_1; update or delete the memory first, then redact this version.';
  await waitForNotice(page, refusal);
  assert.equal(await page.locator('#history-panel .history-notice').getAttribute('class'), 'history-notice error-text');
  assert.equal(await page.locator('#history-panel tr.version.redacted').count(), 1);

  // A redacted version shows that its content is gone.
  await version(page, 'memver_local_2').locator('button:has-text("Show")').click();
  await page.waitForFunction(() => document.querySelector('#history-panel .version-head')?.textContent.startsWith('memver_local_2 '));
  const redacted = await page.evaluate(() => window.memdirExplorer.memory.api({ op: 'version.retrieve', id: 'memver_local_2' }));
  assert.equal(redacted.status, 200);
  assert.equal(
    await page.locator('#history-panel .version-content .empty').textContent(),
    `Redacted ${time(redacted.body.redacted_at)}: its content is gone.`,
  );
  await version(page, 'memver_local_1').locator('button:has-text("Show")').click();
  await page.waitForFunction(() => document.querySelector('#history-panel .version-head')?.textContent.startsWith('memver_local_1 '));
  await page.locator('.view-panel').screenshot({ path: SCREENSHOT });

  // Every key and value of every object store of every database of this origin.
  const entries = await readAllIndexedDb(page);
  assert.deepEqual([...new Set(entries.map((e) => `${e.db}/${e.store}`))], ['memdir:history/kv', 'memdir:history/packs']);
  const holding = (t) => holdingIn(entries, t);
  assert.deepEqual(holding(MIDDLE), []);
  assert.deepEqual(holding(MIDDLE.slice(0, 10)), []); // not even its distinctive start
  // The scan does see content: the other two texts are there in plain bytes.
  assert.ok(holding(FIRST).includes(`blob/${sha256(FIRST)}`), `${FIRST} not found raw: ${holding(FIRST)}`);
  assert.ok(holding(LAST).includes(`blob/${sha256(LAST)}`), `${LAST} not found raw: ${holding(LAST)}`);

  // The redacted version keeps who and when, nothing of what; the others read back.
  assert.deepEqual(
    [redacted.body.operation, redacted.body.content, redacted.body.content_sha256, redacted.body.content_size_bytes, redacted.body.path],
    ['modified', null, null, null, null],
  );
  const contents = await page.evaluate(async () => {
    const m = window.memdirExplorer.memory;
    const out = {};
    for (const id of ['memver_local_1', 'memver_local_3', 'memver_local_4']) out[id] = (await m.api({ op: 'version.retrieve', id })).body.content;
    return out;
  });
  assert.deepEqual(contents, { memver_local_1: FIRST, memver_local_3: LAST, memver_local_4: FIRST });

  // After a reload, from IndexedDB: the same history.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]');
  await row(page, PATH).click();
  await page.click('#view-head button:has-text("History")');
  await waitForRows(page, 4);
  assert.deepEqual(
    (await shownRows(page)).map(([id, op, , , size]) => [id, op, size]),
    [
      ['memver_local_4', 'modified', `${Buffer.byteLength(FIRST)} B`],
      ['memver_local_3', 'modified', `${Buffer.byteLength(LAST)} B`],
      ['memver_local_2', 'modified', 'redacted'],
      ['memver_local_1', 'created', `${Buffer.byteLength(FIRST)} B`],
    ],
  );

  // Pages of ten, newest first: eight more edits make twelve versions.
  await page.evaluate(async (path) => {
    const m = window.memdirExplorer.memory;
    for (let i = 1; i <= 8; i++) await m.execute({ command: 'insert', path, insert_line: i, insert_text: `line ${i}` });
    await window.memdirExplorer.refresh();
  }, PATH);
  await page.waitForFunction(() => document.querySelector('#history-panel tr.version')?.dataset.id === 'memver_local_12');
  const ids = async () => (await shownRows(page)).map(([id]) => id);
  assert.deepEqual(await ids(), Array.from({ length: 10 }, (_, i) => `memver_local_${12 - i}`));
  assert.equal(await page.locator('#history-panel .history-pager button:has-text("Newer")').isDisabled(), true);
  await page.click('#history-panel .history-pager button:has-text("Older")');
  await waitForRows(page, 2);
  assert.deepEqual(await ids(), ['memver_local_2', 'memver_local_1']);
  assert.equal(await page.locator('#history-panel .history-pager button:has-text("Older")').isDisabled(), true);
  await page.click('#history-panel .history-pager button:has-text("Newer")');
  await waitForRows(page, 10);
  assert.equal((await ids())[0], 'memver_local_12');

  assert.deepEqual(errors, []);
  await context.close();
});

test('a redacted path leaves no byte in IndexedDB when the redaction answers, nor versions past retention once gc has passed', async () => {
  const context = await env.browser.newContext();
  const { page, errors } = await open(context, 'forget');
  const SECRET_PATH = 'ssn-OKAPI-5512';
  const made = await page.evaluate(async (name) => {
    const m = window.memdirExplorer.memory;
    const made = (await m.api({ op: 'memory.create', body: JSON.stringify({ path: `/${name}.md`, content: 'okapi one' }) })).body;
    await m.api({ op: 'memory.create', body: JSON.stringify({ path: '/beside.md', content: 'beside' }) });
    await m.api({ op: 'memory.update', id: made.id, body: JSON.stringify({ path: '/public.md', content: 'okapi two' }) });
    return made.id;
  }, SECRET_PATH);
  const naming = async () => (await readAllIndexedDb(page)).filter((e) => e.key.includes(SECRET_PATH) || e.value.includes(SECRET_PATH)).map((e) => e.key);
  const holdingOne = async () => (await readAllIndexedDb(page)).filter((e) => e.value.includes('okapi one')).map((e) => e.key);
  // Before: the old trees name the path, and the first content is kept.
  assert.ok((await naming()).length > 0, 'the path is in IndexedDB before');
  assert.ok((await holdingOne()).length > 0, 'the content is in IndexedDB before');
  const before = await page.evaluate(async (id) => {
    const m = window.memdirExplorer.memory;
    const [, older] = (await m.api({ op: 'version.list', query: { memory_id: id } })).body.data;
    const redacted = (await m.api({ op: 'version.redact', id: older.id, body: '{}' })).body;
    return { id, redactedPath: redacted.path };
  }, made);
  assert.equal(before.redactedPath, null);
  // Right after the call, with no gc: neither the path nor the content, anywhere.
  assert.deepEqual(await naming(), []);
  assert.deepEqual(await holdingOne(), []);
  const after = await page.evaluate(async (id) => {
    const m = window.memdirExplorer.memory;
    for (let i = 0; i < 2; i++) await m.gc({ keepCommits: 0 });
    // Retention, in the page too: every version but the current one is older than 0 ms.
    await new Promise((r) => setTimeout(r, 5));
    const dropped = await m.retain({ olderThanMs: 1 });
    for (let i = 0; i < 2; i++) await m.gc({ keepCommits: 0 });
    const versions = (await m.api({ op: 'version.list', query: { memory_id: id } })).body.data.map((v) => [v.operation, v.path]);
    return { dropped, versions };
  }, before.id);
  assert.deepEqual(await naming(), []);
  assert.deepEqual(after, { dropped: { dropped: 1, more: false }, versions: [['modified', '/public.md']] });
  assert.deepEqual(await holdingOne(), []);
  assert.deepEqual(errors, []);
  await context.close();
});
