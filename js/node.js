// Node entry: the wasm is read from the package and instantiated synchronously
// (wasm-node.js), so importing memdir is all the set-up there is.
import './wasm-node.js';

export * from './core.js';
// Node's openMemory and encryptStore, which open a directory store first, in place
// of core.js's.
export { encryptStore, openMemory } from './open-node.js';
export { directoryStore, DirectoryStore } from './stores/store-dir.js';
export { postgresStore } from './stores/postgres.js';
export { PostgresStoreError } from './stores/postgres-pool.js';
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export { directoryCatalog } from './api/catalog-dir.js';
