// Bench only: the design durableObjectStore used on SQLite-backed objects before
// the storage.sql table (js/stores/durable-object.js), kept so bench.mjs still
// measures the two side by side: the synchronous key-value API `storage.kv`, one key
// per record (`r:<key>` under a prefix), each mutation one `transactionSync`, and
// each write first reading the key's old record (`kv.get`, which deserialises the
// whole value), as that code did to find a chunked value's chunks to delete. Not
// shipped. The bench writes small values, so a value over a row's limit is refused
// rather than chunked.

import { equalBytes } from '../../js/stores/shared.js';

/** A row (key and value) of a SQLite-backed object holds at most 2 MB. */
const MAX_ROW_VALUE = 2_000_000 - 64 * 1024;
/** Keys per page of `list`, as durableObjectStore pages. */
const PAGE = 128;

export function kvSyncStore(storage, prefix = 'kv-sync/') {
  const kv = storage.kv;
  const rec = (key) => `${prefix}r:${key}`;
  const bytesOf = (v) => (v === undefined ? undefined : v instanceof Uint8Array ? v : new Uint8Array(v));
  const write = (key, value) => {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    if (value.length > MAX_ROW_VALUE) throw new RangeError('value over the row limit');
    // The old record, read as the shipped code read it (there: to delete its chunks).
    kv.get(rec(key));
    kv.put(rec(key), value);
  };
  const commit = (objects, key, expected, value) =>
    storage.transactionSync(() => {
      if (!equalBytes(bytesOf(kv.get(rec(key))), expected)) return false;
      for (const [k, v] of objects) write(k, v);
      write(key, value);
      return true;
    });
  return {
    async get(key) {
      return storage.transactionSync(() => bytesOf(kv.get(rec(key))));
    },
    async set(key, value) {
      storage.transactionSync(() => write(key, value));
    },
    async delete(key) {
      storage.transactionSync(() => kv.delete(rec(key)));
    },
    async list(listPrefix, cursor) {
      const options = { prefix: rec(listPrefix), limit: PAGE + 1 };
      if (cursor !== undefined && cursor !== null) options.startAfter = rec(cursor);
      const keys = [];
      for (const [k] of kv.list(options)) keys.push(k.slice(rec('').length));
      if (keys.length <= PAGE) return { keys };
      keys.length = PAGE;
      return { keys, cursor: keys[PAGE - 1] };
    },
    async compareAndSwap(key, expected, value) {
      return commit([], key, expected, value);
    },
    async commit(objects, key, expected, value) {
      return commit(objects, key, expected, value);
    },
  };
}
