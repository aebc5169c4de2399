#!/usr/bin/env node
// `npm run bench:search`'s Chromium row: the exact scan's p50 in headless Chromium
// (Debian's, driven by playwright-core), the browser build of the npm package in a
// page, as bench/search/semantic.mjs measures it in Node: the corpus of
// bench/search/corpus.mjs at 10k and 100k memories imported into an in-memory store,
// every text's vector made first (reindex until nothing is pending), then `--rounds`
// semantic searches (limit 10), p50 and p99.
//
// The embedder in the page is not the test embedder (examples/ is not served to
// pages): a deterministic one of the same 384 dimensions, each text's vector drawn
// from a generator seeded by the text's hash. The scan's cost does not depend on the
// numbers, only on how many vectors of how many dimensions are compared; the
// quality figures are semantic.mjs's.
// Correct before fast: every search must answer 10 live paths, best first, or the
// run exits 1 without figures.
//   node bench/search/scan-chromium.mjs [--sizes 10k,100k] [--rounds 20]
import { launch } from '../../tests/browser/chromium.mjs';
import { buildIfNeeded, serve } from '../../www/serve.mjs';
import { corpus, parseSize, QUERIES } from './corpus.mjs';
import { quantile } from './score.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = String(arg('sizes', '10k,100k')).split(',').map(parseSize);
const ROUNDS = Number(arg('rounds', 20));
const DIMS = 384;

buildIfNeeded();
const srv = await serve({ port: 0 });
const browser = await launch();
let failed = false;
try {
  console.log(`\nExact scan, Chromium (${browser.version()}), ${DIMS} dims (semantic search, limit 10; the vectors already made): p50 / p99 of ${ROUNDS}`);
  for (const size of SIZES) {
    const c = corpus({ size });
    const docs = c.live.map(({ path, content }) => ({ path, content }));
    const live = new Set(docs.map((d) => d.path));
    const queries = QUERIES.slice(0, ROUNDS).map((q) => q.query);
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${srv.url}/www/serve.mjs`);
    const out = await page.evaluate(
      async ({ docs, queries, dims }) => {
        const m = await import('/js/browser.js');
        // FNV-1a of the text seeds a xorshift generator: one vector a text.
        const vector = (text) => {
          let h = 0x811c9dc5;
          for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
          let s = h || 1;
          const v = new Array(dims);
          for (let i = 0; i < dims; i++) {
            s ^= s << 13;
            s >>>= 0;
            s ^= s >>> 17;
            s ^= s << 5;
            s >>>= 0;
            v[i] = s / 4294967296 - 0.5;
          }
          return v;
        };
        const embedder = { id: 'bench-seeded-v1', dims, embed: async (texts) => texts.map(vector) };
        const memory = await m.openMemory({ store: m.inMemoryStore(), limits: { maxTotalBytes: 1024 * 1024 * 1024, maxMemories: 1_000_000 }, embedder });
        await memory.import(docs);
        let t = performance.now();
        for (let calls = 0; (await memory.reindex()).pending; calls++) if (calls > 100_000) throw new Error('reindex() still pending');
        const made = performance.now() - t;
        await memory.search(queries[0], { mode: 'semantic' });
        const times = [];
        const answers = [];
        for (const q of queries) {
          t = performance.now();
          const hits = await memory.search(q, { mode: 'semantic' });
          times.push(performance.now() - t);
          answers.push(hits.map((h) => [h.path, h.score]));
        }
        const status = await memory.searchStatus();
        memory.close();
        return { made, times, answers, vectors: status.vectors.indexed };
      },
      { docs, queries, dims: DIMS },
    );
    await page.context().close();
    for (const a of out.answers) {
      const ordered = a.every(([, s], i) => i === 0 || s <= a[i - 1][1]);
      if (a.length !== 10 || !ordered || !a.every(([p]) => live.has(p))) failed = true;
    }
    if (failed) break;
    console.log(`${size.toLocaleString('en').padStart(8)} memories: p50 ${quantile(out.times, 0.5).toFixed(1)} ms, p99 ${quantile(out.times, 0.99).toFixed(1)} ms (vectors ${out.vectors.toLocaleString('en')}, made in ${(out.made / 1000).toFixed(1)} s with the index)`);
  }
} finally {
  await browser.close();
  await srv.close();
}
if (failed) {
  console.error('scan-chromium: a search answered other than 10 live paths, best first: no figures');
  process.exit(1);
}
