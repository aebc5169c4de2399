// The quality scores of `npm run bench:search`, kept apart from the bench so that
// tests/node/search-bench-score.test.mjs checks them on a hand-made example.

/** Results an engine is judged on: the first K of each answer. */
export const K = 10;

/**
 * Scores one engine's answers. `queries`: the labelled set (queries.json's entries:
 * `id`, `lang`, `relevant`, `stale?`); `answers`: a Map from query id to the paths the
 * engine answered, best first. Per slice (each `lang`, and `all`):
 * - `recall`: the mean over the queries with a relevant document of the share of
 *   their relevant documents among the first K paths;
 * - `mrr`: the mean over the same queries of 1/rank of the first relevant path
 *   within the first K (0 when none is);
 * - `stale`: how many of the first K paths, over every query, are one of the
 *   query's `stale` paths (a deleted or redacted document that matched);
 * - `queries`: how many queries the recall and MRR are a mean of.
 */
export function score(queries, answers) {
  const slices = new Map();
  const slice = (name) => {
    if (!slices.has(name)) slices.set(name, { recall: 0, mrr: 0, stale: 0, queries: 0 });
    return slices.get(name);
  };
  for (const q of queries) {
    const got = (answers.get(q.id) ?? []).slice(0, K);
    const stale = got.filter((p) => (q.stale ?? []).includes(p)).length;
    for (const s of [slice(q.lang), slice('all')]) {
      s.stale += stale;
      if (q.relevant.length === 0) continue;
      s.queries += 1;
      s.recall += got.filter((p) => q.relevant.includes(p)).length / q.relevant.length;
      const first = got.findIndex((p) => q.relevant.includes(p));
      s.mrr += first < 0 ? 0 : 1 / (first + 1);
    }
  }
  const out = {};
  for (const [name, s] of slices) {
    out[name] = { recall: s.queries ? s.recall / s.queries : 0, mrr: s.queries ? s.mrr / s.queries : 0, stale: s.stale, queries: s.queries };
  }
  return out;
}

/**
 * nDCG@10 per slice (each `lang`, and `all`), beside score()'s recall and MRR: over
 * the queries with a relevant document, the discounted gain of the first K paths
 * (1 / log2(rank + 1) for each relevant one) over the best possible (every
 * relevant document first), binary relevance.
 */
export function ndcg(queries, answers) {
  const slices = new Map();
  for (const q of queries) {
    if (q.relevant.length === 0) continue;
    const got = (answers.get(q.id) ?? []).slice(0, K);
    let dcg = 0;
    got.forEach((p, i) => {
      if (q.relevant.includes(p)) dcg += 1 / Math.log2(i + 2);
    });
    let ideal = 0;
    for (let i = 0; i < Math.min(K, q.relevant.length); i++) ideal += 1 / Math.log2(i + 2);
    for (const name of [q.lang, 'all']) {
      const s = slices.get(name) ?? { sum: 0, n: 0 };
      s.sum += dcg / ideal;
      s.n += 1;
      slices.set(name, s);
    }
  }
  return Object.fromEntries([...slices].map(([k, s]) => [k, s.n ? s.sum / s.n : 0]));
}

/** The value at quantile `q` (0..1) of `xs`, nearest rank. */
export function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}
