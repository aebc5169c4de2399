// `memdir/server`'s types under Node: the Memory Stores API's fetch handler, the
// catalogs `memdir serve` keeps (on disk, in PostgreSQL), and a store's upkeep.
import type { StoreCatalog } from './api/http.js';
import type { Embedder } from './index.js';

export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export type { ApiKey, StoreCatalog } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export type { UpkeepSettings } from './api/upkeep.js';

/**
 * A server's master key (`memdir serve --encryption-key-file`): every store of the
 * catalog is encrypted under a data key of its own, wrapped under this one
 * (docs/encryption.md#memdir-serve).
 */
export interface CatalogEncryption {
  /** 32 random bytes. */
  key: Uint8Array;
  /** The key's id; derived from the key when absent. */
  keyId?: string;
}

/** What an encrypted catalog needs before it is used, and its start check. */
export interface SealedCatalog extends StoreCatalog {
  /**
   * Rejects (an `Error` named `SealError`, in the engine's words) when the catalog's
   * key does not open a store it already holds: another master key, a plaintext
   * catalog given a key, or the reverse. Writes nothing.
   */
  check(): Promise<void>;
  /** Finds (or makes) the label of each workspace name kept at rest; `inWorkspace` needs it. */
  ready(workspaces?: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * The catalog `memdir serve` keeps: one store directory per memory store under `dir`.
 * `embedder`: every store's (`memdir serve --embedder`; docs/semantic.md).
 */
export declare function directoryCatalog(dir: string, options?: { maxStores?: number; encryption?: CatalogEncryption; embedder?: Embedder }): SealedCatalog;

/**
 * The catalog `memdir serve --store postgres://…` keeps: a `memdir_stores` table
 * naming the stores, each store a namespace of `memdir_kv`; one pool serves them all.
 */
export declare function postgresCatalog(url: string, options?: { maxStores?: number; encryption?: CatalogEncryption; embedder?: Embedder }): SealedCatalog;
