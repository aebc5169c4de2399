// durableObjectStore(ctx.storage): the JS store protocol on Durable Object storage.
//
// Layout (all keys under an optional `prefix`), the same on both kinds of object:
//   `r:<key>`      the record: a Uint8Array, or for a value over the chunk size a
//                  small manifest `{ memdirChunks: n, bytes: length }`
//   `c:<key>/<i>`  chunk i of a large value (i = 0 … n-1)
// Records and chunks live under separate prefixes so a listing never sees a chunk.
//
// Two kinds of object, picked per storage:
//
// SQLite-backed objects (`new_sqlite_classes`, the kind new classes get): the
// synchronous key-value API `storage.kv`, every mutation (the compare-and-swap and
// its batch of writes) inside one `storage.transactionSync`. Synchronous, so no other
// event of the object can run between the read of the head and the write: no lock.
// A throw inside the transaction rolls all of it back. Values go up to CHUNK_SQLITE
// in one row. Why not a table of our own through `storage.sql`: a prototype of that
// (one row per key, the same transactionSync per commit) measured no faster in
// bench/workerd, whose per-command figures on this backend are within noise of
// each other for all three designs (this one, the table, and the old async calls),
// while this one keeps the key layout earlier releases wrote to these same objects,
// so their memories read on with no migration, and shares its chunking with the
// key-value-backed path.
//
// Key-value-backed objects (no SQLite): the asynchronous API, which takes values of
// at most 128 KiB, hence chunks of CHUNK_KV. Why this compare-and-swap is atomic: a
// Durable Object is one instance in one isolate, so every writer of `ctx.storage` is
// JavaScript on one thread. Input gates keep new events out while a storage call is
// in flight, but two commands already running can still both read the head before
// either writes it (their reads are in flight together), so input gates alone would
// lose an update (tests/workerd/stores.test.mjs shows a plain get-compare-put doing
// exactly that). Every mutation on this path therefore runs under one promise-chain
// lock per storage object (a WeakMap, so two store wrappers over one `ctx.storage`
// share it): inside it the head is read, compared and written, and the next mutation
// starts only once that write has completed. The writes of one mutation are issued
// with no `await` between them, which Durable Objects commit as one atomic batch
// (write coalescing); `put` of an object is atomic too.
//
// Why chunks and not a refusal, on both: the engine's blobs stay under its 100 KiB
// per-file limit, but the node of a directory with many thousands of children grows
// past any one value limit, and refusing it would cap directory size on this backend
// alone. So a value over the chunk size is split, written and read back as one value.
//
// Everything read back is checked before use (a record is bytes or a well-formed
// manifest; chunks are bytes that add up to it); errors name no storage key and carry
// no backend text.

import { equalBytes, exclusive, MAX_VALUE_BYTES } from './shared.js';

/** Durable Object storage caps a key at 2 KiB on both kinds of object. */
const MAX_KEY_BYTES = 2048;
/**
 * Key-value-backed objects take values of at most 128 KiB; this leaves room for the
 * value's serialisation header.
 */
const CHUNK_KV = 120 * 1024;
/**
 * SQLite-backed objects take a row (key and value, serialised) of at most 2 MB; this
 * leaves room for the longest key and the header.
 */
const CHUNK_SQLITE = 2_000_000 - 64 * 1024;
/** The async API's `get`, `put` and `delete` take at most 128 keys per call. */
const BATCH = 128;
/** Keys per page of `list`; each listed record's value is loaded too, so keep it modest. */
const PAGE = 128;

const encoder = new TextEncoder();

/** Errors this module made: their text is its own, so they pass through as they are. */
const ownErrors = new WeakSet();

function ours(error) {
  ownErrors.add(error);
  return error;
}

/** A stored record that is not what this store writes. */
function damaged(what) {
  return ours(new Error(`durableObjectStore: ${what}`));
}

/**
 * The store with every method's failures cleaned: an error this module made passes
 * through; anything the storage threw (whose text may carry a key or the backend's
 * own words) becomes one plain error, so neither reaches a caller.
 */
function guarded(store) {
  const out = {};
  for (const [name, method] of Object.entries(store)) {
    out[name] = async (...args) => {
      try {
        return await method(...args);
      } catch (e) {
        if (ownErrors.has(e)) throw e;
        throw new Error(`durableObjectStore: the Durable Object storage failed the ${name}`);
      }
    };
  }
  return out;
}

/** Whether `v` has a manifest's shape (its size may still be beyond any memdir writes). */
function manifestShaped(v) {
  return (
    v !== null &&
    typeof v === 'object' &&
    Number.isSafeInteger(v.memdirChunks) &&
    Number.isSafeInteger(v.bytes) &&
    v.memdirChunks > 0 &&
    v.memdirChunks <= v.bytes
  );
}

/**
 * Whether `v` is a manifest this store could have written: at most MAX_VALUE_BYTES
 * bytes, in no more chunks than the smallest chunk size (CHUNK_KV, which every
 * release used on key-value-backed objects and earlier ones on SQLite-backed
 * objects too) takes for them. So no loop over a manifest's chunks runs more than
 * a few hundred times, whatever a tampered record claims. Reads refuse any other
 * (notARecord); a write or delete over one counts it as owning no chunks.
 */
function isManifest(v) {
  return manifestShaped(v) && v.bytes <= MAX_VALUE_BYTES && v.memdirChunks <= Math.ceil(v.bytes / CHUNK_KV);
}

/** A stored record that is neither bytes nor a manifest this store could have written. */
function notARecord(v) {
  return manifestShaped(v) ? damaged('a stored record claims a size beyond any value memdir writes') : damaged('a stored record is not bytes');
}

/** A stored chunk or unchunked record as bytes, or undefined when it is neither. */
function asBytes(v) {
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return undefined;
}

/** A copy that owns its whole buffer: storage serialises a view's entire buffer. */
function own(bytes) {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

function chunks(list, size) {
  const out = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/**
 * Whether `storage` is a SQLite-backed object's: it has the synchronous key-value
 * API and transactionSync. On a key-value-backed object `storage.sql` and
 * `storage.kv` exist but throw when used; `databaseSize` is the cheapest such use.
 */
function sqliteBacked(storage) {
  try {
    return typeof storage.transactionSync === 'function' && typeof storage.kv?.get === 'function' && typeof storage.sql?.databaseSize === 'number';
  } catch {
    return false;
  }
}

/**
 * @param {DurableObjectStorage} storage `ctx.storage` of a Durable Object
 * @param {{ prefix?: string }} [options] a namespace inside the object's storage
 */
export function durableObjectStore(storage, options = {}) {
  if (storage === null || typeof storage !== 'object' || typeof storage.get !== 'function' || typeof storage.list !== 'function') {
    throw new TypeError('durableObjectStore(storage) needs the Durable Object storage, ctx.storage');
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string') throw new TypeError('durableObjectStore: options.prefix must be a string');
  const layout = keyLayout(prefix);
  return guarded(sqliteBacked(storage) ? sqliteStore(storage, layout) : keyValueStore(storage, layout));
}

/** Where a key's record and chunks live, and what writing a value over a record takes. */
function keyLayout(prefix) {
  const rec = (key) => {
    if (typeof key !== 'string') throw ours(new TypeError('a key must be a string'));
    const k = `${prefix}r:${key}`;
    // Leave room for the longest chunk key of the same name (`c:<key>/<index>`).
    if (encoder.encode(k).length + 8 > MAX_KEY_BYTES) throw ours(new RangeError('key over the Durable Object key size limit'));
    return k;
  };
  const chunk = (key, i) => `${prefix}c:${key}/${i}`;
  return {
    rec,
    chunk,
    /** The chunk keys a stored record owns (none unless it is a manifest). */
    chunkKeys: (key, stored) => Array.from({ length: isManifest(stored) ? stored.memdirChunks : 0 }, (_, i) => chunk(key, i)),
    /**
     * Adds to `puts`/`dels` what writing `value` over the stored record `old` takes,
     * in chunks of `size`.
     */
    plan(key, value, old, size, puts, dels) {
      if (!(value instanceof Uint8Array)) throw ours(new TypeError('a value must be a Uint8Array'));
      const oldChunks = isManifest(old) ? old.memdirChunks : 0;
      if (value.length <= size) {
        puts.push([rec(key), own(value)]);
        for (let i = 0; i < oldChunks; i++) dels.push(chunk(key, i));
        return;
      }
      const n = Math.ceil(value.length / size);
      for (let i = 0; i < n; i++) puts.push([chunk(key, i), value.slice(i * size, (i + 1) * size)]);
      puts.push([rec(key), { memdirChunks: n, bytes: value.length }]);
      for (let i = n; i < oldChunks; i++) dels.push(chunk(key, i));
    },
    /** A page of record names from listed storage keys, and the next cursor. */
    page(found) {
      const keys = found.map((k) => k.slice(`${prefix}r:`.length));
      if (keys.length <= PAGE) return { keys };
      keys.length = PAGE;
      return { keys, cursor: keys[PAGE - 1] };
    },
  };
}

/**
 * The value a manifest describes, from its chunks in order (`part(i)` reads chunk
 * i); reads stop at the first chunk that is missing or does not fit.
 */
function assemble(manifest, part) {
  const parts = [];
  let total = 0;
  for (let i = 0; i < manifest.memdirChunks; i++) {
    const p = asBytes(part(i));
    if (p === undefined || p.length === 0 || total + p.length > manifest.bytes) throw damaged('a chunk of a stored record is missing or damaged');
    parts.push(p);
    total += p.length;
  }
  if (total !== manifest.bytes) throw damaged('a stored record is shorter than its manifest');
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The store on a SQLite-backed object: synchronous calls, one transaction per mutation. */
function sqliteStore(storage, { rec, chunk, plan, page }) {
  const kv = storage.kv;

  /** Bytes of the stored record `stored` of `key` (undefined when absent). */
  function materialise(key, stored) {
    if (stored === undefined) return undefined;
    const bytes = asBytes(stored);
    if (bytes !== undefined) return bytes;
    if (!isManifest(stored)) throw notARecord(stored);
    return assemble(stored, (i) => kv.get(chunk(key, i)));
  }

  function write(key, value, old) {
    const puts = [];
    const dels = [];
    plan(key, value, old, CHUNK_SQLITE, puts, dels);
    for (const k of dels) kv.delete(k);
    for (const [k, v] of puts) kv.put(k, v);
  }

  // The objects and the head are written in one transaction, and only when the swap
  // holds: a refused commit writes nothing, and a throw midway rolls back the rest.
  function commit(objects, key, expected, value) {
    return storage.transactionSync(() => {
      const head = kv.get(rec(key));
      if (!equalBytes(materialise(key, head), expected)) return false;
      for (const [k, v] of objects) write(k, v, kv.get(rec(k)));
      write(key, value, head);
      return true;
    });
  }

  return {
    async get(key) {
      // One transaction, so the record and its chunks are read as of one moment.
      return storage.transactionSync(() => materialise(key, kv.get(rec(key))));
    },

    async set(key, value) {
      storage.transactionSync(() => write(key, value, kv.get(rec(key))));
    },

    async delete(key) {
      storage.transactionSync(() => {
        const old = kv.get(rec(key));
        if (old === undefined) return;
        kv.delete(rec(key));
        if (isManifest(old)) for (let i = 0; i < old.memdirChunks; i++) kv.delete(chunk(key, i));
      });
    },

    async list(listPrefix, cursor) {
      const options = { prefix: rec(listPrefix), limit: PAGE + 1 };
      if (cursor !== undefined && cursor !== null) options.startAfter = rec(cursor);
      const found = [];
      for (const [k] of kv.list(options)) found.push(k);
      return page(found);
    },

    async compareAndSwap(key, expected, value) {
      return commit([], key, expected, value);
    },

    async commit(objects, key, expected, value) {
      return commit(objects, key, expected, value);
    },
  };
}

/** The store on a key-value-backed object: the async API under a promise-chain lock. */
function keyValueStore(storage, { rec, chunk, chunkKeys, plan, page }) {
  /** Bytes of a stored record, reading its chunks when it is a manifest. */
  async function materialise(key, stored) {
    if (stored === undefined) return undefined;
    const bytes = asBytes(stored);
    if (bytes !== undefined) return bytes;
    if (!isManifest(stored)) throw notARecord(stored);
    const keys = chunkKeys(key, stored);
    const maps = await Promise.all(chunks(keys, BATCH).map((batch) => storage.get(batch)));
    const got = new Map(maps.flatMap((m) => [...m]));
    return assemble(stored, (i) => got.get(chunk(key, i)));
  }

  /** Issues every write with no `await` in between, so storage commits them as one batch. */
  function apply(puts, dels) {
    const pending = [];
    for (const batch of chunks(dels, BATCH)) pending.push(storage.delete(batch));
    for (const batch of chunks(puts, BATCH)) pending.push(storage.put(Object.fromEntries(batch)));
    return Promise.all(pending);
  }

  /** Reads several records in one round trip: key -> stored value (or undefined). */
  async function readRecords(keys) {
    const recKeys = keys.map(rec);
    const maps = await Promise.all(chunks(recKeys, BATCH).map((batch) => storage.get(batch)));
    return recKeys.map((k) => maps.find((m) => m.has(k))?.get(k));
  }

  // The objects and the head go out in one batch, and only when the swap holds:
  // a refused commit writes nothing.
  async function commit(objects, key, expected, value) {
    return exclusive(storage, async () => {
      const keys = [key, ...objects.map(([k]) => k)];
      const [head, ...olds] = await readRecords(keys);
      if (!equalBytes(await materialise(key, head), expected)) return false;
      const puts = [];
      const dels = [];
      objects.forEach(([k, v], i) => plan(k, v, olds[i], CHUNK_KV, puts, dels));
      plan(key, value, head, CHUNK_KV, puts, dels);
      await apply(puts, dels);
      return true;
    });
  }

  return {
    async get(key) {
      const stored = await storage.get(rec(key));
      if (!isManifest(stored)) return materialise(key, stored);
      // A chunked value is read under the lock so a concurrent rewrite cannot tear it.
      return exclusive(storage, async () => materialise(key, await storage.get(rec(key))));
    },

    async set(key, value) {
      await exclusive(storage, async () => {
        const [old] = await readRecords([key]);
        const puts = [];
        const dels = [];
        plan(key, value, old, CHUNK_KV, puts, dels);
        await apply(puts, dels);
      });
    },

    async delete(key) {
      await exclusive(storage, async () => {
        const [old] = await readRecords([key]);
        if (old === undefined) return;
        await apply([], [rec(key), ...chunkKeys(key, old)]);
      });
    },

    async list(listPrefix, cursor) {
      const found = await storage.list({
        prefix: rec(listPrefix),
        ...(cursor === undefined || cursor === null ? {} : { startAfter: rec(cursor) }),
        limit: PAGE + 1,
      });
      return page([...found.keys()]);
    },

    compareAndSwap(key, expected, value) {
      return commit([], key, expected, value);
    },

    commit,
  };
}
