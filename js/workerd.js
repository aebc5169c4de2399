// workerd (Cloudflare Workers) entry: the wasm is imported as a compiled module,
// since isolates may not compile wasm from bytes at run time.
import wasm from '../dist/memdir_wasm_bg.wasm';
import { initSync } from '../dist/memdir_wasm.js';

initSync({ module: wasm });

export * from './core.js';
export { durableObjectStore } from './stores/durable-object.js';
export { kvStore } from './stores/kv.js';
// The Memory Stores API router, for a Worker that serves memory stores (examples/worker).
export { apiHandler, keysFrom, requestId } from './api/http.js';
