// `memdir/server` under Node: what serves memory stores to others (the Memory
// Stores API's handler, the catalogs of stores it serves, the upkeep of their
// history), apart from what an agent needs to keep its own memory (`memdir`). The
// engine is loaded as the Node entry loads it (wasm-node.js, one instance for both).
import './wasm-node.js';

export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export { directoryCatalog } from './api/catalog-dir.js';
export { postgresCatalog } from './api/catalog-pg.js';
