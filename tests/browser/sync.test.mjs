// Sync in the explorer: two pages, each its own IndexedDB memory, keep one memory
// through memdir serve (started with --allow-origin for the explorer's origin),
// set up through the page's Sync dialog as a user would; then the CLI on a store
// directory joins the same remote store. Exact summaries and contents: the second
// page's merge of edits to different lines, the CLI's edit reaching a page.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { createServer } from 'node:http';
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

test('a page follows no redirect: the other origin receives nothing, not even a preflight', async () => {
  const listen = (srv) => new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${srv.address().port}`)));
  // Both allow the page's requests (CORS), so only the redirect stands between
  // the page and the other origin. Two ports: two origins.
  const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-allow-methods': 'GET, POST, DELETE' };
  const received = [];
  const other = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { ...cors, 'content-type': 'application/json' }).end('{"data":[],"next_page":null}');
  });
  const named = createServer((req, res) => {
    if (req.method === 'OPTIONS') res.writeHead(204, cors).end();
    else res.writeHead(307, { ...cors, location: `${otherURL}${req.url}` }).end();
  });
  const otherURL = await listen(other);
  const baseURL = await listen(named);
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do
    const said = await page.evaluate(async (baseURL) => {
      const m = await import('/js/browser.js');
      const memory = await m.openMemory({ store: m.inMemoryStore() });
      await memory.execute({ command: 'create', path: '/memories/secret.md', file_text: 'not for the other origin\n' });
      const options = { baseURL, apiKey: 'redirect-test-key', storeId: 'memstore_abcdefghjkmn0123456789ab' };
      return memory.sync(options).then((s) => s.text, (e) => `${e.name}: ${e.message}`);
    }, baseURL);
    assert.equal(
      said,
      'SyncError: The remote memory store answered with a redirect, which sync does not follow (the key goes to the URL given and nowhere else); nothing more was synced.',
    );
    assert.deepEqual(received, []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    named.close();
    other.close();
  }
});
