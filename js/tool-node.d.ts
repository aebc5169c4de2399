// The types of `memdir/tool` under Node (js/tool-node.js): the memory tool alone,
// over the lean build, with the directory store. `openMemory` resolves a ToolMemory
// (tool.d.ts): a Memory without the methods the lean build leaves out, which reject
// there with a TypeError naming what `memdir` has instead.
export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, defaults, inMemoryStore, memoryStore, oversizedInputResult } from './index.js';
export { betaMemoryTool, openMemory } from './tool.js';
export type { NotInTool, ToolMemory, ToolMountOptions, ToolOpenOptions } from './tool.js';
export { directoryStore, DirectoryStore } from './node.js';
export type * from './index.js';
export type { DirectoryStoreOptions } from './node.js';
