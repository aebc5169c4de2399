// `memdir/tool` (js/tool.js, the lean build in dist/tool/) in Chromium, beside the
// full build (js/browser.js, dist/): two pages of one origin, one per build (a
// realm loads one build: glue.js), over the same IndexedDB databases.
//  - Every conformance case of tests/conformance/cases.json: its `before` tree put
//    by the full build (import), the input run by the lean one (both faces: execute
//    and, for the six commands, the handler on a copy), its `after` tree read back
//    by the full build; every hostile path in every argument position refused by
//    the lean build in the engine's words, the database byte for byte unchanged.
//  - Stores move between the builds both ways: the full build's search index stays
//    true after the lean build writes beside it (the lean build keeps no derived
//    data; the index catches up from the head), and a store the lean build made
//    opens, lists, searches and takes writes in the full one.
//  - An encrypted store is refused by the lean build (which has no encryption) in
//    the full build's words, and nothing is written to it.
//  - What the lean build leaves out is refused by name, and one realm never
//    loads both builds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { readIndexedDb, useBrowser, watchErrors } from './chromium.mjs';
import { hostilePositions } from '../conformance/hostile-positions.mjs';

const env = useBrowser();
const conformance = (name) => JSON.parse(readFileSync(new URL(`../conformance/${name}`, import.meta.url), 'utf8'));
const { cases } = conformance('cases.json');
const { paths: hostile } = conformance('hostile-paths.json');
const HANDLERS = ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'];
const KEY = Array.from({ length: 32 }, (_, i) => 0x5a ^ i);

/** A page of the test's origin with `entry` ('/js/browser.js' or '/js/tool.js') loaded as `window.m`. */
async function pageWith(context, entry) {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do
  await page.evaluate(async (e) => {
    window.m = await import(e);
  }, entry);
  return { page, errors };
}

/** A conformance file value: a string, or {repeat, times}. */
const fileValue = (v) => (typeof v === 'string' ? v : v.repeat.repeat(v.times));

/** A conformance tree as import entries. */
function treeEntries(tree = {}) {
  const entries = [];
  for (const [path, v] of Object.entries(tree.files ?? {})) entries.push({ path, content: fileValue(v) });
  for (const path of tree.dirs ?? []) entries.push({ path });
  return entries;
}

/** A tree in the conformance format, normalised for comparison. */
function normalTree(tree = {}) {
  const files = {};
  for (const [path, v] of Object.entries(tree.files ?? {})) files[path] = fileValue(v);
  return { files, dirs: [...(tree.dirs ?? [])].sort() };
}

/** Limits in the conformance format as openMemory's. */
const limitsOf = (c) => ({ maxFileBytes: c.limits?.max_file_bytes, maxTotalBytes: c.limits?.max_total_bytes, readLimitChars: c.limits?.read_limit_chars });

test('every conformance case and hostile path through memdir/tool over IndexedDB, each store set up and read back by the full build', async (t) => {
  const context = await env.browser.newContext();
  const full = await pageWith(context, '/js/browser.js');
  const lean = await pageWith(context, '/js/tool.js');

  const BATCH = 40;
  let checked = 0;
  for (let from = 0; from < cases.length; from += BATCH) {
    const batch = cases.slice(from, from + BATCH).map((c, i) => ({
      db: `tool-case-${from + i}`,
      handler: c.input && typeof c.input === 'object' && !Array.isArray(c.input) && HANDLERS.includes(c.input.command) ? c.input.command : null,
      before: treeEntries(c.before),
      limits: limitsOf(c),
      input: c.input,
      inputText: c.input_text,
    }));
    // The full build puts each case's tree, and a copy for the handler face.
    await full.page.evaluate(async (batch) => {
      for (const c of batch) {
        for (const db of c.handler ? [c.db, `${c.db}-h`] : [c.db]) {
          const memory = await window.m.openMemory({ store: window.m.indexedDbStore(db), limits: c.limits });
          await memory.import(c.before);
          memory.close();
        }
      }
    }, batch);
    // The lean build runs the input: the raw face, and the handler face on the copy.
    const answers = await lean.page.evaluate(async (batch) => {
      const out = [];
      for (const c of batch) {
        const memory = await window.m.openMemory({ store: window.m.indexedDbStore(c.db), limits: c.limits });
        const raw = await (c.inputText !== undefined ? memory.executeJson(c.inputText) : memory.execute(c.input));
        memory.close();
        let handled = null;
        if (c.handler) {
          const copy = await window.m.openMemory({ store: window.m.indexedDbStore(`${c.db}-h`), limits: c.limits });
          handled = await copy[c.handler](c.input).then(
            (text) => ({ content: text, is_error: false }),
            (e) => ({ content: `Error: ${e.message}`, is_error: true, isError: e instanceof Error }),
          );
          copy.close();
        }
        out.push({ raw, handled });
      }
      return out;
    }, batch);
    // The full build reads every tree back.
    const trees = await full.page.evaluate(async (batch) => {
      const treeOf = (entries) => {
        const files = {};
        const dirs = [];
        for (const e of entries) {
          if (e.content !== undefined) files[e.path] = e.content;
          else if (!entries.some((o) => o.path.startsWith(`${e.path}/`))) dirs.push(e.path);
        }
        return { files, dirs: dirs.sort() };
      };
      const out = [];
      for (const c of batch) {
        const read = async (db) => {
          const memory = await window.m.openMemory({ store: window.m.indexedDbStore(db), limits: c.limits });
          const tree = treeOf(await memory.entries());
          memory.close();
          return tree;
        };
        out.push({ raw: await read(c.db), handled: c.handler ? await read(`${c.db}-h`) : null });
        for (const db of c.handler ? [c.db, `${c.db}-h`] : [c.db]) indexedDB.deleteDatabase(`memdir:${db}`);
      }
      return out;
    }, batch);
    for (const [i, c] of cases.slice(from, from + BATCH).entries()) {
      const expected = { content: c.content, is_error: c.is_error };
      const after = normalTree(c.after ?? c.before);
      assert.deepEqual(answers[i].raw, expected, c.name);
      assert.deepEqual(trees[i].raw, after, `${c.name}: the tree after`);
      if (batch[i].handler) {
        const { isError, ...handled } = answers[i].handled;
        assert.deepEqual(handled, expected, `${c.name}: the handler face`);
        if (c.is_error) assert.equal(isError, true, `${c.name}: the handler rejects with an Error`);
        assert.deepEqual(trees[i].handled, after, `${c.name}: the tree after the handler`);
      }
      checked++;
    }
  }
  assert.equal(checked, cases.length);

  // Every hostile path in every argument position: the engine's refusal, and the
  // database not touched at all.
  const positions = hostilePositions();
  await full.page.evaluate(async () => {
    const memory = await window.m.openMemory({ store: window.m.indexedDbStore('tool-hostile') });
    await memory.import([{ path: '/memories/a.txt', content: 'a' }]);
    memory.close();
  });
  const before = await full.page.evaluate(readIndexedDb, 'memdir:tool-hostile');
  for (const [position, build] of Object.entries(positions)) {
    const inputs = hostile.map((h) => build(h.path));
    const got = await lean.page.evaluate(async (inputs) => {
      const memory = await window.m.openMemory({ store: window.m.indexedDbStore('tool-hostile') });
      const out = [];
      for (const input of inputs) out.push(await memory.execute(input));
      memory.close();
      return out;
    }, inputs);
    for (const [i, h] of hostile.entries()) {
      assert.deepEqual(got[i], { content: `Error: ${h.message}`, is_error: true }, `${position}, ${h.rule}: ${JSON.stringify(h.path)}`);
    }
  }
  assert.deepEqual(await full.page.evaluate(readIndexedDb, 'memdir:tool-hostile'), before, 'a hostile path changed the database');
  t.diagnostic(`${cases.length} cases and ${hostile.length} hostile paths × ${Object.keys(positions).length} positions through memdir/tool`);
  assert.deepEqual([...full.errors, ...lean.errors], []);
  await context.close();
});

test('stores move between memdir/tool and the full build both ways, the search index staying true', async () => {
  const context = await env.browser.newContext();
  const full = await pageWith(context, '/js/browser.js');
  const lean = await pageWith(context, '/js/tool.js');
  const open = (page, db) => page.evaluate(async (db) => {
    window.memory?.close();
    window.memory = await window.m.openMemory({ store: window.m.indexedDbStore(db) });
  }, db);
  const run = (page, inputs) => page.evaluate(async (inputs) => {
    const out = [];
    for (const input of inputs) out.push((await window.memory.execute(input)).content);
    return out;
  }, inputs);
  const search = (page, query) => page.evaluate(async (q) => (await window.memory.search(q)).map((h) => h.path), query);

  // Full, then lean, then full: the index the full build saved is behind the head
  // the lean build moved, and catches up before it answers.
  await open(full.page, 'tool-moves-1');
  await run(full.page, [
    { command: 'create', path: '/memories/a.md', file_text: 'alpha apples' },
    { command: 'create', path: '/memories/c.md', file_text: 'cherries' },
  ]);
  assert.deepEqual(await search(full.page, 'alpha'), ['/memories/a.md']);
  assert.deepEqual(await full.page.evaluate(() => window.memory.searchStatus()), { indexed: 2, pending: false });
  await open(lean.page, 'tool-moves-1');
  assert.deepEqual(await run(lean.page, [
    { command: 'create', path: '/memories/b.md', file_text: 'alpha bananas' },
    { command: 'delete', path: '/memories/a.md' },
    { command: 'rename', old_path: '/memories/c.md', new_path: '/memories/fruit/alpha-cherries.md' },
  ]), [
    'File created successfully at: /memories/b.md',
    'Successfully deleted /memories/a.md',
    'Successfully renamed /memories/c.md to /memories/fruit/alpha-cherries.md',
  ]);
  // The same memory, still open in the full build's page, and a fresh one.
  assert.deepEqual(await full.page.evaluate(() => window.memory.searchStatus()), { indexed: 2, pending: true });
  // Ranked: the renamed file has the term in its path as well.
  assert.deepEqual(await search(full.page, 'alpha'), ['/memories/fruit/alpha-cherries.md', '/memories/b.md']);
  assert.deepEqual(await search(full.page, 'apples'), []);
  await open(full.page, 'tool-moves-1');
  assert.deepEqual(await search(full.page, 'bananas'), ['/memories/b.md']);
  assert.deepEqual(await full.page.evaluate(() => window.memory.searchStatus()), { indexed: 2, pending: false });

  // Lean first: a store it made opens in the full build, which lists, searches
  // and writes it; the lean build reads what the full one wrote.
  await open(lean.page, 'tool-moves-2');
  await run(lean.page, [
    { command: 'create', path: '/memories/notes/todo.md', file_text: 'buy lemons\n' },
    { command: 'insert', path: '/memories/notes/todo.md', insert_line: 1, insert_text: 'call the plumber' },
  ]);
  await open(full.page, 'tool-moves-2');
  assert.deepEqual(await full.page.evaluate(() => window.memory.entries()), [
    { path: '/memories/notes' },
    { path: '/memories/notes/todo.md', content: 'buy lemons\ncall the plumber\n' },
  ]);
  assert.deepEqual(await search(full.page, 'plumber'), ['/memories/notes/todo.md']);
  await run(full.page, [{ command: 'str_replace', path: '/memories/notes/todo.md', old_str: 'lemons', new_str: 'limes' }]);
  assert.deepEqual(await run(lean.page, [{ command: 'view', path: '/memories/notes/todo.md' }]), [
    "Here's the content of /memories/notes/todo.md with line numbers:\n     1\tbuy limes\n     2\tcall the plumber\n     3\t",
  ]);
  assert.deepEqual([...full.errors, ...lean.errors], []);
  await context.close();
});

test('memdir/tool refuses an encrypted store in the full build\'s words and writes nothing to it', async () => {
  const context = await env.browser.newContext();
  const full = await pageWith(context, '/js/browser.js');
  const lean = await pageWith(context, '/js/tool.js');
  const fullRefusal = await full.page.evaluate(async (key) => {
    const store = window.m.indexedDbStore('tool-sealed');
    const memory = await window.m.openMemory({ store, encryption: { key: Uint8Array.from(key), keyId: 'k1' } });
    await memory.execute({ command: 'create', path: '/memories/secret.md', file_text: 'the code is 1234' });
    memory.close();
    return window.m.openMemory({ store: window.m.indexedDbStore('tool-sealed') }).then(() => 'opened', (e) => `${e.name}: ${e.message}`);
  }, KEY);
  assert.equal(fullRefusal, "EncryptionError: this store is encrypted with key id k1: open it with that key");
  const before = await full.page.evaluate(readIndexedDb, 'memdir:tool-sealed');
  const leanRefusal = await lean.page.evaluate(() =>
    window.m.openMemory({ store: window.m.indexedDbStore('tool-sealed') }).then(() => 'opened', (e) => `${e.name}: ${e.message}`),
  );
  assert.equal(leanRefusal, fullRefusal);
  // With the key: the lean build has no encryption, and says so.
  const withKey = await lean.page.evaluate((key) =>
    window.m.openMemory({ store: window.m.indexedDbStore('tool-sealed'), encryption: { key: Uint8Array.from(key), keyId: 'k1' } }).then(() => 'opened', (e) => `${e.name}: ${e.message}`),
  KEY);
  assert.equal(withKey, "TypeError: openMemory's encryption is not in memdir/tool, which runs the memory tool alone: import memdir for it");
  assert.deepEqual(await full.page.evaluate(readIndexedDb, 'memdir:tool-sealed'), before);
  assert.deepEqual([...full.errors, ...lean.errors], []);
  await context.close();
});

test('memdir/tool refuses what it leaves out by name, and a realm loads one build', async () => {
  const context = await env.browser.newContext();
  const lean = await pageWith(context, '/js/tool.js');
  const got = await lean.page.evaluate(async () => {
    const m = window.m;
    const said = (p) => Promise.resolve().then(p).then(() => 'ok', (e) => `${e.name}: ${e.message}`);
    const memory = await m.openMemory({ store: m.indexedDbStore('tool-refusals') });
    return {
      exports: Object.keys(m).sort(),
      search: await said(() => memory.search('x')),
      api: await said(() => memory.api({ op: 'memories.list' })),
      entries: await said(() => memory.entries()),
      gc: await said(() => memory.gc()),
      // A model naming a method as its command gets the engine's answer, as before.
      modelEntries: (await memory.execute({ command: 'entries' })).content,
      embedder: await said(() => m.openMemory({ embedder: { id: 'e', dims: 2, embed: async () => [] } })),
      full: await said(() => import('/js/browser.js')),
      view: await memory.view({ command: 'view', path: '/memories' }),
    };
  });
  const refused = (what) => `TypeError: ${what} is not in memdir/tool, which runs the memory tool alone: import memdir for it`;
  assert.deepEqual(got, {
    exports: ['COMMANDS', 'MEMORY_SYSTEM_PROMPT', 'Memory', 'betaMemoryTool', 'defaults', 'inMemoryStore', 'indexedDbStore', 'memoryStore', 'openMemory', 'oversizedInputResult'],
    search: refused('memory.search()'),
    api: refused('memory.api()'),
    entries: refused('memory.entries()'),
    gc: refused('memory.gc()'),
    modelEntries: 'Error: Unknown command "entries". Expected one of: view, create, str_replace, insert, delete, rename',
    embedder: refused("openMemory's embedder"),
    full: 'Error: memdir and memdir/tool are two builds of one engine and cannot both be loaded here: import one of them',
    view: "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
  });
  assert.deepEqual(lean.errors, []);
  await context.close();
});
