// The types of `memdir/tool` in a browser (js/tool.js): the memory tool alone, over
// the lean build. `openMemory` resolves a ToolMemory: a Memory without the methods
// the lean build leaves out (api, search, sync, entries, …), which reject there with
// a TypeError naming what `memdir` has instead; its options have no `encryption` or
// `embedder`, for the same reason.
import type { BetaMemoryTool, Memory, MemoryHandlers, MountOptions, OpenOptions, StoreHandle } from './index.js';

export { COMMANDS, MEMORY_SYSTEM_PROMPT, Memory, defaults, inMemoryStore, memoryStore, oversizedInputResult } from './index.js';
export type * from './index.js';

/** What a Memory has that memdir/tool leaves out (import `memdir` for them). */
export type NotInTool = 'api' | 'entries' | 'expire' | 'find' | 'gc' | 'import' | 'recall' | 'records' | 'reindex' | 'rekey' | 'retain' | 'search' | 'searchStatus' | 'sync' | 'toolset';

/** A memory opened by memdir/tool: the memory tool's methods, `instructions` and `close`. */
export type ToolMemory = Omit<Memory, NotInTool>;

/** One store of a memdir/tool memory at `/memories/<name>`: no `encryption`. */
export type ToolMountOptions = Omit<MountOptions, 'encryption'>;

/** memdir/tool's openMemory options: no `encryption` or `embedder`. */
export interface ToolOpenOptions extends Omit<OpenOptions, 'encryption' | 'embedder' | 'mounts'> {
  /** Instead of `store`: up to 8 stores, each at `/memories/<name>`. */
  mounts?: ToolMountOptions[];
}

export declare function openMemory(options?: ToolOpenOptions): Promise<ToolMemory>;

/** The memory tool for the SDK's tool runner, shaped like the SDK's own helper. */
export declare function betaMemoryTool<const Extra extends object = {}>(handlers: ToolMemory | MemoryHandlers, extraProps?: Extra): BetaMemoryTool<Extra>;

/** A memory in the IndexedDB database `memdir:{name}` of this origin (the same stores as `memdir`'s). */
export declare function indexedDbStore(name?: string): StoreHandle;
