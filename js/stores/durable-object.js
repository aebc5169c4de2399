// durableObjectStore(ctx.storage): the JS store protocol on Durable Object storage.
//
// Layout (all keys under an optional `prefix`):
//   `r:<key>`      the record: a Uint8Array, or for a value over CHUNK bytes a small
//                  manifest `{ memdirChunks: n, bytes: length }`
//   `c:<key>/<i>`  chunk i of a large value (i = 0 … n-1)
// Records and chunks live under separate prefixes so a listing never sees a chunk.
//
// Why chunks and not a refusal: Durable Object storage (the key-value API) takes
// values of at most 128 KiB. The engine's blobs stay under its 100 KiB per-file
// limit, but the node of a directory with a few thousand children is bigger than
// that, and refusing it would cap directory size on this backend alone. So a value
// over CHUNK is split, written and read back as one value.
//
// Why this compare-and-swap is atomic: a Durable Object is one instance in one
// isolate, so every writer of `ctx.storage` is JavaScript on one thread. Durable
// Object input gates keep new events out while a storage call is in flight, but two
// commands already running can still both read the head before either writes it
// (their reads are in flight together), so input gates alone would lose an update
// (tests/workerd/stores.test.mjs shows a plain get-compare-put doing exactly that).
// Every mutation here therefore runs under one promise-chain lock per storage
// object (a WeakMap, so two store wrappers over one `ctx.storage` share it): inside
// it the head is read, compared and written, and the next mutation starts only
// once that write has completed.
// The writes of one mutation are issued with no `await` between them, which
// Durable Objects commit as one atomic batch (write coalescing); `put` of an object
// is atomic too.

import { equalBytes, exclusive } from './shared.js';

/** Durable Object storage caps: a key at 2 KiB, a value at 128 KiB. */
const MAX_KEY_BYTES = 2048;
/** Values above this are chunked; it leaves room for the value's serialisation header. */
const CHUNK = 120 * 1024;
/** `get`, `put` and `delete` take at most 128 keys per call. */
const BATCH = 128;
/** Keys per page of `list`; each listed record's value is loaded too, so keep it modest. */
const PAGE = 128;

const encoder = new TextEncoder();

function isManifest(v) {
  return v !== null && typeof v === 'object' && Number.isInteger(v.memdirChunks) && Number.isInteger(v.bytes);
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
 * @param {DurableObjectStorage} storage `ctx.storage` of a Durable Object
 * @param {{ prefix?: string }} [options] a namespace inside the object's storage
 */
export function durableObjectStore(storage, options = {}) {
  if (storage === null || typeof storage !== 'object' || typeof storage.get !== 'function' || typeof storage.list !== 'function') {
    throw new TypeError('durableObjectStore(storage) needs the Durable Object storage, ctx.storage');
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string') throw new TypeError('durableObjectStore: options.prefix must be a string');

  const rec = (key) => {
    if (typeof key !== 'string') throw new TypeError('a key must be a string');
    const k = `${prefix}r:${key}`;
    // Leave room for the longest chunk key of the same name (`c:<key>/<index>`).
    if (encoder.encode(k).length + 8 > MAX_KEY_BYTES) throw new RangeError('key over the Durable Object key size limit');
    return k;
  };
  const chunk = (key, i) => `${prefix}c:${key}/${i}`;
  const chunkKeys = (key, manifest) => Array.from({ length: isManifest(manifest) ? manifest.memdirChunks : 0 }, (_, i) => chunk(key, i));

  /** Bytes of a stored record, reading its chunks when it is a manifest. */
  async function materialise(key, stored) {
    if (stored === undefined) return undefined;
    if (stored instanceof Uint8Array) return stored;
    if (stored instanceof ArrayBuffer) return new Uint8Array(stored);
    if (!isManifest(stored)) throw new TypeError('a stored record is not bytes');
    const keys = chunkKeys(key, stored);
    const maps = await Promise.all(chunks(keys, BATCH).map((batch) => storage.get(batch)));
    const out = new Uint8Array(stored.bytes);
    let at = 0;
    for (const k of keys) {
      const part = maps.find((m) => m.has(k))?.get(k);
      if (!(part instanceof Uint8Array) || at + part.length > out.length) throw new Error('a chunk of a stored record is missing');
      out.set(part, at);
      at += part.length;
    }
    if (at !== out.length) throw new Error('a stored record is shorter than its manifest');
    return out;
  }

  /** Adds to `puts`/`dels` what writing `value` over the record `old` takes. */
  function plan(key, value, old, puts, dels) {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    const oldChunks = chunkKeys(key, old);
    if (value.length <= CHUNK) {
      puts.push([rec(key), own(value)]);
      dels.push(...oldChunks);
      return;
    }
    const n = Math.ceil(value.length / CHUNK);
    for (let i = 0; i < n; i++) puts.push([chunk(key, i), value.slice(i * CHUNK, (i + 1) * CHUNK)]);
    puts.push([rec(key), { memdirChunks: n, bytes: value.length }]);
    dels.push(...oldChunks.slice(n));
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
      objects.forEach(([k, v], i) => plan(k, v, olds[i], puts, dels));
      plan(key, value, head, puts, dels);
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
        plan(key, value, old, puts, dels);
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
      const base = `${prefix}r:`;
      const found = await storage.list({
        prefix: rec(listPrefix),
        ...(cursor === undefined || cursor === null ? {} : { startAfter: rec(cursor) }),
        limit: PAGE + 1,
      });
      const keys = [...found.keys()].map((k) => k.slice(base.length));
      if (keys.length <= PAGE) return { keys };
      keys.length = PAGE;
      return { keys, cursor: keys[PAGE - 1] };
    },

    compareAndSwap(key, expected, value) {
      return commit([], key, expected, value);
    },

    commit,
  };
}
