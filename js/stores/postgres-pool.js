// The PostgreSQL connection pool, written once for the store (postgres.js) and the
// catalog of `memdir serve` (api/catalog-pg.js), which hands its one pool to every
// store it opens: memdir's bounds on it, node-postgres loaded on first use, the
// tables made ready before the first query, and every failure said in memdir's
// words, never the driver's (its text can hold table and host names).

// The PostgreSQL adapter's bounds, every one of them (docs/bounds.md): numbers of
// this adapter and of node-postgres, not of the engine, which decides the rest
// (`defaults()`: the largest value, the turn's wait; `postgresRules()`: what a read
// brings back). The store's turns take at most half a pool (postgres-turn.js).
/** Rows a list page returns; the contract allows any page size. */
export const PAGE_ROWS = 1000;
/** Longest namespace (a store's name in the table) and workspace name, in characters. */
export const MAX_NAME_CHARS = 200;
/** Connections one pool opens at most (each `memdir serve` holds one pool). */
export const POOL_MAX = 10;
/** How long a query may wait for a connection before it fails. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** How long a statement may run on the server before it fails. */
export const STATEMENT_TIMEOUT_MS = 30_000;
/** How much longer the driver waits for a statement's answer than the server lets it run. */
const QUERY_TIMEOUT_MARGIN_MS = 1_000;

/** The one error text a failing database gives the engine: never the driver's own. */
export class PostgresStoreError extends Error {
  constructor(message) {
    super(message);
    this.name = 'PostgresStoreError';
  }
}

// What a caller (and, through the engine, a client) may see of a failure: which
// operation failed, never the server's text, which can hold table and host names.
export function failed(op, what = 'store') {
  return (e) => {
    if (e instanceof PostgresStoreError) throw e;
    throw new PostgresStoreError(`the PostgreSQL ${what} could not ${op}`);
  };
}

/**
 * A pool on `url` with memdir's bounds (connections, waits, statement time).
 * node-postgres is loaded here, on first use, so an application that never opens
 * one needs no `pg`.
 */
async function openPool(url) {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch {
    throw new PostgresStoreError('a PostgreSQL store needs node-postgres, which memdir does not install by itself: npm install pg@8');
  }
  const p = new pg.Pool({
    Client: closingClient(pg),
    connectionString: url,
    max: POOL_MAX,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: STATEMENT_TIMEOUT_MS + QUERY_TIMEOUT_MARGIN_MS,
  });
  // An idle client's error (the server restarted) must not end the process; the
  // next query gets a fresh connection.
  p.on('error', () => {});
  return p;
}

/**
 * node-postgres's client, except that a connection that fails while it is made is
 * closed at once: node-postgres 8 leaves one the server refused mid-authentication
 * (no password, or a wrong one) open until the server gives up on it (60 s by
 * default), and a command line that already said why it cannot go on would wait.
 */
const closingClients = new WeakMap();
function closingClient(pg) {
  let Client = closingClients.get(pg);
  if (Client === undefined) {
    Client = class extends pg.Client {
      connect(callback) {
        if (typeof callback !== 'function') return super.connect(callback);
        return super.connect((err, ...rest) => {
          if (err) this.connection?.stream?.destroy?.();
          callback(err, ...rest);
        });
      }
    };
    closingClients.set(pg, Client);
  }
  return Client;
}

/**
 * The pool of a store or a catalog, made on first use so that opening one does no
 * I/O: `connection` is a `postgres://` URL (a pool of memdir's own, ended by `end()`)
 * or a pool the caller owns (`end()` leaves it open). `get()` resolves it once
 * `prepare(pool)` (bringing the tables up to date) has run, or rejects with
 * `the PostgreSQL WHAT could not connect to its database` (or the refusal
 * `prepare` made); a pool of memdir's own that could not be prepared is ended, and
 * the next `get()` tries again.
 */
export function lazyPool(connection, prepare, what = 'store') {
  const owned = typeof connection === 'string';
  let ready;
  return {
    get() {
      ready ??= (async () => {
        const p = owned ? await openPool(connection) : connection;
        try {
          await prepare(p);
        } catch (e) {
          // Nothing is served from a database it cannot use: its connections go too.
          if (owned) await p.end().catch(() => {});
          throw e;
        }
        return p;
      })().catch((e) => {
        ready = undefined;
        return failed('connect to its database', what)(e);
      });
      return ready;
    },
    /** Ends the pool if it is memdir's own and was opened. */
    async end() {
      if (!owned || ready === undefined) return;
      const p = await ready.catch(() => undefined);
      ready = undefined;
      await p?.end();
    },
  };
}
