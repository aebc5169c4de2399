// Two tabs, one memory: two pages of one origin edit the same memory file at the
// same time through indexedDbStore; every edit that reported success must be there.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { launch, server, watchErrors } from './chromium.mjs';

let browser;
let srv;

before(async () => {
  srv = await server();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await srv?.close();
});

const EDITS = 300;

/** Opens a same-origin page with the package loaded and a memory on `name`. */
async function tab(context, name) {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${srv.url}/www/serve.mjs`); // any same-origin document will do
  await page.evaluate(async (n) => {
    const m = await import('/js/browser.js');
    window.mem = await m.openMemory({ store: m.indexedDbStore(n), actor: n });
  }, name);
  return { page, errors };
}

/** In the page: `count` inserts of unique lines at spread positions; the lines that succeeded. */
function inserts(page, who, count) {
  return page.evaluate(
    async ({ who, count }) => {
      const ok = [];
      const failed = [];
      for (let i = 0; i < count; i++) {
        const line = `${who}-${i}`;
        // Position 1 always exists; spreading edits over the file makes them collide.
        const r = await window.mem.execute({ command: 'insert', path: '/memories/shared.md', insert_line: 1, insert_text: line });
        (r.is_error ? failed : ok).push(r.is_error ? r.content : line);
      }
      return { ok, failed };
    },
    { who, count },
  );
}

test('two tabs inserting hundreds of lines into one file lose none of them', async (t) => {
  const context = await browser.newContext();
  const a = await tab(context, 'two-tabs');
  const b = await tab(context, 'two-tabs');
  const created = await a.page.evaluate(() =>
    window.mem.execute({ command: 'create', path: '/memories/shared.md', file_text: 'header' }),
  );
  assert.deepEqual(created, { content: 'File created successfully at: /memories/shared.md', is_error: false });

  const [ra, rb] = await Promise.all([inserts(a.page, 'A', EDITS), inserts(b.page, 'B', EDITS)]);

  // Read back from a third tab: what a fresh reader sees is what was committed.
  const c = await tab(context, 'two-tabs');
  const content = await c.page.evaluate(async () => (await window.mem.entries()).find((e) => e.path === '/memories/shared.md').content);
  const lines = content.split('\n');
  for (const line of [...ra.ok, ...rb.ok]) assert.ok(lines.includes(line), `${line} reported success but is missing`);
  assert.equal(lines.length, 1 + ra.ok.length + rb.ok.length, 'a line is there that no successful edit wrote, or twice');
  assert.equal(new Set(lines).size, lines.length);
  // The engine retries a lost race; with two writers it should never run out of tries.
  assert.deepEqual([...ra.failed, ...rb.failed], []);
  assert.equal(ra.ok.length + rb.ok.length, 2 * EDITS);
  t.diagnostic(`${EDITS} inserts from each tab, all ${lines.length - 1} lines present`);
  assert.deepEqual([...a.errors, ...b.errors, ...c.errors], []);
  await context.close();
});

test('a reload in the middle of a rename leaves it done or not done, never half', async (t) => {
  const context = await browser.newContext();
  const { page } = await tab(context, 'reload');
  const files = 400;
  await page.evaluate(async (n) => {
    const entries = Array.from({ length: n }, (_, i) => ({ path: `/memories/big/f${i}.txt`, content: `file ${i}` }));
    await window.mem.import(entries);
  }, files);
  let done = 0;
  let notDone = 0;
  // -1: reload in the same task that starts the command.
  for (const delay of [-1, -1, 0, 1, 2, 3, 5, 8]) {
    const reloaded = page.waitForEvent('load');
    await page.evaluate((ms) => {
      window.mem.execute({ command: 'rename', old_path: '/memories/big', new_path: '/memories/moved/big' });
      if (ms < 0) location.reload();
      else setTimeout(() => location.reload(), ms);
    }, delay);
    await reloaded;
    const state = await page.evaluate(async () => {
      const m = await import('/js/browser.js');
      window.mem = await m.openMemory({ store: m.indexedDbStore('reload') });
      const files = (await window.mem.entries()).filter((e) => e.content !== undefined);
      return {
        old: files.filter((f) => f.path.startsWith('/memories/big/')).length,
        moved: files.filter((f) => f.path.startsWith('/memories/moved/big/')).length,
      };
    });
    assert.ok(
      (state.old === files && state.moved === 0) || (state.old === 0 && state.moved === files),
      `after a reload at ${delay} ms: ${state.old} files at the old path, ${state.moved} at the new`,
    );
    if (state.moved === files) {
      done += 1;
      // Move it back so the next round renames again.
      const back = await page.evaluate(() => window.mem.execute({ command: 'rename', old_path: '/memories/moved/big', new_path: '/memories/big' }));
      assert.equal(back.is_error, false, back.content);
    } else {
      notDone += 1;
    }
  }
  assert.equal(done + notDone, 8);
  t.diagnostic(`renames that committed before the reload: ${done} of 8`);
  await context.close();
});
