// `memdir/server`'s types under workerd: the Memory Stores API's fetch handler and a
// store's upkeep (a Worker brings its own catalog, see examples/worker).
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export type { ApiKey, StoreCatalog } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export type { UpkeepSettings } from './api/upkeep.js';
