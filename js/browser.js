// Browser entry: fetch and compile the wasm next to this module (bundlers rewrite
// the URL), then export the core and the browser's stores.
// The build with the IndexedDB store (dist/; the other runtimes load dist/node/).
import init, * as glue from '../dist/memdir_wasm.js';
import { useGlue } from './glue.js';

await init({ module_or_path: new URL('../dist/memdir_wasm_bg.wasm', import.meta.url) });
useGlue(glue);

export * from './core.js';

/**
 * A memory kept in this origin's IndexedDB, in database `memdir:{name}`; every tab
 * that opens the same name shares it without losing writes. Native: no JS runs
 * per store operation, and each command writes in one readwrite transaction.
 */
export function indexedDbStore(name = 'default') {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new TypeError('indexedDbStore expects a name: a string of 1 to 200 characters');
  }
  return glue.indexedDbStore(name);
}
