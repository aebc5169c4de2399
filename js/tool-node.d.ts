// The types of `memdir/tool` under Node (js/tool-node.js): the memory tool alone,
// over the lean build, with the directory store. A Memory's methods beyond the
// memory tool's (api, search, sync, entries, …) reject there with a TypeError
// naming what `memdir` has instead.
export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, betaMemoryTool, defaults, inMemoryStore, memoryStore, openMemory, oversizedInputResult } from './index.js';
export { directoryStore, DirectoryStore } from './node.js';
export type * from './index.js';
export type { DirectoryStoreOptions } from './node.js';
