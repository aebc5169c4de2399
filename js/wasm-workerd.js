// The engine's Node build (dist/node/, without the IndexedDB store: workerd has
// none) for workerd, imported as a compiled module, since isolates may not compile
// wasm from bytes at run time; its glue handed to glue.js. Imported for this effect
// by the workerd entries (workerd.js, server-workerd.js) and nothing else.
import wasm from '../dist/node/memdir_wasm_bg.wasm';
import * as nodeBuild from '../dist/node/memdir_wasm.js';
import { useGlue } from './glue.js';

nodeBuild.initSync({ module: wasm });
useGlue(nodeBuild);
