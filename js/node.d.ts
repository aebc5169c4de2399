// The `node` entry's types: everything shared (index.d.ts), the directory store and
// the PostgreSQL store. The server's pieces (the Memory Stores API's handler, the
// directory catalog, upkeep) are `memdir/server`'s (server.d.ts), re-exported here
// so code written before the subpath existed still compiles.
import type { JsStore, StoreHandle } from './index.js';

export * from './index.js';
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore, listStores, newStoreId, formatDuration, parseDuration, upkeepStore, directoryCatalog } from './server.js';
export type { StoreCatalog } from './server.js';

/** Options of a directory store. */
export interface DirectoryStoreOptions {
  /** Also fsync the directory after each write (durable at once, slower). */
  syncDirectory?: boolean;
  /** How long a write waits for a key's lock before failing (default 10 000 ms). */
  lockWaitMs?: number;
}

/**
 * A store directory on disk (format `memdir-store`, shared with
 * memdir-host), shared safely by several processes.
 */
export declare class DirectoryStore implements JsStore {
  constructor(path: string, options?: DirectoryStoreOptions);
  readonly path: string;
  /**
   * Opens the directory now (openMemory does this): creates a new store when it is
   * missing or empty; rejects with a `StoreDirectoryError` naming the directory's
   * problem (a file, a symlink, unreadable, not a memdir store, a damaged marker,
   * a newer or unknown format, the old memdir-host layout), writing nothing.
   */
  open(): Promise<void>;
  /**
   * This directory as the engine runs on it (openMemory uses it): the same
   * protocol, called from the wasm directly. Opens the directory first.
   */
  engineStore(): Promise<StoreHandle>;
  /**
   * Removes the temporary files last changed more than `olderThanMs` ago: only in
   * the directory's turn, when no writer that old can still be at work (what
   * `encryptStore` and `memory.rekey` do after a re-encryption).
   */
  sweepTemporaries(olderThanMs: number): Promise<void>;
  get(key: string): Promise<Uint8Array | undefined>;
  set(key: string, value: Uint8Array): Promise<void>;
  delete(key: string): Promise<void>;
  list(prefix: string, cursor?: string): Promise<{ keys: string[]; cursor?: string }>;
  compareAndSwap(key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean>;
  commit(objects: Array<[string, Uint8Array]>, key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean>;
}

/**
 * A store in the directory `path` (made 0700; files 0600).
 * `syncDirectory: true` also fsyncs the directory after each write.
 */
export declare function directoryStore(path: string, options?: DirectoryStoreOptions): DirectoryStore;

/** A store in a PostgreSQL database (one namespace of the shared `memdir_kv` table, and of `memdir_vectors` for its vectors). */
export interface PostgresStore extends JsStore {
  /** Runs `fn` in this namespace's turn among every process on the database (an advisory lock). */
  inTurn<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * Connects and brings the table up to date (what an earlier build's table lacks is
   * added in place), or rejects with a PostgresStoreError saying why not: `pg`
   * missing, a database it cannot reach, a table it cannot use. Every read and write
   * does this first; a command line calls it to say so before it starts.
   */
  ready(): Promise<void>;
  /**
   * Whether this store searches its vectors in the database (the database has
   * pgvector 0.8 or newer: `CREATE EXTENSION vector`), known once it has connected.
   */
  readonly searchesVectors: boolean;
  /**
   * The `k` stored vectors of fingerprint key `fingerprint` nearest `query` (unit
   * length), best first, as `[text sha256 hex, cosine]`; null without pgvector.
   */
  nearest(fingerprint: string, query: ArrayLike<number>, k: number): Promise<Array<[string, number]> | null>;
  /** Ends the connection pool the store opened from a URL (a pool passed in stays open). */
  close(): Promise<void>;
}

/**
 * A store held in PostgreSQL through node-postgres (`npm install pg`, an optional
 * peer dependency). `connection`: a `postgres://` URL (the store opens a pool of at
 * most 10 connections) or a `pg.Pool` the application owns. Several stores share
 * one database by `namespace` (default "default"). Each commit is one transaction.
 * `catalogued`: the store lives only while table `memdir_stores` (`memdir serve`'s
 * catalog) has a row whose id is the namespace; once it is deleted, reads and writes
 * fail and a commit under way writes nothing. `workspace` (with `catalogued`): only
 * while that row names this workspace.
 */
export declare function postgresStore(connection: string | { connect(): Promise<unknown> }, options?: { namespace?: string; catalogued?: boolean; workspace?: string }): PostgresStore;

/** The error a PostgreSQL store fails with: which operation failed, never the server's text. */
export declare class PostgresStoreError extends Error {}
