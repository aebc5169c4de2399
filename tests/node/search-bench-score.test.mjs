// The scores npm run bench:search prints (bench/search/score.mjs), on a hand-made
// example whose recall@10, MRR@10 and stale count are worked out by hand; its corpus
// and labels (bench/search/corpus.mjs) and how the FTS5 peers are queried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkLabels, corpus, DOCUMENTS, parseSize, QUERIES } from '../../bench/search/corpus.mjs';
import { openMemory } from 'memdir';
import { mapStore } from '../../bench/search/map-store.mjs';
import { matchExpression } from '../../bench/search/peers.mjs';
import { ndcg, quantile, score } from '../../bench/search/score.mjs';

const queries = [
  { id: 'a', lang: 'en', relevant: ['/r1'] },
  { id: 'b', lang: 'en', relevant: ['/r2', '/r3'] },
  { id: 'c', lang: 'de', relevant: ['/r4'] },
  { id: 'd', lang: 'de', relevant: [], stale: ['/gone'] },
  { id: 'e', lang: 'de', relevant: ['/r5'], stale: ['/old'] },
];
const filler = (n) => Array.from({ length: n }, (_, i) => `/x${i}`);
const answers = new Map([
  // rank 1: recall 1, reciprocal rank 1
  ['a', ['/r1', '/x']],
  // /r3 at rank 3, /r2 at rank 11 (past K): recall 1/2, reciprocal rank 1/3
  ['b', ['/x0', '/x1', '/r3', ...filler(7), '/r2']],
  // not found: recall 0, reciprocal rank 0
  ['c', filler(10)],
  // no relevant document: no recall; one stale hit
  ['d', ['/gone', '/x']],
  // /r5 at rank 4 behind the stale /old at rank 2: recall 1, reciprocal rank 1/4; one stale hit
  ['e', ['/x', '/old', '/y', '/r5']],
]);

test('nDCG@10 per slice and overall', () => {
  const n = ndcg(queries, answers);
  const d = (r) => 1 / Math.log2(r + 1);
  // a: 1; b: /r3 at rank 3 of an ideal of two at ranks 1 and 2; c: 0; e: /r5 at rank 4.
  const b = d(3) / (d(1) + d(2));
  assert.deepEqual(Object.keys(n), ['en', 'all', 'de']);
  assert.equal(n.en, (1 + b) / 2);
  assert.equal(n.de, (0 + d(4)) / 2);
  assert.equal(n.all, (1 + b + 0 + d(4)) / 4);
});

test('recall@10, MRR@10 and stale hits per slice and overall', () => {
  const s = score(queries, answers);
  assert.deepEqual(Object.keys(s), ['en', 'all', 'de']);
  assert.deepEqual(s.en, { recall: 0.75, mrr: (1 + 1 / 3) / 2, stale: 0, queries: 2 });
  assert.deepEqual(s.de, { recall: 0.5, mrr: 0.125, stale: 2, queries: 2 });
  assert.deepEqual(s.all, { recall: 2.5 / 4, mrr: (1 + 1 / 3 + 0 + 0.25) / 4, stale: 2, queries: 4 });
});

test('a path past the tenth counts neither as found nor as stale', () => {
  const s = score([{ id: 'q', lang: 'zh', relevant: ['/r'], stale: ['/s'] }], new Map([['q', [...filler(10), '/r', '/s']]]));
  assert.deepEqual(s.zh, { recall: 0, mrr: 0, stale: 0, queries: 1 });
});

test('a query the engine did not answer scores 0', () => {
  const s = score([{ id: 'q', lang: 'zh', relevant: ['/r'] }], new Map());
  assert.deepEqual(s.all, { recall: 0, mrr: 0, stale: 0, queries: 1 });
});

test('quantiles by nearest rank', () => {
  const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(quantile(xs, 0.5), 5);
  assert.equal(quantile(xs, 0.99), 10);
  assert.equal(quantile(xs, 0.9), 9);
  assert.equal(quantile([7], 0.99), 7);
});

test('the labelled set has 150 queries or more, and its labels can hold', () => {
  assert.ok(QUERIES.length >= 150, `${QUERIES.length} queries`);
  assert.deepEqual(checkLabels(), []);
  const kinds = new Set(QUERIES.map((q) => q.kind));
  assert.deepEqual([...kinds].sort(), ['deleted', 'identifier', 'paraphrase', 'redacted', 'same-language']);
  assert.deepEqual([...new Set(QUERIES.map((q) => q.lang))].sort(), ['de', 'en', 'zh']);
});

test('the corpus is the same at every run, with every planted document at every size', () => {
  const planted = DOCUMENTS.planted.map((d) => d.path);
  for (const size of [100, 1000]) {
    const a = corpus({ size });
    assert.equal(a.live.length, size);
    assert.equal(new Set(a.live.map((d) => d.path)).size, size);
    assert.deepEqual(planted.filter((p) => !a.live.some((d) => d.path === p)), []);
    assert.deepEqual(corpus({ size }).live, a.live);
  }
  assert.equal(parseSize('10k'), 10000);
  assert.throws(() => parseSize('ten'), /not a corpus size: ten/);
});

test('the FTS5 peers are queried with an OR of the query terms', () => {
  assert.equal(matchExpression("what did we choose for Apollo's job queue", 'unicode61'), '"what" OR "did" OR "we" OR "choose" OR "for" OR "Apollo" OR "s" OR "job" OR "queue"');
  assert.equal(matchExpression('LH-992-104-337', 'unicode61'), '"LH" OR "992" OR "104" OR "337"');
  assert.equal(matchExpression('LH-992-104-337', 'trigram'), '"LH-992-104-337"');
  assert.equal(matchExpression('Geschenk für Lukas?', 'trigram'), '"Geschenk" OR "für" OR "Lukas"');
  assert.equal(matchExpression('王芳 花生过敏', 'trigram'), '"花生过" OR "生过敏"');
  assert.equal(matchExpression('王芳 花生过敏', 'unicode61'), '"王芳" OR "花生过敏"');
  assert.equal(matchExpression('a "b" ok', 'trigram'), null);
  assert.equal(matchExpression('say "yes"', 'unicode61'), '"say" OR "yes"');
});

test("the bench's Map store lists a prefix in order from after a cursor, and holds a memory", async () => {
  const store = mapStore();
  const v = new Uint8Array([1]);
  for (const k of ['index/b', 'tree/x', 'index/a', 'index/c', 'head']) store.set(k, v);
  store.delete('index/b');
  assert.deepEqual(store.list('index/'), { keys: ['index/a', 'index/c'], cursor: null });
  assert.deepEqual(store.list('index/', 'index/a'), { keys: ['index/c'], cursor: null });
  assert.deepEqual(store.list('index/', 'a'), { keys: ['index/a', 'index/c'], cursor: null });
  assert.equal(store.compareAndSwap('head', undefined, v), false);
  assert.equal(store.commit([['blob/1', v]], 'head', v, new Uint8Array([2])), true);
  assert.deepEqual(store.list(''), { keys: ['blob/1', 'head', 'index/a', 'index/c', 'tree/x'], cursor: null });

  const memory = await openMemory({ store: mapStore() });
  await memory.import([{ path: '/memories/a.md', content: 'alpha' }]);
  assert.equal((await memory.execute({ command: 'create', path: '/memories/b.md', file_text: 'beta' })).content, 'File created successfully at: /memories/b.md');
  assert.deepEqual(await memory.entries(), [{ path: '/memories/a.md', content: 'alpha' }, { path: '/memories/b.md', content: 'beta' }]);
});
