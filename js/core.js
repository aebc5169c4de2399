// The runtime-independent surface of memdir: openMemory, betaMemoryTool and the
// store factories that need no runtime API. Each entry point (node.js, browser.js,
// workerd.js, default.js) initialises the wasm its runtime's way, then re-exports
// this module plus its own stores; nothing here touches the wasm until it is called
// (the entry hands its build's glue to glue.js first).
import { AT_ONCE, FACE_ERRORS, deepFreeze, glue, inBuild, notInTool, toolsetDefinitions } from './glue.js';
import { remoteCaller, syncOptions } from './sync.js';
import { processTurn, writesInTurn } from './turn.js';

// The command names, read from the engine when an entry point hands over its glue.
export { COMMANDS } from './glue.js';

let defaultsCache;
/**
 * The engine's defaults and caps (`memdir::config`, read through the wasm):
 * `{maxFileBytes, maxTotalBytes, readLimitChars, maxRetries, maxRetriesCap,
 * keepCommits, maxInputBytes, secrets, secretPolicies, …, maxValueBytes}` (every
 * field: js/index.d.ts, `Defaults`). Nothing here restates them.
 */
export function defaults() {
  defaultsCache ??= Object.freeze(glue.defaults());
  return defaultsCache;
}

/**
 * The `tool_result` for a tool input over `defaults().maxInputBytes`, in the engine's
 * words: for a reader that refuses such an input before holding it whole (the CLI's
 * NDJSON stream). Its `kind` is `input`.
 */
export function oversizedInputResult() {
  return glue.oversizedInput();
}

const PROTOCOL = ['get', 'set', 'delete', 'list', 'compareAndSwap'];

/** A native in-memory store. Several memories opened over one share its data. */
export function inMemoryStore() {
  return glue.memoryStore();
}

/**
 * inMemoryStore's first name, kept as an alias (the same function) so code written
 * before the rename keeps working: "memory store" is also the Memory Stores API's
 * store, which this is not.
 */
export const memoryStore = inMemoryStore;

/**
 * Adapts an application's own store: any object with async `get`, `set`, `delete`,
 * `list`, `compareAndSwap` (and optionally `commit`) over Uint8Array values.
 */
export function customStore(obj) {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) {
    throw new TypeError('customStore expects an object with async get, set, delete, list and compareAndSwap methods');
  }
  const missing = PROTOCOL.filter((m) => typeof obj[m] !== 'function');
  if (missing.length) {
    throw new TypeError(`customStore: the store has no ${missing.join(', ')} method${missing.length > 1 ? 's' : ''}`);
  }
  if (obj.commit !== undefined && obj.commit !== null && typeof obj.commit !== 'function') {
    throw new TypeError('customStore: the store\'s commit must be a function when present');
  }
  if (obj.inTurn !== undefined && obj.inTurn !== null && typeof obj.inTurn !== 'function') {
    throw new TypeError('customStore: the store\'s inTurn must be a function when present');
  }
  if (!inBuild('jsStore')) throw notInTool('customStore (a store of your own)');
  return glue.jsStore(obj);
}

/** A store handle for the engine: a native handle as is, a protocol object adapted. */
function toHandle(store) {
  if (store === undefined) return glue.memoryStore();
  if (store instanceof glue.StoreHandle) return store;
  return customStore(atOnce(store) ?? store);
}

/** The store's face that answers at once (`AT_ONCE`, glue.js), if it carries one. */
function atOnce(store) {
  try {
    return store?.[AT_ONCE];
  } catch {
    return undefined;
  }
}

/**
 * `encryption` (`{key, keyId?}`) as the engine's key arguments `[bytes, hex, id]`,
 * or undefined without one. Only the types are checked here; the key itself (32
 * bytes, 64 hex characters, the id's letters) is judged by the engine's one rule
 * (`memdir::seal::Key`), whose refusal is an `EncryptionError`.
 */
function encryptionArgs(encryption, where) {
  if (encryption === undefined || encryption === null) return undefined;
  if (typeof encryption !== 'object') throw new TypeError(`${where}: encryption must be an object {key, keyId?}`);
  const { key, keyId } = encryption;
  if (!(key instanceof Uint8Array) && typeof key !== 'string') {
    throw new TypeError(`${where}: encryption.key must be a Uint8Array of 32 bytes (or a string of their 64 hex characters)`);
  }
  if (keyId !== undefined && keyId !== null && typeof keyId !== 'string') throw new TypeError(`${where}: encryption.keyId must be a string`);
  return [key instanceof Uint8Array ? key : undefined, typeof key === 'string' ? key : undefined, keyId ?? undefined];
}

/**
 * The id of `key` (as `openMemory`'s `encryption.key`, with `keyId` if given),
 * checked by the engine's rule without opening anything: throws its
 * `EncryptionError` for a key it refuses (for a face that reads a key before it
 * opens a store, as the CLI's key files).
 */
export function encryptionKeyId(key, keyId) {
  return glue.checkEncryptionKey(...encryptionArgs({ key, keyId }, 'encryptionKeyId'));
}

/** 32 random bytes for a new data key: the engine has no randomness of its own. */
function freshBytes() {
  return globalThis.crypto.getRandomValues(new Uint8Array(32));
}

/**
 * The handle a memory runs on: with a key, the store opened encrypted (an empty
 * one becomes encrypted); without, the store as it is, once the engine has
 * seen that it is not an encrypted store (opening one without its key is refused,
 * in the engine's words, rather than reading its ciphertext as damage).
 */
async function sealedHandle(handle, key) {
  if (key === undefined) {
    await glue.checkPlaintext(handle);
    return handle;
  }
  if (!inBuild('openSealed')) throw notInTool("openMemory's encryption");
  return glue.openSealed(handle, ...key, freshBytes());
}

/**
 * Turns a plaintext store into one encrypted with `key` (`{key, keyId?}` as
 * `openMemory`'s `encryption`), in bounded steps each saved: a crash midway loses
 * nothing, and calling it again finishes (on a store already encrypted with this
 * key, it only finishes what is left). Resolves the key's id. Open it afterwards
 * with `openMemory({ store, encryption })`.
 */
export async function encryptStore(store, encryption) {
  const key = encryptionArgs(encryption, 'encryptStore');
  if (key === undefined) throw new TypeError('encryptStore: give the key: encryptStore(store, {key, keyId?})');
  const given = await store;
  if (given === undefined) throw new TypeError('encryptStore: give the store to encrypt');
  return glue.encryptStore(toHandle(given), ...key, freshBytes());
}

function limitValue(limits, camel, snake) {
  const v = limits[camel] ?? limits[snake] ?? defaults()[camel];
  if (!Number.isSafeInteger(v) || v < 0) {
    throw new RangeError(`openMemory: limits.${camel} must be a non-negative integer, got ${String(v)}`);
  }
  return v;
}

/**
 * Opens the memory directory held by `store`.
 * options: { store?, mounts?: [{name, store, access?: 'read_write'|'read_only', description?,
 *            instructions?, encryption?}] (up to 8 stores at /memories/<name>; name '' alone: at /memories),
 *            limits?: {maxFileBytes?, maxTotalBytes?, readLimitChars?, maxMemories?},
 *            clock?: () => number (ms since epoch), actor?: string, maxRetries?: number,
 *            secrets?: 'allow' | 'refuse' | 'redact' (text that looks like a credential),
 *            encryption?: {key: Uint8Array(32) | 64 hex characters, keyId?: string} (the store
 *            encrypted at rest: docs/encryption.md),
 *            embedder?: {id: string, dims: number, embed(texts: string[], kind: 'query'|'document')
 *            => Promise<number[][] | Float32Array[]>} (semantic and hybrid search, docs/semantic.md) }
 */
export async function openMemory(options = {}) {
  const d = defaults();
  const { store, mounts, limits = {}, clock, actor = '', maxRetries = d.maxRetries, secrets = d.secrets, encryption, embedder } = options ?? {};
  if (!d.secretPolicies.includes(secrets)) {
    const names = d.secretPolicies.map((p) => `'${p}'`);
    throw new TypeError(`openMemory: secrets must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)}`);
  }
  if (clock !== undefined && typeof clock !== 'function') throw new TypeError('openMemory: clock must be a function');
  if (typeof actor !== 'string') throw new TypeError('openMemory: actor must be a string');
  if (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > d.maxRetriesCap) {
    throw new RangeError(`openMemory: maxRetries must be an integer from 0 to ${d.maxRetriesCap}`);
  }
  // Checked (id, dims, embed) and read once, in the engine's words.
  if (embedder !== undefined && embedder !== null && !inBuild('jsEmbedder')) throw notInTool("openMemory's embedder");
  const embed = embedder === undefined || embedder === null ? undefined : glue.jsEmbedder(embedder);
  const config = JSON.stringify({
    maxFileBytes: limitValue(limits, 'maxFileBytes', 'max_file_bytes'),
    maxTotalBytes: limitValue(limits, 'maxTotalBytes', 'max_total_bytes'),
    readLimitChars: limitValue(limits, 'readLimitChars', 'read_limit_chars'),
    maxMemories: limitValue(limits, 'maxMemories', 'max_memories'),
    actor,
    maxRetries,
    secrets,
  });
  if (mounts === undefined) {
    const key = encryptionArgs(encryption, 'openMemory');
    const given = await store;
    const handle = await sealedHandle(toHandle(given), key);
    return inTurns(new Memory(new glue.Memory(handle, config, clock, embed)), [given]);
  }
  if (store !== undefined) throw new TypeError('openMemory: give either store or mounts, not both');
  if (encryption !== undefined) throw new TypeError('openMemory: with mounts, give each mount its own encryption');
  if (!Array.isArray(mounts)) throw new TypeError('openMemory: mounts must be an array of {name, store, access?, description?, instructions?}');
  const set = new glue.MountSet(config, clock, embed);
  const stores = [];
  for (const m of mounts) {
    if (m === null || typeof m !== 'object') throw new TypeError('openMemory: each mount must be an object {name, store, access?, description?, instructions?}');
    const { name, access = 'read_write', description = '', instructions = '' } = m;
    for (const [field, value] of [['name', name], ['access', access], ['description', description], ['instructions', instructions]]) {
      if (typeof value !== 'string') throw new TypeError(`openMemory: a mount's ${field} must be a string`);
    }
    const key = encryptionArgs(m.encryption, 'openMemory');
    const given = await m.store;
    stores.push(given);
    set.add(name, await sealedHandle(toHandle(given), key), access, description, instructions);
  }
  return inTurns(new Memory(set.open()), stores);
}

/**
 * A memory over an application's own store (any store adapted in JS) takes its
 * writes in turn within this process (js/turn.js), and then, if the one store it
 * is over has `inTurn` (PostgreSQL's), in that store's turn across processes. The
 * engine's own stores need none: the in-memory store runs a command to its end at
 * once, and a directory store's turn is taken by node.js.
 */
function inTurns(memory, stores) {
  const adapted = stores.some((s) => s !== undefined && !(s instanceof glue.StoreHandle));
  if (!adapted) return memory;
  const local = processTurn(defaults().turnWaitMs);
  const shared = stores.length === 1 && typeof stores[0].inTurn === 'function' ? stores[0] : undefined;
  return writesInTurn(memory, shared ? (fn) => local(() => shared.inTurn(fn)) : local);
}

// A text that is not JSON: the engine answers it with its own "not valid JSON"
// message, so that wording lives in one place.
const NOT_JSON = '';

// Lone surrogates have no UTF-8 form; written as JSON escapes the engine's parser
// refuses them, instead of wasm-bindgen silently turning them into U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/gu;
const escapeLone = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * The JSON text of a tool input given as a value, or already as text; `null` when
 * it is over the engine's input cap. UTF-16 units never outnumber UTF-8 bytes, so
 * a text refused here is one the engine would refuse too; one let through is
 * measured again, in bytes, by the engine.
 */
function inputText(input, isText) {
  let text;
  if (isText) {
    text = input;
  } else {
    try {
      // Throws on cycles, BigInt, and getters or toJSON methods that throw.
      text = JSON.stringify(input);
    } catch {
      return NOT_JSON;
    }
    // undefined, a function or a symbol: no JSON value at all, answered like null.
    if (text === undefined) text = 'null';
  }
  if (text.length > defaults().maxInputBytes) return null;
  // Most texts have none: a native check (where the runtime has one) costs a tenth
  // of the regular expression's pass, which every command paid.
  if (typeof text.isWellFormed === 'function' && text.isWellFormed()) return text;
  return text.replace(LONE_SURROGATE, escapeLone);
}

/** The tool input with `command` set to the handler's name, or the value as is. */
function withCommand(cmd, command) {
  if (cmd === null || typeof cmd !== 'object' || Array.isArray(cmd)) return { ok: true, value: cmd };
  try {
    return { ok: true, value: { ...cmd, command } };
  } catch {
    return { ok: false }; // a getter threw
  }
}

/**
 * True when `arg` is a tool input naming `method` as its command: the SDK's own
 * betaMemoryTool calls `handlers[input.command](input)` for any command the model
 * sends, so a model saying "close" or "entries" would reach these methods. They
 * answer as the engine does for an unknown command instead.
 */
function modelCalled(arg, method) {
  try {
    return arg !== null && typeof arg === 'object' && arg.command === method;
  } catch {
    return false;
  }
}

/**
 * The JSON text of `options.actor`, or undefined without one: an actor object as
 * the Memory Stores API records it (`{type: 'api_actor', api_key_id}`), which the
 * versions a call makes name instead of the memory's own actor (a server running
 * the tools for one of its API keys passes that key's). The engine judges it: an
 * actor it refuses is its TypeError, thrown here, before anything runs.
 */
function actorOption(options) {
  const actor = options === undefined || options === null ? undefined : options.actor;
  if (actor === undefined) return undefined;
  let text;
  try {
    text = JSON.stringify(actor) ?? 'null';
  } catch {
    text = 'null'; // cycles, BigInt, throwing getters: no actor, in the engine's words
  }
  glue.checkActor(text);
  return text;
}

/**
 * The JSON text of `memory.search`'s and `memory.recall`'s arguments, `{query,
 * options}`, as the engine reads them (it maps the options' names and judges
 * every value: one place); over the input cap, the engine's refusal.
 */
function searchInput(query, options) {
  const text = inputText({ query, options }, false);
  if (text === null) throw withKind(new Error(glue.oversizedInput().content.slice('Error: '.length)), 'input');
  return text;
}

/**
 * `memory.search`'s optional `rerank(query, hits)` hook (a cross-encoder, a hosted
 * reranker): it answers some of the hits it was given, each once, in its order.
 * Anything else is refused in memdir's words, and its own error's text is not
 * passed on.
 */
async function reranked(rerank, query, hits) {
  const refuse = () => withKind(new Error(RERANK_ERROR), 'input');
  if (typeof rerank !== 'function') throw withKind(new TypeError('rerank must be a function (query, hits) => hits'), 'input');
  let answer;
  try {
    answer = await rerank(query, hits.map((h) => ({ ...h, lines: h.lines.map((l) => ({ ...l })) })));
  } catch {
    throw withKind(new Error('The rerank hook failed (it threw or its promise rejected).'), 'input');
  }
  if (!Array.isArray(answer)) throw refuse();
  const byPath = new Map(hits.map((h) => [h.path, h]));
  const seen = new Set();
  const out = [];
  for (const h of answer) {
    const path = h?.path;
    if (typeof path !== 'string' || !byPath.has(path) || seen.has(path)) throw refuse();
    seen.add(path);
    out.push(byPath.get(path));
  }
  return out;
}
const RERANK_ERROR = 'The rerank hook must answer some of the hits it was given, each once: an array of hits from its input.';

function withKind(error, kind) {
  error.kind = kind;
  return error;
}
/** The wrapper's own failure of `kind` (`closed`, `internal`), in the engine's words. */
const faceError = (kind) => withKind(new Error(FACE_ERRORS[kind]), kind);

/**
 * One memory directory. The six handler methods are a drop-in for the SDK's
 * `betaMemoryTool(handlers)`: each resolves to the tool's text or rejects with an
 * `Error` whose message is the spec's (the SDK's runner adds `Error: `).
 */
export class Memory {
  #core;
  #closed = false;

  constructor(core) {
    if (!(core instanceof glue.Memory)) throw new TypeError('use openMemory() to open a memory');
    this.#core = core;
  }

  view(command) {
    return this.#handler('view', command);
  }
  create(command) {
    return this.#handler('create', command);
  }
  str_replace(command) {
    return this.#handler('str_replace', command);
  }
  insert(command) {
    return this.#handler('insert', command);
  }
  delete(command) {
    return this.#handler('delete', command);
  }
  rename(command) {
    return this.#handler('rename', command);
  }

  #handler(name, command) {
    const c = withCommand(command, name);
    return c.ok ? this.#handle(c.value, false) : this.#handle(NOT_JSON, true);
  }

  /**
   * Runs any tool input on the handler face: resolves to the text, rejects with
   * an `Error` whose message is the protocol's and whose `kind` names the failure
   * (`input`, `path`, `refused`, `limit`, `secret`, `storage_full`,
   * `storage_unavailable`, `storage_failed`, `damaged`, `busy`; `closed` and
   * `internal` from this wrapper). `options.actor` (see `actorOption`): whom the
   * versions a change makes name.
   */
  handle(input, options) {
    return this.#handle(input, false, options);
  }

  async #handle(input, isText, options) {
    if (this.#closed) throw faceError('closed');
    const actor = actorOption(options);
    const text = inputText(input, isText);
    if (text === null) {
      const r = glue.oversizedInput();
      throw withKind(new Error(r.content.slice('Error: '.length)), 'input');
    }
    try {
      return await this.#core.handleJson(text, actor);
    } catch (e) {
      if (e instanceof Error && typeof e.kind === 'string') throw e;
      // Unreachable unless the engine itself failed; no raw text goes to the model.
      throw faceError('internal');
    }
  }

  /**
   * Runs any tool input (the value the model sent) on the raw face: resolves to
   * `{content, is_error}` with `Error: ` before a failure's message. Never rejects,
   * but with a `TypeError` for a bad `options.actor` (see `actorOption`).
   */
  execute(input, options) {
    if (modelCalled(input, 'execute')) return this.#handle(input, false);
    return this.#run(input, false, options);
  }

  /** `execute` for a tool input still in JSON text (a stream, a file, the CLI). */
  executeJson(text) {
    if (modelCalled(text, 'executeJson')) return this.#handle(text, false);
    if (typeof text !== 'string') return this.#run(text, false);
    return this.#run(text, true);
  }

  async #run(input, isText, options) {
    if (this.#closed) return { content: `Error: ${FACE_ERRORS.closed}`, is_error: true };
    const actor = actorOption(options);
    const text = inputText(input, isText);
    if (text === null) return glue.oversizedInput();
    try {
      return await this.#core.executeJson(text, actor);
    } catch {
      // Unreachable unless the engine itself failed; no raw text goes to the model.
      return { content: `Error: ${FACE_ERRORS.internal}`, is_error: true };
    }
  }

  /** Every directory and file: `[{path, content?}]`, sorted; directories have no content. */
  entries(...args) {
    if (modelCalled(args[0], 'entries')) return this.#handle(args[0], false);
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('entries', this.#core)) return Promise.reject(notInTool('memory.entries()'));
    return this.#core.entries();
  }

  /** Replaces the whole tree with `entries` (as `entries()` returns them), all or nothing. */
  async import(entries) {
    if (modelCalled(entries, 'import')) return this.#handle(entries, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('import', this.#core)) throw notInTool('memory.import()');
    if (!Array.isArray(entries)) throw new TypeError('import expects an array of {path, content?} entries');
    let text;
    try {
      text = JSON.stringify(entries.map(({ path, content }) => (content === undefined ? { path } : { path, content })));
    } catch {
      throw new TypeError('import expects an array of {path, content?} entries');
    }
    if (text.length > defaults().maxInputBytes * 16) throw new RangeError('import: the entries are too large to import at once');
    return this.#core.import(text.replace(LONE_SURROGATE, escapeLone));
  }

  /**
   * The Memory Stores API over this memory (docs/memory-stores.md): `request` is
   * `{op, id?, query?, body?, actor?, mount?}`, `body` as JSON text (or a value,
   * sent as its JSON); `mount` names the store when several are mounted. Resolves
   * `{status, body}`; a bad request is an error answer, never a rejection.
   */
  async api(request) {
    if (modelCalled(request, 'api')) return this.#handle(request, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('api', this.#core)) throw notInTool('memory.api()');
    let text;
    let mount = '';
    try {
      const r = request !== null && typeof request === 'object' ? { ...request } : request;
      if (r !== null && typeof r === 'object') {
        mount = typeof r.mount === 'string' ? r.mount : '';
        delete r.mount;
      }
      if (r?.body !== undefined && r.body !== null && typeof r.body !== 'string') r.body = JSON.stringify(r.body);
      // UTF-16 units never outnumber UTF-8 bytes: a body this long is over in bytes too,
      // and is refused before it is copied into the engine.
      if (typeof r?.body === 'string' && r.body.length > defaults().maxApiBodyBytes) return JSON.parse(glue.oversizedApiBody());
      text = JSON.stringify(r) ?? 'null';
    } catch {
      text = 'null'; // cycles, BigInt, throwing getters: not a request, in the engine's words
    }
    return JSON.parse(await this.#core.api(mount, text.replace(LONE_SURROGATE, escapeLone)));
  }

  /**
   * The text to put in the system prompt: where each store is mounted, whether it
   * is read-only, its description and instructions.
   */
  instructions(...args) {
    if (modelCalled(args[0], 'instructions')) return this.#handle(args[0], false);
    return this.#core.instructions();
  }

  /**
   * The memory-store toolset (`memory_list`, `memory_search`, `memory_read`,
   * `memory_write`, `memory_edit`, `memory_delete`) over this memory; with several
   * stores mounted, paths start with the store's name (`/team/notes.md`) and a
   * listing or search of `/` covers every store. Resolves the tool's text, or
   * rejects with an `Error` whose message is the text for the model and whose
   * `kind` names the failure (`unknown_tool`, `input`, `path`, `not_found`,
   * `no_match`, `many_matches`, `precondition`, `conflict`, `archived`, `refused`,
   * `read_only`, `busy`, `damaged`, `storage_failed`, `no_mount`; `closed`).
   * `options.actor` (see `actorOption`): whom the versions its writes make name.
   */
  async toolset(name, input, options) {
    if (modelCalled(name, 'toolset')) return this.#handle(name, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('toolset', this.#core)) throw notInTool('memory.toolset()');
    if (typeof name !== 'string') throw new TypeError('toolset expects (name, input), name a string');
    const actor = actorOption(options);
    const text = inputText(input, false);
    if (text === null) {
      throw withKind(new Error(glue.oversizedInput().content.slice('Error: '.length)), 'input');
    }
    return this.#core.toolset(name, text, actor);
  }

  /**
   * The memories most relevant to `query`, best first, across every store
   * mounted: `[{path, score, lines: [{line, text}]}]`, each with its
   * `/memories/…` path, its score and its best matching lines (numbered as
   * `view` numbers them). `options`: `{limit, pathPrefix, mode, minScore}`
   * (`pathPrefix` a directory such as `/memories/notes`; `mode` `'lexical'`
   * (BM25, the default without an embedder), `'semantic'` (the embedder's
   * cosine) or `'hybrid'` (both by reciprocal rank, the default with one);
   * `minScore` a cosine below which semantic candidates are left out: none by
   * default, and model-specific, see docs/semantic.md; `rerank(query, hits)` an
   * optional hook answering some of the hits in its own order). Rejects with an `Error` whose message is the engine's and
   * whose `kind` is `input` for a query or option it refuses (the store's
   * failure's kind for a store that failed; `closed`).
   */
  async search(query, options) {
    if (modelCalled(query, 'search')) return this.#handle(query, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('search', this.#core)) throw notInTool('memory.search()');
    const hits = JSON.parse(await this.#core.search(searchInput(query, options)));
    // In the order the docs give the fields (the engine's JSON sorts them).
    const shaped = hits.map(({ path, score, lines }) => ({ path, score, lines }));
    const rerank = options?.rerank;
    return rerank === undefined || rerank === null ? shaped : reranked(rerank, query, shaped);
  }

  /**
   * Seed 002's prefetch: a block of the memories most relevant to `query` for a
   * system prompt, whole while they fit in `maxChars`, else their best lines; ''
   * when none is found or fits. `options`: `{limit, maxChars, pathPrefix, mode,
   * minScore}` (as `search`).
   * Rejects as `search` does.
   */
  async recall(query, options) {
    if (modelCalled(query, 'recall')) return this.#handle(query, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('recall', this.#core)) throw notInTool('memory.recall()');
    return this.#core.recall(searchInput(query, options));
  }

  /**
   * The `memory_find` tool's answer (`findTool()`, `memoryFindTool`) to a model's
   * input `{query, limit?, path_prefix?}`: the ranked hits as text. Rejects with
   * an `Error` whose message is the text for the model, as `search` does.
   */
  async find(input) {
    if (modelCalled(input, 'find')) return this.#handle(input, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('find', this.#core)) throw notInTool('memory.find()');
    const text = inputText(input, false);
    if (text === null) throw withKind(new Error(glue.oversizedInput().content.slice('Error: '.length)), 'input');
    return this.#core.find(text);
  }

  /**
   * Brings every store's search index up to its head now (a search does it too,
   * a bounded budget per call), one budget at a time, yielding to the event loop
   * between them, at most `defaults().reindexRounds` of them; with an embedder,
   * embeds the texts without a vector the same way. Resolves `{indexed,
   * pending}`: the memories indexed; `pending` if writes (or texts without a
   * vector) still wait; with an embedder also `fingerprint` and `vectors`:
   * `{indexed, pending}` counts of distinct live texts.
   */
  async reindex(...args) {
    if (modelCalled(args[0], 'reindex')) return this.#handle(args[0], false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('reindex', this.#core)) throw notInTool('memory.reindex()');
    let status = await this.#core.reindex(1);
    for (let round = 1; status.pending && round < defaults().reindexRounds; round++) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (this.#closed) throw faceError('closed');
      status = await this.#core.reindex(1);
    }
    return status;
  }

  /**
   * How far the search index (and the vectors) are, without catching up or
   * embedding, as `reindex` answers.
   */
  searchStatus(...args) {
    if (modelCalled(args[0], 'searchStatus')) return this.#handle(args[0], false);
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('searchStatus', this.#core)) return Promise.reject(notInTool('memory.searchStatus()'));
    return this.#core.searchStatus();
  }

  /**
   * Seed 002's records toolset (`memory_store`, `memory_retrieve`,
   * `memory_delete`, see docs/records.md) over this memory. Resolves the answer's
   * JSON text, or rejects with an `Error` whose message is the text for the model
   * and whose `kind` names the failure (`unknown_tool`, `input`, `not_found`,
   * `refused`, `pruning`, `settings`, `read_only`, `busy`, `damaged`,
   * `storage_failed`; `closed`). `options`: `halfLifeDays`, `capacity`,
   * `similarity` (the engine's defaults when left out) and `actor`.
   */
  async records(name, input, options = {}) {
    if (this.#closed) throw faceError('closed');
    if (!inBuild('records', this.#core)) throw notInTool('memory.records()');
    if (typeof name !== 'string') throw new TypeError('records expects (name, input), name a string');
    const actor = actorOption(options);
    const text = inputText(input, false);
    if (text === null) {
      throw withKind(new Error(glue.oversizedInput().content.slice('Error: '.length)), 'input');
    }
    const { halfLifeDays, capacity, similarity } = options ?? {};
    return this.#core.records(name, text, halfLifeDays, capacity, similarity, actor);
  }

  /**
   * Deletes stored objects no longer reachable from the last `keepCommits` commits.
   * An object goes at the pass after the one that found it unreachable, and only
   * if that pass is at least `minAgeMs` old (default 0; servers sharing a store
   * pass their upkeep interval). Resolves `{reachable, deleted, pending}`.
   */
  gc(options = {}) {
    if (modelCalled(options, 'gc')) return this.#handle(options, false);
    const { keepCommits = defaults().keepCommits, minAgeMs = 0 } = options ?? {};
    if (!Number.isInteger(keepCommits) || keepCommits < 0 || keepCommits > 0xffffffff) {
      return Promise.reject(new RangeError('gc: keepCommits must be a non-negative integer'));
    }
    if (!Number.isSafeInteger(minAgeMs) || minAgeMs < 0) {
      return Promise.reject(new RangeError('gc: minAgeMs must be a non-negative integer'));
    }
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('gc', this.#core)) return Promise.reject(notInTool('memory.gc()'));
    return this.#core.gc(keepCommits, minAgeMs);
  }

  /**
   * Version retention: drops, in one commit per store, the versions older than
   * `olderThanMs` (default `defaults().retentionMs`, 30 days) that hold no live
   * memory's current content; `gc` then deletes their records and blobs. Resolves
   * `{dropped, more}`; `more`: a pass read its bound of slots, run another.
   */
  retain(options = {}) {
    if (modelCalled(options, 'retain')) return this.#handle(options, false);
    const { olderThanMs = defaults().retentionMs } = options ?? {};
    if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
      return Promise.reject(new RangeError('retain: olderThanMs must be a non-negative integer'));
    }
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('retain', this.#core)) return Promise.reject(notInTool('memory.retain()'));
    return this.#core.retain(olderThanMs);
  }

  /**
   * Removes, in one commit, every file not written in the last `olderThanMs`
   * milliseconds (by the memory's clock) and every directory with nothing written
   * beneath it for as long. Resolves `{removed, bytes}`.
   */
  expire(options = {}) {
    if (modelCalled(options, 'expire')) return this.#handle(options, false);
    const { olderThanMs } = options ?? {};
    if (!Number.isSafeInteger(olderThanMs) || olderThanMs < 0) {
      return Promise.reject(new RangeError('expire: olderThanMs must be a non-negative integer'));
    }
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('expire', this.#core)) return Promise.reject(notInTool('memory.expire()'));
    return this.#core.expire(olderThanMs);
  }

  /**
   * Syncs this memory's store with a store of a Memory Stores API (memdir serve,
   * the edge example, Anthropic's API): `{baseURL, apiKey, storeId, fetch,
   * mount}` (`mount` names the store when several are mounted). Resolves
   * `{pulled, pushed, merged, conflicts, unchanged}`; rejects with an Error named
   * SyncError saying why it stopped (what it synced stays synced). A store
   * mounted read-only (or archived) is refused before any request. See
   * docs/sync.md.
   */
  sync(options) {
    let checked;
    try {
      checked = syncOptions(options);
    } catch (e) {
      return Promise.reject(e);
    }
    if (this.#closed) return Promise.reject(faceError('closed'));
    if (!inBuild('sync', this.#core)) return Promise.reject(notInTool('memory.sync()'));
    return this.#core.sync(remoteCaller(checked), checked.name, checked.mount);
  }

  /**
   * Re-encrypts this memory's store (opened alone, or `options.mount`'s) under a
   * new key, `{key, keyId?, mount?}` as `openMemory`'s `encryption`, and a new data
   * key, in bounded steps each saved: a crash midway loses nothing, both keys open
   * the store meanwhile, and calling it again with the same new key finishes.
   * Resolves `{keyId, moved}`; rejects with an `EncryptionError` (a plaintext
   * store is not encrypted: `encryptStore` it first).
   */
  async rekey(options) {
    // A model's tool input naming `rekey` is a command the engine does not know,
    // never a rotation to a key the model chose.
    if (modelCalled(options, 'rekey')) return this.#handle(options, false);
    if (this.#closed) throw faceError('closed');
    if (!inBuild('rekey', this.#core)) throw notInTool('memory.rekey()');
    const key = encryptionArgs(options, 'rekey');
    if (key === undefined) throw new TypeError('rekey: give the new key: rekey({key, keyId?, mount?})');
    const mount = options.mount ?? '';
    if (typeof mount !== 'string') throw new TypeError('rekey: mount must be a string');
    return this.#core.rekey(mount, ...key, freshBytes());
  }

  /** Releases the engine; pending commands finish first. */
  close(...args) {
    if (modelCalled(args[0], 'close')) return this.#handle(args[0], false);
    if (this.#closed) return;
    this.#closed = true;
    this.#core.free();
  }
}

/**
 * The memory tool for the SDK's tool runner: the same shape as the SDK's own
 * `betaMemoryTool` (`@anthropic-ai/sdk/helpers/beta/memory`). Given a memdir
 * `Memory`, every input goes through the engine (an unknown command gets the
 * spec's message); given any other handlers object, it behaves as the SDK's helper.
 */
export function betaMemoryTool(handlers, extraProps) {
  return {
    ...extraProps,
    type: 'memory_20250818',
    name: 'memory',
    parse: (content) => content,
    run: (args) => {
      if (handlers instanceof Memory) return handlers.handle(args);
      const handler = handlers[args.command];
      if (!handler) {
        throw new Error(`${args.command} not implemented`);
      }
      return handler.bind(handlers)(args);
    },
  };
}

/**
 * The memory-store toolset's definitions, `[{name, description, input_schema,
 * read_only}]`, as
 * the engine has them (`memdir::toolset::TOOLS`): for a face that lists the tools
 * itself (the MCP server).
 */
export function toolsetTools() {
  return toolsetDefinitions();
}

let memoryToolCache;
/**
 * The memory tool's definition, `{name, title, description, input_schema,
 * commands}`, as the engine has it (`memdir::MEMORY_TOOL`): for a face that cannot
 * pass `memory_20250818` in and must describe the tool itself (the MCP server).
 */
export function memoryTool() {
  memoryToolCache ??= deepFreeze(JSON.parse(glue.memoryTool()));
  return memoryToolCache;
}

/**
 * The memory-store toolset for the SDK's tool runner: six runnable tools, each the
 * shape of the SDK's `betaTool` (`{type: 'custom', name, description, input_schema,
 * run, parse}`), running on `memory` (a memdir `Memory`). A failure rejects with an
 * `Error` whose message the runner sends back as `Error: <message>`.
 */
export function memoryStoreTools(memory) {
  if (!(memory instanceof Memory)) throw new TypeError('memoryStoreTools expects a memdir Memory (from openMemory)');
  return toolsetTools().map(({ name, description, input_schema }) => ({
    type: 'custom',
    name,
    description,
    // A copy: the runner or the caller may add to it (strict, cache_control).
    input_schema: structuredClone(input_schema),
    run: (input) => memory.toolset(name, input),
    parse: (content) => content,
  }));
}

let findToolCache;
/**
 * The `memory_find` tool's definition, `{name, title, description,
 * input_schema}`, as the engine has it (`memdir::mounts::FIND_TOOL`): a search of
 * /memories for a model, beside the memory tool. Named apart from the toolset's
 * `memory_search` so that a model may be given both.
 */
export function findTool() {
  findToolCache ??= deepFreeze(JSON.parse(glue.findTool()));
  return findToolCache;
}

/**
 * The `memory_find` tool for the SDK's tool runner, beside `betaMemoryTool`: the
 * shape of the SDK's `betaTool` (`{type: 'custom', name, description,
 * input_schema, run, parse}`), running `memory.find`. A failure rejects with an
 * `Error` whose message the runner sends back as `Error: <message>`.
 */
export function memoryFindTool(memory, extraProps) {
  if (!(memory instanceof Memory)) throw new TypeError('memoryFindTool expects a memdir Memory (from openMemory)');
  const { name, description, input_schema } = findTool();
  return {
    ...extraProps,
    type: 'custom',
    name,
    description,
    // A copy: the runner or the caller may add to it (strict, cache_control).
    input_schema: structuredClone(input_schema),
    run: (input) => memory.find(input),
    parse: (content) => content,
  };
}

let recordToolsCache;
/**
 * Seed 002's records toolset's definitions, `[{name, description, input_schema,
 * read_only}]`, as the engine has them (`memdir::records::TOOLS`).
 */
export function recordTools() {
  recordToolsCache ??= deepFreeze(JSON.parse(glue.recordTools()));
  return recordToolsCache;
}

/**
 * Seed 002's records toolset for the SDK's tool runner: `memory_store`,
 * `memory_retrieve` and `memory_delete`, each the shape of the SDK's `betaTool`
 * with `run(input)`, running on `memory` (a memdir `Memory`); `settings`:
 * `{halfLifeDays, capacity, similarity}`, each the engine's default when left out,
 * checked here (a RangeError in the engine's words).
 */
export function memoryRecordTools(memory, settings = {}) {
  if (!(memory instanceof Memory)) throw new TypeError('memoryRecordTools expects a memdir Memory (from openMemory)');
  const { halfLifeDays, capacity, similarity } = settings ?? {};
  for (const [name, v] of Object.entries({ halfLifeDays, capacity, similarity })) {
    if (v !== undefined && typeof v !== 'number') throw new TypeError(`memoryRecordTools: ${name} must be a number`);
  }
  const refused = glue.recordSettingsError(halfLifeDays, capacity, similarity);
  if (refused) throw new RangeError(refused);
  const options = { halfLifeDays, capacity, similarity };
  return recordTools().map(({ name, description, input_schema }) => ({
    type: 'custom',
    name,
    description,
    input_schema: structuredClone(input_schema),
    run: (input) => memory.records(name, input, options),
    parse: (content) => content,
  }));
}

/**
 * Runs the engine's store-contract suite against `store` (a handle or a protocol
 * object), which must be empty. Rejects with an Error naming the first broken promise.
 */
export function checkStoreContract(store) {
  return glue.checkStoreContract(toHandle(store));
}

/** The vendor's system-prompt text for the memory tool (see the spec). */
export const MEMORY_SYSTEM_PROMPT = `IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE.
MEMORY PROTOCOL:
1. Use the \`view\` command of your \`memory\` tool to check for earlier progress.
2. ... (work on the task) ...
     - As you make progress, record status / progress / thoughts etc in your memory.
ASSUME INTERRUPTION: Your context window might be reset at any moment, so you risk losing any progress that is not recorded in your memory directory.`;

/** `memory.sync(options)`: syncs `memory`'s store with a Memory Stores API store. */
export function syncMemory(memory, options) {
  if (!(memory instanceof Memory)) return Promise.reject(new TypeError('syncMemory expects a memory from openMemory()'));
  return memory.sync(options);
}
