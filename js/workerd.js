// workerd (Cloudflare Workers) entry: the wasm is imported as a compiled module,
// since isolates may not compile wasm from bytes at run time.
// The build without the IndexedDB store (workerd has no IndexedDB).
import wasm from '../dist/node/memdir_wasm_bg.wasm';
import * as nodeBuild from '../dist/node/memdir_wasm.js';
import { useGlue } from './glue.js';

nodeBuild.initSync({ module: wasm });
useGlue(nodeBuild);

export * from './core.js';
export { durableObjectStore } from './stores/durable-object.js';
export { kvStore } from './stores/kv.js';
// The Memory Stores API router, for a Worker that serves memory stores (examples/worker).
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
