#!/usr/bin/env node
// `npm run bench:api`: what the memory-store operations cost, in Node.
//
// 1. Timings through `memory.api` on a store with a history of 1,000 versions
//    (`--versions N`): memory.create, memory.update, memory.retrieve, memory.list (one
//    prefix of 20), version.list (one memory's versions, a page of 20) and
//    version.retrieve, each beside its peer measured in the same run: the memory
//    tool doing the same thing through `memory.execute` on a second memory with the
//    same history (create; str_replace for update; view of the file; view of the
//    directory), and the floor (the bench build's round trip: the same answer
//    crossing JS -> wasm -> JS, parsed as `memory.api` parses it). Sides take turns,
//    the order rotated every call, after the same untimed warm-up on throwaway memories.
// 2. Store operations, counted by a JS store that wraps a Map (as tests/all/common's
//    Harness does in Rust): (a) every write, memory tool's and API's, at 10,000
//    versions: one `commit()` call (the one IndexedDB readwrite transaction of
//    memdir-idb's `commit`; `npm run bench:browser` counts the real transactions of
//    the tool's commands) and no separate compare-and-swap; (b) the values each read
//    operation reads at 100, 1,000 and 10,000 versions, on a fresh memory per call so
//    no cache hides a read.
//
// Correct before fast: every answer is checked (the exact ids, paths and contents the
// history makes, the tool's texts) and the floor must carry the API's answer; any
// miss prints what differed and exits 1 without figures.
//   npm run bench:api [-- --versions N] [--iterations N] [--sizes 100,1000,10000]
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import * as memdir from 'memdir';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const VERSIONS = Number(arg('versions', 1000));
const ITERATIONS = Number(arg('iterations', 200));
const SIZES = String(arg('sizes', '100,1000,10000')).split(',').map(Number);

const benchWasm = new URL('../dist/memdir_wasm_bg.wasm', import.meta.url);
if (!existsSync(benchWasm)) {
  console.error('bench/dist/ is missing: run `node scripts/build.mjs --bench` (npm run bench:api does)');
  process.exit(2);
}
const floorGlue = await import('../dist/memdir_wasm.js');
floorGlue.initSync({ module: readFileSync(benchWasm) });

// One clock for every memory: the same operations give the same answers, byte for byte.
const CLOCK = () => 1_780_000_000_000;
const sha256 = (s) => createHash('sha256').update(s).digest('hex');
const verId = (n) => `memver_local_${n}`;
const problems = [];
const expect = (ok, what) => {
  if (!ok) problems.push(what);
};

async function tool(memory, input) {
  const r = await memory.execute(input);
  if (r.is_error) throw new Error(`${JSON.stringify(input)}: ${r.content}`);
  return r.content;
}

async function api(memory, request) {
  const r = await memory.api(request);
  if (r.status !== 200) throw new Error(`${JSON.stringify(request)}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

// ---- the history: tests/all/common/history.rs's layout, so both count the same thing ----

const HOT_EDITS = 39;
const LISTED = 20;
const pad = (i, w) => String(i).padStart(w, '0');

/**
 * Exactly `n` versions: an import of /list/m00..m19, /pad.md and F bulk files; P
 * edits of pad.md; /hot.md made through the API; then 39 rounds of one edit of
 * hot.md and a rename of the bulk directory (F versions at once), so hot.md's
 * versions spread through the log. 61 + 40 F + P = n.
 */
async function buildHistory(memory, n) {
  const f = Math.floor((n - 61) / 40);
  const p = n - 61 - 40 * f;
  const entries = [];
  for (let i = 0; i < LISTED; i++) entries.push({ path: `/memories/list/m${pad(i, 2)}.md`, content: `listed ${i}` });
  entries.push({ path: '/memories/pad.md', content: 'pad v0' });
  for (let i = 0; i < f; i++) entries.push({ path: `/memories/bulk/b${pad(i, 4)}.md`, content: `bulk ${i}` });
  await memory.import(entries);
  for (let k = 0; k < p; k++) {
    await tool(memory, { command: 'str_replace', path: '/memories/pad.md', old_str: `v${k}`, new_str: `v${k + 1}` });
  }
  const hot = await api(memory, { op: 'memory.create', body: { path: '/hot.md', content: 'hot v0' } });
  let seq = 21 + f + p + 1;
  const hotVersions = [seq];
  let bulk = '/memories/bulk';
  for (let k = 0; k < HOT_EDITS; k++) {
    await tool(memory, { command: 'str_replace', path: '/memories/hot.md', old_str: `v${k}`, new_str: `v${k + 1}` });
    hotVersions.push(++seq);
    if (f > 0) {
      const to = bulk === '/memories/bulk' ? '/memories/bulk2' : '/memories/bulk';
      await tool(memory, { command: 'rename', old_path: bulk, new_path: to });
      bulk = to;
      seq += f;
    }
  }
  if (seq !== n) throw new Error(`the history's arithmetic: ${seq} versions, not ${n}`);
  return { versions: n, hotId: hot.id, hotVersions: hotVersions.reverse(), bulk: f > 0 ? bulk : null, hotText: `hot v${HOT_EDITS}` };
}

// ---- a store that counts ------------------------------------------------------------

/** A JS store over a Map, counting operations by kind and key prefix ("get rec"). */
function countingStore() {
  const data = new Map();
  const counts = new Map();
  const bump = (kind, key) => {
    const k = `${kind} ${key.split('/')[0]}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  };
  const same = (a, b) => (a === undefined ? b === undefined || b === null : b != null && a.length === b.length && a.every((x, i) => x === b[i]));
  return {
    counts,
    async get(key) {
      bump('get', key);
      return data.get(key) ?? null;
    },
    async set(key, value) {
      bump('set', key);
      data.set(key, value.slice());
    },
    async delete(key) {
      bump('delete', key);
      data.delete(key);
    },
    async list(prefix, cursor) {
      bump('list', prefix);
      const keys = [...data.keys()].filter((k) => k.startsWith(prefix) && (cursor == null || k > cursor)).sort();
      return { keys, cursor: null };
    },
    async compareAndSwap(key, expected, value) {
      bump('cas', key);
      if (!same(data.get(key), expected)) return false;
      data.set(key, value.slice());
      return true;
    },
    // What IndexedDB's adapter does in one readwrite transaction: the objects and
    // the head, or nothing. No await inside, so it is atomic here too.
    async commit(objects, key, expected, value) {
      bump('commit', key);
      if (!same(data.get(key), expected)) return false;
      for (const [k, v] of objects) {
        bump('object', k);
        data.set(k, v.slice());
      }
      data.set(key, value.slice());
      return true;
    },
  };
}

const open = (store) => memdir.openMemory({ store, clock: CLOCK });

/** Counts by prefix, without the kind: {rec: 20, log: 3}. */
function byPrefix(counts, kinds) {
  const out = {};
  for (const [k, n] of counts) {
    const [kind, prefix] = k.split(' ');
    if (kinds.includes(kind)) out[prefix] = (out[prefix] ?? 0) + n;
  }
  return out;
}
const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
const show = (o) =>
  Object.entries(o)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');

// ---- the operations, each with the check of its answer ------------------------------

const ids = (body) => body.data.map((d) => d.id);

/** The read operations (b) counts, with what each must answer in history `h`. */
function readOps(h) {
  return [
    {
      name: 'version.list memory_id, limit 20',
      request: { op: 'version.list', query: { memory_id: h.hotId, limit: '20' } },
      check: (b) => isDeepStrictEqual(ids(b), h.hotVersions.slice(0, 20).map(verId)) && typeof b.next_page === 'string',
      returns: 20,
    },
    {
      name: 'version.list, limit 20 (newest)',
      request: { op: 'version.list', query: { limit: '20' } },
      check: (b) => isDeepStrictEqual(ids(b), Array.from({ length: 20 }, (_, i) => verId(h.versions - i))),
      returns: 20,
    },
    {
      name: 'version.retrieve (full)',
      request: { op: 'version.retrieve', id: verId(h.hotVersions[0]) },
      check: (b) => b.content === h.hotText && b.memory_id === h.hotId,
      returns: 1,
    },
    {
      name: 'memory.list path_prefix, limit 20',
      request: { op: 'memory.list', query: { path_prefix: '/list/', limit: '20' } },
      check: (b) => isDeepStrictEqual(b.data.map((m) => m.path), Array.from({ length: LISTED }, (_, i) => `/list/m${pad(i, 2)}.md`)) && b.next_page === null,
      returns: 20,
    },
    {
      name: 'memory.retrieve (full)',
      request: { op: 'memory.retrieve', id: h.hotId },
      check: (b) => b.content === h.hotText && b.memory_version_id === verId(h.hotVersions[0]),
      returns: 1,
    },
    {
      // Rolling a directory into a prefix walks every directory beneath it.
      name: 'memory.list depth=1 at /',
      request: { op: 'memory.list', query: { depth: '1' } },
      check: (b) => isDeepStrictEqual(b.data.map((m) => m.path), [...(h.bulk ? [`${h.bulk.slice('/memories'.length)}/`] : []), '/hot.md', '/list/', '/pad.md']),
      returns: h.bulk ? 4 : 3,
    },
  ];
}

// ---- (b) reads at 100, 1,000, 10,000 versions; (a) writes at the largest -------------

async function counted() {
  const rows = new Map();
  let writes;
  for (const n of SIZES) {
    const store = countingStore();
    const h = await buildHistory(await open(store), n);
    for (const op of readOps(h)) {
      const memory = await open(store); // a fresh engine: nothing cached
      store.counts.clear();
      const body = await api(memory, op.request);
      expect(op.check(body), `${op.name} at ${n} versions answered ${JSON.stringify(body).slice(0, 300)}`);
      expect(sum(byPrefix(store.counts, ['set', 'delete', 'cas', 'commit'])) === 0, `${op.name} at ${n} versions wrote`);
      const reads = byPrefix(store.counts, ['get', 'list']);
      if (!rows.has(op.name)) rows.set(op.name, { returns: op.returns, at: [] });
      rows.get(op.name).at.push(reads);
    }
    if (n === Math.max(...SIZES)) writes = await countWrites(store, h);
  }
  return { rows, writes };
}

/** Every write, on one memory (its cache warm, as in a session), counted one by one. */
async function countWrites(store, h) {
  const memory = await open(store);
  await tool(memory, { command: 'view', path: '/memories' });
  const out = [];
  const run = async (name, f, check) => {
    store.counts.clear();
    const answer = await f();
    expect(check(answer), `${name} answered ${JSON.stringify(answer).slice(0, 300)}`);
    out.push({ name, counts: new Map(store.counts) });
  };
  const t = (input) => () => memory.execute(input);
  const ok = (text) => (r) => !r.is_error && r.content === text;
  await run('tool create', t({ command: 'create', path: '/memories/w/a.md', file_text: 'a\nb' }), ok('File created successfully at: /memories/w/a.md'));
  await run('tool str_replace', t({ command: 'str_replace', path: '/memories/w/a.md', old_str: 'b', new_str: 'c' }), (r) => !r.is_error && r.content.startsWith('The memory file has been edited.'));
  await run('tool insert', t({ command: 'insert', path: '/memories/w/a.md', insert_line: 1, insert_text: 'x' }), ok('The file /memories/w/a.md has been edited.'));
  await run('tool rename (file)', t({ command: 'rename', old_path: '/memories/w/a.md', new_path: '/memories/w/b.md' }), ok('Successfully renamed /memories/w/a.md to /memories/w/b.md'));
  await run('tool delete (file)', t({ command: 'delete', path: '/memories/w/b.md' }), ok('Successfully deleted /memories/w/b.md'));
  await run('tool rename (dir of 20)', t({ command: 'rename', old_path: '/memories/list', new_path: '/memories/list2' }), ok('Successfully renamed /memories/list to /memories/list2'));
  await run('tool delete (dir of 20)', t({ command: 'delete', path: '/memories/list2' }), ok('Successfully deleted /memories/list2'));
  const a = (request) => () => memory.api(request);
  let made;
  await run('memory.create', a({ op: 'memory.create', body: { path: '/api/n.md', content: 'new' } }), (r) => r.status === 200 && r.body.content_sha256 === sha256('new') && (made = r.body.id));
  await run('memory.update (content)', a({ op: 'memory.update', id: made, body: { content: 'newer' } }), (r) => r.status === 200 && r.body.content_sha256 === sha256('newer'));
  await run('memory.update (path)', a({ op: 'memory.update', id: made, body: { path: '/api/m.md' } }), (r) => r.status === 200 && r.body.path === '/api/m.md');
  await run('memory.delete', a({ op: 'memory.delete', id: made }), (r) => r.status === 200 && isDeepStrictEqual(r.body, { id: made, type: 'memory_deleted' }));
  await run('version.redact', a({ op: 'version.redact', id: verId(h.hotVersions[5]) }), (r) => r.status === 200 && r.body.redacted_at !== null && r.body.content_sha256 === null);
  return out;
}

// ---- timings ------------------------------------------------------------------------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * The timed operations: for call i, the API request, its peer tool input (or none),
 * and checks of both answers. Reads first, on the history as built; then the writes.
 */
function timedOps(h) {
  const viewHot = `Here's the content of /memories/hot.md with line numbers:\n     1\t${h.hotText}`;
  const listed = Array.from({ length: LISTED }, (_, i) => `/memories/list/m${pad(i, 2)}.md`);
  const reads = readOps(h).filter((o) => !o.name.startsWith('memory.list depth'));
  const peer = {
    'memory.retrieve (full)': { input: { command: 'view', path: '/memories/hot.md' }, check: (c) => c === viewHot },
    'memory.list path_prefix, limit 20': {
      input: { command: 'view', path: '/memories/list' },
      check: (c) => listed.every((p) => c.includes(`\t${p}\n`) || c.endsWith(`\t${p}`)),
    },
  };
  const ops = reads.map((o) => ({
    name: o.name,
    api: () => o.request,
    check: o.check,
    tool: peer[o.name] && (() => peer[o.name].input),
    toolCheck: peer[o.name]?.check,
  }));
  ops.push({
    name: 'memory.create',
    api: (i) => ({ op: 'memory.create', body: { path: `/new/c${i}.md`, content: `made ${i}` } }),
    check: (b, i) => b.path === `/new/c${i}.md` && b.content_sha256 === sha256(`made ${i}`),
    tool: (i) => ({ command: 'create', path: `/memories/new/c${i}.md`, file_text: `made ${i}` }),
    toolCheck: (c, i) => c === `File created successfully at: /memories/new/c${i}.md`,
  });
  ops.push({
    name: 'memory.update (content)',
    api: (i) => ({ op: 'memory.update', id: h.hotId, body: { content: `hot v${HOT_EDITS + i + 1}` } }),
    check: (b, i) => b.content_sha256 === sha256(`hot v${HOT_EDITS + i + 1}`),
    tool: (i) => ({ command: 'str_replace', path: '/memories/hot.md', old_str: `v${HOT_EDITS + i}`, new_str: `v${HOT_EDITS + i + 1}` }),
    toolCheck: (c) => c.startsWith('The memory file has been edited.'),
  });
  return ops;
}

/** Runs every op `iterations` times on fresh memories of the history; returns per-op samples. */
async function timings(iterations, label) {
  const apiMemory = await memdir.openMemory({ store: memdir.inMemoryStore(), clock: CLOCK });
  const toolMemory = await memdir.openMemory({ store: memdir.inMemoryStore(), clock: CLOCK });
  const refMemory = await memdir.openMemory({ store: memdir.inMemoryStore(), clock: CLOCK });
  const h = await buildHistory(apiMemory, VERSIONS);
  await buildHistory(toolMemory, VERSIONS);
  await buildHistory(refMemory, VERSIONS);
  const results = [];
  for (const op of timedOps(h)) {
    // The floor's answers: the same calls on a third memory, untimed, as JSON text.
    const staged = [];
    for (let i = 0; i < iterations; i++) staged.push(JSON.stringify(await refMemory.api(op.api(i))));
    const sides = {
      api: (i) => apiMemory.api(op.api(i)),
      ...(op.tool ? { tool: (i) => toolMemory.execute(op.tool(i)) } : {}),
      floor: async (i) => JSON.parse((await floorGlue.roundTrip(JSON.stringify(op.api(i)))).content),
    };
    const names = Object.keys(sides);
    const ms = Object.fromEntries(names.map((n) => [n, []]));
    for (let i = 0; i < iterations; i++) {
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        if (name === 'floor') floorGlue.roundTripPrepare(staged[i]);
        const t0 = performance.now();
        const answer = await sides[name](i);
        ms[name].push(performance.now() - t0);
        if (name === 'api') {
          expect(answer.status === 200 && op.check(answer.body, i), `${label}: ${op.name} call ${i} answered ${JSON.stringify(answer).slice(0, 300)}`);
          expect(JSON.stringify(answer) === staged[i], `${label}: ${op.name} call ${i}: not the reference memory's answer`);
        } else if (name === 'tool') {
          expect(!answer.is_error && op.toolCheck(answer.content, i), `${label}: ${op.name} peer call ${i} answered ${JSON.stringify(answer).slice(0, 300)}`);
        } else {
          expect(JSON.stringify(answer) === staged[i], `${label}: ${op.name} call ${i}: the floor did not carry the API's answer`);
        }
      }
    }
    results.push({ name: op.name, ms });
  }
  return results;
}

// ---- report -------------------------------------------------------------------------

function table(head, rows) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(fmt(r));
}

function failed() {
  if (!problems.length) return false;
  console.error(`\nFAILED: ${problems.length} problems; no figures are printed for a run that is not correct.`);
  for (const p of problems.slice(0, 20)) console.error(`- ${p}`);
  process.exitCode = 1;
  return true;
}

async function main() {
  console.log(`memory-store operations: ${ITERATIONS} calls each on a history of ${VERSIONS.toLocaleString('en')} versions; counts at ${SIZES.map((s) => s.toLocaleString('en')).join(', ')} versions; node ${process.version}`);
  await timings(Math.min(50, ITERATIONS), 'warm-up');
  const timed = await timings(ITERATIONS, 'timed');
  const { rows, writes } = await counted();
  if (failed()) return;

  const us = (ms) => (ms * 1000).toFixed(1);
  console.log('\nmedians per call (api: memory.api; tool: memory.execute doing the same on a memory with the same history; floor: the same answer crossing JS -> wasm -> JS):');
  table(
    ['operation', 'api µs', 'tool µs', 'floor µs', 'api/tool', 'api/floor'],
    timed.map(({ name, ms }) => {
      const m = Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, median(v)]));
      return [name, us(m.api), m.tool === undefined ? '-' : us(m.tool), us(m.floor), m.tool === undefined ? '-' : `${(m.api / m.tool).toFixed(2)}x`, `${(m.api / m.floor).toFixed(1)}x`];
    }),
  );
  console.log('  peers: memory.create ~ tool create; memory.update ~ tool str_replace of the same change; memory.retrieve ~ view of the file; memory.list ~ view of the directory');

  console.log('\nstore values read per call, on a fresh memory (nothing cached), as the history grows:');
  table(
    ['operation', 'returns', ...SIZES.map((s) => `${s.toLocaleString('en')} versions`)],
    [...rows].map(([name, r]) => [name, String(r.returns), ...r.at.map((reads) => `${sum(reads)} (${show(reads)})`)]),
  );
  console.log('  rec: version records, log: log nodes, tree: directory nodes, blob: contents; head and commit are read once per call');

  console.log(`\nevery write at ${Math.max(...SIZES).toLocaleString('en')} versions (a warm memory): commit() calls (one IndexedDB readwrite transaction each), compare-and-swaps outside one, what it wrote:`);
  table(
    ['write', 'commit()', 'cas', 'objects in the commit', 'writes outside it', 'reads'],
    writes.map(({ name, counts }) => {
      const c = (kind) => sum(byPrefix(counts, [kind]));
      return [name, String(c('commit')), String(c('cas')), show(byPrefix(counts, ['object'])), show(byPrefix(counts, ['set', 'delete'])) || '-', show(byPrefix(counts, ['get', 'list'])) || '-'];
    }),
  );
  const notOne = writes.filter(({ counts }) => sum(byPrefix(counts, ['commit'])) !== 1 || sum(byPrefix(counts, ['cas'])) !== 0);
  console.log(`\none commit() and no other compare-and-swap per write: ${notOne.length ? `NO (${notOne.map((w) => w.name).join(', ')})` : 'yes, all'}`);
  if (notOne.length) process.exitCode = 1;
}

await main();
