// Every conformance case and every hostile path, over HTTP through the example
// service running in workerd (miniflare), each case in a fresh user's object.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { entriesOf, plain, useService } from './client.js';
import { hostileMessage, POSITIONS } from './hostile.js';
import { root } from './mf.js';

const data = (name) => JSON.parse(readFileSync(join(root, 'tests/conformance', name), 'utf8'));
const { cases } = data('cases.json');
const { paths } = data('hostile-paths.json');

const { mf, c } = useService();

test('conformance cases over HTTP', { concurrency: 4 }, async (t) => {
  assert.ok(cases.length > 0, 'cases.json has no cases');
  await Promise.all(
    cases.map((k, i) =>
      t.test(k.name, async () => {
        const user = `case-${i}`;
        const start = entriesOf(k.before);
        await c.setup(user, start, k.limits);
        const body = 'input_text' in k ? k.input_text : JSON.stringify(k.input);
        const r = await c.call(user, body);
        assert.deepEqual(r.body, { content: k.content, is_error: k.is_error });
        assert.equal(r.status, k.is_error ? 422 : 200);
        const { entries, ops } = await c.state(user);
        // A refusal decided before storage (the case says so) must not touch the store.
        if (k.no_store_ops) assert.equal(ops, 0, 'the store was touched');
        assert.deepEqual(plain(entries), k.after ? entriesOf(k.after) : start);
      }),
    ),
  );
});

// Grouped by rule, to keep the run short: every (path, position) request must get
// the rule's message, and the object's store must see no operation over the whole group.
test('hostile paths are refused in every position with no store operation', { concurrency: 2 }, async (t) => {
  assert.ok(paths.length > 0, 'hostile-paths.json has no paths');
  const rules = new Map();
  for (const p of paths) rules.set(p.rule, [...(rules.get(p.rule) ?? []), p]);
  const start = entriesOf({ files: { '/memories/ok.txt': 'x' } });
  await Promise.all(
    [...rules].map(([rule, group]) =>
      t.test(`${rule} (${group.length} paths x ${Object.keys(POSITIONS).length} positions)`, async () => {
        const user = `hostile-${rule}`;
        await c.setup(user, start);
        const calls = group.flatMap(({ path }) => Object.entries(POSITIONS).map(([position, input]) => ({ path, position, input })));
        const wrong = [];
        await pool(calls, 8, async ({ path, position, input }) => {
          const r = await c.call(user, input(path));
          const want = { content: `Error: ${hostileMessage(path, rule)}`, is_error: true };
          if (r.status !== 422 || JSON.stringify(r.body) !== JSON.stringify(want)) {
            wrong.push({ path, position, status: r.status, got: r.body.content, want: want.content });
          }
        });
        assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${calls.length} requests answered wrongly`);
        const state = await c.state(user);
        assert.equal(state.ops, 0, 'store operations');
        assert.deepEqual(plain(state.entries), start);
      }),
    ),
  );
});

/** Runs `fn` over `items`, at most `n` at a time. */
async function pool(items, n, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: n }, worker));
}
