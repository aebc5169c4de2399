// Node entry: the wasm is read from the package and instantiated synchronously, so
// importing memdir is all the set-up there is.
import { readFileSync } from 'node:fs';
import { initSync } from '../dist/memdir_wasm.js';

initSync({ module: readFileSync(new URL('../dist/memdir_wasm_bg.wasm', import.meta.url)) });

export * from './core.js';
export { directoryStore, DirectoryStore } from './stores/directory.js';
