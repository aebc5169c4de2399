// workerd (Cloudflare Workers) entry: the wasm is imported as a compiled module
// (wasm-workerd.js), since isolates may not compile wasm from bytes at run time.
import './wasm-workerd.js';

export * from './core.js';
export { durableObjectStore } from './stores/durable-object.js';
export { kvStore } from './stores/kv.js';
// The Memory Stores API router, for a Worker that serves memory stores
// (examples/worker): its home is `memdir/server` (server-workerd.js); kept here too
// so a Worker written before the subpath existed still builds.
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
