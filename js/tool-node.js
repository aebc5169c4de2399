// `memdir/tool` under Node: the memory tool alone over the in-memory and directory
// stores, on the lean build (dist/tool/node/: feature `tool`), compiled in the
// background while the entry's other modules load (wasm-tool-node.js), with fewer of
// them: a process that only runs the memory tool starts sooner (bench/cold). It reads and
// writes the same directories as `memdir`; what it leaves out is refused by name
// (glue.js, notInTool). One process loads one of the two builds (glue.js, useGlue).
// First: the wasm starts compiling in the background while the rest loads.
import { compiled } from './wasm-tool-node.js';
import * as toolBuild from '../dist/tool/node/memdir_wasm.js';
import { useGlue } from './glue.js';

toolBuild.initSync({ module: await compiled });
useGlue(toolBuild);

export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, betaMemoryTool, defaults, inMemoryStore, memoryStore, oversizedInputResult } from './core.js';
// Node's openMemory, which opens a directory store first, in place of core.js's.
export { openMemory } from './open-node.js';
export { directoryStore, DirectoryStore } from './stores/store-dir.js';
