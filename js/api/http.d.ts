// The Memory Stores API's fetch handler (js/api/http.js), exported by memdir/server
// (server.d.ts, server-workerd.d.ts) and, as before the subpath, by memdir.
import type { ApiRequest, ApiResponse } from '../index.js';

/** A catalog of memory stores for `apiHandler`: create, open, list and drop stores. */
export interface StoreCatalog {
  create(): Promise<{ id: string; store: { api(request: ApiRequest): Promise<ApiResponse> } } | { refused: string }>;
  /** null for no such store; rejects with `UnusableStore` for one whose own data cannot be served. */
  open(id: string): Promise<{ api(request: ApiRequest): Promise<ApiResponse> } | null>;
  ids(): Promise<string[]>;
  drop(id: string): Promise<void>;
  /**
   * Whether the store is still there, asked of the catalog's own record: for a
   * catalog whose `open` may answer a store that another instance deleted since.
   * Asked after a command on the store failed, and before an MCP request.
   */
  has?(id: string): Promise<boolean>;
  /** The catalog of another workspace (needed when keys name workspaces). */
  inWorkspace?(name: string): StoreCatalog;
}

/** An API key and the workspace its requests act in. */
export interface ApiKey {
  key: string;
  workspace: string;
}

/** What a catalog's `open` rejects with for a damaged or foreign store: lists leave it out. */
export declare class UnusableStore extends Error {
  constructor(message: string);
}

/**
 * A fetch handler (`Request` in, `Response` out) serving the Memory Stores API over
 * `catalog`, checking `x-api-key` or `Authorization: Bearer` against `keys`; or,
 * with `noAuth`, only requests whose Host is one of `hosts` (`name:port`), from no
 * other origin, with JSON bodies. `log` is given a line for the operator.
 */
export declare function apiHandler(
  options: { catalog: StoreCatalog; log?: (line: string) => void; /** ms before a request is answered 504 (default: defaults().apiDeadlineMs) */ deadlineMs?: number } & ({ keys: Array<string | ApiKey>; noAuth?: false; /** origins of pages allowed to call with a key (CORS), or "*" */ allowOrigins?: string[] } | { noAuth: true; hosts: string[] }),
): (request: Request) => Promise<Response>;
/** `KEY` or `KEY=WORKSPACE` as {key, workspace} (workspace "default" when none). */
export declare function keyEntry(text: string): ApiKey;
/** The API keys in a comma-separated list (MEMDIR_API_KEYS). */
export declare function keysFrom(list: string | undefined): string[];
/** A fresh `request-id` value. */
export declare function requestId(): string;
