// Entry for runtimes with no condition of their own (Deno, Bun, bundlers): fetch
// the wasm next to this package and instantiate it before anything is exported.
import init from '../dist/memdir_wasm.js';

await init({ module_or_path: new URL('../dist/memdir_wasm_bg.wasm', import.meta.url) });

export * from './core.js';
