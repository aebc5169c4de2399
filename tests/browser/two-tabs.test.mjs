// Two tabs, one memory: two pages of one origin edit the same memory file at the
// same time through indexedDbStore; every edit that reported success must be there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useBrowser, watchErrors } from './chromium.mjs';

const env = useBrowser();

const EDITS = 300;

/** Opens a same-origin page with the package loaded and a memory on `name`. */
async function tab(context, name) {
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do
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
  const context = await env.browser.newContext();
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

/**
 * In the page: records in sessionStorage (which a reload keeps) what the memory's
 * IndexedDB store does from now on: transactions begun, puts placed, readwrite
 * transactions completed. The wasm-bindgen store calls these methods through the
 * prototypes, so it is seen. Run in the page from its source, before the rename.
 */
function instrument() {
  const bump = (k) => sessionStorage.setItem(k, String(Number(sessionStorage.getItem(k) ?? 0) + 1));
  const begin = IDBDatabase.prototype.transaction;
  IDBDatabase.prototype.transaction = function (...args) {
    const tx = begin.apply(this, args);
    bump('transactions');
    if (tx.mode === 'readwrite') tx.addEventListener('complete', () => bump('committed'));
    return tx;
  };
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (...args) {
    bump('puts');
    return put.apply(this, args);
  };
}

test('a reload in the middle of a rename leaves it done or not done, never half', async (t) => {
  const context = await env.browser.newContext();
  const { page } = await tab(context, 'reload');
  const files = 400;
  await page.evaluate(async (n) => {
    const entries = Array.from({ length: n }, (_, i) => ({ path: `/memories/big/f${i}.txt`, content: `file ${i}` }));
    await window.mem.import(entries);
  }, files);
  const reopen = () =>
    page.evaluate(async () => {
      const m = await import('/js/browser.js');
      window.mem = await m.openMemory({ store: m.indexedDbStore('reload') });
    });

  // A reload unloads the page only after a round trip to the server (20 to 60 ms
  // here), and a rename takes a few, so a rename started just before a reload
  // usually finishes first. The rounds that start the rename as the reload unloads
  // the page (`pagehide`) cut it short: its one readwrite transaction, objects and
  // head placed, is still in flight when the page goes away. Each round records
  // what the rename had done when the page unloaded, and the test requires at
  // least one rename cut short in its write with nothing of it visible after.
  const rounds = [-1, 'unload', -1, 'unload', 0, 'unload', 2, 'unload', 5];
  const seen = { committed: 0, cutWhileWriting: 0, notReachedItsWrite: 0 };
  for (let i = 0; i < rounds.length; i++) {
    const when = rounds[i];
    const reloaded = page.waitForEvent('load');
    await page.evaluate(
      ({ when, instrumentSource }) => {
        sessionStorage.clear();
        new Function(`(${instrumentSource})()`)();
        const rename = () =>
          window.mem
            .execute({ command: 'rename', old_path: '/memories/big', new_path: '/memories/moved/big' })
            .then(() => sessionStorage.setItem('answered', '1'));
        if (when === 'unload') {
          addEventListener('pagehide', rename);
          location.reload();
        } else {
          rename();
          // -1: reload in the same task that starts the command.
          if (when < 0) location.reload();
          else setTimeout(() => location.reload(), when);
        }
      },
      { when, instrumentSource: instrument.toString() },
    );
    await reloaded;
    await reopen();
    const { state, trace } = await page.evaluate(async () => {
      const trace = Object.fromEntries(['answered', 'transactions', 'puts', 'committed'].map((k) => [k, Number(sessionStorage.getItem(k) ?? 0)]));
      const files = (await window.mem.entries()).filter((e) => e.content !== undefined);
      return {
        trace,
        state: {
          old: files.filter((f) => f.path.startsWith('/memories/big/')).length,
          moved: files.filter((f) => f.path.startsWith('/memories/moved/big/')).length,
        },
      };
    });
    const how = when === 'unload' ? 'a rename started at the unload' : when < 0 ? 'a reload in the task of the rename' : `a reload ${when} ms after the rename`;
    const what = `${how}: ${JSON.stringify(trace)}; after it ${state.old} files at the old path, ${state.moved} at the new`;
    t.diagnostic(what);
    assert.ok((state.old === files && state.moved === 0) || (state.old === 0 && state.moved === files), what);
    if (state.moved === files) {
      seen.committed += 1;
      // Move it back so the next round renames again.
      const back = await page.evaluate(() => window.mem.execute({ command: 'rename', old_path: '/memories/moved/big', new_path: '/memories/big' }));
      assert.equal(back.is_error, false, back.content);
    } else if (!trace.answered && !trace.committed && trace.puts > 0) {
      seen.cutWhileWriting += 1; // its writes were placed, and none of them landed
    } else {
      seen.notReachedItsWrite += 1;
    }
    // Read the tree into this page's cache, as an open tab would have, so the next
    // rename goes straight to its write.
    await page.evaluate(() => window.mem.entries());
    // Bounded: if no rename was cut in its write, try a few more at the unload.
    if (i === rounds.length - 1 && seen.cutWhileWriting === 0 && rounds.length < 20) rounds.push('unload');
  }
  t.diagnostic(`${rounds.length} reloads: ${JSON.stringify(seen)}`);
  assert.ok(seen.cutWhileWriting > 0, `no reload cut a rename short in its write: ${JSON.stringify(seen)}`);
  await context.close();
});
