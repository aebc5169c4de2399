// Browser entry: fetch and compile the wasm next to this module (bundlers rewrite
// the URL), then export the core and the browser's stores.
// The build with the IndexedDB store (dist/; the other runtimes load dist/node/).
import init, * as glue from '../dist/memdir_wasm.js';
import { useGlue } from './glue.js';

await init({ module_or_path: new URL('../dist/memdir_wasm_bg.wasm', import.meta.url) });
useGlue(glue);

export * from './core.js';
export { indexedDbStore } from './stores/indexeddb.js';
