// Search in the browser, over IndexedDB in Chromium: memory.search, recall,
// reindex and searchStatus on the browser build, with Chinese, German and English
// text; the index is kept in the database, so a reload (a new wasm instance) finds
// it there, and a second tab's write is found by the first tab's next search.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useBrowser, watchErrors } from './chromium.mjs';

const env = useBrowser();

const FILES = {
  '/memories/tea.md': 'Green tea at four.\nNo sugar.\nTea with lemon on Sundays.\n',
  '/memories/notes/zh.md': '我们明天去北京开会。\n',
  '/memories/notes/de.md': 'Die Straße ist gesperrt.\n',
};

/** In the page: each query's search over database `name`, and the index's status before and after. */
function searchIn(page, name, queries, options) {
  return page.evaluate(
    async ({ name, queries, options }) => {
      const m = await import('/js/browser.js');
      const memory = await m.openMemory({ store: m.indexedDbStore(name) });
      // Before any search: what the database's index says.
      const out = { before: await memory.searchStatus() };
      for (const q of queries) out[q] = (await memory.search(q, options)).map(({ path, lines }) => ({ path, lines }));
      out.after = await memory.searchStatus();
      memory.close();
      return out;
    },
    { name, queries, options },
  );
}

test('memory.search over IndexedDB: ranked hits in three languages, the index kept across a reload and shared with another tab', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do

  const first = await page.evaluate(async (files) => {
    const m = await import('/js/browser.js');
    const memory = await m.openMemory({ store: m.indexedDbStore('search') });
    for (const [path, text] of Object.entries(files)) await memory.create({ path, file_text: text });
    const before = await memory.searchStatus();
    const reindexed = await memory.reindex();
    const recalled = await memory.recall('sugar');
    let refused;
    try {
      await memory.search('tea', { limit: 0 });
    } catch (e) {
      refused = [e.message, e.kind];
    }
    memory.close();
    return { before, reindexed, recalled, refused };
  }, FILES);
  assert.deepEqual(first, {
    before: { indexed: 0, pending: true },
    reindexed: { indexed: 3, pending: false },
    recalled: '<memories>\n<memory path="/memories/tea.md">\nGreen tea at four.\nNo sugar.\nTea with lemon on Sundays.\n</memory>\n</memories>',
    refused: ['limit must be a whole number from 1 to 100, not 0.', 'input'],
  });

  await page.reload();
  const expected = {
    tea: [{ path: '/memories/tea.md', lines: [{ line: 1, text: 'Green tea at four.' }, { line: 3, text: 'Tea with lemon on Sundays.' }] }],
    北京: [{ path: '/memories/notes/zh.md', lines: [{ line: 1, text: '我们明天去北京开会。' }] }],
    STRASSE: [{ path: '/memories/notes/de.md', lines: [{ line: 1, text: 'Die Straße ist gesperrt.' }] }],
    before: { indexed: 3, pending: false },
    after: { indexed: 3, pending: false },
  };
  assert.deepEqual(await searchIn(page, 'search', ['tea', '北京', 'STRASSE']), expected);

  // Another tab deletes one and writes one: this tab's next search sees both.
  const other = await context.newPage();
  await other.goto(`${env.url}/www/serve.mjs`);
  await other.evaluate(async () => {
    const m = await import('/js/browser.js');
    const memory = await m.openMemory({ store: m.indexedDbStore('search') });
    await memory.delete({ path: '/memories/tea.md' });
    await memory.create({ path: '/memories/notes/tea.md', file_text: 'Oolong.\n' });
    memory.close();
  });
  assert.deepEqual(await searchIn(page, 'search', ['tea'], { pathPrefix: '/memories/notes' }), {
    tea: [{ path: '/memories/notes/tea.md', lines: [] }],
    before: { indexed: 3, pending: true },
    after: { indexed: 3, pending: false },
  });
  assert.deepEqual(errors, []);
  await context.close();
});

// tests/conformance/search.json over IndexedDB in Chromium: every case without a
// crash cut (the database's keys are the Rust store's, out of the page's reach;
// Node and workerd run those), each in its own database, every answer as the data
// says.
test('the search conformance data over IndexedDB', async () => {
  const { readFileSync } = await import('node:fs');
  const { cases } = JSON.parse(readFileSync(new URL('../conformance/search.json', import.meta.url), 'utf8'));
  const shaped = (s) => !('search' in s) || (s.search && typeof s.search === 'object' && !Array.isArray(s.search));
  const runnable = cases
    .filter((k) => k.steps.every((s) => 'tool' in s || 'search' in s))
    .map((k) => ({ name: k.name, embedder: k.embedder, steps: k.steps.filter(shaped) }));
  assert.ok(runnable.length >= 10, `${runnable.length} cases`);
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`);
  const embedderSource = readFileSync(new URL('../../examples/embedders/test-embedder.mjs', import.meta.url), 'utf8');
  const got = await page.evaluate(async ({ cases, embedderSource }) => {
    const m = await import('/js/browser.js');
    // The test embedder's own source (the dev server serves no examples/).
    const { testEmbedder } = await import(`data:text/javascript,${encodeURIComponent(embedderSource)}`);
    const out = {};
    for (const [i, k] of cases.entries()) {
      const embedder = k.embedder ? testEmbedder() : undefined;
      const memory = await m.openMemory({ store: m.indexedDbStore(`search-case-${i}`), embedder });
      const steps = [];
      for (const s of k.steps) {
        if ('tool' in s) {
          steps.push(await memory.execute(s.tool));
          continue;
        }
        const { query, limit, path_prefix: pathPrefix, mode, min_score: minScore } = s.search;
        const options = {};
        if (limit !== undefined) options.limit = limit;
        if (pathPrefix !== undefined) options.pathPrefix = pathPrefix;
        if (mode !== undefined) options.mode = mode;
        if (minScore !== undefined) options.minScore = minScore;
        steps.push(await memory.search(query, options).then((hits) => ({ hits }), (e) => ({ error: e.message })));
      }
      memory.close();
      out[k.name] = steps;
    }
    return out;
  }, { cases: runnable, embedderSource });
  for (const k of runnable) {
    k.steps.forEach((s, i) => {
      const at = `${k.name} step ${i}`;
      if ('tool' in s) assert.equal(got[k.name][i].is_error, false, `${at}: ${got[k.name][i].content}`);
      else if ('answer' in s) assert.deepEqual(got[k.name][i], { hits: s.answer }, at);
      else assert.deepEqual(got[k.name][i], { error: s.error }, at);
    });
  }
  assert.deepEqual(errors, []);
  await context.close();
});
