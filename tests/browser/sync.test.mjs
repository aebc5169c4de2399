// Sync in the explorer: two pages, each its own IndexedDB memory, keep one memory
// through memdir serve (started with --allow-origin for the explorer's origin),
// set up through the page's Sync dialog as a user would; then the CLI on a store
// directory joins the same remote store. Exact summaries and contents: the second
// page's merge of edits to different lines, the CLI's edit reaching a page.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { join } from 'node:path';
import { MEMDIR_BIN, runNode, startServe, tempDir } from '../node/helpers.mjs';
import { useBrowser, watchErrors } from './chromium.mjs';

const env = useBrowser();
const KEY = 'browser-sync-key';
let server;
after(() => server?.stop());

/** In the page: the Sync dialog filled (or kept as saved) and submitted; the summary line. */
async function syncFromPage(page, fields) {
  await page.click('#sync');
  for (const [name, value] of Object.entries(fields ?? {})) await page.fill(`#dialog [name="${name}"]`, value);
  const runs = Number((await page.getAttribute('#sync', 'data-runs')) ?? 0);
  await page.click('#dialog button[type="submit"]');
  await page.waitForFunction((n) => Number(document.getElementById('sync').dataset.runs ?? 0) > n, runs);
  return page.getAttribute('#sync', 'data-summary');
}

const entries = (page) => page.evaluate(() => window.memdirExplorer.memory.entries());
const run = (page, input) => page.evaluate((i) => window.memdirExplorer.memory.execute(i), input);

test('two pages sync their IndexedDB memories through memdir serve, from the Sync dialog', async () => {
  server = await startServe(['--store', tempDir('memdir-browser-sync-'), '--allow-origin', env.url], { MEMDIR_API_KEYS: KEY });
  const client = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const store = await client.beta.memoryStores.create({ name: 'Browser' });
  const context = await env.browser.newContext();
  const { page: a, errors: errorsA } = await env.openExplorer(context, '?memory=sync-a');
  const { page: b, errors: errorsB } = await env.openExplorer(context, '?memory=sync-b');
  const fields = { url: server.url, key: KEY, store: store.id, every: '0' };

  await run(a, { command: 'create', path: '/memories/plan.md', file_text: 'one\ntwo\nthree\n' });
  assert.equal(await syncFromPage(a, fields), 'pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0');
  assert.equal(await syncFromPage(b, fields), 'pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0');
  assert.deepEqual(await entries(b), [{ path: '/memories/plan.md', content: 'one\ntwo\nthree\n' }]);

  await run(a, { command: 'str_replace', path: '/memories/plan.md', old_str: 'one', new_str: 'one (a)' });
  await run(b, { command: 'str_replace', path: '/memories/plan.md', old_str: 'three', new_str: 'three (b)' });
  // The settings are kept for each memory: the dialog comes back filled.
  assert.equal(await syncFromPage(a), 'pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0');
  assert.equal(await syncFromPage(b), 'pulled 0, pushed 0, merged 1, conflicts 0, unchanged 0');
  assert.equal(await syncFromPage(a), 'pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0');
  const merged = [{ path: '/memories/plan.md', content: 'one (a)\ntwo\nthree (b)\n' }];
  assert.deepEqual(await entries(a), merged);
  assert.deepEqual(await entries(b), merged);
  // The remote as the SDK reads it.
  const [m] = (await client.beta.memoryStores.memories.list(store.id, { view: 'full' })).data;
  assert.equal(m.content, 'one (a)\ntwo\nthree (b)\n');
  // And the tree on the page shows the file.
  await a.waitForSelector('text=plan.md');

  // A third device: the CLI on a store directory, the same remote store.
  const dir = join(tempDir('memdir-browser-sync-cli-'), 'store');
  const cli = (...args) => runNode([MEMDIR_BIN, '--store', dir, ...args], { PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY });
  const sync = ['sync', '--remote', server.url, '--remote-store', store.id];
  assert.deepEqual(await cli(...sync), { code: 0, stdout: 'pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0\n', stderr: '' });
  assert.equal((await cli('str_replace', 'plan.md', 'two', 'two (cli)')).code, 0);
  assert.deepEqual(await cli(...sync), { code: 0, stdout: 'pulled 0, pushed 1, merged 0, conflicts 0, unchanged 0\n', stderr: '' });
  assert.equal(await syncFromPage(b), 'pulled 1, pushed 0, merged 0, conflicts 0, unchanged 0');
  assert.deepEqual(await entries(b), [{ path: '/memories/plan.md', content: 'one (a)\ntwo (cli)\nthree (b)\n' }]);
  assert.deepEqual([...errorsA, ...errorsB], []);
  await context.close();
});
