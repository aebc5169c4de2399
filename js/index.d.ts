// Types of the memdir package shared by every runtime entry point; this file is
// also the `default` entry's. What only some runtimes have is declared beside
// their entries (node.d.ts, browser.d.ts, workerd.d.ts), so a name a runtime lacks
// does not type-check there.

/** A tool input the model sends for `memory_20250818` (the SDK's command types). */
export type MemoryCommand =
  | { command: 'view'; path: string; view_range?: number[] }
  | { command: 'create'; path: string; file_text: string }
  | { command: 'str_replace'; path: string; old_str: string; new_str?: string }
  | { command: 'insert'; path: string; insert_line: number; insert_text: string }
  | { command: 'delete'; path: string }
  | { command: 'rename'; old_path: string; new_path: string };

export type ViewCommand = Extract<MemoryCommand, { command: 'view' }>;
export type CreateCommand = Extract<MemoryCommand, { command: 'create' }>;
export type StrReplaceCommand = Extract<MemoryCommand, { command: 'str_replace' }>;
export type InsertCommand = Extract<MemoryCommand, { command: 'insert' }>;
export type DeleteCommand = Extract<MemoryCommand, { command: 'delete' }>;
export type RenameCommand = Extract<MemoryCommand, { command: 'rename' }>;

/** What goes back to the model: `content` starts with `Error: ` when `is_error`. */
export interface ToolResult {
  content: string;
  is_error: boolean;
  /** On a failure, its kind: a non-enumerable property, so it never travels with a spread result. */
  readonly kind?: ErrorKind;
}

/** What kind of failure an answer is: branch on this, never on the message. */
export type ErrorKind =
  | 'input'
  | 'path'
  | 'refused'
  | 'limit'
  | 'secret'
  | 'storage_full'
  | 'storage_unavailable'
  | 'storage_failed'
  | 'damaged'
  | 'busy'
  /** This wrapper's own: the memory was closed. */
  | 'closed'
  /** This wrapper's own: the engine itself failed (never expected). */
  | 'internal';

/** The `Error` a handler method or `handle` rejects with. */
export interface MemdirError extends Error {
  kind: ErrorKind;
}

/** The engine's defaults and caps, as `defaults()` returns them. */
export interface Defaults {
  maxFileBytes: number;
  maxTotalBytes: number;
  readLimitChars: number;
  maxRetries: number;
  maxRetriesCap: number;
  keepCommits: number;
  /** Largest tool input, in UTF-8 bytes of its JSON text. */
  maxInputBytes: number;
  secrets: 'allow' | 'refuse' | 'redact';
  secretPolicies: readonly ('allow' | 'refuse' | 'redact')[];
  /** Most memories the Memory Stores API creates in one store. */
  maxMemories: number;
  /** Largest API request body in bytes. */
  maxApiBodyBytes: number;
  /** How long a server lets one API request run before it answers 504. */
  apiDeadlineMs: number;
  /** How long versions are kept (`retain`, `memdir serve --retention`): 30 days. */
  retentionMs: number;
  /** How often `memdir serve` gives each store its retention pass and gc: hourly. */
  upkeepIntervalMs: number;
  /** The commits a server's gc keeps besides the head (its history is its versions). */
  upkeepKeepCommits: number;
  /** Most stores one workspace of a server may create. */
  maxStores: number;
  /** Most stores a server's catalog keeps open (the most recently used). */
  maxOpenStores: number;
  /** How long a store let go stays open before it is closed (twice apiDeadlineMs). */
  storeCloseDelayMs: number;
  /** How long a write waits for the one before it (a directory's turn, or a store adapted in JS within one process) before it runs anyway. */
  turnWaitMs: number;
  /** How long `memdir serve`, told to stop, lets requests under way finish before it cuts their connections. */
  closeGraceMs: number;
  /** The most bytes of a refused request body `memdir serve` reads and throws away before it answers (a body declaring more is answered at once). */
  drainMaxBytes: number;
  /** How long `memdir serve` reads a refused request body before it answers anyway. */
  drainWaitMs: number;
  /** Largest value a store may hand back (a stored record claiming more is damage, refused unread). */
  maxValueBytes: number;
  /** Most rounds `memory.reindex()` and `memdir reindex` run, each bringing the search index up by one bounded budget of memories. */
  reindexRounds: number;
  /** Most dimensions an embedder may declare. */
  embedMaxDims: number;
  /** Texts per call of an embedder's `embed`. */
  embedBatch: number;
  /** Results `memory.search` and `memdir search` answer unless told otherwise. */
  searchDefaultLimit: number;
  /** Most bytes `memdir` reads of an encryption key file (a longer one is refused as not a key). */
  encryptionKeyFileBytes: number;
}

/** Every default and limit of the engine (where openMemory's defaults come from). */
export declare function defaults(): Readonly<Defaults>;

/** The result for a tool input over `maxInputBytes`, for a reader that refuses it unread. */
export declare function oversizedInputResult(): ToolResult;

/** A file (with `content`) or a directory (without) of the memory, by path. */
export interface Entry {
  path: string;
  content?: string;
}

export interface GcReport {
  reachable: number;
  deleted: number;
  /** Unreferenced now but not yet at the previous pass: deleted by the next one. */
  pending: number;
}

export interface RetainReport {
  /** Versions dropped by this pass. */
  dropped: number;
  /** A store's pass read its bound of slots: another pass goes on. */
  more: boolean;
}

/** A store method's answer: a promise of it, or the value itself when the store has it at once. */
export type StoreAnswer<T> = T | Promise<T>;

/**
 * The JS store protocol: any object with these methods over Uint8Array values, each
 * answering with a promise or, when the store has the answer at once (a synchronous
 * table, a Map), with the plain value, which the engine then takes without waiting:
 * a command on such a store finishes within its call. Throwing an error named
 * `QuotaExceededError` reports a full store and `UnavailableError` an unreachable
 * one; anything else is a storage failure. The error's text never reaches the model.
 */
export interface JsStore {
  get(key: string): StoreAnswer<Uint8Array | undefined | null>;
  set(key: string, value: Uint8Array): StoreAnswer<void>;
  /** Deleting an absent key is not an error. */
  delete(key: string): StoreAnswer<void>;
  /** Keys starting with `prefix`, ascending, after `cursor`; `cursor` set when more follow. */
  list(prefix: string, cursor?: string): StoreAnswer<{ keys: string[]; cursor?: string | null }>;
  /** Writes `value` only if the current value is `expected` (undefined: absent). */
  compareAndSwap(key: string, expected: Uint8Array | undefined, value: Uint8Array): StoreAnswer<boolean>;
  /** Optional: writes `objects`, then the compare-and-swap, in one transaction. */
  commit?(objects: Array<[string, Uint8Array]>, key: string, expected: Uint8Array | undefined, value: Uint8Array): StoreAnswer<boolean>;
  /**
   * Optional: runs `fn` (one write command) while no other process writes this
   * store, resolving what `fn` resolves. Fairness only: when the turn is not had in
   * time, run `fn` anyway; the compare-and-swap keeps the store right.
   */
  inTurn?<T>(fn: () => Promise<T>): Promise<T>;
}

/** A store the engine runs on natively (memory, IndexedDB) or an adapted JS store. */
export declare class StoreHandle {
  private constructor();
  /** `"memory"`, `"js"` or `"indexeddb"`. */
  readonly kind: string;
  free(): void;
}

export type Store = StoreHandle | JsStore;

export interface Limits {
  /** Largest file in UTF-8 bytes (default 102,400). */
  maxFileBytes?: number;
  /** Largest total of all files in bytes (default 100 MiB). */
  maxTotalBytes?: number;
  /** Longest `view` answer in characters before it is cut with a paging hint (default 100,000). */
  readLimitChars?: number;
  /** Most memories the Memory Stores API creates in one store (default 2,000). */
  maxMemories?: number;
}

/**
 * A store's key for encryption at rest (docs/encryption.md): every name and value
 * the store holds is encrypted with a data key kept under this key.
 */
export interface Encryption {
  /** 32 random bytes, or their 64 hex characters (a key file's text). */
  key: Uint8Array | string;
  /** The key's name in refusals and rotations: 1 to 64 of A-Z a-z 0-9 . _ - (default: derived from the key). */
  keyId?: string;
}

/** What `memory.rekey` did: the new key's id, and how many stored values it re-encrypted. */
export interface Rekeyed {
  keyId: string;
  moved: number;
}

/** One store of a memory that holds several, at `/memories/<name>`. */
export interface MountOptions {
  /** The directory's name under /memories; `''` (alone): the store is /memories. */
  name: string;
  store: Store | Promise<Store>;
  /** Default `read_write`; a write into a `read_only` store is refused and touches no store. */
  access?: 'read_write' | 'read_only';
  /** What the store holds, for the model (at most 1,024 characters). */
  description?: string;
  /** How to use it, for the model (at most 4,096 characters). */
  instructions?: string;
  /** This store's key, when it is encrypted at rest. */
  encryption?: Encryption;
}

/** A request to the Memory Stores API of one store (docs/memory-stores.md). */
export interface ApiRequest {
  op: string;
  id?: string;
  query?: Record<string, string>;
  /** JSON text, or a value sent as its JSON. */
  body?: string | unknown;
  actor?: { type: string; [id: string]: string };
  /** Which store, when several are mounted. */
  mount?: string;
}

/** Options of one memory-tool or toolset call. */
export interface CallOptions {
  /**
   * Whom the versions the call makes name, as the API records a request's actor
   * (`{type: 'api_actor', api_key_id: '…'}`); without it, the memory's `actor`
   * as a `session_actor`. A server running the tools for one of its API keys passes
   * the key's actor.
   */
  actor?: { type: string; [id: string]: string };
}

export interface ApiResponse {
  status: number;
  body: any;
}

export interface OpenOptions {
  /** Where the memory lives (default: a fresh `inMemoryStore()`). */
  store?: Store | Promise<Store>;
  /** Instead of `store`: up to 8 stores, each at `/memories/<name>`. */
  mounts?: MountOptions[];
  limits?: Limits;
  /** Milliseconds since the epoch for commit times (default `Date.now`). */
  clock?: () => number;
  /** Recorded in each commit as who acted. */
  actor?: string;
  /** Retries after losing a race with another writer (default 32). */
  maxRetries?: number;
  /**
   * Text the model writes that looks like a credential (API keys, private key
   * blocks, card numbers): stored as written (default), refused, or stored redacted.
   */
  secrets?: 'allow' | 'refuse' | 'redact';
  /**
   * The store's key: it is encrypted at rest (an empty store becomes encrypted).
   * Without one, an encrypted store is refused; with one, a plaintext store is
   * (`encryptStore` it first). Refusals reject with an `EncryptionError`.
   */
  encryption?: Encryption;
  /**
   * The application's embedder, for semantic and hybrid search (docs/semantic.md):
   * memdir embeds nothing by itself. Called by searches and `reindex`, never by a
   * write.
   */
  embedder?: Embedder;
}

/** An embedder: a hosted embeddings API or a model the application runs. */
export interface Embedder {
  /** Names the model and how it is used; a different id re-embeds. */
  id: string;
  /** The length of every vector, 1 to 4,096. */
  dims: number;
  /** One vector per text, in order (up to `defaults().embedBatch` texts a call). */
  embed(texts: string[], kind: 'query' | 'document'): Promise<Array<number[] | Float32Array>> | Array<number[] | Float32Array>;
}

/**
 * One memory directory. The six handler methods are a drop-in for the handlers of
 * the SDK's `betaMemoryTool`: each resolves to the tool's text or rejects with an
 * `Error` whose message is the failure (the SDK's runner adds `Error: `).
 */
export declare class Memory {
  private constructor();
  view(command: ViewCommand): Promise<string>;
  create(command: CreateCommand): Promise<string>;
  str_replace(command: StrReplaceCommand): Promise<string>;
  insert(command: InsertCommand): Promise<string>;
  delete(command: DeleteCommand): Promise<string>;
  rename(command: RenameCommand): Promise<string>;
  /** Any tool input on the handler face (resolves the text, rejects with a `MemdirError`). */
  handle(input: unknown, options?: CallOptions): Promise<string>;
  /** Any tool input on the raw face; never rejects (but with a `TypeError` for a bad `options.actor`). */
  execute(input: unknown, options?: CallOptions): Promise<ToolResult>;
  /** `execute` for a tool input still in JSON text. */
  executeJson(text: string): Promise<ToolResult>;
  /** Every directory and file, sorted by path. */
  entries(): Promise<Entry[]>;
  /** Replaces the whole tree with `entries`, all or nothing. */
  import(entries: Entry[]): Promise<void>;
  /**
   * Deletes stored objects unreachable from the last `keepCommits` commits (default:
   * `defaults().keepCommits`) since a pass at least `minAgeMs` ago (default 0).
   */
  gc(options?: { keepCommits?: number; minAgeMs?: number }): Promise<GcReport>;
  /**
   * Drops the versions older than `olderThanMs` (default: `defaults().retentionMs`)
   * that hold no live memory's current content; `gc` then deletes their bytes.
   */
  retain(options?: { olderThanMs?: number }): Promise<RetainReport>;
  /**
   * Re-encrypts the store (opened alone, or `options.mount`'s) under a new key, in
   * bounded steps each saved: a crash midway loses nothing, both keys open the store
   * meanwhile, and calling it again with the same new key finishes.
   */
  rekey(options: Encryption & { mount?: string }): Promise<Rekeyed>;
  /**
   * Syncs this memory's store (opened alone, or `options.mount`'s) with a Memory
   * Stores API store (docs/sync.md); a store mounted read-only is refused.
   */
  sync(options: SyncOptions): Promise<SyncSummary>;
  /**
   * Removes, in one commit, every file not written in the last `olderThanMs`
   * milliseconds and every directory with nothing written beneath it for as long.
   */
  expire(options: { olderThanMs: number }): Promise<{ removed: number; bytes: number }>;
  /** The Memory Stores API over this memory's store (or `request.mount`'s); never rejects. */
  api(request: ApiRequest): Promise<ApiResponse>;
  /** The system-prompt text: where each store is mounted, read-only or not, and what it is for. */
  instructions(): string;
  /**
   * The memory-store toolset over this memory (with several stores mounted, paths
   * start with the store's name: `/team/notes.md`): resolves the tool's text, or
   * rejects with an `Error` whose message is the text for the model and whose
   * `kind` names the failure.
   */
  toolset(name: ToolsetToolName, input: unknown, options?: CallOptions): Promise<string>;
  /**
   * The memories most relevant to `query`, best first, across every store mounted
   * (docs/node.md): each `/memories/…` path with its score and its best matching
   * lines. Rejects with a `MemdirError` (`kind` `input` for a query or option the
   * engine refuses).
   */
  search(query: string, options?: SearchOptions): Promise<SearchHit[]>;
  /**
   * A block of the most relevant memories for a system prompt, within
   * `options.maxChars` (default 4,000 characters); '' when none is found or fits.
   */
  recall(query: string, options?: RecallOptions): Promise<string>;
  /** The `memory_find` tool's text for a model's input `{query, limit?, path_prefix?}`. */
  find(input: unknown): Promise<string>;
  /** Brings every store's search index up to its head now (a search does it too). */
  reindex(): Promise<SearchIndexStatus>;
  /** How far the search index is, without catching it up. */
  searchStatus(): Promise<SearchIndexStatus>;
  /**
   * Seed 002's records toolset over this memory (docs/records.md): resolves the
   * answer's JSON text, or rejects with an `Error` whose message is the text for
   * the model and whose `kind` names the failure.
   */
  records(name: RecordToolName, input: unknown, options?: CallOptions & RecordSettings): Promise<string>;
  /** Releases the engine. */
  close(): void;
}

/** `memory.search`'s options. */
export interface SearchOptions {
  /** Most memories answered, 1 to 100 (default 10). */
  limit?: number;
  /** Only memories under this directory, e.g. `/memories/notes` (default: all). */
  pathPrefix?: string;
  /** How to rank: default `'hybrid'` with an embedder, `'lexical'` without. */
  mode?: 'lexical' | 'semantic' | 'hybrid';
  /** Semantic candidates' least cosine, -1 to 1 (default: none; model-specific). */
  minScore?: number;
  /** `memory.search` only: reorders (or keeps some of) the hits, e.g. with a cross-encoder. */
  rerank?: (query: string, hits: SearchHit[]) => SearchHit[] | Promise<SearchHit[]>;
}

/** `memory.recall`'s options. */
export interface RecallOptions extends SearchOptions {
  /** The characters the block may take, 1 to 100,000 (default 4,000); `limit` defaults to 5. */
  maxChars?: number;
}

/** A memory `memory.search` found. */
export interface SearchHit {
  /** Its path, `/memories/…` (`/memories/<mount>/…` beside other stores). */
  path: string;
  /** Its score, higher is better: BM25 (lexical), cosine (semantic) or reciprocal-rank sum (hybrid). */
  score: number;
  /** Its best matching lines, in line order, numbered from 1 as `view` numbers them. */
  lines: Array<{ line: number; text: string }>;
}

/** How far the search index is. */
export interface SearchIndexStatus {
  /** Memories indexed, every store together. */
  indexed: number;
  /** True while writes wait to be indexed, or texts wait for a vector (the next search or reindex reads them). */
  pending: boolean;
  /** With an embedder: its fingerprint (`id:dims:l2:template:chars`). */
  fingerprint?: string;
  /** With an embedder: distinct live texts with a vector and waiting for one. */
  vectors?: { indexed: number; pending: number };
}

/** The `memory_find` tool's definition, as the engine holds it. */
export interface FindToolDefinition {
  readonly name: 'memory_find';
  readonly title: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/** The `memory_find` tool's definition (name, description, JSON Schema). */
export declare function findTool(): FindToolDefinition;

/** The `memory_find` tool for the SDK's tool runner, beside `betaMemoryTool`, running on `memory`. */
export declare function memoryFindTool<const Extra extends object = {}>(
  memory: Memory,
  extraProps?: Extra,
): Extra & {
  type: 'custom';
  name: 'memory_find';
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  run: (input: Record<string, unknown>) => Promise<string>;
  parse: (content: unknown) => Record<string, unknown>;
};

/** The names of the memory-store toolset's tools. */
export type ToolsetToolName = 'memory_list' | 'memory_search' | 'memory_read' | 'memory_write' | 'memory_edit' | 'memory_delete';

/** A memory-store tool's definition, as the engine holds it. */
export interface ToolsetTool {
  readonly name: ToolsetToolName;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
  /** True if the tool never changes the store. */
  readonly read_only: boolean;
}

/** The memory-store toolset's definitions (names, one-sentence descriptions, JSON Schemas). */
export declare function toolsetTools(): readonly ToolsetTool[];

/** The memory tool's definition, for a face that must describe it itself (an MCP server). */
export interface MemoryToolDefinition {
  readonly name: 'memory';
  readonly title: string;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly commands: typeof COMMANDS;
}

/** The memory tool's definition as the engine holds it (name, description, JSON Schema, command names). */
export declare function memoryTool(): MemoryToolDefinition;

/**
 * The memory-store toolset for the SDK's tool runner: six tools shaped like the
 * SDK's `betaTool`, running on `memory`.
 */
export declare function memoryStoreTools(memory: Memory): Array<{
  type: 'custom';
  name: ToolsetToolName;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  run: (input: Record<string, unknown>) => Promise<string>;
  parse: (content: unknown) => Record<string, unknown>;
}>;

/** The names of seed 002's records toolset's tools. */
export type RecordToolName = 'memory_store' | 'memory_retrieve' | 'memory_delete';

/** What a records toolset may change of the engine's defaults (docs/records.md). */
export interface RecordSettings {
  /** Days after which importance counts half (default 30). */
  halfLifeDays?: number;
  /** Records kept before the least important are pruned (default 1,000). */
  capacity?: number;
  /** Jaccard similarity at which a new record replaces one of its category (default 0.8). */
  similarity?: number;
}

/** A records tool's definition, as the engine holds it. */
export interface RecordTool {
  readonly name: RecordToolName;
  readonly description: string;
  readonly input_schema: { readonly type: 'object'; readonly [key: string]: unknown };
  /** True if the tool never changes the store. */
  readonly read_only: boolean;
}

/** Seed 002's records toolset's definitions (names, descriptions, JSON Schemas). */
export declare function recordTools(): readonly RecordTool[];

/**
 * Seed 002's records toolset for the SDK's tool runner: `memory_store`,
 * `memory_retrieve` and `memory_delete`, shaped like the SDK's `betaTool`, running
 * on `memory`.
 */
export declare function memoryRecordTools(memory: Memory, settings?: RecordSettings): Array<{
  type: 'custom';
  name: RecordToolName;
  description: string;
  input_schema: { type: 'object'; [key: string]: unknown };
  run: (input: Record<string, unknown>) => Promise<string>;
  parse: (content: unknown) => unknown;
}>;

export declare function openMemory(options?: OpenOptions): Promise<Memory>;

/**
 * Turns a plaintext store into one encrypted with `encryption.key`, in bounded,
 * resumable steps (call it again after a crash); resolves the key's id.
 */
/** The id of `key` (derived from it unless `keyId` is given), or an `EncryptionError` for a key the engine refuses. */
export declare function encryptionKeyId(key: Uint8Array | string, keyId?: string): string;

export declare function encryptStore(store: Store | Promise<Store>, encryption: Encryption): Promise<string>;

/** Handlers of the memory tool's commands, each resolving the tool's text. */
export type MemoryHandlers = Partial<Record<MemoryCommand['command'], (command: any) => Promise<string> | string>>;

/** What `betaMemoryTool` makes: the SDK's tool runner's shape, with `extraProps`. */
export type BetaMemoryTool<Extra extends object = {}> = Extra & {
  type: 'memory_20250818';
  name: 'memory';
  parse: (content: unknown) => MemoryCommand;
  run: (args: MemoryCommand) => Promise<string>;
};

/** The memory tool for the SDK's tool runner, shaped like the SDK's own helper. */
export declare function betaMemoryTool<const Extra extends object = {}>(
  handlers: Memory | MemoryHandlers,
  extraProps?: Extra,
): BetaMemoryTool<Extra>;

/** A native in-memory store; memories opened over one handle share it. */
export declare function inMemoryStore(): StoreHandle;

/** inMemoryStore's first name, kept as an alias (the same function). */
export declare const memoryStore: typeof inMemoryStore;

/** Adapts an application's own store (Redis, SQLite, a remote API, …). */
export declare function customStore(store: JsStore): StoreHandle;

/** Runs the engine's store-contract suite against an empty store; rejects naming the first broken promise. */
export declare function checkStoreContract(store: Store): Promise<void>;

export declare const COMMANDS: readonly ['view', 'create', 'str_replace', 'insert', 'delete', 'rename'];

/** The vendor's system-prompt text for the memory tool. */
export declare const MEMORY_SYSTEM_PROMPT: string;

/** Where the remote store is: a Memory Stores API (memdir serve, the edge example, Anthropic's API). */
export interface SyncOptions {
  /** The API's base URL (default: Anthropic's API). */
  baseURL?: string;
  /** The remote's API key. */
  apiKey: string;
  /** The remote memory store's id (`memstore_…`). */
  storeId: string;
  /**
   * The fetch to send requests with (default: globalThis.fetch). It is asked to
   * follow no redirect (`redirect: 'manual'`); a redirect stops the sync.
   */
  fetch?: typeof globalThis.fetch;
  /** Which store to sync when several are mounted (default '': the store opened alone). */
  mount?: string;
}

/** What a sync did, memory by memory. */
export interface SyncSummary {
  readonly pulled: number;
  readonly pushed: number;
  readonly merged: number;
  readonly conflicts: number;
  readonly unchanged: number;
  /** The summary as one line (not enumerable). */
  readonly text: string;
}

/** `memory.sync(options)`. */
export declare function syncMemory(memory: Memory, options: SyncOptions): Promise<SyncSummary>;
