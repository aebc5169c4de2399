// The lean build for Node (dist/tool/node/, memdir/tool), compiled off the main
// thread: imported first by tool-node.js, so V8 decodes and validates the module in
// the background while Node loads and runs the package's other modules, and the
// entry only instantiates it (bench/cold). The bytes are read here, at once, as
// wasm-node.js reads the full build's.
import { readFileSync } from 'node:fs';

/** The compiled module, as a promise: tool-node.js awaits it before it exports. */
export const compiled = WebAssembly.compile(readFileSync(new URL('../dist/tool/node/memdir_wasm_bg.wasm', import.meta.url)));
