// The engine's Node build (dist/node/, without the IndexedDB store: Node has none),
// read from the package and instantiated synchronously, its glue handed to glue.js.
// Imported for this effect by the Node entries (node.js, server.js) and nothing
// else: a library module reaches the engine through glue.js, so importing one never
// loads a wasm build, and the two entries share this one instance.
import { readFileSync } from 'node:fs';
import * as nodeBuild from '../dist/node/memdir_wasm.js';
import { useGlue } from './glue.js';

nodeBuild.initSync({ module: readFileSync(new URL('../dist/node/memdir_wasm_bg.wasm', import.meta.url)) });
useGlue(nodeBuild);
