// `memdir/tool` in a browser: the memory tool alone (its six commands over the
// in-memory and IndexedDB stores, mounts, the SDK's tool runner shape), over the
// lean build (dist/tool/: feature `tool`), a third of the full build's download.
// It reads and writes the same stores as the full build (`memdir`): what it leaves
// out (the Memory Stores API, sync, the toolsets, search, encryption, customStore,
// entries, import, expire, gc, retain) is refused by name (glue.js, notInTool).
// One realm loads one of the two builds (glue.js, useGlue).
import init, * as glue from '../dist/tool/memdir_wasm.js';
import { useGlue } from './glue.js';

await init({ module_or_path: new URL('../dist/tool/memdir_wasm_bg.wasm', import.meta.url) });
useGlue(glue);

export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, betaMemoryTool, defaults, inMemoryStore, memoryStore, openMemory, oversizedInputResult } from './core.js';
export { indexedDbStore } from './stores/indexeddb.js';
