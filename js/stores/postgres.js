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
//
// Several instances on one database each cache what they read, but every object
// another instance wrote is new to them: after its commit, a read here would fetch
// the new commit, tree nodes and log nodes one round trip at a time. So a commit
// numbers the tree's and the history's own objects it stores (`STRUCTURE_PREFIXES`;
// `seq`, one sequence for the table; not files' contents, read when asked for), and
// every read also brings back, in the same round trip, those committed since the
// last it saw (a few and small: `PG_AHEAD_*` in src/config.rs). Their values never
// change (each key is its value's hash), so the store keeps them and answers the
// engine's next reads of them at once; the engine checks every value against its
// key's hash, wherever it came from.

import { defaults } from '../core.js';
import { MAX_NAME_CHARS, PAGE_ROWS, PostgresStoreError, failed, lazyPool } from './postgres-pool.js';
import { turnTaker } from './postgres-turn.js';
import { glue } from '../glue.js';
import { VECTORS_TABLE, VECTOR_PREFIX, isVectorKey, prepareVectors, vectorRows } from './postgres-vectors.js';

/** The table every namespace shares. */
export const TABLE = 'memdir_kv';
/** The catalog's table (js/api/catalog-pg.js): a row per store `memdir serve` made. */
export const STORES_TABLE = 'memdir_stores';
/** What a catalogued store's reads fail with once its catalog row is gone. */
export const STORE_DELETED = 'this memory store was deleted';
/** What a read fails with when the database answers it with rows it could not have sent. */
const ANOTHER_SHAPE = 'the PostgreSQL store answered a read with rows of another shape';
// What a read brings back of others' commits, and its bounds, read from the engine
// once the wasm is ready: `{structurePrefixes, aheadRows, aheadValueBytes, aheadKeptBytes}`,
// and the vectors' (`vector*`, postgres-vectors.js).
let rulesCache;
const rules = () => (rulesCache ??= glue.postgresRules());

// The tables, and every change a table made by an earlier build needs, each made
// in place (no rewrite, rows kept) and only when the database lacks it (see
// prepareSchema below). The catalog's table is `memdir serve`'s (js/api/catalog-pg.js).
//
// memdir_kv: namespace, key, value since the first build; then `seq`, the commit
// order of the tree's and the history's rows (NULL for contents, for rows written
// before it and outside a commit), its sequence, and an index of only the numbered rows.
// memdir_stores: id and created_at since the first build; then `workspace`, whose
// default names the one workspace a store made before workspaces belongs to.
const KV_TABLE = `CREATE TABLE IF NOT EXISTS ${TABLE} (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  value bytea NOT NULL,
  PRIMARY KEY (namespace, key)
)`;
const KV_SEQ = `ALTER TABLE ${TABLE} ADD COLUMN IF NOT EXISTS seq bigint`;
const KV_SEQUENCE = `CREATE SEQUENCE IF NOT EXISTS ${TABLE}_seq`;
const KV_RECENT = `CREATE INDEX IF NOT EXISTS ${TABLE}_recent ON ${TABLE} (namespace, seq) WHERE seq IS NOT NULL`;
const STORES = `CREATE TABLE IF NOT EXISTS ${STORES_TABLE} (
  id text COLLATE "C" PRIMARY KEY,
  workspace text COLLATE "C" NOT NULL DEFAULT 'default',
  created_at timestamptz NOT NULL DEFAULT now()
)`;
const STORES_WORKSPACE = `ALTER TABLE ${STORES_TABLE} ADD COLUMN IF NOT EXISTS workspace text COLLATE "C" NOT NULL DEFAULT 'default'`;
const STORES_CREATED_AT = `ALTER TABLE ${STORES_TABLE} ADD COLUMN IF NOT EXISTS created_at timestamptz NOT NULL DEFAULT now()`;
/** Schema changes are made under this transaction-scoped advisory lock, one process at a time. */
export const SCHEMA_LOCK = 0x6d656d73; // "mems"

/** Whether `key` names one of the tree's or the history's own objects (`STRUCTURE_PREFIXES`). */
function isStructure(key) {
  return rules().structurePrefixes.some((p) => key.startsWith(p));
}

/** A row number as the database sends it (text), or undefined if it is not one. */
function seqOf(text) {
  return typeof text === 'string' && /^[0-9]{1,15}$/.test(text) ? Number(text) : undefined;
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
 * @param {{ namespace?: string, catalogued?: boolean, workspace?: string }} [options]
 *   which store inside the database (default "default"); many stores share one
 *   table, one namespace each. `catalogued`: the store lives only while
 *   `memdir_stores` has a row whose id is the namespace (the catalog's stores; see
 *   the top of this file), and, given `workspace`, only while that row names it: a
 *   store moved to another workspace in the database is gone for the old one at once.
 */
export function postgresStore(connection, options = {}) {
  const namespace = options.namespace ?? 'default';
  if (typeof namespace !== 'string' || namespace.length === 0 || namespace.length > MAX_NAME_CHARS) {
    throw new TypeError(`postgresStore: options.namespace must be a string of 1 to ${MAX_NAME_CHARS} characters`);
  }
  const catalogued = options.catalogued ?? false;
  if (typeof catalogued !== 'boolean') throw new TypeError('postgresStore: options.catalogued must be a boolean');
  const workspace = options.workspace;
  if (workspace !== undefined && (!catalogued || typeof workspace !== 'string' || workspace.length === 0 || workspace.length > MAX_NAME_CHARS)) {
    throw new TypeError(`postgresStore: options.workspace must be a string of 1 to ${MAX_NAME_CHARS} characters, and needs catalogued`);
  }
  // Every statement below binds the namespace as $1, and the workspace (if the row
  // must name one) after its own values, as $n. Reading the row takes no lock; a
  // commit holds it (KEY SHARE: commits do not wait for each other, a delete of the
  // row waits for them, and a commit after the delete, or after the row moved to
  // another workspace, finds no row).
  const row = (n) => `SELECT 1 FROM ${STORES_TABLE} WHERE id = $1${workspace === undefined ? '' : ` AND workspace = $${n}`}`;
  const listed = (n) => (catalogued ? `EXISTS (${row(n)})` : 'true');
  const held = (n) => (catalogued ? `EXISTS (${row(n)} FOR KEY SHARE)` : 'true');
  const bound = (values) => (workspace === undefined ? values : [...values, workspace]);
  const owned = typeof connection === 'string';
  if (!owned && (connection === null || typeof connection !== 'object' || typeof connection.connect !== 'function')) {
    throw new TypeError('postgresStore(connection) needs a postgres:// URL or a pg Pool');
  }
  // The pool and table, made on first use so that opening a store does no I/O.
  const connected = lazyPool(connection, (p) => prepareSchema(p));
  const pool = () => connected.get();

  async function query(op, text, values) {
    const p = await searchingPool();
    return p.query(prepared(text, values)).catch(failed(op));
  }

  const takeTurn = turnTaker(pool, namespace);
  // Keys under `vec/` (the engine's vectors, derived data) live in a table of their
  // own (postgres-vectors.js), searched in the database where pgvector is.
  const vectors = vectorRows({ namespace, pool, query, listed, held, bound, rules, maxValueBytes: () => defaults().maxValueBytes });
  let searches = false;
  const connectedPool = pool;
  const searchingPool = async () => {
    const p = await connectedPool();
    searches = vectorSearch.get(p)?.searches === true;
    return p;
  };

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

  // Rows other instances committed, by key, until the engine asks for them (see the
  // top of this file); `since`: the last row number seen, undefined until the first
  // read has learnt it. Insertion order is age, for dropping the oldest.
  const ahead = new Map();
  let aheadBytes = 0;
  let since;
  const keep = (key, value) => {
    if (!isStructure(key) || ahead.has(key)) return;
    ahead.set(key, value);
    aheadBytes += value.byteLength;
    for (const [k, v] of ahead) {
      if (aheadBytes <= rules().aheadKeptBytes) break;
      ahead.delete(k);
      aheadBytes -= v.byteLength;
    }
  };
  const forget = (key) => {
    const v = ahead.get(key);
    if (v === undefined) return undefined;
    ahead.delete(key);
    aheadBytes -= v.byteLength;
    return v;
  };

  // The database is input like any store: a value over the engine's limit is
  // refused by the server before it is sent, and a row of another shape is damage.
  async function get(key) {
    checkKey(key);
    if (isVectorKey(key)) {
      const { value, deleted } = await vectors.get(key);
      if (deleted !== undefined) throw new PostgresStoreError(deleted ? STORE_DELETED : 'the PostgreSQL store answered a read with no row');
      return value;
    }
    // Kept from an earlier read: a value that never changes, given once (the engine
    // keeps what it read).
    const kept = forget(key);
    if (kept !== undefined) return kept;
    // One round trip whatever is stored: the row without a key says whether the
    // store is listed, and holds the value if any (and, before the first read, the
    // last row number); the rows with one were committed since `since`.
    const { rows } = await query(
      'read',
      `WITH one AS (
         SELECT ${listed(8)} AS listed, octet_length(v.value) AS n, CASE WHEN octet_length(v.value) <= $3 THEN v.value END AS value
           FROM (SELECT 1) AS one LEFT JOIN ${TABLE} v ON v.namespace = $1 AND v.key = $2)
       SELECT listed, n, value, NULL::text AS key,
              CASE WHEN $4::bigint IS NULL THEN (SELECT coalesce(max(seq), 0) FROM ${TABLE} WHERE namespace = $1 AND seq IS NOT NULL) END::text AS seq
         FROM one
       UNION ALL
       (SELECT NULL, NULL, r.value, r.key, r.seq::text FROM ${TABLE} r
         WHERE r.namespace = $1 AND r.seq > $4::bigint AND octet_length(r.value) <= $5
           AND split_part(r.key, '/', 1) || '/' = ANY($6::text[]) AND (SELECT listed FROM one)
         ORDER BY r.seq LIMIT $7)`,
      bound([namespace, key, defaults().maxValueBytes, since ?? null, rules().aheadValueBytes, rules().structurePrefixes, rules().aheadRows]),
    );
    // One row of its own, and at most aheadRows of others', whatever the database says.
    if (rows.length > rules().aheadRows + 1) throw new PostgresStoreError(ANOTHER_SHAPE);
    const row = rows.find((r) => r.key === null);
    if (row?.listed !== true) throw new PostgresStoreError(row?.listed === false ? STORE_DELETED : 'the PostgreSQL store answered a read with no row');
    if (since === undefined) since = seqOf(row.seq) ?? since;
    for (const r of rows) {
      if (r === row) continue;
      const seq = seqOf(r.seq);
      if (seq === undefined || typeof r.key !== 'string' || !(r.value instanceof Uint8Array) || r.value.byteLength > rules().aheadValueBytes) {
        throw new PostgresStoreError(ANOTHER_SHAPE);
      }
      since = Math.max(since ?? 0, seq);
      if (r.key !== key) keep(r.key, r.value);
    }
    if (row.n === null) return undefined;
    const value = row.value;
    if (!(value instanceof Uint8Array)) throw new PostgresStoreError('the PostgreSQL store holds a value over the size limit');
    return value;
  }

  async function set(key, value) {
    forget(checkKey(key));
    if (isVectorKey(key)) {
      checkValue(value);
      await searchingPool();
      if (!(await vectors.set(key, value, searches))) throw new PostgresStoreError(STORE_DELETED);
      return;
    }
    const { rowCount } = await query(
      'write',
      `INSERT INTO ${TABLE} (namespace, key, value) SELECT $1, $2, $3::bytea WHERE ${held(4)}
         ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value`,
      bound([namespace, key, checkValue(value)]),
    );
    if (rowCount !== 1) throw new PostgresStoreError(STORE_DELETED);
  }

  // Moves `key` from `expected` (undefined: absent) to `value` and, only if it
  // moved, stores `objects`: one statement, so one round trip, atomic on its own.
  // The swap is a data-modifying CTE the insert reads; no one sees either until the
  // statement ends. (BEGIN, swap, insert and COMMIT were four round trips, each a
  // wait for a busy server.) `op` names it in a failure.
  async function publish(op, objects, key, expected, value) {
    const numbered = objects.map(([k]) => isStructure(k));
    const values = [namespace, key, value, objects.map(([k]) => k), objects.map(([, v]) => v), numbered];
    if (expected !== undefined) {
      try {
        values.push(checkValue(expected));
      } catch (e) {
        return failed(op)(e);
      }
    }
    const at = values.length + 1;
    const swapped =
      expected === undefined
        ? `INSERT INTO ${TABLE} (namespace, key, value) SELECT $1, $2, $3::bytea WHERE ${held(at)} ON CONFLICT (namespace, key) DO NOTHING RETURNING 1`
        : `UPDATE ${TABLE} SET value = $3 WHERE namespace = $1 AND key = $2 AND value = $7 AND ${held(at)} RETURNING 1`;
    // The tree's and the history's objects are numbered as they are stored (see the
    // top of this file; contents are not, so neither the sequence nor the index
    // grows with them); the numbers come back so that this store's next reads skip
    // its own rows when no other commit took a number between.
    const { rows } = await query(
      op,
      `WITH swapped AS (${swapped}),
            stored AS (
              INSERT INTO ${TABLE} (namespace, key, value, seq)
                SELECT $1, k, v, CASE WHEN n THEN nextval('${TABLE}_seq') END
                  FROM unnest($4::text[], $5::bytea[], $6::boolean[]) AS o(k, v, n) WHERE EXISTS (SELECT 1 FROM swapped)
                ON CONFLICT (namespace, key) DO UPDATE SET value = EXCLUDED.value, seq = EXCLUDED.seq
                RETURNING seq)
       SELECT (SELECT count(*) FROM swapped)::int AS swapped, min(seq)::text AS first, max(seq)::text AS last FROM stored`,
      bound(values),
    );
    const first = seqOf(rows[0]?.first);
    if (since !== undefined && first === since + 1) since = seqOf(rows[0]?.last) ?? since;
    return rows[0]?.swapped === 1;
  }

  return {
    get,
    set,

    async delete(key) {
      forget(checkKey(key));
      if (isVectorKey(key)) return vectors.remove(key);
      await query('delete', `DELETE FROM ${TABLE} WHERE namespace = $1 AND key = $2`, [namespace, key]);
    },

    // Keyset paging: the cursor is the page's last key, so a page costs one index
    // range scan however deep the listing is.
    async list(prefix, cursor) {
      checkKey(prefix);
      if (cursor !== undefined && cursor !== null) checkKey(cursor);
      // A prefix that may name vectors lists both tables, merged in key order.
      const page = (table) => `(SELECT key FROM ${table}
          WHERE namespace = $1 AND key >= $2 AND starts_with(key, $2) AND ($3::text IS NULL OR key > $3)
          ORDER BY key LIMIT ${PAGE_ROWS})`;
      const both = prefix.startsWith(VECTOR_PREFIX) || VECTOR_PREFIX.startsWith(prefix);
      const { rows } = await query(
        'list',
        both ? `SELECT key FROM (${page(TABLE)} UNION ALL ${page(VECTORS_TABLE)}) AS u ORDER BY key LIMIT ${PAGE_ROWS}` : page(TABLE),
        [namespace, prefix, cursor ?? null],
      );
      const keys = rows.map((r) => r.key);
      if (!keys.every((k) => typeof k === 'string')) throw new PostgresStoreError('the PostgreSQL store listed a key that is not text');
      return keys.length === PAGE_ROWS ? { keys, cursor: keys[keys.length - 1] } : { keys };
    },

    async compareAndSwap(key, expected, value) {
      // A vector is derived data, set and deleted, never swapped (the engine does not).
      if (isVectorKey(checkKey(key))) throw new PostgresStoreError('the PostgreSQL store swaps no vector key');
      return publish('swap a key', [], checkKey(key), expected, checkValue(value));
    },

    async commit(objects, key, expected, value) {
      checkKey(key);
      checkValue(value);
      if (isVectorKey(key)) throw new PostgresStoreError('the PostgreSQL store swaps no vector key');
      for (const [k, v] of objects) {
        checkKey(k);
        checkValue(v);
      }
      // Vectors that come with a commit (derived data, remade if lost) are stored
      // once the head moved, in their own table; a refused commit stores none.
      const vectorObjects = objects.filter(([k]) => isVectorKey(k));
      const moved = await publish('commit', vectorObjects.length > 0 ? objects.filter(([k]) => !isVectorKey(k)) : objects, key, expected, value);
      if (moved) for (const [k, v] of vectorObjects) await set(k, v);
      return moved;
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

    /**
     * Connects and brings the table up to date: what a command line does before it
     * starts, so that a missing `pg`, a database it cannot reach or a table it cannot
     * use is said in those words, not as the engine's "storage failed".
     */
    async ready() {
      await searchingPool();
    },

    /**
     * Whether this store searches its vectors itself (the database has pgvector 0.8
     * or newer), known once it has connected; the engine then asks `nearest`
     * rather than holding the vectors and scanning them.
     */
    get searchesVectors() {
      return searches;
    },

    /**
     * The `k` stored vectors of fingerprint key `fingerprint` nearest `query` (unit
     * length), best first, as `[text sha256 hex, cosine]`; null where the database
     * has no pgvector (the engine scans). The engine keeps only hits live in its tree.
     */
    async nearest(fingerprint, query, k) {
      await searchingPool();
      if (!searches) return null;
      return vectors.nearest(fingerprint, query, k);
    },

    /** Ends the pool this store opened (a pool passed in stays the caller's). */
    async close() {
      await vectors.settled();
      await connected.end();
    },
  };
}

// What the database holds of memdir's tables, in one query: each column's type
// (and the key's collation), what kind of relation each table is, the sequence,
// the index, and whether (namespace, key) is unique (what every write's ON
// CONFLICT names). Names only memdir chose, so nothing of it is the server's text.
const INSPECT = `SELECT
  coalesce((SELECT json_object_agg(c.relname || '.' || a.attname, json_build_object('type', format_type(a.atttypid, NULL), 'collation', co.collname))
     FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
     LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE c.oid IN (to_regclass('${TABLE}'), to_regclass('${STORES_TABLE}'))), '{}') AS columns,
  coalesce((SELECT json_object_agg(c.relname, c.relkind::text) FROM pg_class c
    WHERE c.oid IN (to_regclass('${TABLE}'), to_regclass('${STORES_TABLE}'))), '{}') AS tables,
  to_regclass('${TABLE}_seq') IS NOT NULL AS sequence,
  to_regclass('${TABLE}_recent') IS NOT NULL AS index,
  EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = to_regclass('${TABLE}') AND i.indisunique AND i.indpred IS NULL
    AND (SELECT array_agg(a.attname::text ORDER BY a.attname::text) FROM unnest(i.indkey::int2[]) AS k(n)
          JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n) = ARRAY['key', 'namespace']) AS unique_key`;

// What each table must hold to be used: a column memdir adds in place may be
// missing (`added`), any other must be there with its type.
const NEEDED = {
  [TABLE]: { namespace: 'text', key: 'text', value: 'bytea', seq: 'bigint' },
  [STORES_TABLE]: { id: 'text', workspace: 'text' },
};
const ADDED = new Set([`${TABLE}.seq`, `${STORES_TABLE}.workspace`, `${STORES_TABLE}.created_at`]);

/**
 * Why the tables the database holds cannot be used, as the one text a caller sees
 * (undefined: they can, once what is missing is added). A table of another shape is
 * never altered: it may be another application's.
 */
function unusable(state, catalog) {
  const refuse = (table, why) => `the PostgreSQL database holds a ${table} table memdir cannot use (${why}); rename or drop it, or name another database`;
  for (const table of catalog ? [TABLE, STORES_TABLE] : [TABLE]) {
    const kind = state.tables?.[table];
    if (kind === undefined) continue; // made below
    if (kind !== 'r' && kind !== 'p') return refuse(table, 'it is not a table');
    for (const [column, type] of Object.entries(NEEDED[table])) {
      const have = state.columns?.[`${table}.${column}`];
      if (have === undefined) {
        if (ADDED.has(`${table}.${column}`)) continue;
        return refuse(table, `it has no column ${column}`);
      }
      if (have.type !== type) return refuse(table, `its column ${column} is not ${type}`);
    }
    if (table === TABLE) {
      if (state.columns?.[`${TABLE}.key`]?.collation !== 'C') return refuse(table, 'its column key does not sort in the "C" collation');
      if (state.unique_key !== true) return refuse(table, 'it has no unique index on (namespace, key)');
    }
  }
  return undefined;
}

/** The statements that bring the tables to what memdir needs, given what is there. */
function changes(state, catalog) {
  const has = (name) => state.columns?.[name] !== undefined;
  const out = [];
  if (state.tables?.[TABLE] === undefined) out.push(KV_TABLE);
  if (!has(`${TABLE}.seq`)) out.push(KV_SEQ);
  if (state.sequence !== true) out.push(KV_SEQUENCE);
  if (state.index !== true) out.push(KV_RECENT);
  if (catalog) {
    if (state.tables?.[STORES_TABLE] === undefined) out.push(STORES);
    else {
      if (!has(`${STORES_TABLE}.workspace`)) out.push(STORES_WORKSPACE);
      if (!has(`${STORES_TABLE}.created_at`)) out.push(STORES_CREATED_AT);
    }
  }
  return out;
}

async function inspect(p) {
  const { rows } = await p.query(INSPECT);
  return rows[0] ?? {};
}

/**
 * Brings memdir's tables in the database of pool `p` to what this build needs:
 * memdir_kv, and with `catalog` memdir_stores too. What is there is read first, and
 * a database that has it all is left alone (an ALTER TABLE locks the whole table,
 * and would wait on every reader each time a store opens). What is missing is made
 * in place (no rewrite, every row kept: a store catalogued before workspaces is the
 * default workspace's), in one transaction under an advisory lock, so processes
 * starting together take turns and the later ones find it made. A table of another
 * shape is refused with a PostgresStoreError saying which and why. Once per pool.
 */
const schemaReady = new WeakMap();
export function prepareSchema(p, { catalog = false } = {}) {
  let made = schemaReady.get(p);
  if (made === undefined) {
    made = new Map();
    schemaReady.set(p, made);
  }
  const kind = catalog ? 'catalog' : 'store';
  let ready = made.get(kind);
  if (ready === undefined) {
    ready = migrate(p, catalog).catch((e) => {
      made.delete(kind);
      throw e;
    });
    made.set(kind, ready);
  }
  return ready;
}

/** What `prepareVectors` found of each pool's database: `{ searches }`. */
const vectorSearch = new WeakMap();

async function migrate(p, catalog) {
  const what = catalog ? 'catalog' : 'store';
  await migrateKv(p, catalog, what);
  // The catalog's too: deleting a store deletes its vectors with its keys.
  const found = await prepareVectors(p, (fn) =>
    transaction(p, failed('bring its tables up to date', what), async (client) => {
      await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await fn(client);
      return { commit: true, value: undefined };
    }),
  ).catch(failed('connect to its database', what));
  vectorSearch.set(p, found);
}

async function migrateKv(p, catalog, what) {
  // The first query: a failure here is the database not reached.
  let state = await inspect(p).catch(failed('connect to its database', what));
  let why = unusable(state, catalog);
  if (why !== undefined) throw new PostgresStoreError(why);
  if (changes(state, catalog).length === 0) return;
  await transaction(p, failed('bring its tables up to date', what), async (client) => {
    await client.query(`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
    // Another process may have made some of it while this one waited for the lock.
    const now = await inspect(client);
    if (unusable(now, catalog) !== undefined) return { commit: false, value: undefined };
    for (const statement of changes(now, catalog)) await client.query(statement);
    return { commit: true, value: undefined };
  });
  state = await inspect(p).catch(failed('bring its tables up to date', what));
  why = unusable(state, catalog) ?? (changes(state, catalog).length > 0 ? `the PostgreSQL ${what} could not bring its tables up to date` : undefined);
  if (why !== undefined) throw new PostgresStoreError(why);
}
