#!/usr/bin/env node
// Why hybrid is below its better part with the test embedder (docs/semantic.md):
// on the 1k corpus and every labelled query, the two lists the engine fuses (its
// lexical and semantic answers, the first 100 of each) fused again here by other
// depths and k, beside the engine's own hybrid answer, with the test embedder and
// with multilingual-e5-small's precomputed vectors: recall@10 / nDCG@10 per slice.
// An investigation, not part of `npm run bench:search`.
//   node bench/search/fusion-variants.mjs
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as memdir from 'memdir';
import { testEmbedder } from '../../examples/embedders/test-embedder.mjs';
import { corpus, QUERIES } from './corpus.mjs';
import { ndcg, score } from './score.mjs';
const EXTRA = JSON.parse(readFileSync(new URL('./semantic-queries.json', import.meta.url), 'utf8')).queries;
const ALL = [...QUERIES, ...EXTRA];
const LIMITS = { maxTotalBytes: 1024 * 1024 * 1024, maxMemories: 1_000_000 };
/** multilingual-e5-small from its precomputed vectors (as semantic.mjs reads them). */
function e5() {
  const data = JSON.parse(readFileSync(new URL('./e5/vectors-1k.json', import.meta.url), 'utf8'));
  const vector = (kind, t) => {
    const e = data.vectors[`${kind}:${createHash('sha256').update(t).digest('hex')}`];
    if (!e) throw new Error('no precomputed vector');
    return Float32Array.from(new Int8Array(Buffer.from(e[0], 'base64')), (x) => x * e[1]);
  };
  return { id: 'e5', dims: data.dims, embed: async (texts, kind) => texts.map((t) => vector(kind, t)) };
}

/** Per query: the engine's lexical and semantic lists (first 100) and its hybrid answer (first 10). */
async function lists(embedder) {
  const c = corpus({ size: 1000 });
  const memory = await memdir.openMemory({ store: memdir.inMemoryStore(), limits: LIMITS, embedder });
  await memory.import(c.live.map(({ path, content }) => ({ path, content })));
  while ((await memory.reindex()).pending);
  const out = new Map();
  for (const q of ALL) {
    const lex = (await memory.search(q.query, { mode: 'lexical', limit: 100 }).catch(() => [])).map((h) => h.path);
    const sem = (await memory.search(q.query, { mode: 'semantic', limit: 100 }).catch(() => [])).map((h) => h.path);
    const hyb = (await memory.search(q.query, { mode: 'hybrid', limit: 10 }).catch(() => [])).map((h) => h.path);
    out.set(q.id, { lex, sem, hyb });
  }
  memory.close();
  return out;
}
/** Reciprocal-rank fusion of `l` and `s`, each cut at `depth`, equal scores by path. */
function fuse(l, s, { k = 60, depth = Infinity }) {
  const m = new Map();
  for (const list of [l, s]) list.slice(0, depth).forEach((p, i) => m.set(p, (m.get(p) ?? 0) + 1 / (k + i + 1)));
  return [...m].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([p]) => p);
}
for (const [name, emb] of [['test', testEmbedder(384)], ['e5', e5()]]) {
  const L = await lists(emb);
  const variants = { lexical: (x) => x.lex, semantic: (x) => x.sem, 'hybrid(engine)': (x) => x.hyb };
  for (const depth of [10, 20, 30, 50, 100]) variants[`rrf60 d${depth}`] = (x) => fuse(x.lex, x.sem, { depth });
  for (const k of [10, 30]) variants[`rrf${k} d100`] = (x) => fuse(x.lex, x.sem, { k, depth: 100 });
  console.log(`\n== ${name}`);
  const res = {};
  for (const [v, f] of Object.entries(variants)) {
    const ans = new Map([...L].map(([id, x]) => [id, f(x)]));
    res[v] = { s: score(ALL, ans), n: ndcg(ALL, ans) };
  }
  const slices = Object.keys(res.lexical.s);
  console.log('variant'.padEnd(16) + slices.map((s) => s.padEnd(14)).join(''));
  for (const [v, r] of Object.entries(res)) console.log(v.padEnd(16) + slices.map((s) => `${r.s[s].recall.toFixed(3)}/${(r.n[s] ?? 0).toFixed(3)}`.padEnd(14)).join(''));
}
