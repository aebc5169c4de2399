// The `browser` entry's types: everything shared (index.d.ts) and the IndexedDB store.
import type { StoreHandle } from './index.js';

export * from './index.js';

/** A memory in the IndexedDB database `memdir:{name}` of this origin. */
export declare function indexedDbStore(name?: string): StoreHandle;
