// The browser bench, in the page: the 1,000-command workload through memdir over
// IndexedDB, each command followed by its two floors, in the same page against
// the same IndexedDB:
//  - same bytes: one raw IndexedDB transaction replaying exactly the requests
//    memdir's store made for the command (its gets, its puts: same keys, same
//    bytes), pipelined: what the command costs without the engine and the adapter;
//  - file floor: one raw transaction of a file-per-record store doing the least the
//    command needs (read the file; put the new content; delete): what the data
//    model (a content-addressed tree) costs on top.
import * as memdir from '/js/browser.js';
import { workload } from '/bench/workload.mjs';

const encoder = new TextEncoder();

// Counts the transactions each database opens, by mode: what a command costs.
const opened = new Map();
const original = IDBDatabase.prototype.transaction;
IDBDatabase.prototype.transaction = function (stores, mode, ...rest) {
  const key = `${this.name}/${mode ?? 'readonly'}`;
  opened.set(key, (opened.get(key) ?? 0) + 1);
  return original.call(this, stores, mode, ...rest);
};
const count = (db, mode) => opened.get(`${db}/${mode}`) ?? 0;

// And every get, put and delete memdir's databases are asked for, to replay: on
// either object store (`kv`, single keys; `packs`, one record per commit, whose key
// IndexedDB numbers) and on the index of packed keys.
const logged = new Map();
const log = (db, entry) => {
  if (db.name.startsWith('memdir:')) logged.set(db.name, [...(logged.get(db.name) ?? []), entry]);
};
for (const op of ['get', 'put', 'delete']) {
  const f = IDBObjectStore.prototype[op];
  IDBObjectStore.prototype[op] = function (a, b) {
    log(this.transaction.db, op === 'put' ? { op, store: this.name, key: b, value: a } : { op, store: this.name, key: a });
    return f.apply(this, arguments);
  };
}
const indexGet = IDBIndex.prototype.get;
IDBIndex.prototype.get = function (a) {
  log(this.objectStore.transaction.db, { op: 'get', index: this.name, store: this.objectStore.name, key: a });
  return indexGet.apply(this, arguments);
};
const take = (db) => {
  const ops = logged.get(db) ?? [];
  logged.set(db, []);
  return ops;
};

function request(r) {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error);
  });
}

function settled(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onabort = () => reject(tx.error);
  });
}

async function deleteDb(name) {
  await request(indexedDB.deleteDatabase(name)).catch(() => {});
}

/** The same-bytes floor: memdir's own requests for a command, in one transaction. */
class Replay {
  static async open(name, ops) {
    await deleteDb(name);
    const open = indexedDB.open(name, 1);
    // memdir's schema: `kv`, and `packs` with its multi-entry index of keys.
    open.onupgradeneeded = () => {
      open.result.createObjectStore('kv');
      open.result.createObjectStore('packs', { autoIncrement: true }).createIndex('keys', 'keys', { multiEntry: true });
    };
    const replay = new Replay(await request(open));
    await replay.run(ops); // the seeding import, untimed
    return replay;
  }

  constructor(db) {
    this.db = db;
  }

  run(ops) {
    if (ops.length === 0) return Promise.resolve();
    const writes = ops.some((o) => o.op !== 'get');
    const tx = this.db.transaction(['kv', 'packs'], writes ? 'readwrite' : 'readonly');
    const reads = [];
    for (const o of ops) {
      const s = tx.objectStore(o.store);
      if (o.op === 'put') s.put(o.value, o.key);
      else if (o.op === 'delete') s.delete(o.key);
      else reads.push(request((o.index ? s.index(o.index) : s).get(o.key)));
    }
    return writes ? settled(tx) : Promise.all(reads);
  }
}

/**
 * The file floor: a file-per-record store doing the least each command needs, in ONE
 * transaction: a view reads the file's record (a directory view, its keys); a write
 * puts the new content (a rename also deletes the old record, a delete only deletes).
 */
class FileFloor {
  static async open(name, initial) {
    await deleteDb(name);
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => open.result.createObjectStore('files');
    const db = await request(open);
    const tx = db.transaction('files', 'readwrite');
    for (const [p, c] of initial) tx.objectStore('files').put(encoder.encode(c), p);
    await settled(tx);
    return new FileFloor(db, new Map(initial));
  }

  constructor(db, files) {
    this.db = db;
    this.files = files;
  }

  /** Works out the command's effect in JS first; returns the timed IndexedDB part. */
  prepare(input) {
    const f = this.files;
    const store = (mode) => this.db.transaction('files', mode).objectStore('files');
    switch (input.command) {
      case 'view':
        if (!f.has(input.path)) {
          const lower = `${input.path}/`;
          return async () => request(store('readonly').getAllKeys(IDBKeyRange.bound(lower, `${lower}\uffff`)));
        }
        return async () => request(store('readonly').get(input.path));
      case 'create': {
        const bytes = encoder.encode(input.file_text);
        f.set(input.path, input.file_text);
        return () => this.write((s) => s.put(bytes, input.path));
      }
      case 'str_replace': {
        const next = f.get(input.path).replace(input.old_str, () => input.new_str);
        f.set(input.path, next);
        const bytes = encoder.encode(next);
        return () => this.write((s) => s.put(bytes, input.path));
      }
      case 'insert': {
        const lines = f.get(input.path).split('\n');
        lines.splice(input.insert_line, 0, input.insert_text.replace(/\n$/, ''));
        const next = lines.join('\n');
        f.set(input.path, next);
        const bytes = encoder.encode(next);
        return () => this.write((s) => s.put(bytes, input.path));
      }
      case 'rename': {
        const content = f.get(input.old_path);
        f.delete(input.old_path);
        f.set(input.new_path, content);
        const bytes = encoder.encode(content);
        return () =>
          this.write((s) => {
            s.put(bytes, input.new_path);
            s.delete(input.old_path);
          });
      }
      case 'delete':
        f.delete(input.path);
        return () => this.write((s) => s.delete(input.path));
      default:
        throw new Error(`no floor for ${input.command}`);
    }
  }

  write(ops) {
    const tx = this.db.transaction('files', 'readwrite');
    ops(tx.objectStore('files'));
    return settled(tx);
  }
}

async function memory(name, initial) {
  await deleteDb(`memdir:${name}`);
  const m = await memdir.openMemory({ store: memdir.indexedDbStore(name) });
  await m.import([...initial].map(([path, content]) => ({ path, content })));
  return m;
}

// A pack record's bytes are its pack's (its keys are in the pack's index too).
const bytesOf = (ops) => ops.reduce((n, o) => n + (o.op === 'put' ? (o.value.pack ?? o.value).byteLength : 0), 0);

/** Each command through memdir, then its two floors; per command: times, transactions, writes. */
async function pass(commands, initial, tag) {
  const db = `memdir:bench-${tag}`;
  const m = await memory(`bench-${tag}`, initial);
  const replay = await Replay.open(`replay-${tag}`, take(db));
  const floor = await FileFloor.open(`floor-${tag}`, initial);
  const out = [];
  for (const [kind, input] of commands) {
    const ro = count(db, 'readonly');
    const rw = count(db, 'readwrite');
    const t0 = performance.now();
    const r = await m.execute(input);
    const t1 = performance.now();
    const ops = take(db);
    const t2 = performance.now();
    await replay.run(ops);
    const t3 = performance.now();
    const fileFloor = floor.prepare(input);
    const t4 = performance.now();
    await fileFloor();
    const t5 = performance.now();
    out.push({
      kind,
      memdir: t1 - t0,
      same: t3 - t2,
      floor: t5 - t4,
      readonly: count(db, 'readonly') - ro,
      readwrite: count(db, 'readwrite') - rw,
      gets: ops.filter((o) => o.op === 'get').length,
      records: ops.filter((o) => o.op === 'put').length,
      bytes: bytesOf(ops),
      // The answer itself, for bench.mjs to check against the SDK's.
      answer: { content: r.content, is_error: r.is_error, ...(r.kind ? { kind: r.kind } : {}) },
    });
  }
  floor.db.close();
  replay.db.close();
  return out;
}

export async function run(options = {}) {
  const { initial, commands } = workload(options);
  // Warm-up: JIT, the wasm, IndexedDB's own caches; on separate databases.
  await pass(commands.slice(0, 200), initial, 'warm');
  const results = await pass(commands, initial, 'run');
  return {
    results,
    files: initial.size,
    isolated: globalThis.crossOriginIsolated === true,
    agent: navigator.userAgent,
  };
}
