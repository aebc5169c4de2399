// Entry for runtimes with no condition of their own (Deno, Bun, bundlers): fetch
// the wasm next to this package and instantiate it before anything is exported.
// The build without the IndexedDB store, as this entry offers none.
import * as nodeBuild from '../dist/node/memdir_wasm.js';
import { useGlue } from './glue.js';

await nodeBuild.default({ module_or_path: new URL('../dist/node/memdir_wasm_bg.wasm', import.meta.url) });
useGlue(nodeBuild);

export * from './core.js';
