// Search inside workerd, on durableObjectStore over SQLite-backed and
// key-value-backed Durable Objects: memory.search, recall, reindex and
// searchStatus, and the index kept in the object's storage, so the next request's
// memory reads it there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { useService } from './client.js';
import { root } from './mf.js';

const { c } = useService();
const { cases } = JSON.parse(readFileSync(join(root, 'tests/conformance/search.json'), 'utf8'));

// tests/conformance/search.json inside workerd, on both kinds of object: every
// step's answer as the data says (steps whose options are not an object are the
// JSON face's alone, as in the Node runner).
for (const storage of ['sqlite-backed', 'kv-backed']) {
  test(`the search conformance data on durableObjectStore over ${storage} objects`, { concurrency: 4 }, async (t) => {
    assert.ok(cases.length > 0, 'search.json has no cases');
    await Promise.all(
      cases.map((k) =>
        t.test(k.name, async () => {
          const steps = k.steps.filter((s) => !('search' in s) || (s.search && typeof s.search === 'object' && !Array.isArray(s.search)));
          const got = await c.test('search-case', { storage, name: `search-case-${storage}`, steps, embedder: k.embedder });
          assert.equal(got.length, steps.length);
          steps.forEach((step, i) => {
            if ('tool' in step) assert.equal(got[i].is_error, false, `step ${i}: ${got[i].content}`);
            else if ('answer' in step) assert.deepEqual(got[i], { hits: step.answer }, `step ${i}`);
            else if ('error' in step) assert.deepEqual(got[i], { error: step.error }, `step ${i}`);
            else assert.equal(got[i], null, `step ${i}`);
          });
        }),
      ),
    );
  });
}

for (const storage of ['sqlite-backed', 'kv-backed']) {
  test(`memory.search on durableObjectStore over ${storage} objects: ranked, its index kept in the object`, async () => {
    const r = await c.test('search', { storage, name: `search-${storage}` });
    assert.equal(r.tea.length, 1);
    const [hit] = r.tea;
    assert.deepEqual({ ...hit, score: undefined }, { path: '/memories/tea.md', score: undefined, lines: [{ line: 1, text: 'Green tea at four.' }] });
    assert.ok(hit.score > 0);
    assert.deepEqual(
      { ...r, tea: undefined, again: undefined },
      {
        before: { indexed: 0, pending: true },
        reindexed: { indexed: 2, pending: false },
        tea: undefined,
        zh: [{ path: '/memories/notes/zh.md', lines: [{ line: 1, text: '我们明天去北京开会。' }] }],
        recalled: '<memories>\n<memory path="/memories/tea.md">\nGreen tea at four.\nNo sugar.\n</memory>\n</memories>',
        refused: ['path_prefix must be a directory path under /memories, such as /memories/notes.', 'input'],
        reopened: { indexed: 2, pending: false },
        again: undefined,
        // The index's table and its one chunk, beside the tree's records.
        indexKeys: ['r:index/chunk/<sha256>', 'r:index/head'],
      },
    );
    assert.deepEqual(r.again, r.tea);
  });
}
