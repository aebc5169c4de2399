#!/usr/bin/env node
// `npm run bench:serve`: memdir serve under load on loopback, beside a floor.
//
// 64 clients (each a closed loop, one call at a time) on 16 memory stores make the
// Memory Stores API calls of an agent fleet: 70% reads (memory retrieve, memory list,
// memory-version list), 30% writes (memory create, update with a content_sha256
// precondition, delete), on memories of about 1 KiB that each client alone writes
// (bench/serve/client.mjs), so every answer is checked against the client's own
// model and any status but 200 is an error. Three server configurations (four with
// postgres1), all started fresh at the outset:
//   floor      bench/serve/floor.mjs: the least a durable server does (one file per
//              memory, temp file + fsync + rename + fsync of the directory per write);
//   directory  memdir serve with its default store, a directory per memory store;
//   postgres   two memdir serve instances on one PostgreSQL database (a private
//              cluster, fsync on), the clients of each store split across both;
//   postgres1  the same with one instance (only when --only names it).
// Each has its own 64 clients. After their first memories and a warm-up of each,
// the configurations take turns of at most 5 s, the order rotated every round,
// until each has had 30 s measured (bench/serve/load.mjs): so a machine whose other
// load comes and goes weighs on all three alike. Only the configuration whose turn
// it is has calls under way. Printed: throughput and p50/p99 latency per call kind
// and overall for each, then each memdir configuration against the floor, with the
// targets: throughput at least half the floor's, p99 at most 3x the floor's, no
// errors. The run exits 1 if any answer was wrong.
//   npm run bench:serve [-- --seconds 30 --warmup 5 --turn 5 --clients 64 --stores 16 --timeout 10000 --only floor,directory,postgres[,postgres1] --profile DIR]
//   or BENCH_SERVE_SECONDS, BENCH_SERVE_WARMUP, BENCH_SERVE_TURN, BENCH_SERVE_CLIENTS,
//   BENCH_SERVE_STORES, BENCH_SERVE_TIMEOUT_MS, BENCH_SERVE_ONLY, BENCH_SERVE_PROFILE (a
//   flag wins over its variable). --profile: each server writes a .cpuprofile (node
//   --cpu-prof) into DIR when it stops.
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { rng } from '../workload.mjs';
import { buildIfNeeded } from '../../www/serve.mjs';
import { call } from './wire.mjs';
import { KINDS, READ_PERCENT, client } from './client.mjs';
import { recorder, runFor, setup } from './load.mjs';
import { endAll, profileInto, startDirectory, startFloor, startPostgresOne, startPostgresPair } from './servers.mjs';

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
const TURN = positive('turn', option('turn', 'BENCH_SERVE_TURN', '5'));
const CLIENTS = Math.floor(positive('clients', option('clients', 'BENCH_SERVE_CLIENTS', '64')));
const STORES = Math.floor(positive('stores', option('stores', 'BENCH_SERVE_STORES', '16')));
const TIMEOUT_MS = positive('timeout', option('timeout', 'BENCH_SERVE_TIMEOUT_MS', '10000'));
const ONLY = option('only', 'BENCH_SERVE_ONLY', 'floor,directory,postgres').split(',');
const PROFILE = option('profile', 'BENCH_SERVE_PROFILE', undefined);
const CONFIGS = { floor: startFloor, directory: startDirectory, postgres: startPostgresPair, postgres1: startPostgresOne };
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

/** Starts every configuration asked for; {started: [config], skipped: [[name, why]]}. */
async function startAll(key) {
  const started = [];
  const skipped = [];
  for (const name of ONLY) {
    const config = await CONFIGS[name](key);
    if (config.skipped) skipped.push([name, config.skipped]);
    else started.push(config);
  }
  return { started, skipped };
}

/** Setup and warm-up of each in turn, then measured turns, rotating, until each has had SECONDS. */
async function measure(configs, key) {
  for (const config of configs) {
    config.rec = recorder();
    config.clients = await clientsFor(config, key);
    await setup(config.clients, config.rec);
    await runFor(config.clients, WARMUP * 1000, config.rec, { measured: false });
  }
  const turns = Math.ceil(SECONDS / TURN);
  const turnMs = (SECONDS * 1000) / turns;
  for (let t = 0; t < turns; t++) {
    for (let k = 0; k < configs.length; k++) {
      const config = configs[(t + k) % configs.length];
      await runFor(config.clients, turnMs, config.rec, { measured: true });
    }
  }
  return Object.fromEntries(configs.map((c) => [c.name, c.rec.summary()]));
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
  if (PROFILE) profileInto(PROFILE);
  const key = `sk-bench-${randomBytes(12).toString('hex')}`;
  console.log(
    `memdir serve under load on loopback: ${CLIENTS} clients (closed loops) on ${STORES} stores; ` +
      `${READ_PERCENT}% reads (${KINDS.slice(0, 3).join(', ')}), ${100 - READ_PERCENT}% writes (${KINDS.slice(3).join(', ')}; updates with a content_sha256 precondition); ` +
      `warm-up ${WARMUP} s each, then ${SECONDS} s measured each in turns of ${Math.min(TURN, SECONDS)} s; timeout ${TIMEOUT_MS / 1000} s a call; ` +
      `node ${process.version}, ${availableParallelism()} CPUs shared by clients and servers`,
  );
  const { started, skipped } = await startAll(key);
  let results;
  try {
    results = await measure(started, key);
  } finally {
    await Promise.all(started.map((c) => c.stop()));
  }
  for (const [name, why] of skipped) console.log(`\n${name}: skipped: ${why}`);
  for (const config of started) report(config, results[config.name]);
  verdicts(results);
  if (Object.values(results).some((r) => r.errorCount > 0)) process.exitCode = 1;
}

await main();
