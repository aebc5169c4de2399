// `memdir/server`'s types under Node: the Memory Stores API's fetch handler, the
// catalogs `memdir serve` keeps (on disk, in PostgreSQL), and a store's upkeep.
import type { StoreCatalog } from './api/http.js';

export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export type { ApiKey, StoreCatalog } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export type { UpkeepSettings } from './api/upkeep.js';

/** The catalog `memdir serve` keeps: one store directory per memory store under `dir`. */
export declare function directoryCatalog(dir: string): StoreCatalog;

/**
 * The catalog `memdir serve --store postgres://…` keeps: a `memdir_stores` table
 * naming the stores, each store a namespace of `memdir_kv`; one pool serves them all.
 */
export declare function postgresCatalog(url: string): StoreCatalog;
