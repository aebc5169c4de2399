#!/usr/bin/env node
// The example memory service in workerd (miniflare), as wrangler bundles it:
//   node bench/workerd/bench.mjs [--runs 5] [--n 200]
// Reports the bundle's gzipped size against the Workers limits, cold start (workerd
// up, then the first request: a fresh Durable Object and a first command), and, for
// each Durable Object backend (SQLite-backed, as wrangler.toml declares, and the
// older key-value-backed kind), warm per-command latency over loopback HTTP, next to
// the floor of an authenticated request that stops before the object (415:
// credentials checked, no body taken) and a bare `put` round trip (a Worker whose
// object does one `ctx.storage.put` and answers, on the same backend): what a
// command costs beyond the one storage write any design must make.
// Then, because the HTTP round trip (1-3 ms of noise) hides what the store costs,
// the same commands batched: one request runs `--batch` commands inside a bench-only
// Durable Object (batch-worker.js), timed from Node, minus an empty request to the
// same object, divided by the batch; per store design (the shipped store on each
// kind of object, on SQLite-backed ones its storage.sql table; the storage.kv design
// it used there before; and the SQLite-backed object forced through the async path),
// next to a batch of that design's bare 32-byte write.
//   node bench/workerd/bench.mjs --only batch [--batch 200] [--batches 7]
// On demand only (performance figures are never asserted by tests). Numbers from a
// shared 2-core machine are noisy: compare medians from the same run.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { Miniflare } from 'miniflare';
import { mintToken } from '../../examples/worker/src/auth.js';
import { request } from '../../tests/workerd/client.js';
import { AUTH_SECRET, bundleExample, bundleOptions, COMPATIBILITY_DATE, modulesFrom, root } from '../../tests/workerd/mf.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    n: { type: 'string', default: '200' },
    batch: { type: 'string', default: '200' },
    batches: { type: 'string', default: '7' },
    only: { type: 'string' },
  },
});
const RUNS = Number(args.runs);
const N = Number(args.n);
const BATCH = Number(args.batch);
const BATCHES = Number(args.batches);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];
const ms = (x) => `${x.toFixed(2)} ms`;

/**
 * A Worker whose object does one `ctx.storage.put` per request and answers: the
 * storage round trip under every command, served at /bare beside the example.
 */
const BARE = `
import { DurableObject } from 'cloudflare:workers';
export class BarePut extends DurableObject {
  async put(i) {
    await this.ctx.storage.put('k', new Uint8Array(32).fill(i & 255));
    return i;
  }
}
export default {
  async fetch(request, env) {
    const i = Number(new URL(request.url).searchParams.get('i'));
    return new Response(String(await env.BARE.get(env.BARE.idFromName('bench')).put(i)));
  },
};`;

/** The example and the bare-put Worker in one workerd, memory objects on the backend asked for. */
async function warm(options, useSQLite, post) {
  const mf = new Miniflare({
    workers: [
      { ...options, name: 'example', durableObjects: { ...options.durableObjects, MEMORY: { className: 'MemoryObject', useSQLite } } },
      {
        name: 'bare',
        modules: true,
        script: BARE,
        compatibilityDate: options.compatibilityDate,
        routes: ['*/bare*'],
        durableObjects: { BARE: { className: 'BarePut', useSQLite } },
      },
    ],
  });
  const url = await mf.ready;
  try {
    const time = async (label, make, wantStatus = 200) => {
      const xs = [];
      for (let i = 0; i < N; i++) {
        const t = performance.now();
        const r = await make(i);
        await r.text();
        xs.push(performance.now() - t);
        if (r.status !== wantStatus) throw new Error(`${label}: ${r.status}`);
      }
      console.log(`  ${label.padEnd(34)} median ${ms(median(xs))}  p95 ${ms(p95(xs))}`);
      return median(xs);
    };
    // A new user in a warm process: a fresh Durable Object, the isolate already up.
    const fresh = [];
    for (let i = 0; i < 20; i++) {
      const other = await mintToken(AUTH_SECRET, `fresh-${i}`);
      const t = performance.now();
      const r = await request(new URL('/memory', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command: 'view', path: '/memories' }),
      });
      await r.text();
      fresh.push(performance.now() - t);
    }
    console.log(`first request to a new user's object, warm process: median ${ms(median(fresh))} of 20`);
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} of a memory file`).join('\n');
    await post(url, { command: 'create', path: '/memories/notes/big.md', file_text: lines });
    for (let i = 0; i < 50; i++) await post(url, { command: 'create', path: `/memories/dir/f${i}.md`, file_text: `file ${i}` });
    console.log(`warm, ${N} sequential requests each, loopback HTTP end to end:`);
    const floor = await time('floor: authenticated 415', () => post(url, {}, 'text/plain'), 415);
    const bare = await time('bare put: one ctx.storage.put', (i) => request(new URL(`/bare?i=${i}`, url)));
    console.log(`  ${''.padEnd(34)} (${ms(bare - floor)} over the floor)`);
    const rows = [
      ['view a 100-line file', () => ({ command: 'view', path: '/memories/notes/big.md' })],
      ['view a directory of 50 files', () => ({ command: 'view', path: '/memories/dir' })],
      ['create', (i) => ({ command: 'create', path: `/memories/new/f${i}.md`, file_text: 'hello\nworld' })],
      ['str_replace', (i) => ({ command: 'str_replace', path: `/memories/new/f${i}.md`, old_str: 'world', new_str: 'there' })],
      ['insert', (i) => ({ command: 'insert', path: `/memories/new/f${i}.md`, insert_line: 1, insert_text: 'more' })],
      ['rename', (i) => ({ command: 'rename', old_path: `/memories/new/f${i}.md`, new_path: `/memories/moved/f${i}.md` })],
      ['delete', (i) => ({ command: 'delete', path: `/memories/moved/f${i}.md` })],
    ];
    for (const [label, make] of rows) {
      const m = await time(label, (i) => post(url, make(i)));
      console.log(`  ${''.padEnd(34)} (${ms(m - floor)} over the floor, ${ms(m - bare)} over a bare put)`);
    }
  } finally {
    await mf.dispose();
  }
}

const DESIGNS = [
  ['kv-async', 'key-value-backed object, async calls under a lock (shipped there)'],
  ['sqlite-table', 'SQLite-backed, a storage.sql table in transactionSync (shipped there)'],
  ['sqlite-kv', 'SQLite-backed, storage.kv in transactionSync (the previous release)'],
  ['sqlite-async', 'SQLite-backed, async calls under a lock (the code before that)'],
];
const VIEWS = ['view a 100-line file', 'view a directory of 50 files'];
const WRITES = ['create', 'str_replace', 'insert', 'rename', 'delete'];

/** Per-command cost of each store design, from batches run inside one request each. */
async function batched() {
  const mf = new Miniflare({
    modulesRoot: root,
    modules: modulesFrom(join(root, 'bench/workerd/batch-worker.js')),
    compatibilityDate: COMPATIBILITY_DATE,
    durableObjects: { BATCH_SQLITE: { className: 'BatchSqlite', useSQLite: true }, BATCH_KV: { className: 'BatchKv' } },
  });
  const url = await mf.ready;
  try {
    const call = async (body) => {
      const t = performance.now();
      const r = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await r.text();
      const dt = performance.now() - t;
      if (r.status !== 200) throw new Error(`${body.design} ${body.op} ${body.kind ?? ''}: ${text}`);
      return dt;
    };
    await call({ design: 'sqlite-kv', op: 'contract' });
    for (const [design] of DESIGNS) await call({ design, op: 'setup' });
    const per = Object.fromEntries(DESIGNS.map(([d]) => [d, Object.fromEntries([...VIEWS, ...WRITES, 'bare'].map((k) => [k, []]))]));
    // Round 0 warms every path up (JIT, first SQLite statements) and is not counted.
    for (let round = 0; round <= BATCHES; round++) {
      // A different design first each round, so no design always follows the same one.
      const order = DESIGNS.map(([d]) => d);
      for (let r = 0; r < round % order.length; r++) order.push(order.shift());
      for (const design of order) {
        const empties = [];
        for (let i = 0; i < 5; i++) empties.push(await call({ design, op: 'noop' }));
        const empty = median(empties);
        const start = round * BATCH;
        const take = (kind, t) => round > 0 && per[design][kind].push((t - empty) / BATCH);
        for (const kind of [...VIEWS, ...WRITES]) take(kind, await call({ design, op: 'run', kind, start, n: BATCH }));
        take('bare', await call({ design, op: 'bare', n: BATCH }));
      }
    }
    const us = (x) => `${(x * 1000).toFixed(0).padStart(5)} µs`;
    console.log(`\nbatched inside one request (${BATCH} per batch, median of ${BATCHES} batches, an empty request subtracted), per command:`);
    const kinds = [...VIEWS, ...WRITES, 'bare'];
    console.log(`  ${'design'.padEnd(14)}${kinds.map((k) => (k === 'bare' ? 'bare write' : k.replace('view a ', 'view ').replace(' of 50 files', '')).slice(0, 11).padStart(12)).join('')}   views  writes`);
    const summary = {};
    for (const [design] of DESIGNS) {
      const m = Object.fromEntries(kinds.map((k) => [k, median(per[design][k])]));
      const views = VIEWS.reduce((n, k) => n + m[k], 0) / VIEWS.length;
      const writes = WRITES.reduce((n, k) => n + m[k], 0) / WRITES.length;
      summary[design] = { views, writes, bare: m.bare };
      console.log(`  ${design.padEnd(14)}${kinds.map((k) => us(m[k]).padStart(12)).join('')} ${us(views)} ${us(writes)}`);
    }
    for (const [design, what] of DESIGNS) console.log(`  ${design.padEnd(14)}${what}`);
    const base = summary['sqlite-table'];
    for (const design of ['sqlite-kv', 'sqlite-async']) {
      const pct = (a, b) => `${(((a - b) / b) * 100).toFixed(1)}%`;
      console.log(`  ${design} against sqlite-table: views ${pct(summary[design].views, base.views)}, writes ${pct(summary[design].writes, base.writes)} (negative: faster)`);
    }
  } finally {
    await mf.dispose();
  }
}

if (args.only === 'batch') {
  await batched();
  process.exit(0);
}

const out = mkdtempSync(join(tmpdir(), 'memdir-bench-'));
try {
  const { files } = bundleExample(out);
  const raw = files.reduce((n, f) => n + readFileSync(join(out, f)).length, 0);
  const gz = files.reduce((n, f) => n + gzipSync(readFileSync(join(out, f)), { level: 9 }).length, 0);
  const wasmGz = files.filter((f) => f.endsWith('.wasm')).reduce((n, f) => n + gzipSync(readFileSync(join(out, f)), { level: 9 }).length, 0);
  console.log(`bundle (wrangler deploy --dry-run): ${(raw / 1024).toFixed(1)} KiB, gzipped ${(gz / 1024).toFixed(1)} KiB ` +
    `(wasm ${(wasmGz / 1024).toFixed(1)} KiB of it); Workers limit 3 MiB free / 10 MiB paid, gzipped: ` +
    `${((gz / (3 * 1024 * 1024)) * 100).toFixed(1)}% of the free limit`);

  const options = bundleOptions(out);
  const token = await mintToken(AUTH_SECRET, 'bench');
  const post = (url, input, type = 'application/json') =>
    request(new URL('/memory', url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': type },
      body: JSON.stringify(input),
    });

  const boots = [];
  const firsts = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const mf = new Miniflare(options);
    const url = await mf.ready;
    const t1 = performance.now();
    const r = await post(url, { command: 'view', path: '/memories' });
    const t2 = performance.now();
    if (r.status !== 200) throw new Error(`first request: ${r.status} ${await r.text()}`);
    boots.push(t1 - t0);
    firsts.push(t2 - t1);
    await mf.dispose();
  }
  console.log(`cold start, median of ${RUNS}: workerd up and the Worker loaded ${ms(median(boots))}; ` +
    `then the first request (new Durable Object, first command) ${ms(median(firsts))}`);

  for (const [backend, useSQLite] of [['SQLite-backed', true], ['key-value-backed', false]]) {
    console.log(`\n${backend} Durable Objects:`);
    await warm(options, useSQLite, post);
  }
  await batched();
} finally {
  rmSync(out, { recursive: true, force: true });
}

