// The example service as the tests run it: its own Worker and Durable Object, plus
// test-only routes under /__test/ that exist in this harness, never in the example.
//
// TestMemoryObject is the example's MemoryObject with three additions: its store
// counts operations (so a test can assert that a refused request touched nothing)
// and lost compare-and-swaps (so a race test can show that writers really raced),
// `setup` puts a conformance case's starting tree and limits in place, and `state`
// reads the tree back.

import { DurableObject } from 'cloudflare:workers';
import service, { MemoryObject, MemoryStoreObject } from '../../examples/worker/src/index.js';
import { checkStoreContract, defaults, durableObjectStore, kvStore, inMemoryStore, openMemory, syncMemory } from 'memdir';
import { observe } from '../conformance/hostile-stores.mjs';
import { FACES, OPEN_CLOCK, SEED_CLOCK, archive, seed } from '../conformance/write-paths.mjs';
// The same module the bundled package's entry imports, so the same symbol.
import { AT_ONCE } from '../../js/glue.js';
import { testEmbedder } from '../../examples/embedders/test-embedder.mjs';

// Everything the example's main module exports is exported here too, so workerd
// checks it as it would in a deployment (a main module may export only handlers
// and classes).
export * from '../../examples/worker/src/index.js';

const OPS = ['get', 'set', 'delete', 'list', 'compareAndSwap', 'commit'];

/**
 * The store with each operation counted, and each compare-and-swap or commit that
 * was refused (the head had moved: a lost race) counted in `counter.lost`; with
 * `yielding`, each operation first
 * waits on a timer, which lets workerd deliver other requests to the object in
 * between (input gates hold only across storage calls), so concurrent commands
 * really interleave and race for the head, as they would with a slower backend.
 */
function counted(store, counter, yielding) {
  const count = (op, result) => {
    counter.ops += 1;
    if ((op === 'compareAndSwap' || op === 'commit') && result === false) counter.lost += 1;
    return result;
  };
  const out = {};
  for (const op of OPS) {
    out[op] = async (...args) => {
      if (yielding) await new Promise((resolve) => setTimeout(resolve, 0));
      return count(op, await store[op](...args));
    };
  }
  // Unless it must yield, the store's face that answers at once stays the one the
  // engine calls (as the example's object, in production, has it), counted too.
  const atOnce = store[AT_ONCE];
  if (atOnce && !yielding) {
    const face = {};
    for (const op of OPS) face[op] = (...args) => count(op, atOnce[op](...args));
    Object.defineProperty(out, AT_ONCE, { value: face });
  }
  return out;
}

/** What a call said: `no error`, or the error's name and message (what the tests assert). */
async function said(call) {
  try {
    await call();
    return 'no error';
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

export class TestMemoryObject extends MemoryObject {
  open(options) {
    this.counter ??= { ops: 0, lost: 0 };
    return openMemory({ ...options, store: counted(durableObjectStore(this.ctx.storage), this.counter, this.interleave) });
  }

  /**
   * Replaces the tree with `entries`, then applies `limits`. The import itself runs
   * without limits: a case may start from files its own limits would refuse.
   */
  async setup(limits, entries, interleave = false) {
    this.interleave = interleave;
    const unlimited = { maxFileBytes: Number.MAX_SAFE_INTEGER, maxTotalBytes: Number.MAX_SAFE_INTEGER };
    await (await this.open({ limits: unlimited })).import(entries);
    const options = limits ? { limits } : undefined;
    if (interleave) {
      // Four engines on the one store, the calls dealt out in turn, as several
      // isolates or server instances would hold it: one engine takes its own
      // writes one at a time (js/turn.js), so only different engines race.
      const engines = [0, 1, 2, 3].map(() => this.open(options));
      await Promise.all(engines);
      let next = 0;
      Object.defineProperty(this, 'memory', { get: () => engines[next++ % engines.length], configurable: true });
    } else {
      Object.defineProperty(this, 'memory', { value: this.open(options), writable: true, configurable: true });
    }
    await this.memory;
    this.counter.ops = 0;
    this.counter.lost = 0;
  }

  /**
   * The tree, the store operations and the lost compare-and-swaps since the last
   * setup or state (reading the tree not counted).
   */
  async state() {
    const { ops, lost } = this.counter;
    const entries = await (await this.memory).entries();
    this.counter.ops = 0;
    this.counter.lost = 0;
    return { entries, ops, lost };
  }
}

/** Whether `needle` occurs in `hay` (both bytes). */
function contains(hay, needle) {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/** The example's memory-store object, plus a scan of its whole storage for a text. */
export class TestMemoryStoreObject extends MemoryStoreObject {
  /**
   * Every key and value in this object's storage (records and chunks alike, with no
   * prefix), and every row of every SQL table it can read: how many there are, and
   * the keys (or tables) where `text` occurs as UTF-8, in the key or the value.
   */
  async scan(text) {
    const needle = new TextEncoder().encode(text);
    const encode = (t) => new TextEncoder().encode(t);
    const asBytes = (v) =>
      v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : encode(typeof v === 'string' ? v : JSON.stringify(v) ?? '');
    const all = await this.ctx.storage.list();
    const hits = [];
    let valueBytes = 0;
    for (const [k, v] of all) {
      const value = asBytes(v);
      valueBytes += value.length;
      if (contains(encode(k), needle) || contains(value, needle)) hits.push(k);
    }
    // The key-value API lives in workerd's own tables; any other table is ours
    // (durableObjectStore's), and its rows count as keys.
    const tables = [...this.ctx.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'")].map((r) => r.name);
    let rows = 0;
    for (const table of tables.filter((t) => !t.startsWith('_cf_'))) {
      for (const row of this.ctx.storage.sql.exec(`SELECT * FROM "${table.replaceAll('"', '""')}"`)) {
        rows += 1;
        valueBytes += Object.values(row).reduce((n, v) => n + (v instanceof ArrayBuffer ? v.byteLength : 0), 0);
        if (Object.values(row).some((v) => contains(asBytes(v), needle))) hits.push(`sql:${table}`);
      }
    }
    return { keys: all.size + rows, valueBytes, tables, hits };
  }
}

const bytes = (n, fill = 0) => new Uint8Array(n).fill(fill);
const same = (a, b) => a instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);

/** A row of durableObjectStore's table as the store reads it: bytes, a manifest, or the raw value. */
/** A raw() map as one string: keys and values, bytes in hex, so any change shows. */
function dump(map) {
  const plain = (v) => (v instanceof Uint8Array ? Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('') : v);
  return JSON.stringify([...map].map(([k, v]) => [k, plain(v)]));
}

function fromRow(row) {
  if (row.chunks !== null || row.bytes !== null) return { memdirChunks: row.chunks, bytes: row.bytes };
  return row.value instanceof ArrayBuffer ? new Uint8Array(row.value) : row.value;
}

/** The stores themselves, run inside a Durable Object of their own. */
export class StoreTestObject extends DurableObject {
  /** Whether this object is SQLite-backed (durableObjectStore keeps a table there). */
  get sqlite() {
    return !(this instanceof StoreTestObjectKv);
  }

  /**
   * Everything stored under `prefix`, sorted by key: the key-value API's keys and,
   * on a SQLite-backed object, the rows of durableObjectStore's table (so a key left
   * in either place shows).
   */
  async raw(prefix) {
    const out = [...(await this.ctx.storage.list({ prefix })).entries()];
    if (this.sqlite && this.ctx.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'memdir_store'").toArray().length > 0) {
      for (const row of this.ctx.storage.sql.exec('SELECT * FROM memdir_store')) if (row.key.startsWith(prefix)) out.push([row.key, fromRow(row)]);
    }
    return new Map(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  /**
   * Stores `value` at raw key `key` where durableObjectStore reads it (its table must
   * exist: use the store once first): a manifest object as its columns, else as is.
   */
  async rawPut(key, value) {
    if (!this.sqlite) return this.ctx.storage.put(key, value);
    const manifest = value !== null && typeof value === 'object' && 'memdirChunks' in value;
    this.ctx.storage.sql.exec(
      'INSERT OR REPLACE INTO memdir_store (key, value, chunks, bytes) VALUES (?, ?, ?, ?)',
      key,
      manifest ? null : value,
      manifest ? value.memdirChunks : null,
      manifest ? value.bytes : null,
    );
  }

  /**
   * memory.search, recall, reindex and searchStatus on a memory over this
   * object's storage; then a second memory over the same storage (as the next
   * request's would be): the index status it reads before any search, and its
   * answer. Also the index's raw keys.
   */
  async search() {
    const prefix = `search-${crypto.randomUUID()}/`;
    const memory = await openMemory({ store: durableObjectStore(this.ctx.storage, { prefix }) });
    await memory.create({ path: '/memories/tea.md', file_text: 'Green tea at four.\nNo sugar.\n' });
    await memory.create({ path: '/memories/notes/zh.md', file_text: '我们明天去北京开会。\n' });
    const out = { before: await memory.searchStatus(), reindexed: await memory.reindex() };
    out.tea = await memory.search('TEA', { limit: 5 });
    out.zh = (await memory.search('北京')).map(({ path, lines }) => ({ path, lines }));
    out.recalled = await memory.recall('sugar', { maxChars: 200 });
    out.refused = await memory.search('tea', { pathPrefix: 'x' }).then(
      () => null,
      (e) => [e.message, e.kind],
    );
    memory.close();
    const again = await openMemory({ store: durableObjectStore(this.ctx.storage, { prefix }) });
    out.reopened = await again.searchStatus();
    out.again = await again.search('TEA', { limit: 5 });
    again.close();
    out.indexKeys = [...(await this.raw(`${prefix}r:index/`)).keys()].map((k) => k.slice(prefix.length).replace(/[0-9a-f]{64}$/, "<sha256>"));
    return out;
  }

  /**
   * One case of tests/conformance/search.json on a memory over this object's
   * store: each step's outcome (a tool's, a search's hits or error text), the
   * crash cuts done through the store itself.
   */
  async searchCase(steps, embedderName) {
    const store = durableObjectStore(this.ctx.storage, { prefix: `search-case-${crypto.randomUUID()}/` });
    // A case naming an embedder names the test embedder (384 dimensions).
    const memory = await openMemory({ store, embedder: embedderName ? testEmbedder() : undefined });
    const out = [];
    for (const step of steps) {
      if ('tool' in step) {
        out.push(await memory.execute(step.tool));
      } else if ('search' in step) {
        const { query, limit, path_prefix: pathPrefix, mode, min_score: minScore } = step.search;
        const options = {};
        if (limit !== undefined) options.limit = limit;
        if (pathPrefix !== undefined) options.pathPrefix = pathPrefix;
        if (mode !== undefined) options.mode = mode;
        if (minScore !== undefined) options.minScore = minScore;
        out.push(await memory.search(query, options).then((hits) => ({ hits }), (e) => ({ error: e.message })));
      } else if (step.drop_index) {
        let cursor;
        do {
          const page = await store.list('index/', cursor);
          for (const key of page.keys) await store.delete(key);
          cursor = page.cursor ?? undefined;
        } while (cursor);
        out.push(null);
      } else if (step.drop_vectors) {
        let cursor;
        do {
          const page = await store.list('vec/', cursor);
          for (const key of page.keys) await store.delete(key);
          cursor = page.cursor ?? undefined;
        } while (cursor);
        out.push(null);
      } else if (step.cut_table) {
        const head = await store.get('index/head');
        await store.set('index/head', head.subarray(0, 10));
        out.push(null);
      } else {
        out.push({ unknown: step });
      }
    }
    memory.close();
    return out;
  }

  async contract(backend) {
    const store = backend === 'kv' ? kvStore(this.env.KV, { prefix: `contract-${crypto.randomUUID()}/` }) : durableObjectStore(this.ctx.storage, { prefix: 'contract/' });
    try {
      await checkStoreContract(store);
      return 'ok';
    } catch (e) {
      return `failed: ${e.message}`;
    }
  }

  /**
   * A memory on this object's store, its commands run while each of the store's
   * public (async) methods counts its calls: on a SQLite-backed object the engine
   * takes the face that answers at once, so it calls none of them; on a
   * key-value-backed one every store call is one. Also the view's text.
   */
  async atOnce() {
    const store = durableObjectStore(this.ctx.storage, { prefix: `at-once-${crypto.randomUUID()}/` });
    let publicCalls = 0;
    for (const op of OPS) {
      const method = store[op];
      store[op] = (...args) => {
        publicCalls += 1;
        return method(...args);
      };
    }
    const memory = await openMemory({ store });
    await memory.execute({ command: 'create', path: '/memories/edge.md', file_text: 'one\ntwo' });
    const view = await memory.execute({ command: 'view', path: '/memories/edge.md' });
    return { publicCalls, view: view.content };
  }

  /**
   * A value of `size` bytes written, swapped and deleted: whether it reads back
   * whole, and the raw keys and largest raw value it left in the object's storage.
   * Over the backend's value limit it is split across keys.
   */
  async chunks(size) {
    const store = durableObjectStore(this.ctx.storage, { prefix: 'chunks/' });
    const big = Uint8Array.from({ length: size }, (_, i) => (i * 7) % 251);
    const report = {};
    await store.set('tree/big', big);
    report.roundTrip = same(await store.get('tree/big'), big);
    const raw = await this.raw('chunks/');
    report.rawKeys = [...raw.keys()];
    // Where they are: on a SQLite-backed object in the table, none in the key-value API.
    report.inKeyValueApi = (await this.ctx.storage.list({ prefix: 'chunks/' })).size;
    report.largestRaw = Math.max(...[...raw.values()].map((v) => (v instanceof Uint8Array ? v.length : 0)));
    report.listed = (await store.list('tree/')).keys;
    // A swap compares the whole value, chunks included.
    report.staleSwap = await store.compareAndSwap('tree/big', bytes(size), bytes(1));
    report.swap = await store.compareAndSwap('tree/big', big, bytes(10, 9));
    report.afterSwap = Array.from(await store.get('tree/big'));
    report.rawAfterSwap = [...(await this.raw('chunks/')).keys()];
    await store.commit([['blob/x', big]], 'head', undefined, bytes(3, 1));
    await store.delete('blob/x');
    report.rawAfterDelete = [...(await this.raw('chunks/')).keys()];
    try {
      await store.get('k'.repeat(2100));
      report.longKey = 'accepted';
    } catch (e) {
      report.longKey = e.name;
    }
    await this.ctx.storage.deleteAll();
    return report;
  }

  /**
   * A commit whose second object is not bytes, after a first that is (and large
   * enough to be chunked on either backend): it must fail and leave no key behind,
   * head included, so a half-written command is never seen.
   */
  async allOrNothing() {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const store = durableObjectStore(storage, { prefix: 'aon/' });
    await store.set('head', bytes(4, 1));
    const big = bytes(5 * 1024 * 1024, 7);
    let error;
    try {
      await store.commit([['blob/a', big], ['blob/b', 'not bytes']], 'head', bytes(4, 1), bytes(4, 2));
      error = 'none';
    } catch (e) {
      error = `${e.name}: ${e.message}`;
    }
    const raw = [...(await this.raw('aon/')).keys()];
    return { error, raw, head: Array.from(await store.get('head')), a: (await store.get('blob/a')) ?? null };
  }

  /**
   * One case of hostile-stores.json on durableObjectStore under a prefix, with a
   * key outside it: what the engine gave, and every raw key outside the store.
   */
  async hostile(c, probes) {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    await storage.put('outside', 'beside the store');
    const store = durableObjectStore(storage, { prefix: 'memory/' });
    const seen = await observe(store, () => openMemory({ store }), probes, c);
    const outside = [...(await this.raw('')).entries()].filter(([k]) => !k.startsWith('memory/'));
    return { ...seen, outside };
  }

  /**
   * One face of tests/conformance/write-paths.mjs over two durableObjectStores of
   * this object (prefixes team/ and me/), each seeded alone: its answer with team
   * mounted read-only, whether team's raw records are unchanged after it, its
   * answer with both read-write on me, and on team once archived (null where the
   * table has none).
   */
  async writePaths(face) {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const store = (prefix) => durableObjectStore(storage, { prefix });
    const seeded = async (prefix) => {
      const alone = await openMemory({ store: store(prefix), clock: () => SEED_CLOCK });
      const ids = await seed(alone);
      alone.close();
      return ids;
    };
    const ids = { team: await seeded('team/'), me: await seeded('me/') };
    const run = async (access, at, first = async () => {}) => {
      const memory = await openMemory({
        mounts: [
          { name: 'team', store: store('team/'), access },
          { name: 'me', store: store('me/') },
        ],
        clock: () => OPEN_CLOCK,
      });
      try {
        await first(memory);
        return await FACES[face].run(memory, at, ids[at]);
      } finally {
        memory.close();
      }
    };
    const before = dump(await this.raw('team/'));
    const readOnly = await run('read_only', 'team');
    const after = dump(await this.raw('team/'));
    const records = (await this.raw('team/')).size;
    const readWrite = FACES[face].readWrite === null ? null : await run('read_write', 'me');
    // Step 4: team archived, then the face on it.
    const archived = FACES[face].archived === null ? null : await run('read_write', 'team', (memory) => archive(memory, 'team'));
    return { readOnly, unchanged: after === before, records, readWrite, archived };
  }

  /**
   * Records tampered into manifests beyond what this store writes (a huge chunk
   * count, a length over the engine's largest value, more chunks than the length
   * needs), each read through get, a swap and a commit: what each call threw.
   * Then a set and a delete over one, which must go through.
   */
  async hugeManifests() {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const store = durableObjectStore(storage, { prefix: 'huge/' });
    const claims = {
      count: { memdirChunks: 2 ** 40, bytes: 2 ** 40 },
      length: { memdirChunks: 1, bytes: defaults().maxValueBytes + 1 },
      chunks: { memdirChunks: 600, bytes: 600 * 1024 },
    };
    const report = {};
    await store.list('');
    for (const [name, manifest] of Object.entries(claims)) {
      await this.rawPut(`huge/r:${name}`, manifest);
      report[name] = {
        get: await said(() => store.get(name)),
        swap: await said(() => store.compareAndSwap(name, bytes(1), bytes(2))),
        commit: await said(() => store.commit([['other', bytes(1)]], name, bytes(1), bytes(2))),
      };
    }
    await store.set('count', bytes(3, 1));
    report.afterSet = Array.from(await store.get('count'));
    await store.delete('length');
    report.raw = [...(await this.raw('huge/')).keys()];
    return report;
  }

  /**
   * SQLite-backed objects only. Memories an earlier release wrote through the
   * key-value API (`storage.kv`, the layout it used: records `r:<key>`, a large
   * value as a manifest and 120 KiB chunks `c:<key>/<i>`), opened with the store,
   * which moves them into its table on first use; then a key-value record written
   * after that, which a second open must not move (the table already holds the
   * store); then another prefix's records, moved on that store's own first use.
   */
  async migrate() {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const kv = storage.kv;
    const kvKeys = () => [...kv.list()].map(([k]) => k);
    const big = Uint8Array.from({ length: 300 * 1024 }, (_, i) => (i * 7) % 251);
    kv.put('outside', 'beside the store');
    kv.put('old/r:small', bytes(3, 5));
    kv.put('old/r:tree/big', { memdirChunks: 3, bytes: big.length });
    for (let i = 0; i < 3; i++) kv.put(`old/c:tree/big/${i}`, big.slice(i * 120 * 1024, (i + 1) * 120 * 1024));
    kv.put('old/r:broken', 'not bytes');
    kv.put('other/r:x', bytes(2, 8));
    const report = { before: kvKeys() };
    const store = durableObjectStore(storage, { prefix: 'old/' });
    report.small = Array.from(await store.get('small'));
    report.big = same(await store.get('tree/big'), big);
    report.broken = await store.get('broken').then(
      () => 'no error',
      (e) => `${e.name}: ${e.message}`,
    );
    report.listed = (await store.list('')).keys;
    report.kvAfter = kvKeys();
    report.table = [...(await this.raw('old/')).keys()];
    // Written and read on through the table.
    await store.set('tree/big', bytes(4, 4));
    report.rewritten = Array.from(await store.get('tree/big'));

    kv.put('old/r:late', bytes(1, 1));
    const again = durableObjectStore(storage, { prefix: 'old/' });
    report.late = (await again.get('late')) ?? null;
    report.againListed = (await again.list('')).keys;

    const other = durableObjectStore(storage, { prefix: 'other/' });
    report.other = Array.from(await other.get('x'));
    report.kvEnd = kvKeys();
    return report;
  }

  /**
   * SQLite-backed objects only: rows of the store's table damaged in ways the
   * store never writes, each read through get and a swap (what each threw); a key
   * full of SQL's own characters written and read back; and a store that outlives
   * a deleteAll (which drops its table) writing on.
   */
  async tableDamage() {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const store = durableObjectStore(storage, { prefix: 'bad/' });
    await store.list('');
    const rows = {
      text: ['text', null, null],
      null: [null, null, null],
      integer: [7, null, null],
      real: [1.5, null, null],
      bothValueAndManifest: [new Uint8Array([1]), 1, 1],
      manifestChunksText: [null, 'one', 1],
      manifestOnlyChunks: [null, 1, null],
    };
    for (const [name, [value, chunks, n]] of Object.entries(rows)) {
      storage.sql.exec('INSERT INTO memdir_store (key, value, chunks, bytes) VALUES (?, ?, ?, ?)', `bad/r:${name}`, value, chunks, n);
    }
    // A well-formed manifest whose chunk is TEXT, and one whose chunk row is missing.
    storage.sql.exec("INSERT INTO memdir_store (key, value, chunks, bytes) VALUES ('bad/r:chunkText', NULL, 1, 4)");
    storage.sql.exec("INSERT INTO memdir_store (key, value, chunks, bytes) VALUES ('bad/c:chunkText/0', 'abcd', NULL, NULL)");
    storage.sql.exec("INSERT INTO memdir_store (key, value, chunks, bytes) VALUES ('bad/r:chunkMissing', NULL, 1, 4)");
    const report = {};
    for (const name of [...Object.keys(rows), 'chunkText', 'chunkMissing']) {
      report[name] = { get: await said(() => store.get(name)), swap: await said(() => store.compareAndSwap(name, bytes(1), bytes(2))) };
    }
    const hostileKey = `it's "quoted"; DROP TABLE memdir_store; -- %_\\`;
    await store.set(hostileKey, bytes(2, 6));
    report.hostileKey = { read: Array.from(await store.get(hostileKey)), listed: (await store.list("it's")).keys };
    await storage.deleteAll();
    await store.set('after', bytes(1, 3));
    report.afterDeleteAll = Array.from(await store.get('after'));
    return report;
  }

  /**
   * `n` callers each increment one counter by compare-and-swap, all at once in this
   * object. A plain get-compare-put (the control) loses updates here, which shows the
   * calls really interleave; the store's swap must not.
   */
  async race(n) {
    const storage = this.ctx.storage;
    await storage.deleteAll();
    const naive = {
      get: (k) => storage.get(k),
      async compareAndSwap(k, expected, value) {
        const current = await storage.get(k);
        if (!(current === undefined ? expected === undefined : same(current, expected))) return false;
        await storage.put(k, value);
        return true;
      },
    };
    const increment = async (store) => {
      for (let tries = 0; tries < 10_000; tries++) {
        const current = await store.get('counter');
        const next = new Uint8Array(new Uint32Array([(current ? new Uint32Array(current.slice().buffer)[0] : 0) + 1]).buffer);
        if (await store.compareAndSwap('counter', current, next)) return;
      }
      throw new Error('never swapped');
    };
    const count = async (store) => new Uint32Array((await store.get('counter')).slice().buffer)[0];
    await Promise.all(Array.from({ length: n }, () => increment(naive)));
    const naiveCount = await count(naive);
    const store = durableObjectStore(storage, { prefix: 'race/' });
    await Promise.all(Array.from({ length: n }, () => increment(store)));
    return { naive: naiveCount, store: await count(store) };
  }

  /**
   * Encryption at rest on this object's storage (tests/workerd/encryption.test.mjs):
   * a workload run on a memory over durableObjectStore, encrypted with
   * `key` (bytes) or in plaintext; resolves what it read and every raw key and
   * value under its prefix as hex (the test scans them), then, encrypted, each
   * raw value with a bit flipped in a copy of the store: whether a read and a
   * write were refused as damage, and whether a refused write changed a byte.
   * Then the wrong key and no key, and whether they changed a byte.
   */
  async encryption({ key, keyId, skip = [] }) {
    const prefix = `enc-${crypto.randomUUID()}/`;
    const encryption = key ? { key: new Uint8Array(key), keyId } : undefined;
    const clock = () => 1_700_000_000_000;
    const memory = await openMemory({ store: durableObjectStore(this.ctx.storage, { prefix }), encryption, clock });
    await memory.create({ path: '/memories/projects/quokkafjord.md', file_text: 'Quokkafjord meeting: the budget is 8141 crowns.\n' });
    await memory.create({ path: '/memories/recipes/wombatlagoon.md', file_text: 'Wombatlagoon recipe: saffron.\n' });
    await memory.str_replace({ path: '/memories/projects/quokkafjord.md', old_str: '8141 crowns', new_str: '9252 pelicanmarble' });
    await memory.insert({ path: '/memories/recipes/wombatlagoon.md', insert_line: 1, insert_text: 'Serve with narwhalbiscuit.' });
    await memory.rename({ old_path: '/memories/recipes', new_path: '/memories/ibexvault' });
    await memory.rename({ old_path: '/memories/projects/quokkafjord.md', new_path: '/memories/projects/heronspire.md' });
    const api = (request) => memory.api({ query: {}, body: null, ...request }).then((r) => r.body);
    const g = await api({ op: 'memory.create', body: { path: '/glacierotter.md', content: 'Glacierotter holds marmotcipher.\n' } });
    await api({ op: 'memory.update', id: g.id, body: { content: 'Glacierotter now holds tapirlantern.\n' } });
    const l = await api({ op: 'memory.create', body: { path: '/lynxharbor.md', content: 'Lynxharbor gravelmoth.\n' } });
    await api({ op: 'memory.update', id: l.id, body: { path: '/public-note.md', content: 'Public now.\n' } });
    await api({ op: 'version.redact', id: l.id.replace('mem_', 'memver_') });
    const hits = (await memory.search('narwhalbiscuit')).map((h) => h.path);
    await memory.search('tapirlantern');
    const entries = await memory.entries();
    memory.close();
    const hex = (v) => (v instanceof Uint8Array ? Array.from(v, (b) => b.toString(16).padStart(2, '0')).join('') : JSON.stringify(v));
    const text = (k) => Array.from(new TextEncoder().encode(k), (b) => b.toString(16).padStart(2, '0')).join('');
    const raw = await this.raw(prefix);
    const out = { hits, entries, raw: [...raw].map(([k, v]) => [text(k.slice(prefix.length)), hex(v)]) };
    if (!key) return out;

    // Each value flipped in a copy of the store (but those named in `skip`: the
    // seal's own record, which opening refuses in its own words).
    out.tampered = [];
    for (const [k, v] of raw) {
      const name = k.slice(prefix.length);
      if (!(v instanceof Uint8Array) || skip.includes(name)) continue;
      const copy = `enc-${crypto.randomUUID()}/`;
      for (const [k2, v2] of raw) await this.rawPut(copy + k2.slice(prefix.length), v2);
      const flipped = v.slice();
      flipped[0] ^= 1;
      await this.rawPut(copy + name, flipped);
      const m = await openMemory({ store: durableObjectStore(this.ctx.storage, { prefix: copy }), encryption, clock });
      const settle = (p) => p.then(() => 'ok', (e) => e.message);
      const read = await settle((async () => {
        await m.entries();
        await m.search('pelicanmarble');
      })());
      const before = dump(await this.raw(copy));
      const write = await settle(m.create({ path: '/memories/new.md', file_text: 'new' }));
      const unchanged = dump(await this.raw(copy)) === before;
      m.close();
      out.tampered.push({ name, read, write, unchanged });
    }
    // The wrong key and no key.
    const before = dump(await this.raw(prefix));
    out.refused = [];
    for (const e of [{ key: new Uint8Array(32).fill(9), keyId }, undefined]) {
      out.refused.push(
        await openMemory({ store: durableObjectStore(this.ctx.storage, { prefix }), encryption: e }).then(
          (m) => (m.close(), 'opened'),
          (err) => [err.name, err.message],
        ),
      );
    }
    out.unchanged = dump(await this.raw(prefix)) === before;
    return out;
  }
}

/** The same tests on a key-value-backed object (declared without SQLite in mf.js). */
export class StoreTestObjectKv extends StoreTestObject {}

async function body(request) {
  return request.headers.get('content-type')?.startsWith('application/json') ? request.json() : {};
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith('/__test/')) return service.fetch(request, env, ctx);
    const args = await body(request);
    const memory = () => env.MEMORY.get(env.MEMORY.idFromName(args.user));
    // STORES objects are SQLite-backed, STORES_KV ones key-value-backed: the store tests run on both.
    const namespace = args.storage === 'kv-backed' ? env.STORES_KV : env.STORES;
    const stores = () => namespace.get(namespace.idFromName(args.name ?? 'stores'));
    const answer = (value) => Response.json(value ?? null);
    switch (url.pathname) {
      case '/__test/setup':
        return answer(await memory().setup(args.limits, args.entries ?? [], args.interleave));
      case '/__test/state':
        return answer(await memory().state());
      case '/__test/wrong-object':
        // The object of `user`, called with another user's id: it must refuse.
        try {
          return answer({ answered: await memory().execute(args.claimed, '{"command":"view","path":"/memories"}') });
        } catch (e) {
          return answer({ refused: e.message });
        }
      case '/__test/kv-warning': {
        // What kvStore says on the console, over two calls in this isolate.
        const said = [];
        const warn = console.warn;
        console.warn = (...a) => said.push(a.join(' '));
        try {
          kvStore(env.KV);
          kvStore(env.KV, { prefix: 'other/' });
        } finally {
          console.warn = warn;
        }
        return answer(said);
      }
      case '/__test/contract':
        return answer(await stores().contract(args.backend));
      case '/__test/chunks':
        return answer(await stores().chunks(args.size));
      case '/__test/at-once':
        return answer(await stores().atOnce());
      case '/__test/all-or-nothing':
        return answer(await stores().allOrNothing());
      case '/__test/hostile':
        return answer(await stores().hostile(args.case, args.probes));
      case '/__test/encryption':
        return answer(await stores().encryption(args));
      case '/__test/store-scan':
        return answer(await env.MEMORY_STORE.get(env.MEMORY_STORE.idFromName(args.id)).scan(args.text));
      case '/__test/huge-manifests':
        return answer(await stores().hugeManifests());
      case '/__test/migrate':
        return answer(await stores().migrate());
      case '/__test/table-damage':
        return answer(await stores().tableDamage());
      case '/__test/sync': {
        // memdir's sync inside workerd: two memories of this isolate keep one store
        // of the example's own Memory Stores API, reached through its fetch handler.
        const fetchApi = (url, init) => service.fetch(new Request(url, init), env, ctx);
        const options = { baseURL: 'http://memdir.test', apiKey: args.apiKey, storeId: args.storeId, fetch: fetchApi };
        const [a, b] = [await openMemory({ store: inMemoryStore() }), await openMemory({ store: inMemoryStore() })];
        await a.execute({ command: 'create', path: '/memories/edge.md', file_text: 'one\ntwo\n' });
        const out = { first: await syncMemory(a, options), second: await syncMemory(b, options) };
        out.read = (await b.execute({ command: 'view', path: '/memories/edge.md' })).content;
        out.again = (await syncMemory(a, options)).text;
        return answer(out);
      }
      case '/__test/sync-redirect': {
        // memdir's sync inside workerd with workerd's own fetch, against a remote
        // (args.baseURL) that answers with a redirect: what the sync said.
        const memory = await openMemory({ store: inMemoryStore() });
        await memory.execute({ command: 'create', path: '/memories/secret.md', file_text: 'not for the other origin\n' });
        const options = { baseURL: args.baseURL, apiKey: args.apiKey, storeId: args.storeId };
        const said = await syncMemory(memory, options).then((s) => s.text, (e) => `${e.name}: ${e.message}`);
        return answer({ said });
      }
      case '/__test/search':
        return answer(await stores().search());
      case '/__test/search-case':
        return answer(await stores().searchCase(args.steps, args.embedder));
      case '/__test/write-paths':
        return answer(await stores().writePaths(args.face));
      case '/__test/race':
        return answer(await stores().race(args.n));
      default:
        return new Response('no such test route', { status: 404 });
    }
  },
};
