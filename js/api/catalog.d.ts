// A catalog's shared rules (js/api/catalog.js), in the Node and workerd entries.
import type { ApiResponse } from '../index.js';

/** One page of memory stores from each store's record (`store.retrieve`). */
export declare function listStores(records: unknown[], query?: Record<string, string>): ApiResponse;
/** A new random memory store id (`memstore_…`). */
export declare function newStoreId(): string;
