#!/usr/bin/env node
// `npm run bench:search`'s PostgreSQL rows: pgvector's HNSW index against the exact
// scan in the database, both through postgresStore's `nearest` (the path a search on a
// PostgreSQL store with pgvector takes), at `--vectors` (default 100,000) vectors of
// `--dims` (default 384) dimensions in one namespace of a private cluster
// (tests/node/pg-cluster.mjs; pgvector from scripts/setup.d/pgvector.sh).
//
// The vectors: embeddings cluster by topic, so they are drawn around 1,000 seeded
// centres with noise, unit length, then quantised to the engine's int8 form
// (src/search/vectors.rs) and stored as the store stores them (the same bytes and
// halfvec, written in batches by SQL, since a load through `set` one row a round trip
// would time the loading, not the search). The queries: 200 more points drawn the
// same way (not stored).
//
// 1. Exact: every query through `nearest` before the index exists (the database's
//    exact scan of the fingerprint's rows), at k = 10 and at the engine's
//    k = 1,000 candidates (`VECTOR_STORE_CANDIDATES`): p50 and p99.
// 2. The index: built the way a store builds it (the first search past
//    `PG_VECTOR_INDEX_ROWS` rows starts it in the background; `close()` waits for
//    it), timed.
// 3. HNSW: the same queries through the index (checked by EXPLAIN): p50, p99, and
//    recall@10 against the exact scan's first 10 (the mean share of them among the
//    index's first 10), at k = 10 and k = 1,000 (whose walk is wider).
// Correct before fast: every answer's first hit must be a stored vector's hash with
// a cosine in [-1, 1], non-increasing; otherwise the run exits 1 without figures.
//   node bench/search/pgvector.mjs [--vectors 100000] [--dims 384] [--seed 47]
import pg from 'pg';
import { startPostgres } from '../../tests/node/pg-cluster.mjs';
import { postgresStore } from 'memdir';
import { embeddingText } from '../../js/stores/postgres-vectors.js';
import { rng } from '../workload.mjs';
import { quantile } from './score.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('vectors', 100_000);
const DIMS = arg('dims', 384);
const SEED = arg('seed', 47);
const CENTRES = 1000;
const QUERIES = 200;
const NOISE = 0.6;
const FP = '7'.repeat(32);
const NS = 'bench';

const random = rng(SEED);
const gauss = () => {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
};
const unit = (v) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
const centres = Array.from({ length: CENTRES }, () => unit(Array.from({ length: DIMS }, gauss)));
const point = () => {
  const c = centres[Math.floor(random() * CENTRES)];
  return unit(c.map((x) => x + (NOISE / Math.sqrt(DIMS)) * gauss()));
};
/** The engine's stored form: `MDVE`, 1, dims, scale, int8 components. */
function stored(v) {
  const max = v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  const scale = max / 127;
  const out = new Uint8Array(13 + v.length);
  out.set([0x4d, 0x44, 0x56, 0x45, 1]);
  const view = new DataView(out.buffer);
  view.setUint32(5, v.length, true);
  view.setFloat32(9, scale, true);
  v.forEach((x, i) => view.setInt8(13 + i, Math.max(-127, Math.min(127, Math.round(x / scale)))));
  return out;
}
const hashOf = (i) => i.toString(16).padStart(64, '0');

const fail = (why) => {
  console.error(`pgvector bench: ${why}`);
  process.exit(1);
};
const ms = (x) => `${x.toFixed(2)} ms`;

const cluster = await startPostgres();
const stores = [];
try {
  cluster.psql('CREATE EXTENSION vector');
  const open = () => {
    const s = postgresStore(cluster.url(), { namespace: NS });
    stores.push(s);
    return s;
  };
  const first = open();
  await first.ready();
  if (!first.searchesVectors) fail('the cluster has no pgvector 0.8 (bash scripts/setup.sh builds it)');

  const t0 = performance.now();
  const client = new pg.Client({ connectionString: cluster.url() });
  await client.connect();
  const BATCH = 2000;
  for (let from = 0; from < N; from += BATCH) {
    const keys = [];
    const values = [];
    const embeddings = [];
    for (let i = from; i < Math.min(N, from + BATCH); i++) {
      const value = stored(point());
      keys.push(`vec/${hashOf(i)}/${FP}`);
      values.push(value);
      embeddings.push(embeddingText(value, Infinity));
    }
    await client.query(
      `INSERT INTO memdir_vectors (namespace, key, fingerprint, value, embedding)
         SELECT $1, k, $2, v, e::halfvec FROM unnest($3::text[], $4::bytea[], $5::text[]) AS u(k, v, e)`,
      [NS, FP, keys, values, embeddings],
    );
  }
  await client.query('ANALYZE memdir_vectors');
  const loaded = performance.now() - t0;
  const queries = Array.from({ length: QUERIES }, () => Float32Array.from(point()));

  const run = async (store, k) => {
    const times = [];
    const answers = [];
    for (const q of queries) {
      const a = performance.now();
      const found = await store.nearest(FP, q, k);
      times.push(performance.now() - a);
      if (!Array.isArray(found) || found.length !== Math.min(k, N)) fail(`a search answered ${found?.length} hits for k = ${k}`);
      let last = Infinity;
      for (const [h, c] of found) {
        if (!/^[0-9a-f]{64}$/.test(h) || parseInt(h, 16) >= N || !(c >= -1 && c <= 1) || c > last + 1e-6) fail(`a search answered a hit out of shape or order: ${h} ${c} after ${last} (k = ${k})`);
        last = c;
      }
      answers.push(found.slice(0, 10).map(([h]) => h));
    }
    return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), answers };
  };

  // 1. Exact: no index yet. The store's first search past PG_VECTOR_INDEX_ROWS
  // starts the build in the background, so these run on a store whose builds are
  // held off: a second store, opened after the exact runs, builds.
  // (The build's lock, postgres-vectors.js's `indexLock`, held here meanwhile.)
  const lock = `(${0x6d657673}, ('x' || substr('${FP}', 1, 8))::bit(32)::int)`;
  await client.query(`SELECT pg_advisory_lock${lock}`);
  const exact10 = await run(first, 10);
  const exact1000 = await run(first, 1000);
  const plan = (sql) => cluster.psql(`EXPLAIN ${sql}`);
  const query = `SELECT key FROM memdir_vectors WHERE fingerprint = '${FP}' AND namespace = '${NS}' AND embedding IS NOT NULL ORDER BY embedding::halfvec(${DIMS}) <=> '[${queries[0].join(',')}]'::halfvec(${DIMS}) LIMIT 10`;
  if (/memdir_vectors_hnsw/.test(plan(query))) fail('the exact runs found an index');
  await first.close();
  stores.length = 0;
  await client.query(`SELECT pg_advisory_unlock${lock}`);
  await client.end();

  // 2. The index, as a store builds it.
  const t1 = performance.now();
  const builder = open();
  await builder.nearest(FP, queries[0], 10);
  await builder.close();
  const built = performance.now() - t1;
  if (!/Index Scan using memdir_vectors_hnsw/.test(plan(query))) fail('the index was not built, or the search does not use it');

  // 3. HNSW.
  const searcher = open();
  const hnsw10 = await run(searcher, 10);
  const hnsw1000 = await run(searcher, 1000);
  const recall = (got) => got.answers.reduce((sum, a, i) => sum + a.filter((h) => exact10.answers[i].includes(h)).length / exact10.answers[i].length, 0) / QUERIES;

  console.log(`pgvector ${cluster.psql("SELECT extversion FROM pg_extension WHERE extname = 'vector'").trim()}, ${N.toLocaleString('en')} vectors × ${DIMS} dims (int8 as halfvec), ${QUERIES} queries; loaded in ${(loaded / 1000).toFixed(1)} s, HNSW built in ${(built / 1000).toFixed(1)} s (m 16, ef_construction 64)`);
  console.log('| search | k | p50 | p99 | recall@10 vs exact |');
  console.log('|---|---|---|---|---|');
  console.log(`| exact scan in the database | 10 | ${ms(exact10.p50)} | ${ms(exact10.p99)} | 1 |`);
  console.log(`| exact scan in the database | 1,000 | ${ms(exact1000.p50)} | ${ms(exact1000.p99)} | ${recall(exact1000).toFixed(3)} |`);
  console.log(`| HNSW (ef_search 100) | 10 | ${ms(hnsw10.p50)} | ${ms(hnsw10.p99)} | ${recall(hnsw10).toFixed(3)} |`);
  console.log(`| HNSW (ef_search 1,000) | 1,000 | ${ms(hnsw1000.p50)} | ${ms(hnsw1000.p99)} | ${recall(hnsw1000).toFixed(3)} |`);
} finally {
  await Promise.all(stores.map((s) => s.close().catch(() => {})));
  cluster.stop();
}
