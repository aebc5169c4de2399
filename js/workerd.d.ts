// The `workerd` entry's types: everything shared (index.d.ts), a Durable Object's
// storage and a Workers KV namespace as stores, and (re-exported from memdir/server) the Memory Stores API's handler.
export * from './index.js';
export { durableObjectStore } from './stores/durable-object.js';
export type { DurableObjectStore, DurableObjectStorageLike, DurableObjectStoreOptions } from './stores/durable-object.js';
export { kvStore } from './stores/kv.js';
export type { EventuallyConsistentStore, KvNamespaceLike, KvStoreOptions } from './stores/kv.js';
// `memdir/server`'s (server-workerd.d.ts), re-exported so a Worker written before
// the subpath existed still compiles.
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore, listStores, newStoreId, formatDuration, parseDuration, upkeepStore } from './server-workerd.js';
export type { StoreCatalog } from './server-workerd.js';
