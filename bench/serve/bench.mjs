#!/usr/bin/env node
// `npm run bench:serve`: memdir serve under load on loopback, beside a floor.
//
// 64 clients (each a closed loop, one call at a time) on 16 memory stores make the
// Memory Stores API calls of an agent fleet: 70% reads (memory retrieve, memory list,
// memory-version list), 30% writes (memory create, update with a content_sha256
// precondition, delete), on memories of about 1 KiB that each client alone writes
// (bench/serve/client.mjs), so every answer is checked against the client's own
// model and any status but 200 is an error. After the clients' first memories and
// a warm-up, 30 s are measured (bench/serve/load.mjs): throughput and p50/p99
// latency per call kind and overall, for three servers in turn, each started fresh:
//   floor      bench/serve/floor.mjs: the least a durable server does (one file per
//              memory, temp file + fsync + rename + fsync of the directory per write);
//   directory  memdir serve with its default store, a directory per memory store;
//   postgres   two memdir serve instances on one PostgreSQL database (a private
//              cluster, fsync on), the clients of each store split across both.
// Then each memdir configuration against the floor, with the targets: throughput at
// least half the floor's, p99 at most 3x the floor's, no errors. The run exits 1 if
// any answer was wrong.
//   npm run bench:serve [-- --seconds 30 --warmup 5 --clients 64 --stores 16 --timeout 10000 --only floor,directory,postgres]
//   or BENCH_SERVE_SECONDS, BENCH_SERVE_WARMUP, BENCH_SERVE_CLIENTS, BENCH_SERVE_STORES,
//   BENCH_SERVE_TIMEOUT_MS, BENCH_SERVE_ONLY (a flag wins over its variable)
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { rng } from '../workload.mjs';
import { buildIfNeeded } from '../../www/serve.mjs';
import { call } from './wire.mjs';
import { KINDS, READ_PERCENT, client } from './client.mjs';
import { runLoad } from './load.mjs';
import { endAll, startDirectory, startFloor, startPostgresPair } from './servers.mjs';

const option = (name, variable, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : (process.env[variable] ?? dflt);
};
const positive = (name, text) => {
  const n = Number(text);
  if (!(n > 0)) {
    console.error(`--${name} must be a positive number, not ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
};
const SECONDS = positive('seconds', option('seconds', 'BENCH_SERVE_SECONDS', '30'));
const WARMUP = positive('warmup', option('warmup', 'BENCH_SERVE_WARMUP', '5'));
const CLIENTS = Math.floor(positive('clients', option('clients', 'BENCH_SERVE_CLIENTS', '64')));
const STORES = Math.floor(positive('stores', option('stores', 'BENCH_SERVE_STORES', '16')));
const TIMEOUT_MS = positive('timeout', option('timeout', 'BENCH_SERVE_TIMEOUT_MS', '10000'));
const ONLY = option('only', 'BENCH_SERVE_ONLY', 'floor,directory,postgres').split(',');
const CONFIGS = { floor: startFloor, directory: startDirectory, postgres: startPostgresPair };
if (ONLY.some((c) => !CONFIGS[c])) {
  console.error(`--only takes ${Object.keys(CONFIGS).join(', ')}`);
  process.exit(2);
}
// The targets, against the floor.
const MIN_THROUGHPUT = 0.5;
const MAX_P99 = 3;

// Whatever the end (an error, Ctrl+C), no server, cluster or directory outlives the run.
process.on('exit', endAll);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.on(signal, () => process.exit(code));

/** Makes the stores through the first instance; each client gets store i mod STORES on instance ⌊i/STORES⌋ mod instances. */
async function clientsFor(config, key) {
  const stores = [];
  for (let s = 0; s < STORES; s++) {
    const r = await call(config.urls[0], key, 'POST', '/v1/memory_stores', { body: { name: `bench ${s}` }, timeoutMs: TIMEOUT_MS });
    if (r.status !== 200 || typeof r.body?.id !== 'string') throw new Error(`${config.name}: creating a store answered ${r.status || r.error} ${r.text.slice(0, 200)}`);
    stores.push(r.body.id);
  }
  return Array.from({ length: CLIENTS }, (_, i) =>
    client({
      index: i,
      base: config.urls[Math.floor(i / STORES) % config.urls.length],
      key,
      storeId: stores[i % STORES],
      rand: rng(1000 + i),
      timeoutMs: TIMEOUT_MS,
    }),
  );
}

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

const ms = (x) => (Number.isNaN(x) ? '-' : x.toFixed(2));

function report(config, result) {
  console.log(`\n${config.name}: ${config.detail}`);
  const row = (name, s) => [name, String(s.n), s.opsPerSec.toFixed(0), ms(s.p50), ms(s.p99), String(s.errors)];
  table(
    ['call', 'calls', 'calls/s', 'p50 ms', 'p99 ms', 'errors'],
    [...KINDS.map((k) => row(k, result.kinds[k])), row('all', result.all)],
  );
  if (result.errorCount > 0) {
    console.log(`${result.errorCount} wrong answers; the first:`);
    for (const e of result.errors) console.log(`  - ${e}`);
    const log = config.stderr().trim();
    if (log) console.log(`  server stderr (end):\n${log.split('\n').slice(-10).map((l) => `    ${l}`).join('\n')}`);
  }
}

async function measure(name, key) {
  const config = await CONFIGS[name](key);
  if (config.skipped) {
    console.log(`\n${name}: skipped, ${config.skipped}`);
    return undefined;
  }
  try {
    const clients = await clientsFor(config, key);
    const result = await runLoad(clients, { warmupMs: WARMUP * 1000, measureMs: SECONDS * 1000 });
    report(config, result);
    return result;
  } finally {
    await config.stop();
  }
}

function verdicts(results) {
  const floor = results.floor;
  const mine = Object.keys(results).filter((n) => n !== 'floor');
  if (!floor || mine.length === 0) return;
  console.log(`\nagainst the floor (targets: throughput >= ${MIN_THROUGHPUT * 100}% of the floor's, p99 <= ${MAX_P99}x the floor's, 0 errors):`);
  const met = (ok) => (ok ? 'met' : 'NOT met');
  table(
    ['configuration', 'throughput', `>= ${MIN_THROUGHPUT * 100}%`, 'p99', `<= ${MAX_P99}x`, 'errors', '= 0'],
    mine.map((n) => {
      const r = results[n].all;
      const tp = r.opsPerSec / floor.all.opsPerSec;
      const p99 = r.p99 / floor.all.p99;
      return [n, `${(tp * 100).toFixed(0)}%`, met(tp >= MIN_THROUGHPUT), `${p99.toFixed(2)}x`, met(p99 <= MAX_P99), String(r.errors), met(r.errors === 0)];
    }),
  );
}

async function main() {
  // memdir serve runs dist/ as it is: an older build would be timed without a word.
  buildIfNeeded();
  const key = `sk-bench-${randomBytes(12).toString('hex')}`;
  console.log(
    `memdir serve under load on loopback: ${CLIENTS} clients (closed loops) on ${STORES} stores; ` +
      `${READ_PERCENT}% reads (${KINDS.slice(0, 3).join(', ')}), ${100 - READ_PERCENT}% writes (${KINDS.slice(3).join(', ')}; updates with a content_sha256 precondition); ` +
      `warm-up ${WARMUP} s, measured ${SECONDS} s; timeout ${TIMEOUT_MS / 1000} s a call; node ${process.version}, ${availableParallelism()} CPUs shared by clients and servers`,
  );
  const results = {};
  for (const name of ONLY) {
    const r = await measure(name, key);
    if (r) results[name] = r;
  }
  verdicts(results);
  if (Object.values(results).some((r) => r.errorCount > 0)) process.exitCode = 1;
}

await main();
