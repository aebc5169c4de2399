// The types of `memdir/tool` in a browser (js/tool.js): the memory tool alone, over
// the lean build. A Memory's methods beyond the memory tool's (api, search, sync,
// entries, …) reject there with a TypeError naming what `memdir` has instead.
import type { StoreHandle } from './index.js';

export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, betaMemoryTool, defaults, inMemoryStore, memoryStore, openMemory, oversizedInputResult } from './index.js';
export type * from './index.js';

/** A memory in the IndexedDB database `memdir:{name}` of this origin (the same stores as `memdir`'s). */
export declare function indexedDbStore(name?: string): StoreHandle;
