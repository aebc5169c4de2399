#!/usr/bin/env node
// `npm run bench`: one 1,000-command agent workload over 200 files of 2-20 KiB, run
// in the same process through the SDK's BetaLocalFilesystemMemoryTool, memdir's
// memory store, memdir's directory store, the floor (the same bytes crossing
// JS -> wasm -> JS with no engine work) and the durable floor, each through the tool runner's entry point
// (`betaMemoryTool(...).run`). memdir is the package as shipped (dist/); the floor's
// exports are only in the bench build (bench/dist/, `node scripts/build.mjs --bench`),
// loaded here as a second instance.
//
// Same conditions for every side: one untimed warm-up of the same commands on
// throwaway instances of every side, then the timed run, the sides taking turns in
// blocks of 20 commands in a fresh shuffled order each block, each block started
// from a collected heap and a settled event loop (see interleaved()).
//
// Correct before fast: every answer of each memdir store is compared with the SDK's
// for the same input (equal, or a deliberate difference of tests/sdk-differences.mjs,
// the list tests/node/side-by-side.test.mjs asserts), the floor must carry memdir's
// answer byte for byte, every side must answer without an error, and the trees left
// behind must match the SDK's directory. Otherwise the run prints what differed and
// exits 1 without any figures.
//
// Targets: the directory store's views >= 5x faster than the SDK tool, and
// each of its writes within 2x of `durable` (the same file written durably on the
// same disk: temporary file, fsync, rename, fsync of the directory); each kind of
// in-memory command within 3x of its floor: the round trip for a view, the round
// trip plus hashing the bytes it leaves once (the engine's SHA-256, `floor+hash`)
// for a write, and for a rename or a delete making, hashing and keeping one version
// record.
//
// With --encrypted, the memory and directory stores run a second time each,
// encrypted at rest (openMemory({ encryption }), docs/encryption.md), as sides of
// the same run; their answers are checked as the others', and a table sets each
// command's encrypted median against the same store's plaintext one, with the
// target of at most 1.15x on views and writes; and the browser build's growth
// since encryption is printed.
//   npm run bench [-- --commands N] [--files N] [--seed N] [--encrypted]
import { closeSync, existsSync, fsyncSync, mkdtempSync, openSync, renameSync, rmSync, mkdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import v8 from 'node:v8';
import { gzipSync } from 'node:zlib';
import { runInNewContext } from 'node:vm';
import { dirname, join } from 'node:path';
import { betaMemoryTool as sdkBetaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import * as memdir from 'memdir';
import { answerOf, compare, sdkEntries } from '../../tests/sdk-differences.mjs';
import { rng, workload } from '../workload.mjs';
import { buildIfNeeded } from '../../www/serve.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N_COMMANDS = arg('commands', 1000);
const N_FILES = arg('files', 200);
const SEED = arg('seed', 42);
const ENCRYPTED = process.argv.includes('--encrypted');
// A fixed key: the bench times the cipher, not the key.
const KEY = Uint8Array.from({ length: 32 }, (_, i) => i + 1);
// The browser build (dist/) gzipped, as tests/node/wasm-size.test.mjs measures it,
// on 2026-11-28 before encryption at rest: what --encrypted prints growth from.
const BROWSER_GZ_BEFORE_KIB = 505.8;

// memdir is timed as dist/ holds it: a build older than the sources would time old
// code without a word (npm run bench builds first; run alone, this does).
buildIfNeeded();
const benchWasm = new URL('../dist/memdir_wasm_bg.wasm', import.meta.url);
if (!existsSync(benchWasm)) {
  console.error('bench/dist/ is missing: run `node scripts/build.mjs --bench` (npm run bench does)');
  process.exit(2);
}
const floorGlue = await import('../dist/memdir_wasm.js');
floorGlue.initSync({ module: readFileSync(benchWasm) });

const temps = [];
const temp = (label) => {
  const d = mkdtempSync(join(tmpdir(), label));
  temps.push(d);
  return d;
};

/** A side of the comparison: `run(input)` as the tool runner calls it; `prepare(i)` untimed, before command i. */
async function sdkSystem(initial) {
  const base = temp('bench-sdk-');
  for (const [p, c] of initial) {
    const real = join(base, p.slice(1));
    mkdirSync(join(real, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(real, c, { mode: 0o600 });
  }
  const tool = sdkBetaMemoryTool(await BetaLocalFilesystemMemoryTool.init(base));
  return { run: (input) => tool.run(input), entries: () => sdkEntries(base), hostPath: base };
}

async function memdirSystem(initial, store, hostPath, encryption) {
  const memory = await memdir.openMemory({ store, encryption });
  await memory.import([...initial].map(([path, content]) => ({ path, content })));
  const tool = memdir.betaMemoryTool(memory);
  return { run: (input) => tool.run(input), entries: () => memory.entries(), hostPath };
}

const directorySystem = (initial, encryption) => {
  const dir = join(temp('bench-dir-'), 'store');
  return memdirSystem(initial, memdir.directoryStore(dir), dir, encryption);
};

/** The floor answers each command with memdir's answer to it (`staged`), set before the timing. */
function floorSystem(staged) {
  return {
    prepare: (i) => floorGlue.roundTripPrepare(staged[i].content),
    run: async (input) => (await floorGlue.roundTrip(JSON.stringify(input))).content,
  };
}

/**
 * A write's floor: the same crossing, plus hashing once (the engine's SHA-256) the
 * bytes the command leaves at its path (`leaves`, staged untimed; nothing for a
 * view, a rename or a delete, which write no content); a rename or a delete, which
 * leaves no content, also makes, hashes and keeps one version record.
 */
function floorHashSystem(staged, commands) {
  const floor = floorSystem(staged);
  return {
    prepare: (i) => {
      floor.prepare(i);
      floorGlue.hashPrepare(commands[i][2] ?? '');
    },
    run: async (input) => {
      const answer = await floor.run(input);
      floorGlue.hashStaged();
      if (input.command === 'delete') floorGlue.recordStaged('deleted', input.path);
      if (input.command === 'rename') floorGlue.recordStaged('modified', input.new_path);
      return answer;
    },
  };
}

/**
 * The directory store's write floor: the least a durable write of one file does on
 * the same disk (its new bytes to a temporary file, fsync, rename over the file,
 * fsync of the directory; a delete or a rename and the fsync of each directory it
 * changes), in a directory laid out as the SDK's. It answers with memdir's answer,
 * like the floor; a view does nothing, so its views are no figure.
 */
function durableSystem(initial, staged, commands) {
  const base = temp('bench-durable-');
  for (const [p, c] of initial) {
    mkdirSync(join(base, dirname(p)), { recursive: true });
    writeFileSync(join(base, p), c);
  }
  const syncDir = (dir) => {
    const fd = openSync(dir, 'r');
    fsyncSync(fd);
    closeSync(fd);
  };
  let at = 0;
  return {
    prepare: (i) => (at = i),
    run: async (input) => {
      const leaves = commands[at][2];
      const real = (p) => join(base, p);
      if (leaves !== undefined) {
        mkdirSync(dirname(real(input.path)), { recursive: true });
        const tmp = `${real(input.path)}.tmp`;
        const fd = openSync(tmp, 'w', 0o600);
        writeSync(fd, leaves);
        fsyncSync(fd);
        closeSync(fd);
        renameSync(tmp, real(input.path));
        syncDir(dirname(real(input.path)));
      } else if (input.command === 'delete') {
        rmSync(real(input.path), { recursive: true });
        syncDir(dirname(real(input.path)));
      } else if (input.command === 'rename') {
        mkdirSync(dirname(real(input.new_path)), { recursive: true });
        renameSync(real(input.old_path), real(input.new_path));
        syncDir(dirname(real(input.old_path)));
        syncDir(dirname(real(input.new_path)));
      }
      return staged[at].content;
    },
    entries: () => sdkEntries(base),
  };
}

/** A repeatable shuffle (mulberry32-driven Fisher-Yates), for the order of the sides. */
function shuffler(seed) {
  const rand = rng(seed);
  return (xs) => {
    const out = [...xs];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  };
}

/** Commands a side runs in a row before the next side takes its turn. */
const BLOCK = 20;

// A full collection between turns (untimed), so no side's timing pays for the
// garbage of the side before it: interleaved command by command, the SDK tool's
// garbage doubled every other side's figures, the floor's included.
v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

/**
 * Runs `commands` through every system in blocks of BLOCK commands, the systems in
 * a fresh shuffled order each block (so none always runs right after another), each
 * block started from a collected heap and a settled event loop; each system runs
 * every command, in order. Returns each system's [{kind, ms, answer}].
 */
async function interleaved(systems, commands) {
  const names = Object.keys(systems);
  const out = Object.fromEntries(names.map((n) => [n, []]));
  const shuffle = shuffler(SEED);
  for (let from = 0; from < commands.length; from += BLOCK) {
    for (const name of shuffle(names)) {
      const system = systems[name];
      collectGarbage();
      await new Promise(setImmediate);
      for (let i = from; i < Math.min(from + BLOCK, commands.length); i++) {
        const [kind, input] = commands[i];
        system.prepare?.(i);
        const t0 = performance.now();
        const answer = await answerOf(() => system.run(input));
        out[name].push({ kind, ms: performance.now() - t0, answer });
      }
    }
  }
  return out;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const clip = (s, n = 400) => (s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s);

/** Two answers around where they first differ. */
function whereDiffer(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  const from = Math.max(0, i - 80);
  const cut = (s) => `${from ? '...' : ''}${s.slice(from, i + 120)}${s.length > i + 120 ? `... (${s.length} chars)` : ''}`;
  return [cut(a), cut(b)];
}

/**
 * Every answer against the SDK's (and the floor's against memdir's), the error
 * counts and the trees left behind; prints the counts and returns whether all holds.
 */
const MEMDIR_SIDES = ['memdir-memory', 'memdir-dir', ...(ENCRYPTED ? ['memdir-mem-enc', 'memdir-dir-enc'] : [])];

async function check(commands, systems, runs, reference) {
  const problems = [];
  const hostPaths = [...Object.values(systems).map((s) => s.hostPath).filter(Boolean)];
  console.log('\ncorrectness (every answer against the SDK\'s for the same input):');
  for (const name of MEMDIR_SIDES) {
    const tally = { equal: 0, documented: 0, unexpected: 0 };
    const byId = new Map();
    let newErrors = 0;
    for (const [i, [, input]] of commands.entries()) {
      const sdk = runs['sdk-fs'][i].answer;
      const ours = runs[name][i].answer;
      const c = compare(input, sdk, ours, { hostPaths });
      tally[c.verdict]++;
      if (c.verdict === 'documented') byId.set(c.id, (byId.get(c.id) ?? 0) + 1);
      if (c.verdict === 'unexpected') {
        const [a, b] = whereDiffer(sdk.content, ours.content);
        problems.push(`${name}, command ${i} (${c.why}): ${JSON.stringify(input, (k, v) => (typeof v === 'string' ? clip(v, 200) : v))}\n  sdk:    ${JSON.stringify(a)}\n  memdir: ${JSON.stringify(b)}`);
      }
      if (ours.is_error && !sdk.is_error) newErrors++;
    }
    const ids = [...byId].map(([id, n]) => `${id} ${n}`).join(', ');
    console.log(
      `  ${name.padEnd(14)} equal ${tally.equal}, documented difference ${tally.documented}${ids ? ` (${ids})` : ''}, unexpected ${tally.unexpected}; errors the SDK did not give: ${newErrors}`,
    );
    if (newErrors) problems.push(`${name}: ${newErrors} errors the SDK did not give`);
  }
  for (const name of ['floor', 'floor+hash', 'durable']) {
    const same = runs[name].filter((r, i) => r.answer.content === reference[i].content).length;
    console.log(`  ${name.padEnd(14)} carried memdir's answer byte for byte: ${same}/${commands.length}`);
    if (same !== commands.length) problems.push(`${name}: ${commands.length - same} answers not memdir's`);
  }
  const leaves = commands.filter((c) => c[2] !== undefined);
  console.log(`  ${'floor+hash'.padEnd(14)} hashed the bytes ${leaves.length} writes leave: ${leaves.reduce((n, c) => n + Buffer.byteLength(c[2]), 0)} bytes`);

  const errors = Object.entries(runs).map(([name, rs]) => [name, rs.filter((r) => r.answer.is_error).length]);
  console.log(`  error answers (0 required: the workload is all valid commands): ${errors.map(([n, e]) => `${n} ${e}`).join(', ')}`);
  for (const [name, e] of errors) {
    if (e) {
      const first = runs[name].findIndex((r) => r.answer.is_error);
      problems.push(`${name}: ${e} error answers, the first to command ${first} ${JSON.stringify(commands[first][1].command)}: ${clip(runs[name][first].answer.content)}`);
    }
  }

  const theirs = JSON.stringify(await systems['sdk-fs'].entries());
  for (const name of [...MEMDIR_SIDES, 'durable']) {
    const same = JSON.stringify(await systems[name].entries()) === theirs;
    console.log(`  ${name.padEnd(14)} tree left behind identical to the SDK's directory: ${same ? 'yes' : 'NO'}`);
    if (!same) problems.push(`${name}: the tree left behind differs from the SDK's directory`);
  }
  if (problems.length) {
    console.error(`\nFAILED: ${problems.length} problems; no figures are printed for a run that is not correct.`);
    for (const p of problems.slice(0, 20)) console.error(`- ${p}`);
    if (problems.length > 20) console.error(`... and ${problems.length - 20} more`);
  }
  return problems.length === 0;
}

async function main() {
  const { initial, commands } = workload({ commands: N_COMMANDS, files: N_FILES, seed: SEED });
  const sizes = [...initial.values()].map((c) => c.length);
  console.log(
    `workload: ${commands.length} commands over ${initial.size} files of ${Math.min(...sizes)}-${Math.max(...sizes)} bytes (seed ${SEED}); node ${process.version}`,
  );

  // memdir's answers, untimed, for the floor to carry: it crosses the same bytes.
  const referenceSystem = await memdirSystem(initial, memdir.inMemoryStore());
  const reference = [];
  for (const [, input] of commands) reference.push(await answerOf(() => referenceSystem.run(input)));

  const systems = async () => ({
    'sdk-fs': await sdkSystem(initial),
    'memdir-memory': await memdirSystem(initial, memdir.inMemoryStore()),
    'memdir-dir': await directorySystem(initial),
    floor: floorSystem(reference),
    'floor+hash': floorHashSystem(reference, commands),
    durable: durableSystem(initial, reference, commands),
    ...(ENCRYPTED
      ? {
          'memdir-mem-enc': await memdirSystem(initial, memdir.inMemoryStore(), undefined, { key: KEY }),
          'memdir-dir-enc': await directorySystem(initial, { key: KEY }),
        }
      : {}),
  });

  // Warm-up on throwaway instances of every side: the whole workload, the same way
  // as the timed run, so no column pays for JIT compilation or a cold cache the
  // others do not (V8 runs wasm in its baseline compiler until a function is hot;
  // a 200-command warm-up left memdir's commands partly there, ~20% slower).
  await interleaved(await systems(), commands);

  const timed = await systems();
  const runs = await interleaved(timed, commands);
  if (!(await check(commands, timed, runs, reference))) process.exitCode = 1;
  else {
    report(commands, runs);
    if (ENCRYPTED) reportEncrypted(commands, runs);
  }
}

/** Each command's encrypted median against the same store's plaintext one, and the browser build's growth. */
function reportEncrypted(commands, runs) {
  const kinds = [...new Set(commands.map(([k]) => k))].sort();
  const us = (ms) => (ms * 1000).toFixed(1);
  const rows = [];
  const verdicts = { memory: [], directory: [] };
  for (const kind of [...kinds, 'all']) {
    const m = (name) => median(runs[name].filter((r) => kind === 'all' || r.kind === kind).map((r) => r.ms));
    const mem = m('memdir-mem-enc') / m('memdir-memory');
    const dir = m('memdir-dir-enc') / m('memdir-dir');
    if (kind !== 'all') {
      verdicts.memory.push(`${kind} ${mem.toFixed(2)}x ${mem <= 1.15 ? 'met' : 'NOT met'}`);
      verdicts.directory.push(`${kind} ${dir.toFixed(2)}x ${dir <= 1.15 ? 'met' : 'NOT met'}`);
    }
    rows.push([kind, us(m('memdir-memory')), us(m('memdir-mem-enc')), `${mem.toFixed(2)}x`, us(m('memdir-dir')), us(m('memdir-dir-enc')), `${dir.toFixed(2)}x`]);
  }
  const head = ['command', 'memory µs', 'memory enc µs', 'enc/plain', 'dir µs', 'dir enc µs', 'enc/plain'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nencrypted at rest against plaintext (per-command medians, the same run; the same store kind, the same commands):');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  console.log(`\ntargets, encrypted <= 1.15x plaintext: memory store: ${verdicts.memory.join(', ')}; directory store: ${verdicts.directory.join(', ')}`);
  const browser = readFileSync(new URL('../../dist/memdir_wasm_bg.wasm', import.meta.url));
  const gz = gzipSync(browser, { level: 9 }).length / 1024;
  console.log(`browser build: ${(browser.length / 1024).toFixed(1)} KiB raw, ${gz.toFixed(1)} KiB gzipped: +${(gz - BROWSER_GZ_BEFORE_KIB).toFixed(1)} KiB gzipped since ${BROWSER_GZ_BEFORE_KIB} KiB before encryption at rest`);
}

const VIEWS = ['view dir', 'view file', 'view range'];

function report(commands, runs) {
  const kinds = [...new Set(commands.map(([k]) => k))].sort();
  const us = (ms) => (ms * 1000).toFixed(ms < 0.01 ? 2 : 1);
  const rows = [];
  const verdicts = [];
  const dirViews = [];
  const dirWrites = [];
  for (const kind of [...kinds, 'all']) {
    const pickMs = (name) => runs[name].filter((r) => kind === 'all' || r.kind === kind).map((r) => r.ms);
    const m = Object.fromEntries(Object.keys(runs).map((name) => [name, median(pickMs(name))]));
    // A view's floor is the crossing; a write's, the crossing plus hashing its bytes once.
    const floor = VIEWS.includes(kind) || kind === 'all' ? m.floor : m['floor+hash'];
    const ratio = m['memdir-memory'] / floor;
    if (kind !== 'all') verdicts.push(`${kind} ${ratio.toFixed(1)}x ${ratio <= 3 ? 'met' : 'NOT met'}`);
    const write = !VIEWS.includes(kind) && kind !== 'all';
    const overDurable = m['memdir-dir'] / m.durable;
    if (write) dirWrites.push(`${kind} ${overDurable.toFixed(2)}x ${overDurable <= 2 ? 'met' : 'NOT met'}`);
    const sdkOverDir = m['sdk-fs'] / m['memdir-dir'];
    if (VIEWS.includes(kind)) dirViews.push(`${kind} ${sdkOverDir.toFixed(2)}x ${sdkOverDir >= 5 ? 'met' : 'NOT met'}`);
    rows.push([
      kind,
      String(pickMs('floor').length),
      us(m['sdk-fs']),
      us(m['memdir-memory']),
      us(m['memdir-dir']),
      us(m.floor),
      us(m['floor+hash']),
      write ? us(m.durable) : '-',
      `${(m['sdk-fs'] / m['memdir-memory']).toFixed(1)}x`,
      `${sdkOverDir.toFixed(2)}x`,
      `${ratio.toFixed(1)}x`,
      write ? `${overDurable.toFixed(2)}x` : '-',
    ]);
  }
  const head = ['command', 'n', 'sdk-fs µs', 'memdir-mem µs', 'memdir-dir µs', 'floor µs', 'floor+hash µs', 'durable µs', 'sdk/mem', 'sdk/dir', 'mem/its floor', 'dir/durable'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nper-command medians (the tool runner entry point, betaMemoryTool(...).run; sides in turns of 20 commands, order shuffled;');
  console.log("its floor: the crossing for a view, the crossing + hashing the bytes it leaves once for a write (+ one version record made, hashed and kept for a rename or delete);");
  console.log('durable: the same write of one file made durable on the same disk, the directory store\'s floor):');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
  const totals = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, v.reduce((s, r) => s + r.ms, 0)]));
  console.log(`\ntotals: ${Object.entries(totals).map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}`);
  console.log(
    `\ntargets: directory store views >= 5x faster than the SDK: ${dirViews.join(', ')}; ` +
      `directory store writes <= 2x the durable floor: ${dirWrites.join(', ')}; ` +
      `memory store within 3x of its floor: ${verdicts.join(', ')}`,
  );
}

try {
  await main();
} finally {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
}
