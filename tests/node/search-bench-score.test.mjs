// The scores npm run bench:search prints (bench/search/score.mjs), on a hand-made
// example whose recall@10, MRR@10 and stale count are worked out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantile, score } from '../../bench/search/score.mjs';

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
