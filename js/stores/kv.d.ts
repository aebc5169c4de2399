import type { JsStore } from '../index.js';

/** The parts of a Workers KV binding (`KVNamespace`) that kvStore uses. */
export interface KvNamespaceLike {
  get(key: string, options: { type: 'arrayBuffer' }): Promise<ArrayBuffer | null>;
  put(key: string, value: ArrayBuffer | ArrayBufferView): Promise<void>;
  delete(key: string): Promise<void>;
  list(options: { prefix?: string; cursor?: string; limit?: number }): Promise<
    { keys: Array<{ name: string }>; list_complete: false; cursor: string } | { keys: Array<{ name: string }>; list_complete: true }
  >;
}

export interface KvStoreOptions {
  /** Keep memdir's keys under this prefix, to share the namespace with other data. */
  prefix?: string;
}

/**
 * A store on Workers KV. **Eventually consistent, single writer only**: KV has no
 * atomic compare-and-swap, so two writers (two isolates, two locations) can lose
 * each other's updates, and a reader in another location may see a change up to a
 * minute late. KV also takes about one write per second per key, so one memory
 * takes about one command per second.
 */
export interface EventuallyConsistentStore extends JsStore {
  get(key: string): Promise<Uint8Array | undefined>;
  list(prefix: string, cursor?: string): Promise<{ keys: string[]; cursor?: string }>;
  commit(objects: Array<[string, Uint8Array]>, key: string, expected: Uint8Array | undefined, value: Uint8Array): Promise<boolean>;
}

/**
 * workerd only: a Workers KV namespace as a store, **for a single writer only**.
 *
 * Workers KV is eventually consistent and has no atomic compare-and-swap: this
 * store's swap is atomic only among commands in one isolate. With two writers,
 * updates can be lost; use {@link durableObjectStore} for that. The first call
 * logs a warning saying so (`console.warn`, once per isolate).
 */
export declare function kvStore(namespace: KvNamespaceLike, options?: KvStoreOptions): EventuallyConsistentStore;
