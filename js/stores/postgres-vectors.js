// The PostgreSQL store's vectors (postgres.js routes every key under `vec/` here):
// derived data the engine makes from a memory's text with the application's
// embedder (src/search/vectors.rs), kept in a table of their own, `memdir_vectors`,
// outside `memdir_kv` and its history, one row per (namespace, key), the key being
// `vec/<text sha256>/<fingerprint key>`.
//
// Where the database has the `vector` extension (pgvector 0.8 or newer, created in
// it by its owner: `CREATE EXTENSION vector`), each row also holds its vector as a
// `halfvec` (the engine's int8 components, which half precision holds exactly, so
// the database's cosine is the engine's), and the store searches them itself
// (`nearest`): by an exact scan in the database, and, once a fingerprint has
// `PG_VECTOR_INDEX_ROWS` rows, through an HNSW index of that fingerprint's rows
// alone, built in the background. Where it does not, the rows hold the same bytes
// and the engine scans them itself, as on every other store.

import { PostgresStoreError, failed } from './postgres-pool.js';

/** The vectors' table. */
export const VECTORS_TABLE = 'memdir_vectors';
/** The prefix of every vector's key (the engine's `search::vectors::PREFIX`). */
export const VECTOR_PREFIX = 'vec/';
/** pgvector's first release with halfvec and iterative index scans. */
export const PGVECTOR_MIN = [0, 8, 0];

const TABLE_SQL = `CREATE TABLE IF NOT EXISTS ${VECTORS_TABLE} (
  namespace text COLLATE "C" NOT NULL,
  key text COLLATE "C" NOT NULL,
  fingerprint text COLLATE "C",
  value bytea NOT NULL,
  PRIMARY KEY (namespace, key)
)`;
const FINGERPRINT_INDEX_SQL = `CREATE INDEX IF NOT EXISTS ${VECTORS_TABLE}_fingerprint ON ${VECTORS_TABLE} (fingerprint, namespace)`;
const EMBEDDING_SQL = `ALTER TABLE ${VECTORS_TABLE} ADD COLUMN IF NOT EXISTS embedding halfvec`;

/** Whether `key` is a vector's (and so lives in `memdir_vectors`). */
export const isVectorKey = (key) => key.startsWith(VECTOR_PREFIX);

// A vector's key as the engine makes it: the text's hash, then the fingerprint's
// key (the first 16 bytes of a SHA-256, in hex).
const KEY = /^vec\/([0-9a-f]{64})\/([0-9a-f]{32})$/;

/** The fingerprint key a vector's key names, or null for a key under `vec/` of another form. */
export function fingerprintOf(key) {
  return KEY.exec(key)?.[2] ?? null;
}

// The engine's stored form (src/search/vectors.rs): `MDVE`, format 1, the
// dimensions (u32 LE), the scale (f32 LE), one signed byte a dimension.
const MAGIC = [0x4d, 0x44, 0x56, 0x45];
const HEAD = 13;

/**
 * The components of a stored vector as pgvector's text (`[3,-127,...]`), or null
 * when `value` is not one (then the row keeps its bytes and no embedding: the
 * engine makes such a vector again). The scale is left out: a cosine does not see it,
 * and int8 components are exact in half precision.
 */
export function embeddingText(value, maxDims) {
  if (value.byteLength <= HEAD || MAGIC.some((b, i) => value[i] !== b) || value[4] !== 1) return null;
  const view = new DataView(value.buffer, value.byteOffset, value.byteLength);
  const dims = view.getUint32(5, true);
  const scale = view.getFloat32(9, true);
  if (dims !== value.byteLength - HEAD || dims > maxDims || !(Number.isFinite(scale) && scale > 0)) return null;
  const q = new Int8Array(value.buffer, value.byteOffset + HEAD, dims);
  if (q.every((x) => x === 0)) return null;
  return `[${q.join(',')}]`;
}

/** pgvector's text of a query vector of finite numbers. */
function queryText(query) {
  let out = '[';
  for (let i = 0; i < query.length; i++) {
    const x = Number(query[i]);
    if (!Number.isFinite(x)) throw new PostgresStoreError('the PostgreSQL store was asked for vectors nearest a query that is not finite');
    out += (i ? ',' : '') + x;
  }
  return `${out}]`;
}

/** `[major, minor, patch]` of an extension version's text, or undefined. */
function versionOf(text) {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(text ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
const atLeast = (v, min) => v !== undefined && (v[0] - min[0] || v[1] - min[1] || v[2] - min[2]) >= 0;

// What the database holds for the vectors, in one query: the table's columns (and
// their types), whether the fingerprint index exists, pgvector's version in this
// database, and whether its halfvec type is reachable by the store's search path.
const INSPECT = `SELECT
  coalesce((SELECT json_object_agg(a.attname, json_build_object('type', format_type(a.atttypid, NULL), 'collation', co.collname))
     FROM pg_attribute a LEFT JOIN pg_collation co ON co.oid = a.attcollation
    WHERE a.attrelid = to_regclass('${VECTORS_TABLE}') AND a.attnum > 0 AND NOT a.attisdropped), '{}') AS columns,
  (SELECT c.relkind::text FROM pg_class c WHERE c.oid = to_regclass('${VECTORS_TABLE}')) AS kind,
  to_regclass('${VECTORS_TABLE}_fingerprint') IS NOT NULL AS index,
  (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS vector,
  to_regtype('halfvec') IS NOT NULL AS halfvec`;

const NEEDED = { namespace: 'text', key: 'text', fingerprint: 'text', value: 'bytea' };

/** Why the database's `memdir_vectors` cannot be used (undefined: it can, or is not there yet). */
function unusable(state) {
  if (state.kind === null || state.kind === undefined) return undefined;
  const refuse = (why) => `the PostgreSQL database holds a ${VECTORS_TABLE} table memdir cannot use (${why}); rename or drop it, or name another database`;
  if (state.kind !== 'r' && state.kind !== 'p') return refuse('it is not a table');
  for (const [column, type] of Object.entries(NEEDED)) {
    const have = state.columns?.[column];
    if (have === undefined) return refuse(`it has no column ${column}`);
    if (have.type !== type) return refuse(`its column ${column} is not ${type}`);
  }
  if (state.columns.key.collation !== 'C') return refuse('its column key does not sort in the "C" collation');
  const embedding = state.columns.embedding;
  if (embedding !== undefined && embedding.type !== 'halfvec') return refuse('its column embedding is not halfvec');
  return undefined;
}

/** Whether the store searches in the database: pgvector new enough, reachable, and the column there. */
const searching = (state) => atLeast(versionOf(state.vector), PGVECTOR_MIN) && state.halfvec === true;

function changes(state) {
  const out = [];
  if (state.kind === null || state.kind === undefined) out.push(TABLE_SQL);
  if (state.index !== true) out.push(FINGERPRINT_INDEX_SQL);
  if (searching(state) && state.columns?.embedding === undefined) out.push(EMBEDDING_SQL);
  return out;
}

/**
 * Brings `memdir_vectors` to what this build needs (with the store's other tables,
 * in its migration: `client` holds the schema lock) and says whether the database
 * searches vectors itself. A table of another shape is refused.
 */
export async function prepareVectors(p, inTransaction) {
  let state = (await p.query(INSPECT)).rows[0] ?? {};
  let why = unusable(state);
  if (why !== undefined) throw new PostgresStoreError(why);
  if (changes(state).length > 0) {
    await inTransaction(async (client) => {
      const now = (await client.query(INSPECT)).rows[0] ?? {};
      if (unusable(now) !== undefined) return;
      for (const statement of changes(now)) await client.query(statement);
      // Rows written before the extension was created hold bytes only: their
      // embeddings are added here, once, in the same step as the column.
      if (searching(now) && now.columns?.embedding === undefined) await backfill(client);
    });
    state = (await p.query(INSPECT)).rows[0] ?? {};
    why = unusable(state) ?? (changes(state).length > 0 ? 'the PostgreSQL store could not bring its tables up to date' : undefined);
    if (why !== undefined) throw new PostgresStoreError(why);
  }
  return { searches: searching(state) && state.columns?.embedding !== undefined };
}

// The rows the backfill reads and writes in one statement: it goes through the
// whole table in key order, a page at a time, so its memory is bounded by the page.
const BACKFILL_ROWS = 1000;
async function backfill(client) {
  let after = null;
  for (;;) {
    const { rows } = await client.query(
      `SELECT namespace, key, value FROM ${VECTORS_TABLE}
        WHERE ($1::text IS NULL OR (namespace, key) > ($1::text COLLATE "C", $2::text COLLATE "C"))
        ORDER BY namespace, key LIMIT ${BACKFILL_ROWS}`,
      [after?.namespace ?? null, after?.key ?? null],
    );
    const set = rows.map((r) => [r.namespace, r.key, r.value instanceof Uint8Array ? embeddingText(r.value, Infinity) : null]).filter((r) => r[2] !== null);
    if (set.length > 0) {
      await client.query(
        `UPDATE ${VECTORS_TABLE} v SET embedding = u.e::halfvec FROM unnest($1::text[], $2::text[], $3::text[]) AS u(n, k, e)
          WHERE v.namespace = u.n AND v.key = u.k`,
        [set.map((r) => r[0]), set.map((r) => r[1]), set.map((r) => r[2])],
      );
    }
    if (rows.length < BACKFILL_ROWS) return;
    after = rows[rows.length - 1];
  }
}

/** The name of the HNSW index of one fingerprint's rows. */
const indexName = (fp) => `${VECTORS_TABLE}_hnsw_${fp}`;
/** The advisory lock under which one process at a time builds a fingerprint's index. */
const indexLock = (fp) => `SELECT pg_try_advisory_lock(${0x6d657673}, ('x' || substr($1, 1, 8))::bit(32)::int) AS locked`;

/**
 * The vectors of one namespace of a store: `rules` are the engine's
 * (`postgresRules()`), `state()` resolves what `prepareVectors` found.
 */
export function vectorRows({ namespace, pool, query, listed, held, bound, rules, maxValueBytes }) {
  // Fingerprints whose index this store knows is built, those whose rows it counted,
  // those written to since it last counted them, and the builds under way (one a fingerprint).
  const indexed = new Set();
  const counted = new Set();
  const written = new Set();
  const building = new Map();

  async function get(key) {
    const { rows } = await query(
      'read',
      `SELECT ${listed(3)} AS listed, (SELECT value FROM ${VECTORS_TABLE} WHERE namespace = $1 AND key = $2) AS value`,
      bound([namespace, key]),
    );
    const row = rows[0];
    if (rows.length !== 1 || row.listed !== true) return { deleted: row?.listed === false };
    if (row.value === null) return { value: undefined };
    if (!(row.value instanceof Uint8Array)) throw new PostgresStoreError('the PostgreSQL store answered a read with rows of another shape');
    if (row.value.byteLength > maxValueBytes()) throw new PostgresStoreError('the PostgreSQL store holds a value over the size limit');
    return { value: row.value };
  }

  async function set(key, value, searches) {
    const fp = fingerprintOf(key);
    const embedding = searches && fp !== null ? embeddingText(value, rules().vectorMaxDims) : null;
    const { rowCount } = await query(
      'write',
      `INSERT INTO ${VECTORS_TABLE} (namespace, key, fingerprint, value${searches ? ', embedding' : ''})
         SELECT $1, $2, $3, $4::bytea${searches ? ', $5::halfvec' : ''} WHERE ${held(searches ? 6 : 5)}
         ON CONFLICT (namespace, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, value = EXCLUDED.value${searches ? ', embedding = EXCLUDED.embedding' : ''}`,
      bound(searches ? [namespace, key, fp, value, embedding] : [namespace, key, fp, value]),
    );
    if (fp !== null) written.add(fp);
    return rowCount === 1;
  }

  async function remove(key) {
    await query('delete', `DELETE FROM ${VECTORS_TABLE} WHERE namespace = $1 AND key = $2`, [namespace, key]);
  }

  /**
   * Builds the HNSW index of `fp`'s rows once they are `PG_VECTOR_INDEX_ROWS`, in
   * the background (the search that noticed goes on with the exact scan), one
   * process at a time, without blocking writes (CONCURRENTLY); a build that failed
   * leaves an invalid index, dropped before the next try.
   */
  async function maybeIndex(fp, dims) {
    if (indexed.has(fp) || building.has(fp) || dims > rules().vectorIndexMaxDims) return;
    // Counted before and no vector of it written here since: the count stands.
    if (counted.has(fp) && !written.has(fp)) return;
    const p = await pool();
    const { rows } = await p.query(
      `SELECT (SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass($2)) AS valid,
              (SELECT count(*) FROM (SELECT 1 FROM ${VECTORS_TABLE} WHERE fingerprint = $1 AND embedding IS NOT NULL LIMIT $3) c)::int AS n`,
      [fp, indexName(fp), rules().vectorIndexRows],
    );
    written.delete(fp);
    counted.add(fp);
    const row = rows[0] ?? {};
    if (row.valid === true) {
      indexed.add(fp);
      return;
    }
    if (typeof row.n !== 'number' || row.n < rules().vectorIndexRows) return;
    const build = buildIndex(p, fp, dims, row.valid === false)
      .catch(() => {
        // Not built this time (another process holds the lock, or the build
        // failed): the exact scan goes on answering, and a later search tries again.
      })
      .finally(() => building.delete(fp));
    building.set(fp, build);
  }

  async function buildIndex(p, fp, dims, invalid) {
    const client = await p.connect();
    let broken = false;
    try {
      const { rows } = await client.query(indexLock(fp), [fp]);
      if (rows[0]?.locked !== true) return;
      try {
        await client.query(`SET statement_timeout = ${Number(rules().vectorIndexTimeoutMs)}`);
        await client.query(`SET maintenance_work_mem = '${Number(rules().vectorIndexMemoryMb)}MB'`);
        if (invalid) await client.query(`DROP INDEX CONCURRENTLY IF EXISTS ${indexName(fp)}`);
        // The expression and the predicate are the search's own (see `nearest`), so
        // the planner uses the index for it; the fingerprint is hex, checked.
        await client.query(
          `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${indexName(fp)} ON ${VECTORS_TABLE}
             USING hnsw ((embedding::halfvec(${dims})) halfvec_cosine_ops)
             WITH (m = ${Number(rules().vectorHnswM)}, ef_construction = ${Number(rules().vectorHnswEfConstruction)})
             WHERE fingerprint = '${fp}'`,
        );
        // Fresh statistics, so the planner weighs the index against the
        // fingerprint's b-tree and a sort (which a namespace holding few of the
        // fingerprint's rows still wants) on the rows as they are.
        await client.query(`ANALYZE ${VECTORS_TABLE}`);
        indexed.add(fp);
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${0x6d657673}, ('x' || substr($1, 1, 8))::bit(32)::int)`, [fp]);
      }
    } catch (e) {
      broken = true;
      throw e;
    } finally {
      client.release(broken);
    }
  }

  /**
   * The `k` vectors of fingerprint `fp` nearest `query` in this namespace, best
   * first: `[[text sha256 hex, cosine], ...]`. Checked like any answer of the
   * database: hashes of the key's form, each once, cosines finite in [-1, 1] (a
   * little over for rounding), at most `k`, best first.
   */
  async function nearest(fp, query, k) {
    if (typeof fp !== 'string' || !/^[0-9a-f]{32}$/.test(fp)) throw new PostgresStoreError('the PostgreSQL store was asked for vectors of a fingerprint key that is not one');
    const dims = query.length;
    if (!Number.isInteger(dims) || dims < 1 || dims > rules().vectorMaxDims) throw new PostgresStoreError('the PostgreSQL store was asked for vectors nearest a query of no dimensions it holds');
    const limit = Math.min(Math.max(0, Math.floor(k)), rules().vectorMaxCandidates);
    if (limit === 0) return [];
    await maybeIndex(fp, dims).catch(() => {});
    const text = queryText(query);
    const p = await pool();
    const client = await p.connect().catch(failed('search its vectors'));
    let broken = false;
    let rows;
    try {
      await client.query('BEGIN');
      // Iterative scans (pgvector 0.8) keep walking the graph until `limit` rows of
      // this namespace are found, rather than stopping at ef_search rows of all.
      // An index scan's order is only nearly by distance (the graph is walked, not
      // sorted), so the rows are sorted again (`d + 0`: not the inner order, which
      // the planner would otherwise take as already done), best first, ties by key.
      await client.query(`SET LOCAL hnsw.ef_search = ${Math.max(limit, rules().vectorEfSearch)}`);
      await client.query(`SET LOCAL hnsw.iterative_scan = relaxed_order`);
      ({ rows } = await client.query(
        `WITH near AS MATERIALIZED (
           SELECT key, embedding::halfvec(${dims}) <=> $2::halfvec(${dims}) AS d FROM ${VECTORS_TABLE}
            WHERE fingerprint = '${fp}' AND namespace = $1 AND embedding IS NOT NULL AND ${listed(4)}
            ORDER BY embedding::halfvec(${dims}) <=> $2::halfvec(${dims}) LIMIT $3)
         SELECT key, 1 - d AS cosine FROM near ORDER BY d + 0, key`,
        bound([namespace, text, limit]),
      ));
      await client.query('COMMIT');
    } catch (e) {
      broken = true;
      await client.query('ROLLBACK').catch(() => {});
      failed('search its vectors')(e);
    } finally {
      client.release(broken);
    }
    const shape = () => new PostgresStoreError('the PostgreSQL store answered a vector search with rows of another shape');
    if (!Array.isArray(rows) || rows.length > limit) throw shape();
    const seen = new Set();
    const out = [];
    for (const r of rows) {
      const m = typeof r.key === 'string' ? KEY.exec(r.key) : null;
      const cosine = typeof r.cosine === 'number' ? r.cosine : Number.NaN;
      const last = out.length > 0 ? out[out.length - 1][1] : Infinity;
      if (m === null || m[2] !== fp || seen.has(m[1]) || !(Math.abs(cosine) <= 1 + 1e-3) || Math.min(1, cosine) > last) throw shape();
      seen.add(m[1]);
      out.push([m[1], Math.max(-1, Math.min(1, cosine))]);
    }
    return out;
  }

  return {
    get,
    set,
    remove,
    nearest,
    /** Resolves when every index build this store started has ended (for `close()`). */
    settled: () => Promise.allSettled([...building.values()]),
  };
}
