// The catalog of memory stores that `memdir serve --store postgres://…` keeps in
// PostgreSQL: a `memdir_stores` table names the stores that exist, and each store's
// keys are its namespace of `memdir_kv` (js/stores/postgres.js), its vectors its
// namespace of `memdir_vectors`. All instances on one
// database agree on what exists: a store not open here is looked up in the table,
// and an open one is a catalogued store, whose every read asks for its row in the
// same statement and whose commits hold it. So a store created or deleted through
// one instance is there, or gone, on every other at once, and a write under way on
// one when another deletes the store writes nothing.
//
// With a master key (`encryption`; js/api/seal-stores.js) every store is opened
// sealed, a store is shredded (its wrapped data key deleted, committed) before its
// row and keys are deleted, and `memdir_stores.workspace` holds a random label per
// workspace, not its name: the name-to-label table is a sealed store of its own
// (namespace `.memdir-serve` of memdir_kv).
import { customStore, defaults, openMemory } from '../core.js';
import { processTurn, writesInTurn } from '../turn.js';
import { STORES_TABLE, TABLE, postgresStore, prepareSchema, prepared, transaction } from '../stores/postgres.js';
import { failed as failedAs, lazyPool } from '../stores/postgres-pool.js';
import { VECTORS_TABLE } from '../stores/postgres-vectors.js';
import { newStoreId } from './catalog.js';
import { openStores } from './open-stores.js';
import { DEFAULT_WORKSPACE, UnusableStore, WORKSPACE_NAME } from './http.js';
import { LABELS, isSealRefusal, storeSealer, workspaceLabel } from './seal-stores.js';

// An id the catalog may look up: what the engine makes (letters, digits, "_").
const PLAIN_NAME = /^[A-Za-z0-9_]{1,128}$/;
const ACTOR = 'memdir-serve';
// Creates take this transaction-scoped advisory lock, so the cap holds across
// instances (any fixed number unlikely to collide with an application's own).
const CREATE_LOCK = 0x6d656d64; // "memd"

const failed = (op) => failedAs(op, 'catalog');

/**
 * The catalog in the database at `url`, with at most `maxStores` stores in each
 * workspace; one pool (at most 10 connections) serves the catalog and every store.
 * A store belongs to the workspace that created it, and every lookup names it.
 * `encryption`: the master key (`{key, keyId?}`, as readKeyFile gives it) every
 * store is sealed under; then `ready(workspaces)` before the catalog is used.
 * `embedder`: every store's (docs/semantic.md), or none.
 */
export function postgresCatalog(url, { maxStores = defaults().maxStores, maxOpen, closeDelayMs, encryption, embedder } = {}) {
  if (typeof url !== 'string' || !/^postgres(ql)?:\/\//.test(url)) throw new TypeError('postgresCatalog expects a postgres:// URL');
  if (!Number.isSafeInteger(maxStores) || maxStores < 1) throw new RangeError('postgresCatalog: maxStores must be a positive integer');
  // `workspace/id` -> Promise<Memory>, the most recently used: one workspace's key
  // never reaches a store another workspace opened.
  const open = openStores({ max: maxOpen, closeDelayMs });
  // Its table and the stores' (made by any earlier build: what they lack is added in
  // place; one of another shape is refused, saying which), before the first query.
  const connected = lazyPool(url, (p) => prepareSchema(p, { catalog: true }), 'catalog');
  const pool = () => connected.get();
  const sealer = storeSealer(encryption);
  // What memdir_stores.workspace holds for each workspace name: the name itself in
  // clear; a random label when encrypted (made or read by ready()).
  const labels = new Map();
  const labelOf = (workspace) => {
    if (!sealer.encrypted) return workspace;
    const label = labels.get(workspace);
    if (label === undefined) throw new TypeError('postgresCatalog: an encrypted catalog finds a workspace only after ready([name])');
    return label;
  };

  async function query(op, text, values) {
    return (await pool()).query(prepared(text, values)).catch(failed(op));
  }

  const openKey = (workspace, id) => `${workspace}/${id}`;

  /** Closes and forgets the open store `id` of `workspace`, if it is open. */
  async function forget(workspace, id) {
    const m = open.delete(openKey(workspace, id));
    if (m) (await m.catch(() => undefined))?.close();
  }

  /** Store `id` of `workspace` as the engine is to run on it: sealed (or checked plaintext). */
  async function sealedStore(workspace, id) {
    // Its row must name this workspace: a store moved to another one in the
    // database is gone for this one from its next read or commit.
    const store = postgresStore(await pool(), { namespace: id, catalogued: true, workspace: labelOf(workspace) });
    return { store, sealed: await sealer.open(customStore(store)) };
  }

  async function opened(workspace, id) {
    let made;
    try {
      made = await sealedStore(workspace, id);
    } catch (e) {
      // A wrong master key, or a plaintext store on an encrypted server and the
      // reverse: said as the engine says it, and the store left out of lists.
      if (isSealRefusal(e)) throw new UnusableStore(e.message);
      throw e;
    }
    const memory = await openMemory({ store: made.sealed, actor: ACTOR, embedder });
    // Writes in turn, in this process and across the database's (as core.js's
    // openMemory does for a store adapted in JS).
    const local = processTurn(defaults().turnWaitMs);
    return writesInTurn(memory, (fn) => local(() => made.store.inTurn(fn)));
  }

  async function openStore(workspace, id) {
    const key = openKey(workspace, id);
    let m = open.get(key);
    if (!m) {
      m = opened(workspace, id);
      open.set(key, m);
      const opening = m;
      m.catch(() => open.forget(key, opening));
    }
    return m;
  }

  async function listed(workspace, id) {
    const { rowCount } = await query('look up a store', `SELECT 1 FROM ${STORES_TABLE} WHERE id = $1 AND workspace = $2`, [id, labelOf(workspace)]);
    return rowCount === 1;
  }

  /**
   * Crypto-shredding: the wrapped data key of store `id` deleted, and committed,
   * before its row and keys are: what the delete leaves behind (a row a failed
   * transaction kept, a dump taken meanwhile) can never be read. A store whose key
   * is already unreadable has nothing to shred.
   */
  async function shred(workspace, id) {
    if (!sealer.encrypted || !(await listed(workspace, id))) return;
    let made;
    try {
      made = await sealedStore(workspace, id);
    } catch (e) {
      if (isSealRefusal(e)) return;
      throw e;
    }
    await sealer.shred(made.sealed);
  }

  // The catalog of one workspace: the rows of memdir_stores that name it.
  const view = (workspace) => ({
    async create() {
      const made = await transaction(await pool(), failed('create a store'), async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [CREATE_LOCK]);
        const { rows } = await client.query(`SELECT count(*)::int AS n FROM ${STORES_TABLE} WHERE workspace = $1`, [labelOf(workspace)]);
        if (!(rows[0]?.n < maxStores)) {
          return { commit: false, value: { refused: `This server holds at most ${maxStores} memory stores; delete one to create another.` } };
        }
        for (;;) {
          const id = newStoreId();
          if (!PLAIN_NAME.test(id)) throw new Error('the engine made a store id that is not a plain name');
          const r = await client.query(`INSERT INTO ${STORES_TABLE} (id, workspace) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [id, labelOf(workspace)]);
          if (r.rowCount === 1) return { commit: true, value: { id } };
        }
      });
      return made.refused ? made : { id: made.id, store: await openStore(workspace, made.id) };
    },

    // One open here is served at once: its store fails once another instance deleted
    // it, and has(id) then says so. Any other is asked of the table.
    async open(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return null;
      const m = open.get(openKey(workspace, id));
      if (m) return m;
      if (!(await listed(workspace, id))) return null;
      try {
        return await openStore(workspace, id);
      } catch (e) {
        // Opening reads the store (its encryption record): one another instance
        // deleted meanwhile is gone, not broken.
        if (!(e instanceof UnusableStore) && !(await listed(workspace, id))) return null;
        throw e;
      }
    },

    // Asked of the table: whether the store is still there (after a command on it failed).
    async has(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return false;
      if (await listed(workspace, id)) return true;
      await forget(workspace, id);
      return false;
    },

    async ids() {
      const { rows } = await query('list its stores', `SELECT id FROM ${STORES_TABLE} WHERE workspace = $1 ORDER BY id LIMIT ${maxStores}`, [labelOf(workspace)]);
      return rows.map((r) => r.id).filter((id) => typeof id === 'string' && PLAIN_NAME.test(id));
    },

    // The row and the keys go in one transaction: a store is never half deleted.
    async drop(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return;
      await forget(workspace, id);
      await shred(workspace, id);
      const gone = await transaction(await pool(), failed('delete a store'), async (client) => {
        const r = await client.query(`DELETE FROM ${STORES_TABLE} WHERE id = $1 AND workspace = $2`, [id, labelOf(workspace)]);
        // Another workspace's store of that id is not this one's to delete.
        if (r.rowCount !== 1) return { commit: false, value: false };
        await client.query(`DELETE FROM ${TABLE} WHERE namespace = $1`, [id]);
        // Its vectors too: derived from its texts, they must not outlive them.
        await client.query(`DELETE FROM ${VECTORS_TABLE} WHERE namespace = $1`, [id]);
        return { commit: true, value: true };
      });
      if (gone) await forget(workspace, id);
    },
  });

  const workspaces = new Map([[DEFAULT_WORKSPACE, view(DEFAULT_WORKSPACE)]]);
  return {
    ...workspaces.get(DEFAULT_WORKSPACE),

    /** The catalog of workspace `name` in the same database. */
    inWorkspace(name) {
      if (typeof name !== 'string' || !WORKSPACE_NAME.test(name)) throw new TypeError('postgresCatalog: not a workspace name');
      if (!workspaces.has(name)) workspaces.set(name, view(name));
      return workspaces.get(name);
    },

    /**
     * Connects and brings the tables up to date, or rejects with the one text that
     * says why not (`pg` missing, a database it cannot reach, a table it cannot
     * use): `memdir serve` waits for it before it listens.
     */
    async ready(names = []) {
      const p = await pool();
      if (!sealer.encrypted) return;
      const wanted = [DEFAULT_WORKSPACE, ...names].filter((n) => !labels.has(n));
      if (wanted.length === 0) return;
      const sealed = await sealer.open(customStore(postgresStore(p, { namespace: LABELS })));
      for (const name of wanted) {
        if (typeof name !== 'string' || !WORKSPACE_NAME.test(name)) throw new TypeError('postgresCatalog: not a workspace name');
        labels.set(name, await workspaceLabel(sealed, name));
      }
    },

    /**
     * Opens one store the database holds (the workspace labels store, else the
     * first by id, of any workspace), if any, and rejects with the engine's
     * refusal when this server's key does not open it (another master key; a
     * plaintext catalog with a key, or the reverse): `memdir serve` asks before
     * anything is written, and before it listens.
     */
    async check() {
      const p = await pool();
      // The labels store first: an encrypted catalog with no store yet has it.
      const { rows } = await query(
        'list its stores',
        `SELECT id FROM (SELECT $1::text AS id, 0 AS o WHERE EXISTS (SELECT 1 FROM ${TABLE} WHERE namespace = $1)
           UNION ALL (SELECT id, 1 FROM ${STORES_TABLE} ORDER BY id LIMIT 1)) AS first ORDER BY o LIMIT 1`,
        [LABELS],
      );
      const id = rows[0]?.id;
      if (typeof id !== 'string' || !(id === LABELS || PLAIN_NAME.test(id))) return;
      await sealer.open(customStore(postgresStore(p, { namespace: id })));
    },

    /**
     * Every store of every workspace, and the labels store, each as `{id, handle}`
     * (a store handle of its namespace, not sealed), for `memdir serve-rekey`.
     */
    async *everyStore() {
      const p = await pool();
      const { rows } = await query('list its stores', `SELECT id FROM ${STORES_TABLE} ORDER BY id`, []);
      const ids = rows.map((r) => r.id).filter((id) => typeof id === 'string' && PLAIN_NAME.test(id));
      const { rowCount } = await query('look up a store', `SELECT 1 FROM ${TABLE} WHERE namespace = $1 LIMIT 1`, [LABELS]);
      for (const id of rowCount === 1 ? [LABELS, ...ids] : ids) yield { id, handle: customStore(postgresStore(p, { namespace: id })) };
    },

    /** The sealer its stores are opened with (serve-rekey re-wraps with it). */
    sealer,

    /** Closes every open store and the pool. */
    async close() {
      await open.closeAll();
      await connected.end();
    },
  };
}
