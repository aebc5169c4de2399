#!/usr/bin/env node
// `npm run bench:search`: memdir's ranked search beside its peers in the same run, on
// the same corpus and the same writes (bench/search/corpus.mjs, documents.json,
// queries.json): SQLite FTS5 through better-sqlite3 with the unicode61 and the trigram
// tokenizers, and today's substring search (bench/search/peers.mjs says how each is
// queried). At each corpus size (`--sizes 1k,10k`, the default; `--sizes 1k,10k,100k`
// for the largest too):
// 1. Load: every engine gets the corpus, the documents that will be deleted and the
//    ones that will be redacted (memdir: the memory tool's import, then those to be
//    redacted created through `memory.api`, then `reindex()`; FTS5: one transaction
//    into a database file), timed; then the deletes (the memory tool's `delete`; a row
//    deleted) and the redactions (`memory.update` to the new text, then
//    `version.redact` of the first version; the row updated).
// 2. Quality: each labelled query's first 10 paths; recall@10 and MRR@10 per language
//    slice and overall, and stale hits (a deleted or redacted document that matched
//    among them), with the targets: memdir >= the better FTS5 overall and on the
//    Chinese and German slices, >= substring on every slice, 0 stale hits.
// 3. Query latency: every query `--rounds` times per engine, the engines in a fresh
//    shuffled order for each query, p50 and p99; target at 10k: memdir <= 2x the
//    better FTS5 tokenizer's (the one with the lower p50).
// 4. Index size: memdir's stored values under `index/` per memory (a JS store over a
//    Map, so every key can be summed) beside FTS5's index (its `_data` blocks) and
//    database file per memory.
// 5. Writes (`--writes N` of each kind): the memory tool's create and str_replace on
//    the memory store and a directory store holding the corpus. memdir brings its index
//    up to date lazily, at the next search or `reindex()`: a write with the index kept
//    is "write then reindex()", against the write alone; target <= 1.3x.
// Then the browser build's gzipped size beside main's before the index.
// Correct before fast: every path any engine answers must be a live document, every
// memdir hit a finite score no higher than the one before it and lines that are its
// document's own, and every timed answer the same as the quality pass's; otherwise the
// run prints what was wrong and exits 1 without figures.
// Until the engine has `memory.search`, the memdir rows say it is not available and
// only the peers' figures are printed.
//   npm run bench:search [-- --sizes 1k,10k,100k] [--rounds 5] [--writes 30] [--seed 46] [--misses]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { gzipSync } from 'node:zlib';
import * as memdir from 'memdir';
import { rng } from '../workload.mjs';
import { buildIfNeeded } from '../../www/serve.mjs';
import { checkLabels, corpus, parseSize, QUERIES } from './corpus.mjs';
import { mapStore } from './map-store.mjs';
import { ftsPeer, substringPeer } from './peers.mjs';
import { K, quantile, score } from './score.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = String(arg('sizes', '1k,10k')).split(',').map(parseSize);
const ROUNDS = Number(arg('rounds', 5));
const WRITES = Number(arg('writes', 30));
const SEED = Number(arg('seed', 46));
/** `--misses`: list the queries where memdir ranks the relevant document lower than a peer does. */
const MISSES = process.argv.includes('--misses');

/** The browser build's wasm gzipped on main at 255b0f5, before the index (tests/node/wasm-size.test.mjs: "the browser's 367.1"). */
const MAIN_BROWSER_GZ_KIB = 367.1;
const KIB = 1024;
/** The largest corpus the directory store is measured at (see runSize). */
const DIR_MAX = 10_000;

buildIfNeeded();
let Database;
try {
  Database = (await import('better-sqlite3')).default;
} catch {
  console.error('better-sqlite3 is missing: run `npm ci` (it is a devDependency, 12.11.1)');
  process.exit(2);
}

v8.setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc');

const temps = [];
const temp = (label) => {
  const d = mkdtempSync(join(tmpdir(), label));
  temps.push(d);
  return d;
};

const problems = checkLabels();
if (problems.length) {
  console.error(`queries.json and documents.json disagree:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}

// ---- memdir ---------------------------------------------------------------------------

const probe = await memdir.openMemory({ store: memdir.inMemoryStore() });
const HAS_SEARCH = typeof probe.search === 'function';
const HAS_REINDEX = typeof probe.reindex === 'function';
const NOT_AVAILABLE = 'memdir.search not available';

/** The API's path of a memory-tool path: the store's root is /memories. */
const apiPath = (p) => p.slice('/memories'.length);

async function ok(memory, input) {
  const r = await memory.execute(input);
  if (r.is_error) throw new Error(`${JSON.stringify(input).slice(0, 200)}: ${r.content}`);
}

async function api(memory, request) {
  const r = await memory.api(request);
  if (r.status !== 200) throw new Error(`${request.op}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** The most reindex() calls catchUp() makes before it calls the index stuck. */
const MAX_REINDEX_CALLS = 100_000;

/**
 * reindex() until nothing is pending: each call brings the index up by a bounded
 * amount of work, so a bulk import takes several. Answers how many calls it took.
 */
async function catchUp(memory) {
  for (let calls = 1; calls <= MAX_REINDEX_CALLS; calls++) {
    const status = await memory.reindex();
    if (!status.pending) return calls;
  }
  throw new Error(`reindex() still pending after ${MAX_REINDEX_CALLS} calls`);
}

/**
 * A memory holding the corpus as every engine gets it: the import (live documents
 * and those to be deleted), those to be redacted created through the API, reindex();
 * then the deletes and the redactions. Answers the memory and the times of the import
 * and of the reindex.
 */
async function loadMemdir(store, c) {
  // Room for the largest corpus (100k memories, 40 MB) beside the default limits.
  const memory = await memdir.openMemory({ store, limits: { maxTotalBytes: 1024 * 1024 * 1024, maxMemories: 1_000_000 } });
  const entries = [...c.live, ...c.deleted.map((d) => ({ path: d.path, content: d.text }))].map(({ path, content }) => ({ path, content }));
  let t = performance.now();
  // One call: an import replaces the whole tree.
  await memory.import(entries);
  const ids = new Map();
  for (const r of c.redacted) ids.set(r.path, (await api(memory, { op: 'memory.create', body: JSON.stringify({ path: apiPath(r.path), content: r.text }) })).id);
  const importMs = performance.now() - t;
  let reindexMs = null;
  let reindexCalls = null;
  if (HAS_REINDEX) {
    t = performance.now();
    reindexCalls = await catchUp(memory);
    reindexMs = performance.now() - t;
  }
  for (const d of c.deleted) await ok(memory, { command: 'delete', path: d.path });
  for (const r of c.redacted) {
    const id = ids.get(r.path);
    await api(memory, { op: 'memory.update', id, body: JSON.stringify({ content: r.after }) });
    const versions = (await api(memory, { op: 'version.list', query: { memory_id: id } })).data;
    await api(memory, { op: 'version.redact', id: versions.at(-1).id });
  }
  return { memory, importMs, reindexMs, reindexCalls };
}

/** The same sequence for a peer: everything put, then the deletes and the updates. */
function loadPeer(peer, c) {
  const t = performance.now();
  peer.put([...c.live, ...c.deleted.map((d) => ({ path: d.path, content: d.text })), ...c.redacted.map((d) => ({ path: d.path, content: d.text }))], false);
  const importMs = performance.now() - t;
  for (const d of c.deleted) peer.remove(d.path);
  peer.put(c.redacted.map((d) => ({ path: d.path, content: d.after })));
  return importMs;
}

// ---- output ---------------------------------------------------------------------------

const ms = (x) => (x === null || x === undefined ? '-' : x < 10 ? x.toFixed(2) : x < 100 ? x.toFixed(1) : x.toFixed(0));
const f3 = (x) => x.toFixed(3);
const groupBy = (xs, key) => {
  const out = {};
  for (const x of xs) (out[key(x)] ??= []).push(x);
  return out;
};
const verdict = (ok) => (ok ? 'met' : 'NOT met');

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const fmt = (r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  ').trimEnd();
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
}

/** A repeatable shuffle (Fisher-Yates over the workload's PRNG). */
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

// ---- one size -------------------------------------------------------------------------

async function runSize(size) {
  const c = corpus({ size, seed: SEED });
  const bytes = c.live.reduce((s, d) => s + Buffer.byteLength(d.content), 0);
  const langs = Object.entries(groupBy(c.live, (d) => d.lang)).map(([l, ds]) => `${l} ${ds.length}`).join(', ');
  console.log(`\n=== ${size.toLocaleString('en')} memories (${langs}; ${(bytes / 1e6).toFixed(1)} MB; seed ${SEED}) ===`);

  // 1. Load.
  const dir = temp('bench-search-');
  const peers = [substringPeer(), ftsPeer(Database, 'unicode61', join(dir, 'unicode61.db')), ftsPeer(Database, 'trigram', join(dir, 'trigram.db'))];
  const loads = new Map();
  for (const p of peers) {
    collectGarbage();
    loads.set(p.name, loadPeer(p, c));
  }
  collectGarbage();
  const mem = await loadMemdir(memdir.inMemoryStore(), c);
  const engines = peers.map((p) => ({ name: p.name, search: async (q) => p.search(q, K) }));
  if (HAS_SEARCH) engines.unshift({ name: 'memdir', search: async (q) => (await mem.memory.search(q, { limit: K })).map((h) => h.path) });

  // 2. Quality (also the warm-up of every engine for the timings). Correct before
  // fast: every path answered is a live document, and each memdir hit has a finite
  // score no higher than the one before it and lines that are its document's own
  // (number and text, a long line cut with an ellipsis); otherwise no figures.
  const liveText = new Map(c.live.map((d) => [d.path, d.content]));
  for (const r of c.redacted) liveText.set(r.path, r.after);
  const wrong = [];
  const answers = new Map(engines.map((e) => [e.name, new Map()]));
  for (const q of QUERIES) {
    for (const e of engines) {
      const paths = await e.search(q.query);
      answers.get(e.name).set(q.id, paths);
      for (const p of paths) if (!liveText.has(p)) wrong.push(`${e.name}, ${q.id}: ${p} is not a live document`);
    }
    if (HAS_SEARCH) {
      const hits = await mem.memory.search(q.query, { limit: K });
      hits.forEach((h, i) => {
        if (!Number.isFinite(h.score) || (i > 0 && h.score > hits[i - 1].score)) wrong.push(`memdir, ${q.id}: score ${h.score} at rank ${i + 1} after ${hits[i - 1]?.score}`);
        const lines = (liveText.get(h.path) ?? '').split('\n');
        for (const l of h.lines ?? []) {
          const real = lines[l.line - 1];
          if (real === undefined || !(l.text === real || (l.text.endsWith('…') && real.startsWith(l.text.slice(0, -1))))) wrong.push(`memdir, ${q.id}: ${h.path} line ${l.line} ${JSON.stringify(l.text)} is not its line ${JSON.stringify(real)}`);
        }
      });
    }
  }
  // 3. Query latency, interleaved; every answer must be the quality pass's again (ties broken the same way).
  const samples = new Map(engines.map((e) => [e.name, []]));
  const shuffle = shuffler(SEED + size);
  for (let r = 0; r < ROUNDS; r++) {
    collectGarbage();
    await new Promise(setImmediate);
    for (const q of shuffle(QUERIES)) {
      for (const e of shuffle(engines)) {
        const t = performance.now();
        const paths = await e.search(q.query);
        samples.get(e.name).push(performance.now() - t);
        if (JSON.stringify(paths) !== JSON.stringify(answers.get(e.name).get(q.id))) wrong.push(`${e.name}, ${q.id}: round ${r + 1} answered ${JSON.stringify(paths)}, the first ${JSON.stringify(answers.get(e.name).get(q.id))}`);
      }
    }
  }
  if (wrong.length) {
    console.error(`\nFAILED: ${wrong.length} wrong answers; no figures are printed for a run that is not correct.`);
    for (const w of wrong.slice(0, 20)) console.error(`- ${w}`);
    if (wrong.length > 20) console.error(`... and ${wrong.length - 20} more`);
    process.exitCode = 1;
    for (const p of peers) p.close?.();
    return [];
  }

  const scores = new Map(engines.map((e) => [e.name, score(QUERIES, answers.get(e.name))]));
  const slices = ['en', 'de', 'zh', 'all'];
  console.log(`\nquality over ${QUERIES.length} queries (recall@${K} / MRR@${K}; recall and MRR over the queries with a relevant document, stale: deleted or redacted documents among the first ${K}):`);
  const names = ['memdir', ...peers.map((p) => p.name)];
  table(
    ['engine', ...slices.map((s) => `${s} (${scores.get(peers[0].name)[s].queries})`), 'stale hits'],
    names.map((n) => {
      const s = scores.get(n);
      return s ? [n, ...slices.map((sl) => `${f3(s[sl].recall)} / ${f3(s[sl].mrr)}`), String(s.all.stale)] : [n, ...slices.map(() => '-'), NOT_AVAILABLE];
    }),
  );
  const byKind = groupBy(QUERIES, (q) => q.kind);
  console.log('\nrecall@10 by kind of query:');
  table(
    ['engine', ...Object.keys(byKind).map((k) => `${k} (${byKind[k].length})`)],
    names.map((n) => [n, ...Object.values(byKind).map((qs) => (answers.has(n) ? f3(score(qs, answers.get(n)).all.recall) : '-'))]),
  );
  if (MISSES && HAS_SEARCH) {
    const rank = (name, q) => {
      const i = answers.get(name).get(q.id).findIndex((p) => q.relevant.includes(p));
      return i < 0 ? '-' : i + 1;
    };
    const worse = (a, b) => (a === '-' ? b !== '-' : b !== '-' && a > b);
    const rows = QUERIES.filter((q) => q.relevant.length && peers.some((p) => worse(rank('memdir', q), rank(p.name, q))));
    console.log(`\nqueries where memdir ranks the first relevant document lower than a peer (rank in the first ${K}; -: not there):`);
    table(
      ['query', 'kind', ...names, "memdir's first three"],
      rows.map((q) => [`${q.id} ${q.query}`, q.kind, ...names.map((n) => String(rank(n, q))), answers.get('memdir').get(q.id).slice(0, 3).join(' ')]),
    );
  }
  const targets = [];
  const fts = (sl, m) => Math.max(scores.get('fts5-unicode61')[sl][m], scores.get('fts5-trigram')[sl][m]);
  if (HAS_SEARCH) {
    const s = scores.get('memdir');
    for (const sl of ['all', 'zh', 'de']) {
      for (const m of ['recall', 'mrr']) targets.push([`${m === 'recall' ? 'recall@10' : 'MRR@10'} ${sl} >= the better FTS5 (${f3(fts(sl, m))})`, f3(s[sl][m]), verdict(s[sl][m] >= fts(sl, m))]);
    }
    for (const sl of slices) {
      const sub = scores.get('substring')[sl];
      targets.push([`recall@10 and MRR@10 ${sl} >= substring (${f3(sub.recall)} / ${f3(sub.mrr)})`, `${f3(s[sl].recall)} / ${f3(s[sl].mrr)}`, verdict(s[sl].recall >= sub.recall && s[sl].mrr >= sub.mrr)]);
    }
    targets.push(['stale or redacted hits = 0', String(s.all.stale), verdict(s.all.stale === 0)]);
  }
  for (const p of peers) if (scores.get(p.name).all.stale) console.log(`  note: ${p.name} returned ${scores.get(p.name).all.stale} stale hits`);

  const lat = new Map([...samples].map(([n, xs]) => [n, { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) }]));
  console.log(`\nquery latency (ms; ${ROUNDS} rounds of the ${QUERIES.length} queries, first ${K} results; engines interleaved per query in a shuffled order):`);
  const better = lat.get('fts5-unicode61').p50 <= lat.get('fts5-trigram').p50 ? 'fts5-unicode61' : 'fts5-trigram';
  table(
    ['engine', 'p50', 'p99', `p50 / ${better}`, `p99 / ${better}`],
    names.map((n) => {
      const l = lat.get(n);
      if (!l) return [n, '-', '-', NOT_AVAILABLE, ''];
      return [n, ms(l.p50), ms(l.p99), `${(l.p50 / lat.get(better).p50).toFixed(2)}x`, `${(l.p99 / lat.get(better).p99).toFixed(2)}x`];
    }),
  );
  if (HAS_SEARCH && size === 10000) {
    const m = lat.get('memdir');
    const b = lat.get(better);
    targets.push([`query p50 at 10k <= 2x ${better}'s (the faster FTS5 at p50: ${ms(b.p50)} ms)`, `${ms(m.p50)} ms, ${(m.p50 / b.p50).toFixed(2)}x`, verdict(m.p50 <= 2 * b.p50)]);
    targets.push([`query p99 at 10k <= 2x ${better}'s (${ms(b.p99)} ms)`, `${ms(m.p99)} ms, ${(m.p99 / b.p99).toFixed(2)}x`, verdict(m.p99 <= 2 * b.p99)]);
  }

  // 4. Index size and bulk import.
  let indexBytes = null;
  let mapReindexMs = null;
  if (HAS_REINDEX) {
    collectGarbage();
    const store = mapStore();
    const m = await loadMemdir(store, c);
    mapReindexMs = m.reindexMs;
    await catchUp(m.memory);
    indexBytes = 0;
    for (const [k, v] of store.data) if (k.startsWith('index/')) indexBytes += v.length;
    m.memory.close?.();
  }
  // The directory store only up to DIR_MAX: its import of 100k memories (40 MB) in one
  // call wrote about 50 GB of batch files and failed with a full disk, on 2026-11-28.
  let dirMem = null;
  if (size <= DIR_MAX) {
    collectGarbage();
    dirMem = await loadMemdir(memdir.directoryStore(join(temp('bench-search-dir-'), 'store')), c);
  } else {
    console.log(`\n(the directory store is left out above ${DIR_MAX.toLocaleString('en')} memories: its import of 100k in one call fills the disk)`);
  }
  console.log(`\nindex size and bulk import of the ${size.toLocaleString('en')} memories (memdir: import, then reindex(); FTS5: one transaction into a database file):`);
  const per = (b) => (b === null ? '-' : `${(b / size).toFixed(0)} B`);
  table(
    ['engine', 'index bytes per memory', 'file bytes per memory', 'import ms', 'index build ms', 'total ms'],
    [
      ['memdir memory store', HAS_REINDEX ? per(indexBytes) : NOT_AVAILABLE, '-', ms(mem.importMs), ms(mem.reindexMs), ms(mem.importMs + (mem.reindexMs ?? 0))],
      ...(dirMem ? [['memdir directory store', '(same index)', '-', ms(dirMem.importMs), ms(dirMem.reindexMs), ms(dirMem.importMs + (dirMem.reindexMs ?? 0))]] : []),
      ...peers.slice(1).map((p) => [p.name, per(p.indexBytes()), per(p.fileBytes()), '-', '-', ms(loads.get(p.name))]),
    ],
  );
  if (HAS_REINDEX) console.log(`  (memdir's index build: reindex() called until nothing is pending, ${mem.reindexCalls} calls on the memory store${dirMem ? `, ${dirMem.reindexCalls} on the directory store` : ''})`);
  if (HAS_REINDEX) console.log(`  (memdir's index bytes: the stored values under index/ of the same memory on a JS store over a Map, whose reindex() took ${ms(mapReindexMs)} ms; FTS5's index bytes: its _data blocks, without the text)`);

  // 5. Writes: write alone, and write then reindex().
  console.log(`\nwrites at ${size.toLocaleString('en')} memories (${WRITES} of each kind, ms; memdir keeps its index lazily, brought up to date at the next search or reindex(): "with index" is the write then reindex(), "write alone" the write by itself):`);
  const rows = [];
  for (const [label, memory] of [['memory store', mem.memory], ...(dirMem ? [['directory store', dirMem.memory]] : [])]) {
    if (HAS_REINDEX) await catchUp(memory);
    const bg = c.live.filter((d) => !d.path.startsWith('/memories/preferences/')).slice(0, WRITES * 7);
    for (const kind of ['create', 'str_replace']) {
      const alone = [];
      const kept = [];
      for (let i = 0; i < WRITES; i++) {
        const src = bg[i * 7];
        const input =
          kind === 'create'
            ? { command: 'create', path: `/memories/bench-writes/${label.split(' ')[0]}-${i}.md`, file_text: `${src.content}\n- written by the bench, ${i}` }
            : { command: 'str_replace', path: src.path, old_str: src.content.split('\n')[0], new_str: `${src.content.split('\n')[0]} (edited ${i})` };
        let t = performance.now();
        await ok(memory, input);
        const w = performance.now() - t;
        alone.push(w);
        if (HAS_REINDEX) {
          t = performance.now();
          await catchUp(memory);
          kept.push(w + performance.now() - t);
        }
      }
      const a = quantile(alone, 0.5);
      const k = HAS_REINDEX ? quantile(kept, 0.5) : null;
      rows.push([`${label} ${kind}`, ms(a), HAS_REINDEX ? ms(k) : NOT_AVAILABLE, HAS_REINDEX ? `${(k / a).toFixed(2)}x` : '-']);
      if (HAS_REINDEX) targets.push([`${label} ${kind}: write then reindex() <= 1.3x the write alone (medians)`, `${(k / a).toFixed(2)}x`, verdict(k <= 1.3 * a)]);
    }
  }
  table(['write', 'write alone p50', 'with index p50', 'ratio'], rows);

  for (const p of peers) p.close?.();
  return targets;
}

// ---- main -----------------------------------------------------------------------------

async function main() {
  console.log(`npm run bench:search: node ${process.version}, better-sqlite3 (SQLite ${new Database(':memory:').prepare('select sqlite_version()').pluck().get()}), sizes ${SIZES.map((s) => s.toLocaleString('en')).join(', ')}`);
  if (!HAS_SEARCH) console.log(`\n${NOT_AVAILABLE}: this build of memdir has no memory.search (and no reindex()); the peers' figures only, no memdir figure and no target.`);
  const all = [];
  for (const size of SIZES) {
    const targets = await runSize(size);
    if (process.exitCode) return;
    for (const t of targets) all.push([`${size / 1000}k: ${t[0]}`, t[1], t[2]]);
  }

  const wasm = readFileSync(new URL('../../dist/memdir_wasm_bg.wasm', import.meta.url));
  const gz = gzipSync(wasm, { level: 9 }).length / KIB;
  console.log(`\nbrowser build (dist/memdir_wasm_bg.wasm, gzip -9): ${gz.toFixed(1)} KiB now, ${MAIN_BROWSER_GZ_KIB} KiB on main at 255b0f5 before the index: ${gz >= MAIN_BROWSER_GZ_KIB ? '+' : ''}${(gz - MAIN_BROWSER_GZ_KIB).toFixed(1)} KiB`);

  console.log('\ntargets:');
  if (all.length === 0) console.log(`  none evaluated: ${NOT_AVAILABLE}`);
  else table(['target', 'memdir', 'verdict'], all);
}

try {
  await main();
} finally {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
}
