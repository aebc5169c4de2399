// `memdir/server` under workerd: the Memory Stores API's handler and the upkeep of
// a store's history, for a Worker that serves memory stores (examples/worker). Its
// catalogs are the Worker's own (on disk and in PostgreSQL they are Node's).
import './wasm-workerd.js';

export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
