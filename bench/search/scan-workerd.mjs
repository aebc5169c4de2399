#!/usr/bin/env node
// `npm run bench:search`'s workerd row: the exact scan's p50 inside workerd
// (miniflare), the npm package's workerd build in a Durable Object
// (bench/search/scan-worker.js), at 10k and 100k memories of the corpus of
// bench/search/corpus.mjs, every vector made first, then `--rounds` semantic
// searches (limit 10), each timed from Node as one loopback request (workerd's
// clocks stand still inside a request), beside an empty request's time to the same
// object (the HTTP floor). The embedder is deterministic, seeded by each text's
// hash, 384 dimensions: the scan's cost does not depend on the numbers.
// Correct before fast: every search must answer 10 live paths, best first, or the
// run exits 1 without figures.
//   node bench/search/scan-workerd.mjs [--sizes 10k,100k] [--rounds 20]
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { COMPATIBILITY_DATE, modulesFrom, root } from '../../tests/workerd/mf.js';
import { corpus, parseSize, QUERIES } from './corpus.mjs';
import { quantile } from './score.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = String(arg('sizes', '10k,100k')).split(',').map(parseSize);
const ROUNDS = Number(arg('rounds', 20));

const mf = new Miniflare({
  modulesRoot: root,
  modules: modulesFrom(join(root, 'bench/search/scan-worker.js')),
  compatibilityDate: COMPATIBILITY_DATE,
  durableObjects: { SCAN: { className: 'ScanObject', useSQLite: true } },
});
let failed = false;
try {
  const call = async (path, init) => {
    const r = await mf.dispatchFetch(`http://bench${path}`, init);
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  console.log(`\nExact scan, workerd (miniflare, a Durable Object), 384 dims (semantic search, limit 10; the vectors already made): p50 / p99 of ${ROUNDS}, each a loopback request`);
  for (const size of SIZES) {
    const c = corpus({ size });
    const docs = c.live.map(({ path, content }) => ({ path, content }));
    const live = new Set(docs.map((d) => d.path));
    await call('/load', { method: 'POST', body: JSON.stringify(docs) });
    let t = performance.now();
    let status;
    for (let calls = 0; (status = await call('/reindex', { method: 'POST' })).pending; calls++) if (calls > 100_000) throw new Error('reindex still pending');
    const made = performance.now() - t;
    const queries = QUERIES.slice(0, ROUNDS).map((q) => q.query);
    await call(`/search?q=${encodeURIComponent(queries[0])}`);
    const times = [];
    const floor = [];
    for (const q of queries) {
      t = performance.now();
      const hits = await call(`/search?q=${encodeURIComponent(q)}`);
      times.push(performance.now() - t);
      const ordered = hits.every(([, s], i) => i === 0 || s <= hits[i - 1][1]);
      if (hits.length !== 10 || !ordered || !hits.every(([p]) => live.has(p))) failed = true;
      t = performance.now();
      const r = await mf.dispatchFetch('http://bench/none');
      await r.text();
      floor.push(performance.now() - t);
    }
    if (failed) break;
    console.log(`${size.toLocaleString('en').padStart(8)} memories: p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (an empty request: p50 ${quantile(floor, 0.5).toFixed(1)} ms; vectors ${status.vectors.indexed.toLocaleString('en')}, made in ${(made / 1000).toFixed(1)} s with the index)`);
  }
} finally {
  await mf.dispose();
}
if (failed) {
  console.error('scan-workerd: a search answered other than 10 live paths, best first: no figures');
  process.exit(1);
}
