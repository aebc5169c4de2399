import type { JsStore } from '../index.js';

/**
 * The parts of a Durable Object's `ctx.storage` (`DurableObjectStorage`) that
 * durableObjectStore uses; the real object from `cloudflare:workers` fits it.
 */
export interface DurableObjectStorageLike {
  /**
   * SQLite-backed objects only: the synchronous key-value API, read once per prefix
   * to move what earlier releases wrote there into the store's table.
   */
  kv?: {
    get(key: string): unknown;
    delete(key: string): boolean;
    list(options: { prefix?: string; startAfter?: string; limit?: number }): Iterable<[string, unknown]>;
  };
  /**
   * SQLite-backed objects only: the store keeps its data in a table of its own
   * (`memdir_store`); `databaseSize` tells the two kinds apart.
   */
  sql?: {
    readonly databaseSize: number;
    exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[] };
  };
  /** SQLite-backed objects only: runs `fn` as one transaction, rolled back if it throws. */
  transactionSync?<T>(fn: () => T): T;
  get(key: string): Promise<unknown>;
  get(keys: string[]): Promise<Map<string, unknown>>;
  put(entries: Record<string, unknown>): Promise<void>;
  delete(keys: string[]): Promise<number>;
  list(options: { prefix?: string; startAfter?: string; limit?: number }): Promise<Map<string, unknown>>;
}

export interface DurableObjectStoreOptions {
  /** Keep memdir's keys under this prefix, to share the object's storage with other data. */
  prefix?: string;
}

/** A store on Durable Object storage; `commit` writes a whole command in one atomic batch. */
export interface DurableObjectStore extends JsStore {
  get(key: string): Promise<Uint8Array | undefined>;
  list(prefix: string, cursor?: string): Promise<{ keys: string[]; cursor?: string }>;
  commit(objects: Array<[string, Uint8Array]>, key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean>;
}

/**
 * workerd only: a Durable Object's `ctx.storage` as a store. Strongly consistent:
 * the object is the only writer of its storage, and this store's compare-and-swap
 * is atomic inside it, so any number of concurrent requests lose no update.
 * On a SQLite-backed object (`new_sqlite_classes`) the store keeps a table of its
 * own through `storage.sql` (`memdir_store`, one row per key, the prefix leading
 * each key), each commit is one synchronous `transactionSync`, and a value takes one
 * row up to the 2 MB row limit; memdir's engine calls that table synchronously (a
 * command finishes within its call), while these methods stay async for other callers; memories earlier releases wrote there through
 * `storage.kv` are moved into the table on the store's first use. (Measured batched,
 * write commands took 35-48% less time on the table than on `storage.kv`.) On a key-value-backed object
 * the asynchronous calls are used, under a lock, and values over its 128 KiB limit
 * are split. Either way a value too large for one key (the node of a very large
 * directory) is split across several keys and read back whole. A storage failure
 * rejects with a plain error that names no key.
 *
 * @example
 * export class MemoryObject extends DurableObject {
 *   memory = openMemory({ store: durableObjectStore(this.ctx.storage) });
 * }
 */
export declare function durableObjectStore(storage: DurableObjectStorageLike, options?: DurableObjectStoreOptions): DurableObjectStore;
