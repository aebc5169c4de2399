// The Memory Stores API's fetch handler (js/api/http.js), in the Node and workerd entries.
import type { ApiRequest, ApiResponse } from '../index.js';

/** A catalog of memory stores for `apiHandler`: create, open, list and drop stores. */
export interface StoreCatalog {
  create(): Promise<{ id: string; store: { api(request: ApiRequest): Promise<ApiResponse> } } | { refused: string }>;
  open(id: string): Promise<{ api(request: ApiRequest): Promise<ApiResponse> } | null>;
  ids(): Promise<string[]>;
  drop(id: string): Promise<void>;
}

/**
 * A fetch handler (`Request` in, `Response` out) serving the Memory Stores API over
 * `catalog`, checking `x-api-key` or `Authorization: Bearer` against `keys`.
 */
export declare function apiHandler(options: { catalog: StoreCatalog; keys?: string[]; noAuth?: boolean }): (request: Request) => Promise<Response>;
/** The API keys in a comma-separated list (MEMDIR_API_KEYS). */
export declare function keysFrom(list: string | undefined): string[];
/** A fresh `request-id` value. */
export declare function requestId(): string;
