#!/usr/bin/env node
// `npm run bench`: one 1,000-command agent workload over 200 files of 2-20 KiB, run
// in the same process through memdir (memory store, directory store) and the SDK's
// BetaLocalFilesystemMemoryTool, each through the tool runner's entry point
// (`betaMemoryTool(...).run`). Prints per-command medians and the ratios, plus the
// floor: the same bytes crossing JS -> wasm -> JS with no engine work. memdir is the
// package as shipped (dist/); the floor's exports are only in the bench build
// (bench/dist/, `node scripts/build.mjs --bench`), loaded here as a second instance.
//
// Targets (issue 3): memory store >= 20x faster than the SDK tool; directory store
// not slower than it; an in-memory command within 3x of the round-trip floor.
//   npm run bench [-- --commands N] [--files N] [--seed N]
import { existsSync, mkdtempSync, rmSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { betaMemoryTool as sdkBetaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import * as memdir from 'memdir';
import { workload } from '../workload.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N_COMMANDS = arg('commands', 1000);
const N_FILES = arg('files', 200);
const SEED = arg('seed', 42);

const benchWasm = new URL('../dist/memdir_wasm_bg.wasm', import.meta.url);
if (!existsSync(benchWasm)) {
  console.error('bench/dist/ is missing: run `node scripts/build.mjs --bench` (npm run bench does)');
  process.exit(2);
}
const floorGlue = await import('../dist/memdir_wasm.js');
floorGlue.initSync({ module: readFileSync(benchWasm) });

/** Runs every command through `run`, timing each; returns [{kind, ms, result}]. */
async function timed(run, commands) {
  const out = [];
  for (const [kind, input] of commands) {
    const t0 = performance.now();
    let result;
    try {
      result = { content: await run(input), is_error: false };
    } catch (e) {
      result = { content: `Error: ${e.message}`, is_error: true };
    }
    out.push({ kind, ms: performance.now() - t0, result });
  }
  return out;
}

const temps = [];
const temp = (label) => {
  const d = mkdtempSync(join(tmpdir(), label));
  temps.push(d);
  return d;
};

async function sdkSystem(initial) {
  const base = temp('bench-sdk-');
  for (const [p, c] of initial) {
    const real = join(base, p.slice(1));
    mkdirSync(join(real, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(real, c, { mode: 0o600 });
  }
  const tool = sdkBetaMemoryTool(await BetaLocalFilesystemMemoryTool.init(base));
  return (input) => tool.run(input);
}

async function memdirSystem(initial, store) {
  const memory = await memdir.openMemory({ store });
  await memory.import([...initial].map(([path, content]) => ({ path, content })));
  const tool = memdir.betaMemoryTool(memory);
  return (input) => tool.run(input);
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

async function main() {
  const { initial, commands } = workload({ commands: N_COMMANDS, files: N_FILES, seed: SEED });
  const sizes = [...initial.values()].map((c) => c.length);
  console.log(
    `workload: ${commands.length} commands over ${initial.size} files of ${Math.min(...sizes)}-${Math.max(...sizes)} bytes (seed ${SEED}); node ${process.version}`,
  );

  // Warm-up on throwaway systems, so no column pays for JIT compilation.
  const warm = commands.slice(0, 200);
  await timed(await memdirSystem(initial, memdir.memoryStore()), warm);
  await timed(await sdkSystem(initial), warm);

  // The two disk-bound systems take turns command by command, so each sees the same
  // background load (a shared machine's disk is anything but steady); the in-memory
  // store runs on its own, where the other two's system calls cannot cool its caches.
  const disk = {
    'sdk-fs': await sdkSystem(initial),
    'memdir-dir': await memdirSystem(initial, memdir.directoryStore(join(temp('bench-dir-'), 'store'))),
  };
  const runs = { 'sdk-fs': [], 'memdir-memory': [], 'memdir-dir': [] };
  for (const command of commands) {
    for (const [name, run] of Object.entries(disk)) runs[name].push((await timed(run, [command]))[0]);
  }
  runs['memdir-memory'] = await timed(await memdirSystem(initial, memdir.memoryStore()), commands);

  // The floor: the same input text in and the same output text out of wasm, once per
  // command, with the answer staged beforehand. Its instance and glue are not the
  // ones the commands warmed, so it gets the same untimed warm-up first.
  for (const [i, [, input]] of warm.entries()) {
    floorGlue.roundTripPrepare(runs['memdir-memory'][i].result.content);
    await floorGlue.roundTrip(JSON.stringify(input));
  }
  const floor = [];
  for (const [i, [kind, input]] of commands.entries()) {
    floorGlue.roundTripPrepare(runs['memdir-memory'][i].result.content);
    const t0 = performance.now();
    await floorGlue.roundTrip(JSON.stringify(input));
    floor.push({ kind, ms: performance.now() - t0 });
  }
  runs.floor = floor;

  const same = commands.filter((_, i) => runs['sdk-fs'][i].result.content === runs['memdir-memory'][i].result.content).length;
  const errors = Object.fromEntries(Object.entries(runs).filter(([k]) => k !== 'floor').map(([k, v]) => [k, v.filter((r) => r.result.is_error).length]));

  const kinds = [...new Set(commands.map(([k]) => k))].sort();
  const us = (ms) => (ms * 1000).toFixed(ms < 0.01 ? 2 : 1);
  const rows = [];
  for (const kind of [...kinds, 'all']) {
    const pickMs = (name) => runs[name].filter((r) => kind === 'all' || r.kind === kind).map((r) => r.ms);
    const m = Object.fromEntries(Object.keys(runs).map((name) => [name, median(pickMs(name))]));
    rows.push([
      kind,
      String(pickMs('floor').length),
      us(m['sdk-fs']),
      us(m['memdir-memory']),
      us(m['memdir-dir']),
      us(m.floor),
      `${(m['sdk-fs'] / m['memdir-memory']).toFixed(1)}x`,
      `${(m['sdk-fs'] / m['memdir-dir']).toFixed(2)}x`,
      `${(m['memdir-memory'] / m.floor).toFixed(1)}x`,
    ]);
  }
  const head = ['command', 'n', 'sdk-fs µs', 'memdir-mem µs', 'memdir-dir µs', 'floor µs', 'sdk/mem', 'sdk/dir', 'mem/floor'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nper-command medians (the tool runner entry point, betaMemoryTool(...).run):');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  const totals = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.reduce((s, r) => s + r.ms, 0)]));
  console.log(
    `\ntotals: ${Object.entries(totals).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}` +
      `\nidentical answers sdk vs memdir: ${same}/${commands.length} (directory views differ by design: sizes)` +
      `\nerror answers: ${Object.entries(errors).map(([k, v]) => `${k} ${v}`).join(', ')}`,
  );
  const all = rows.at(-1);
  const num = (s) => Number(s.replace('x', ''));
  console.log(
    `\ntargets: memory store >= 20x the SDK: ${all[6]} ${num(all[6]) >= 20 ? 'met' : 'NOT met'}; ` +
      `directory store not slower: ${all[7]} ${num(all[7]) >= 1 ? 'met' : 'NOT met'}; ` +
      `memory store within 3x of the floor: ${all[8]} ${num(all[8]) <= 3 ? 'met' : 'NOT met'}`,
  );
}

try {
  await main();
} finally {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
}
