// The `workerd` entry's types: everything shared (index.d.ts), a Durable Object's
// storage and a Workers KV namespace as stores, and the Memory Stores API's handler.
export * from './index.js';
export { durableObjectStore } from './stores/durable-object.js';
export type { DurableObjectStore, DurableObjectStorageLike, DurableObjectStoreOptions } from './stores/durable-object.js';
export { kvStore } from './stores/kv.js';
export type { EventuallyConsistentStore, KvNamespaceLike, KvStoreOptions } from './stores/kv.js';
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export type { StoreCatalog } from './api/http.js';
