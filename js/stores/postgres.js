// postgresStore(connection, { namespace }): the store protocol on PostgreSQL, through
// node-postgres (`pg`: the plain, long-kept client every Node PostgreSQL stack builds
// on; pure JS, so nothing to compile). `pg` is an optional peer dependency: only a
// user of this store installs it.
//
// One table holds every namespace's keys. Keys and namespaces sort in the "C"
// collation, byte order, the order the engine's list promises whatever the
// database's locale. A commit is one statement: the head moves by a conditional
// UPDATE (or an INSERT that does nothing if another writer got there first) and the
// objects go in with it, so several processes on one database lose nothing, and a
// refused commit writes nothing.
//
// A store that `memdir serve`'s catalog made (`catalogued`) lives only while the
// catalog's table lists it: each read also asks whether its row is there, and a
// commit moves the head only while it is (holding the row, so a delete waits for
// the commit or the commit sees the delete). A write that was under way when
// another instance deleted the store then writes nothing, not keys that no
// catalog row names, and the reads after it fail.
//
// Writes through several processes take turns (`inTurn`, postgres-turn.js).

import { turnTaker } from './postgres-turn.js';
import { MAX_VALUE_BYTES } from './shared.js';

/** Rows a list page returns; the contract allows any page size. */
const PAGE = 1000;
/** Connections one store's pool opens at most (each `memdir serve` holds one pool). */
export const POOL_MAX = 10;
/** How long a query may wait for a connection, and run, before it fails. */
export const CONNECT_TIMEOUT_MS = 10_000;
export const STATEMENT_TIMEOUT_MS = 30_000;
/** The table every namespace shares. */
export const TABLE = 'memdir_kv';
/** The catalog's table (js/api/catalog-pg.js): a row per store `memdir serve` made. */
export const STORES_TABLE = 'memdir_stores';
/** What a catalogued store's reads fail with once its catalog row is gone. */
export const STORE_DELETED = 'this memory store was deleted';

const SCHEMA = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value bytea NOT NULL,
  PRIMARY KEY (namespace, key)
)`;

/** The one error text a failing database gives the engine: never the driver's own. */
export class PostgresStoreError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PostgresStoreError';
  }
}

/**
 * A pool on `url` with memdir's bounds (connections, waits, statement time), for a
 * store or the catalog that shares one among its stores. node-postgres is loaded
 * here, on first use, so an application that never opens one needs no `pg`.
 */
export async function openPool(url) {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch {
    throw new PostgresStoreError('a PostgreSQL store needs node-postgres, which memdir does not install by itself: npm install pg@8');
  }
  const p = new pg.Pool({
    connectionString: url,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + 1000,
  });
  // An idle client's error (the server restarted) must not end the process; the
  // next query gets a fresh connection.
  p.on('error', () => {});
  return p;
}

// What a caller (and, through the engine, a client) may see of a failure: which
// operation failed, never the server's text, which can hold table and host names.
export function failed(op, what = 'store') {
  return (e) => {
    if (e instanceof PostgresStoreError) throw e;
    throw new PostgresStoreError(`the PostgreSQL ${what} could not ${op}`);
  };
}

const statementNames = new Map();
/**
 * A query named for its text, so each connection parses and plans it once and then
 * only binds values (a busy database spent its time on the parsing). The texts are
 * the few this module and the catalog write, so the names are bounded by the code.
 */
export function prepared(text, values) {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `memdir_${statementNames.size}`;
    statementNames.set(text, name);
  }
  return { name, text, values };
}

/**
 * Runs `fn(client)` in one transaction on a connection of `pool`: committed when
 * it resolves `{ commit: true, value }`, rolled back when `{ commit: false, value }`
 * or when it throws (then the connection is dropped, not reused).
 */
export async function transaction(pool, fail, fn) {
  const client = await pool.connect().catch(fail);
  let broken = false;
  try {
    await client.query('BEGIN');
    const { commit, value } = await fn(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return value;
  } catch (e) {
    broken = true;
    await client.query('ROLLBACK').catch(() => {});
    return fail(e);
  } finally {
    client.release(broken);
  }
}

/**
 * @param {string | import('pg').Pool} connection a `postgres://` URL, or a pool the
 *   application owns (then `close()` leaves it open)
 * @param {{ namespace?: string, catalogued?: boolean }} [options] which store inside
 *   the database (default "default"); many stores share one table, one namespace
 *   each. `catalogued`: the store lives only while `memdir_stores` has a row whose
 *   id is the namespace (the catalog's stores; see the top of this file).
 */
export function postgresStore(connection, options = {}) {
  const namespace = options.namespace ?? 'default';
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > 200) {
    throw new TypeError('postgresStore: options.namespace must be a string of 1 to 200 characters');
  }
  const catalogued = options.catalogued ?? false;
  if (typeof catalogued !== 'boolean') throw new TypeError('postgresStore: options.catalogued must be a boolean');
  // Every statement below binds the namespace as $1. Reading the row takes no lock;
  // a commit holds it (KEY SHARE: commits do not wait for each other, a delete of the
  // row waits for them, and a commit after the delete finds no row).
  const listed = catalogued ? `EXISTS (SELECT 1 FROM ${STORES_TABLE} WHERE id = $1)` : 'true';
  const held = catalogued ? `EXISTS (SELECT 1 FROM ${STORES_TABLE} WHERE id = $1 FOR KEY SHARE)` : 'true';
  const owned = typeof connection === 'string';
  if (!owned && (connection === null || typeof connection !== 'object' || typeof connection.connect !== 'function')) {
    throw new TypeError('postgresStore(connection) needs a postgres:// URL or a pg Pool');
  }
  let ready;
  // The pool and table, made on first use so that opening a store does no I/O.
  function pool() {
    ready ??= (async () => {
      const p = owned ? await openPool(connection) : connection;
      await ensureTable(p);
      return p;
    })().catch((e) => {
      ready = undefined;
      return failed('connect to its database')(e);
    });
    return ready;
  }

  async function query(op, text, values) {
    const p = await pool();
    return p.query(prepared(text, values)).catch(failed(op));
  }

  const takeTurn = turnTaker(pool, namespace);

  const checkKey = (key) => {
    if (typeof key !== 'string') throw new TypeError('a key must be a string');
    // PostgreSQL text cannot hold NUL; the engine's keys never do.
    if (key.includes('\0')) throw new RangeError('a key holds a NUL character');
    return key;
  };
  const checkValue = (value) => {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    return value;
  };

  // The database is input like any store: a value over the engine's limit is
  // refused by the server before it is sent, and a row of another shape is damage.
  async function get(key) {
    // One row whatever is stored: whether the store is listed, and the value if any.
    const { rows } = await query(
      'read',
      `SELECT ${listed} AS listed, octet_length(v.value) AS n, CASE WHEN octet_length(v.value) <= $3 THEN v.value END AS value
         FROM (SELECT 1) AS one LEFT JOIN ${TABLE} v ON v.namespace = $1 AND v.key = $2`,
      [namespace, checkKey(key), MAX_VALUE_BYTES],
    );
    const row = rows[0];
    if (row?.listed !== true) throw new PostgresStoreError(row?.listed === false ? STORE_DELETED : 'the PostgreSQL store answered a read with no row');
    if (row.n === null) return undefined;
    const value = row.value;
    if (!(value instanceof Uint8Array)) throw new PostgresStoreError('the PostgreSQL store holds a value over the size limit');
    return value;
  }

  async function set(key, value) {
    const { rowCount } = await query(
      'write',
      `INSERT INTO ${TABLE} (namespace, key, value) SELECT $1, $2, $3::bytea WHERE ${held}
         ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value`,
      [namespace, checkKey(key), checkValue(value)],
    );
    if (rowCount !== 1) throw new PostgresStoreError(STORE_DELETED);
  }

  // Moves `key` from `expected` (undefined: absent) to `value` and, only if it
  // moved, stores `objects`: one statement, so one round trip, atomic on its own.
  // The swap is a data-modifying CTE the insert reads; no one sees either until the
  // statement ends. (BEGIN, swap, insert and COMMIT were four round trips, each a
  // wait for a busy server.) `op` names it in a failure.
  async function publish(op, objects, key, expected, value) {
    const values = [namespace, key, value, objects.map(([k]) => k), objects.map(([, v]) => v)];
    if (expected !== undefined) {
      try {
        values.push(checkValue(expected));
      } catch (e) {
        return failed(op)(e);
      }
    }
    const swapped =
      expected === undefined
        ? `INSERT INTO ${TABLE} (namespace, key, value) SELECT $1, $2, $3::bytea WHERE ${held} ON CONFLICT (namespace, key) DO NOTHING RETURNING 1`
        : `UPDATE ${TABLE} SET value = $3 WHERE namespace = $1 AND key = $2 AND value = $6 AND ${held} RETURNING 1`;
    const { rows } = await query(
      op,
      `WITH swapped AS (${swapped}),
            stored AS (
              INSERT INTO ${TABLE} (namespace, key, value)
                SELECT $1, k, v FROM unnest($4::text[], $5::bytea[]) AS o(k, v) WHERE EXISTS (SELECT 1 FROM swapped)
                ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value)
       SELECT count(*)::int AS swapped FROM swapped`,
      values,
    );
    return rows[0]?.swapped === 1;
  }

  return {
    get,
    set,

    async delete(key) {
      await query('delete', `DELETE FROM ${TABLE} WHERE namespace = $1 AND key = $2`, [namespace, checkKey(key)]);
    },

    // Keyset paging: the cursor is the page's last key, so a page costs one index
    // range scan however deep the listing is.
    async list(prefix, cursor) {
      checkKey(prefix);
      if (cursor !== undefined && cursor !== null) checkKey(cursor);
      const { rows } = await query(
        'list',
        `SELECT key FROM ${TABLE}
          WHERE namespace = $1 AND key >= $2 AND starts_with(key, $2) AND ($3::text IS NULL OR key > $3)
          ORDER BY key LIMIT ${PAGE}`,
        [namespace, prefix, cursor ?? null],
      );
      const keys = rows.map((r) => r.key);
      if (!keys.every((k) => typeof k === 'string')) throw new PostgresStoreError('the PostgreSQL store listed a key that is not text');
      return keys.length === PAGE ? { keys, cursor: keys[keys.length - 1] } : { keys };
    },

    async compareAndSwap(key, expected, value) {
      return publish('swap a key', [], checkKey(key), expected, checkValue(value));
    },

    async commit(objects, key, expected, value) {
      checkKey(key);
      checkValue(value);
      for (const [k, v] of objects) {
        checkKey(k);
        checkValue(v);
      }
      return publish('commit', objects, key, expected, value);
    },

    /** Runs `fn` (a whole write) in this namespace's turn among every process on the database. */
    async inTurn(fn) {
      const release = await takeTurn();
      try {
        return await fn();
      } finally {
        release();
      }
    },

    /** Ends the pool this store opened (a pool passed in stays the caller's). */
    async close() {
      if (!owned || ready === undefined) return;
      const p = await ready.catch(() => undefined);
      ready = undefined;
      await p?.end();
    },
  };
}

// Two processes creating the table at once can collide in the catalog even with IF
// NOT EXISTS (a unique violation on pg_type); the loser's table exists by then.
export async function ensureTable(p, schema = SCHEMA) {
  try {
    await p.query(schema);
  } catch (e) {
    if (e?.code !== '23505' && e?.code !== '42P07') throw e;
  }
}
