// Bench only (bench/workerd/bench.mjs): a Durable Object that runs a batch of memdir
// commands, or of bare storage writes, inside ONE request, so the bench can time the
// batch from outside and divide by its length: the loopback HTTP round trip (about
// 1-3 ms, noisy) is paid once per batch instead of once per command, and what is
// left is the engine plus the store. Timed from Node: inside workerd the clocks do
// not advance during synchronous work, which is exactly what transactionSync is.
//
// Store designs, each in an object of its own (named after the design):
//   kv-async      key-value-backed object, durableObjectStore (async calls, lock)
//   sqlite-table  SQLite-backed object, durableObjectStore (its storage.sql table in
//                 transactionSync)
//   sqlite-kv     SQLite-backed object, storage.kv in transactionSync: the design
//                 durableObjectStore used there before the table (bench-only store)
//   sqlite-async  SQLite-backed object, durableObjectStore handed only the async API,
//                 so it takes the key-value-backed path (the code before either)

import { DurableObject } from 'cloudflare:workers';
import { checkStoreContract, durableObjectStore, openMemory } from 'memdir';
import { kvSyncStore } from './kv-sync-store.js';

/** `ctx.storage` with only the asynchronous key-value API: no kv, sql or transactionSync. */
function asyncOnly(storage) {
  return {
    get: (...a) => storage.get(...a),
    put: (...a) => storage.put(...a),
    delete: (...a) => storage.delete(...a),
    list: (...a) => storage.list(...a),
  };
}

const STORES = {
  'kv-async': (storage) => durableObjectStore(storage),
  'sqlite-table': (storage) => durableObjectStore(storage),
  'sqlite-kv': (storage) => kvSyncStore(storage),
  'sqlite-async': (storage) => durableObjectStore(asyncOnly(storage)),
};

const BARE_VALUE = new Uint8Array(32);

/** One write of 32 bytes the way the design's store writes: the floor under a command. */
const BARE = {
  'kv-async': (storage, i) => storage.put('bare', BARE_VALUE.fill(i & 255)),
  'sqlite-async': (storage, i) => storage.put('bare', BARE_VALUE.fill(i & 255)),
  'sqlite-kv': (storage, i) => storage.transactionSync(() => storage.kv.put('bare', BARE_VALUE.fill(i & 255))),
  'sqlite-table': (storage, i) =>
    storage.transactionSync(() =>
      storage.sql.exec('INSERT INTO bare (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', 'bare', BARE_VALUE.fill(i & 255)),
    ),
};

/** The command mix of the bench's per-request figures, command `i` of a kind. */
const COMMANDS = {
  'view a 100-line file': () => ({ command: 'view', path: '/memories/notes/big.md' }),
  'view a directory of 50 files': () => ({ command: 'view', path: '/memories/dir' }),
  create: (i) => ({ command: 'create', path: `/memories/new/f${i}.md`, file_text: 'hello\nworld' }),
  str_replace: (i) => ({ command: 'str_replace', path: `/memories/new/f${i}.md`, old_str: 'world', new_str: 'there' }),
  insert: (i) => ({ command: 'insert', path: `/memories/new/f${i}.md`, insert_line: 1, insert_text: 'more' }),
  rename: (i) => ({ command: 'rename', old_path: `/memories/new/f${i}.md`, new_path: `/memories/moved/f${i}.md` }),
  delete: (i) => ({ command: 'delete', path: `/memories/moved/f${i}.md` }),
};

class BatchObject extends DurableObject {
  memory(design) {
    this.memories ??= new Map();
    if (!this.memories.has(design)) {
      const make = STORES[design];
      if (!make) throw new Error(`no design ${design}`);
      this.memories.set(design, openMemory({ store: make(this.ctx.storage) }));
    }
    return this.memories.get(design);
  }

  /** The files the views read: a 100-line file and a directory of 50. */
  async setup(design) {
    const memory = await this.memory(design);
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} of a memory file`).join('\n');
    const inputs = [{ command: 'create', path: '/memories/notes/big.md', file_text: lines }];
    for (let i = 0; i < 50; i++) inputs.push({ command: 'create', path: `/memories/dir/f${i}.md`, file_text: `file ${i}` });
    for (const input of inputs) {
      const out = await memory.executeJson(JSON.stringify(input));
      if (out.is_error) throw new Error(`setup: ${out.content}`);
    }
    return inputs.length;
  }

  async run(design, kind, start, n) {
    const memory = await this.memory(design);
    const make = COMMANDS[kind];
    for (let i = start; i < start + n; i++) {
      const out = await memory.executeJson(JSON.stringify(make(i)));
      if (out.is_error) throw new Error(`${kind} ${i}: ${out.content}`);
    }
    return n;
  }

  async bare(design, n) {
    if (design === 'sqlite-table') this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS bare (key TEXT PRIMARY KEY, value BLOB NOT NULL)');
    for (let i = 0; i < n; i++) await BARE[design](this.ctx.storage, i);
    return n;
  }

  noop() {
    return 0;
  }

  /** The engine's store-contract suite on the bench-only design, so what is timed is a real store. */
  async contract() {
    await checkStoreContract(kvSyncStore(this.ctx.storage, 'contract/'));
    return 'ok';
  }
}

export class BatchSqlite extends BatchObject {}
export class BatchKv extends BatchObject {}

export default {
  async fetch(request, env) {
    const { design, op, kind, start = 0, n = 0 } = await request.json();
    const ns = design === 'kv-async' ? env.BATCH_KV : env.BATCH_SQLITE;
    const object = ns.get(ns.idFromName(design));
    try {
      const ops = {
        setup: () => object.setup(design),
        run: () => object.run(design, kind, start, n),
        bare: () => object.bare(design, n),
        noop: () => object.noop(),
        contract: () => object.contract(),
      };
      const done = await ops[op]();
      return new Response(String(done));
    } catch (e) {
      return new Response(String(e?.message ?? e), { status: 500 });
    }
  },
};
