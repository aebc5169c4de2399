// durableObjectStore(ctx.storage): the JS store protocol on Durable Object storage.
//
// Layout (all keys under an optional `prefix`), the same on both kinds of object:
//   `r:<key>`      the record: the value's bytes, or for a value over the chunk size
//                  its manifest (`memdirChunks: n, bytes: length`)
//   `c:<key>/<i>`  chunk i of a large value (i = 0 … n-1)
// Records and chunks live under separate prefixes so a listing never sees a chunk.
//
// Two kinds of object, picked per storage:
//
// SQLite-backed objects (`new_sqlite_classes`, the kind new classes get): a table of
// our own, `memdir_store`, through `storage.sql` (one row per key above, bound
// parameters only), every mutation (the compare-and-swap and its batch of writes)
// inside one `storage.transactionSync`. Synchronous, so no other event of the object
// can run between the read of the head and the write: no lock. A throw inside the
// transaction rolls all of it back. Values go up to CHUNK_SQLITE in one row.
// Why the table and not the synchronous key-value API `storage.kv` (which the
// previous release used here): measured batched inside one request
// (`node bench/workerd/bench.mjs --only batch`, 200 commands per request), write
// commands took 35-48% less time on the table, consistently: a bench-only
// prototype of it over 6 runs, a median of 646 µs a command against 1244 µs; this
// store over 2 runs, 911 against 1411 µs and 1052 against 1668 µs. Views cost a
// little more on the table (54-90 against 47-52 µs in later runs), far less than
// writes gain. Likely part of it: a
// row's value column is read only where the value is wanted (a write looks at the
// old row's manifest columns alone, where `kv.get` deserialised the whole old
// value), and a BLOB needs no structured-clone serialisation. Objects the
// earlier code wrote through `storage.kv` (same layout) are moved into the table on
// the store's first use (see `prepare`).
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
// Everything read back is checked before use (a record is bytes, a BLOB in the
// table, or a well-formed manifest; chunks are bytes that add up to it); errors name no storage key and carry
// no backend text.

import { AT_ONCE } from '../glue.js';
import { defaults } from '../core.js';
import { equalBytes, exclusive } from './shared.js';

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
        throw failure(e, name);
      }
    };
  }
  return out;
}

/**
 * `guarded` for a store that answers synchronously (the SQLite-backed table): the
 * same errors, thrown at once, and its answers as they are, with no promise.
 */
function guardedAtOnce(store) {
  const out = {};
  for (const [name, method] of Object.entries(store)) {
    out[name] = (...args) => {
      try {
        return method(...args);
      } catch (e) {
        throw failure(e, name);
      }
    };
  }
  return out;
}

/** A store call's error as the caller sees it: the store's own, or one naming no key. */
function failure(e, name) {
  if (ownErrors.has(e)) return e;
  return new Error(`durableObjectStore: the Durable Object storage failed the ${name}`);
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
 * Whether `v` is a manifest this store could have written: at most maxValueBytes
 * bytes, in no more chunks than the smallest chunk size (CHUNK_KV, which every
 * release used on key-value-backed objects and earlier ones on SQLite-backed
 * objects too) takes for them. So no loop over a manifest's chunks runs more than
 * a few hundred times, whatever a tampered record claims. Reads refuse any other
 * (notARecord); a write or delete over one counts it as owning no chunks.
 */
function isManifest(v) {
  return manifestShaped(v) && v.bytes <= defaults().maxValueBytes && v.memdirChunks <= Math.ceil(v.bytes / CHUNK_KV);
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
    return (
      typeof storage.transactionSync === 'function' &&
      typeof storage.kv?.list === 'function' &&
      typeof storage.sql?.exec === 'function' &&
      typeof storage.sql.databaseSize === 'number'
    );
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
  if (!sqliteBacked(storage)) return guarded(keyValueStore(storage, layout));
  const table = sqliteStore(storage, prefix, layout);
  // Its methods stay async for callers; the engine takes the face that answers at once.
  return Object.defineProperty(guarded(table), AT_ONCE, { value: guardedAtOnce(table) });
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
        puts.push([rec(key), value]);
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

/**
 * The table of SQLite-backed objects. One table for every store in the object, the
 * store's prefix leading each row's key, rather than a table per prefix: a table
 * name made from a prefix would put caller text into the SQL itself (quoted, but
 * built), while here every key is a bound parameter and all SQL text is constant.
 * It also keeps the key layout the earlier storage.kv code wrote (`<prefix>r:<key>`,
 * `<prefix>c:<key>/<i>`), so moving those keys in is a copy.
 * Columns: a whole record or a chunk has `value` (a BLOB) and null `chunks`/`bytes`;
 * a record split into chunks has a null `value` and its manifest in `chunks`/`bytes`.
 */
const SQL = {
  create: 'CREATE TABLE IF NOT EXISTS memdir_store (key TEXT PRIMARY KEY, value BLOB, chunks INTEGER, bytes INTEGER)',
  exists: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'memdir_store'",
  record: 'SELECT value, chunks, bytes FROM memdir_store WHERE key = ?',
  manifest: 'SELECT chunks, bytes FROM memdir_store WHERE key = ?',
  put: 'INSERT INTO memdir_store (key, value, chunks, bytes) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, chunks = excluded.chunks, bytes = excluded.bytes',
  delete: 'DELETE FROM memdir_store WHERE key = ?',
  take: 'DELETE FROM memdir_store WHERE key = ? RETURNING chunks, bytes',
  any: 'SELECT 1 FROM memdir_store WHERE key >= ? AND key < ? LIMIT 1',
  // A page of keys from a start (>=) or after a cursor (>), below an upper bound
  // when there is one: four constant statements, keys always bound.
  list: {
    from: 'SELECT key FROM memdir_store WHERE key >= ? ORDER BY key LIMIT ?',
    fromBelow: 'SELECT key FROM memdir_store WHERE key >= ? AND key < ? ORDER BY key LIMIT ?',
    after: 'SELECT key FROM memdir_store WHERE key > ? ORDER BY key LIMIT ?',
    afterBelow: 'SELECT key FROM memdir_store WHERE key > ? AND key < ? ORDER BY key LIMIT ?',
  },
};

/**
 * The least string above every string that starts with `p`, in UTF-8 byte order
 * (SQLite's BINARY collation; UTF-8 keeps code point order): `p` with its last code
 * point below U+10FFFF raised by one (skipping surrogates). Undefined when there is
 * none (`p` empty or all U+10FFFF).
 */
function above(p) {
  const points = Array.from(p);
  while (points.length > 0) {
    const c = points.pop().codePointAt(0);
    if (c < 0x10ffff) return points.join('') + String.fromCodePoint(c === 0xd7ff ? 0xe000 : c + 1);
  }
  return undefined;
}

/**
 * A row's manifest columns as the manifest object the shared checks read, or
 * undefined for a row that holds no manifest (or no row).
 */
function manifestOf(row) {
  if (row === undefined || (row.chunks === null && row.bytes === null)) return undefined;
  return { memdirChunks: row.chunks, bytes: row.bytes };
}

/**
 * A record's row as what the store reads: its bytes, its manifest, or null when it
 * is neither (a value that is not a BLOB, or a manifest row that also holds a
 * value), which reads refuse as not bytes.
 */
function recordOf(row) {
  if (row === undefined) return undefined;
  if (row.chunks === null && row.bytes === null) return row.value instanceof ArrayBuffer ? new Uint8Array(row.value) : null;
  return row.value === null ? manifestOf(row) : null;
}

/**
 * The store on a SQLite-backed object: a table of its own through `storage.sql`,
 * every mutation one `transactionSync`.
 */
function sqliteStore(storage, prefix, { rec, chunk, plan, page }) {
  const sql = storage.sql;
  const first = (query, ...bindings) => sql.exec(query, ...bindings).toArray()[0];
  const put = (k, v) => (v instanceof Uint8Array ? sql.exec(SQL.put, k, v, null, null) : sql.exec(SQL.put, k, null, v.memdirChunks, v.bytes));

  /**
   * Makes the table, and on the first use of this prefix moves in what earlier
   * releases wrote through the key-value API (`storage.kv`, the same layout): only
   * when the table holds no record under the prefix, so it runs once (the keys it
   * moves are deleted from the key-value API in the same transaction, and a table
   * with records is never filled from there again). Bounded by what it moves, the
   * object's own data; one transaction, so a failure midway moves nothing. A record
   * is moved as it is, damage included, so reads refuse it as they did before;
   * a manifest's chunks go with it.
   */
  function prepare() {
    storage.transactionSync(() => {
      sql.exec(SQL.create);
      const records = `${prefix}r:`;
      if (first(SQL.any, records, above(records)) !== undefined) return;
      const kv = storage.kv;
      let after;
      for (;;) {
        const found = [...kv.list(after === undefined ? { prefix: records, limit: PAGE } : { prefix: records, startAfter: after, limit: PAGE })];
        if (found.length === 0) return;
        for (const [k, v] of found) {
          const bytes = asBytes(v);
          if (bytes !== undefined) put(k, bytes);
          else if (manifestShaped(v)) {
            put(k, v);
            const key = k.slice(records.length);
            for (let i = 0; isManifest(v) && i < v.memdirChunks; i++) {
              const part = kv.get(chunk(key, i));
              if (part === undefined) continue;
              sql.exec(SQL.put, chunk(key, i), asBytes(part) ?? null, null, null);
              kv.delete(chunk(key, i));
            }
          } else sql.exec(SQL.put, k, null, null, null);
          kv.delete(k);
        }
        after = found[found.length - 1][0];
      }
    });
  }

  let prepared = false;
  /**
   * Runs `fn` over a prepared table. `deleteAll` drops the table with everything
   * else, so a store that outlives one finds it gone: then the table is made again
   * and `fn` (rolled back whole, if it was a mutation) runs once more.
   */
  function run(fn) {
    if (!prepared) {
      prepare();
      prepared = true;
    }
    try {
      return fn();
    } catch (e) {
      if (ownErrors.has(e) || first(SQL.exists) !== undefined) throw e;
      prepare();
      return fn();
    }
  }

  /** Bytes of the stored record `stored` of `key` (undefined when absent). */
  function materialise(key, stored) {
    if (stored === undefined) return undefined;
    if (stored instanceof Uint8Array) return stored;
    if (!isManifest(stored)) throw notARecord(stored);
    return assemble(stored, (i) => {
      const row = first(SQL.record, chunk(key, i));
      return row === undefined ? undefined : row.value;
    });
  }

  /** Writes `value` over `key`, whose record's manifest (if any) is `old`. */
  function write(key, value, old) {
    const puts = [];
    const dels = [];
    plan(key, value, old, CHUNK_SQLITE, puts, dels);
    for (const k of dels) sql.exec(SQL.delete, k);
    for (const [k, v] of puts) put(k, v);
  }

  // The objects and the head are written in one transaction, and only when the swap
  // holds: a refused commit writes nothing, and a throw midway rolls back the rest.
  // Only the head's value is read; for each object only its manifest columns (to
  // find chunks to delete), never its value.
  function commit(objects, key, expected, value) {
    return run(() =>
      storage.transactionSync(() => {
        const head = recordOf(first(SQL.record, rec(key)));
        if (!equalBytes(materialise(key, head), expected)) return false;
        for (const [k, v] of objects) write(k, v, manifestOf(first(SQL.manifest, rec(k))));
        write(key, value, head);
        return true;
      }),
    );
  }

  return {
    get(key) {
      // No transaction needed: the record and its chunks are read synchronously, and
      // nothing else of the object runs in between.
      return run(() => materialise(key, recordOf(first(SQL.record, rec(key)))));
    },

    set(key, value) {
      run(() => storage.transactionSync(() => write(key, value, manifestOf(first(SQL.manifest, rec(key))))));
    },

    delete(key) {
      run(() =>
        storage.transactionSync(() => {
          const old = manifestOf(first(SQL.take, rec(key)));
          if (isManifest(old)) for (let i = 0; i < old.memdirChunks; i++) sql.exec(SQL.delete, chunk(key, i));
        }),
      );
    },

    list(listPrefix, cursor) {
      const below = above(rec(listPrefix));
      const after = cursor !== undefined && cursor !== null;
      const start = after ? rec(cursor) : rec(listPrefix);
      const query = below === undefined ? (after ? SQL.list.after : SQL.list.from) : after ? SQL.list.afterBelow : SQL.list.fromBelow;
      const bindings = below === undefined ? [start, PAGE + 1] : [start, below, PAGE + 1];
      return run(() => page(sql.exec(query, ...bindings).toArray().map((row) => row.key)));
    },

    compareAndSwap(key, expected, value) {
      return commit([], key, expected, value);
    },

    commit(objects, key, expected, value) {
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
    for (const batch of chunks(puts, BATCH)) pending.push(storage.put(Object.fromEntries(batch.map(([k, v]) => [k, v instanceof Uint8Array ? own(v) : v]))));
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
