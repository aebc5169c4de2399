// Bench only: the JS store protocol on a SQLite-backed Durable Object through a
// table of its own (`storage.sql`), one row per key, each mutation one
// `transactionSync`. The design issue 13 asked to measure against the shipped
// durableObjectStore (js/stores/durable-object.js); not shipped. Values stay whole
// (the bench writes small ones), so a value over a row's limit is refused rather
// than chunked.

import { equalBytes } from '../../js/stores/shared.js';

/** A row (key and value) of a SQLite-backed object holds at most 2 MB. */
const MAX_ROW_VALUE = 2_000_000 - 64 * 1024;
/** Keys per page of `list`, as durableObjectStore pages. */
const PAGE = 128;
/**
 * Above every key under a prefix in SQLite's BINARY (UTF-8 byte) order: the
 * highest code point, whose UTF-8 lead byte beats any other character's.
 */
const TOP = String.fromCodePoint(0x10ffff);

export function sqlTableStore(storage, table = 'memdir_kv') {
  const sql = storage.sql;
  const name = `"${table.replaceAll('"', '""')}"`;
  sql.exec(`CREATE TABLE IF NOT EXISTS ${name} (key TEXT PRIMARY KEY, value BLOB NOT NULL)`);

  const read = (key) => {
    for (const row of sql.exec(`SELECT value FROM ${name} WHERE key = ?`, key)) return new Uint8Array(row.value);
    return undefined;
  };
  const write = (key, value) => {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    if (value.length > MAX_ROW_VALUE) throw new RangeError('value over the row limit');
    sql.exec(`INSERT INTO ${name} (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value);
  };
  const commit = (objects, key, expected, value) =>
    storage.transactionSync(() => {
      if (!equalBytes(read(key), expected)) return false;
      for (const [k, v] of objects) write(k, v);
      write(key, value);
      return true;
    });

  return {
    async get(key) {
      return read(key);
    },
    async set(key, value) {
      write(key, value);
    },
    async delete(key) {
      sql.exec(`DELETE FROM ${name} WHERE key = ?`, key);
    },
    async list(prefix, cursor) {
      const from = cursor === undefined || cursor === null ? prefix : cursor;
      const op = cursor === undefined || cursor === null ? '>=' : '>';
      const keys = [];
      for (const row of sql.exec(`SELECT key FROM ${name} WHERE key ${op} ? AND key < ? ORDER BY key LIMIT ?`, from, prefix + TOP, PAGE + 1)) {
        keys.push(row.key);
      }
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

/**
 * Bench only, a diagnostic: the same whole-value design over the synchronous
 * `storage.kv` API instead of a table (writes blind, no chunks, each mutation one
 * transactionSync). Against sqlTableStore it separates the API's cost from what
 * durableObjectStore adds on that API (reading each written key's old record first,
 * to find chunks to delete).
 */
export function kvWholeStore(storage, prefix = 'whole:') {
  const kv = storage.kv;
  const read = (key) => {
    const v = kv.get(prefix + key);
    return v === undefined ? undefined : v instanceof Uint8Array ? v : new Uint8Array(v);
  };
  const write = (key, value) => {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    if (value.length > MAX_ROW_VALUE) throw new RangeError('value over the row limit');
    kv.put(prefix + key, value);
  };
  const commit = (objects, key, expected, value) =>
    storage.transactionSync(() => {
      if (!equalBytes(read(key), expected)) return false;
      for (const [k, v] of objects) write(k, v);
      write(key, value);
      return true;
    });
  return {
    async get(key) {
      return read(key);
    },
    async set(key, value) {
      write(key, value);
    },
    async delete(key) {
      kv.delete(prefix + key);
    },
    async list(listPrefix, cursor) {
      const options = { prefix: prefix + listPrefix, limit: PAGE + 1 };
      if (cursor !== undefined && cursor !== null) options.startAfter = prefix + cursor;
      const keys = [];
      for (const [k] of kv.list(options)) keys.push(k.slice(prefix.length));
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
