// The Memory Stores API (docs/memory-stores.md) as one fetch handler, shared by
// `memdir serve` (Node) and the edge worker (workerd): nothing here is Node's.
// It only maps an HTTP request to the engine's one call, `store.api(request)`,
// and the engine's answer back to HTTP; every check on a body, query or id, every
// default, page and error text of the API is the engine's. What is decided here is
// the server's own: the routes, the API key (or, without keys, that the request
// comes from this machine and not from a web page), the body-size gate before the
// body is read, the request id, and that nothing thrown below reaches a client as text.
import * as core from '../core.js';
import { readBody } from '../read-body.js';
import { listStores } from './catalog.js';

const JSON_TYPE = 'application/json';
// Every failure of the server itself (a throw, a backend gone wrong) answers this,
// never the error's own text, which may name a host path or a storage key.
const INTERNAL = 'Internal server error.';
const PAST_DEADLINE = (ms) =>
  `The request did not finish within ${ms / 1000} seconds. A write still under way commits whole or not at all: read before you retry it.`;
const utf8 = new TextEncoder();

/**
 * What a catalog's `open(id)` throws for a store whose own data it cannot serve
 * (damaged, or another store's copy): a list leaves it out, a request for it alone
 * is a 500, and the message goes to the operator's log, never to a client.
 */
export class UnusableStore extends Error {
  constructor(message) {
    super(message);
    this.name = 'UnusableStore';
  }
}

/** The API's error object. */
function errorBody(type, message) {
  return { type: 'error', error: { type, message } };
}

const NOT_FOUND_ROUTE = errorBody('not_found_error', 'No such route: the Memory Stores API serves /v1/memory_stores and the routes beneath it.');
const NO_STORE = errorBody('not_found_error', 'No memory store with this id.');
const NO_KEY = errorBody('authentication_error', 'An API key is required: send it as x-api-key or Authorization: Bearer.');
const BAD_KEY = errorBody('authentication_error', 'Invalid API key.');
const MCP_NEEDS_STORE = errorBody('invalid_request_error', 'Name the memory store this MCP session uses: /mcp?store=memstore_….');
const MCP_BAD_TOOLS = errorBody('invalid_request_error', 'tools must be store (the memory-store toolset, the default) or records (seed 002\'s memory_store, memory_retrieve and memory_delete).');
const OTHER_WORKSPACE = errorBody('permission_error', 'This API key belongs to another workspace than anthropic-workspace-id names.');

/** The workspace of a key given without one, and of every store when keys name none. */
export const DEFAULT_WORKSPACE = 'default';
/** What a workspace may be called: also a directory name, so no dot and no separator. */
export const WORKSPACE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * One API key entry, `KEY` or `KEY=WORKSPACE`, as `{key, workspace}`. The split is
 * at the last "=", and only when what follows is a workspace name, so a key that
 * ends in base64 padding stays whole.
 */
export function keyEntry(text) {
  const at = text.lastIndexOf('=');
  const workspace = at > 0 ? text.slice(at + 1) : '';
  return WORKSPACE_NAME.test(workspace) ? { key: text.slice(0, at), workspace } : { key: text, workspace: DEFAULT_WORKSPACE };
}
const DUPLICATE_QUERY = (name) => errorBody('invalid_request_error', `The query parameter ${JSON.stringify(name)} is given more than once.`);
const BAD_QUERY = errorBody('invalid_request_error', 'The query string is not valid percent-encoded UTF-8.');
const TOO_LARGE = (max) => errorBody('request_too_large', `The request body is larger than ${max} bytes.`);
const BAD_BODY = errorBody('invalid_request_error', 'The request body is not valid UTF-8.');
const BAD_TARGET = errorBody('invalid_request_error', 'The request target is not a path this API can read.');
const WRONG_HOST = errorBody('permission_error', 'Without API keys this server answers only requests addressed to its own loopback address and port (the Host header).');
const CROSS_ORIGIN = errorBody('permission_error', 'Without API keys this server answers no request that a web page of another origin sent (its Origin or Sec-Fetch-Site header).');
const NOT_JSON = errorBody('invalid_request_error', 'A request body must be JSON, sent with Content-Type: application/json.');

/**
 * The routes of docs/memory-stores.md: each path shape with, per method, the
 * engine's op (or the catalog's own work for creating and listing stores).
 * `{store}` and `{id}` match one path segment.
 */
const ROUTES = [
  { path: [], methods: { GET: 'store.list', POST: 'store.create' } },
  { path: ['{store}'], methods: { GET: 'store.retrieve', POST: 'store.update', PATCH: 'store.update', DELETE: 'store.delete' } },
  { path: ['{store}', 'archive'], methods: { POST: 'store.archive' } },
  { path: ['{store}', 'memories'], methods: { GET: 'memory.list', POST: 'memory.create' } },
  // Before memories/{id}: "search" is memdir's own route, never a memory id.
  { path: ['{store}', 'memories', 'search'], methods: { GET: 'memory.search' } },
  { path: ['{store}', 'memories', '{id}'], methods: { GET: 'memory.retrieve', POST: 'memory.update', PATCH: 'memory.update', DELETE: 'memory.delete' } },
  { path: ['{store}', 'memory_versions'], methods: { GET: 'version.list' } },
  { path: ['{store}', 'memory_versions', '{id}'], methods: { GET: 'version.retrieve' } },
  { path: ['{store}', 'memory_versions', '{id}', 'redact'], methods: { POST: 'version.redact' } },
];
const PREFIX = ['v1', 'memory_stores'];
/**
 * Every method some route takes, in the routes' order: what a preflight allows and
 * a method no route takes names. Read from ROUTES, so a route's new method is
 * allowed cross-origin the moment it is served (PATCH once was not).
 */
const METHODS = [...new Set(ROUTES.flatMap((r) => Object.keys(r.methods)))].join(', ');

function decodeSegment(s) {
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

/** The route a path names: `{route, store?, id?}`, or undefined for none. */
function matchRoute(pathname) {
  const raw = pathname.split('/');
  // A path is "/" + segments; a trailing slash or an empty segment names no route.
  if (raw[0] !== '' || raw.length < 3) return undefined;
  const segments = raw.slice(1).map(decodeSegment);
  if (segments.some((s) => s === undefined || s === '')) return undefined;
  if (segments[0] !== PREFIX[0] || segments[1] !== PREFIX[1]) return undefined;
  const rest = segments.slice(2);
  for (const route of ROUTES) {
    if (route.path.length !== rest.length) continue;
    const params = {};
    let ok = true;
    for (let i = 0; i < rest.length && ok; i++) {
      const want = route.path[i];
      if (want === '{store}') params.store = rest[i];
      else if (want === '{id}') params.id = rest[i];
      else ok = want === rest[i];
    }
    if (ok) return { route, ...params };
  }
  return undefined;
}

/** The query as the engine takes it: every value a string; a name given twice is refused. */
function queryOf(url) {
  const query = {};
  let params;
  try {
    params = [...url.searchParams];
  } catch {
    return { error: BAD_QUERY };
  }
  for (const [name, value] of params) {
    if (Object.hasOwn(query, name)) return { error: DUPLICATE_QUERY(name) };
    query[name] = value;
  }
  return { query };
}

// Each byte's two hex digits, looked up: request ids are written on every answer.
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** `bytes` in lower-case hex. */
function hex(bytes) {
  let text = '';
  for (const b of bytes) text += HEX[b];
  return text;
}

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(text)));
}

/** Equal digests, in time independent of where they differ. */
function sameDigest(a, b) {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** `application/json`, with no charset or a UTF-8 one. */
function isJson(contentType) {
  const [type, ...params] = contentType.split(';').map((s) => s.trim().toLowerCase());
  if (type !== JSON_TYPE) return false;
  return params.every((p) => !p.startsWith('charset=') || /^charset="?utf-8"?$/.test(p));
}

/**
 * Without keys, what keeps a served loopback port from the web pages of this
 * machine's browser: a page of another site that has its own name resolve to
 * 127.0.0.1 (DNS rebinding) still sends its own name as Host, and a page of any
 * other origin sends its Origin (every cross-origin POST, PATCH and DELETE does) or
 * Sec-Fetch-Site. `hosts` are the Host values this server is reached by.
 */
function loopbackRefusal(request, hosts) {
  const host = (request.headers.get('host') ?? '').toLowerCase();
  if (!hosts.has(host)) return WRONG_HOST;
  const origin = request.headers.get('origin');
  // "null" (a file: page, a sandboxed frame) is an origin too, and not this one.
  if (origin !== null && origin.toLowerCase() !== `http://${host}`) return CROSS_ORIGIN;
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return CROSS_ORIGIN;
  return undefined;
}

/** The token of an "Authorization: Bearer TOKEN" header, or undefined. */
function bearer(header) {
  const m = /^Bearer +(\S+)$/i.exec(header ?? '');
  return m ? m[1] : undefined;
}

// Request ids are random, so they tell a client nothing about the server's other
// traffic; the bytes are drawn a batch at a time (one call to the system's source
// per RANDOM_BATCH ids).
const ID_BYTES = 12;
const RANDOM_BATCH = 256;
let random = new Uint8Array(0);
let randomAt = 0;

/** A fresh `request-id` value. */
export function requestId() {
  // Drawn on first use, never at load: an edge isolate refuses randomness at start.
  if (randomAt + ID_BYTES > random.length) {
    random = crypto.getRandomValues(new Uint8Array(ID_BYTES * RANDOM_BATCH));
    randomAt = 0;
  }
  const id = `req_${hex(random.subarray(randomAt, randomAt + ID_BYTES))}`;
  randomAt += ID_BYTES;
  return id;
}

/**
 * The API keys in a comma-separated list (what MEMDIR_API_KEYS holds, for `memdir
 * serve` and the worker alike): surrounding spaces are not part of a key, blank
 * entries are skipped.
 */
export function keysFrom(list) {
  return (typeof list === 'string' ? list : '').split(',').map((k) => k.trim()).filter((k) => k !== '');
}

/**
 * A fetch handler serving the Memory Stores API over `catalog`: `apiAnswerer`'s
 * answers as web Responses (the edge worker's face, and any fetch server's).
 */
export function apiHandler(options) {
  const answer = apiAnswerer(options);
  return async (request) => responseOf(await answer(request));
}

/**
 * The Memory Stores API over `catalog`, as `answer(request)` -> an answer
 * `{status, headers, text}` (header names in lower case; text null for none), or
 * `{response}` (a web Response: the MCP route's). A server writes it out as it
 * likes: `memdir serve` straight to Node's response, with no web Response between.
 * `request` is a fetch Request, or anything that reads as one here: `method`, `url`
 * (absolute), `headers` (`get`, `has`, and pairs when iterated) and `body` (null,
 * or `getReader()` whose reader has `read()` and `cancel()`).
 * - catalog: async `create()` -> {id, store} (or {refused: message} when it
 *   holds all the stores it may), `open(id)` -> store | null,
 *   `ids()` -> string[], `drop(id)`, and optionally `has(id)` -> boolean, asked
 *   after a store's command failed (5xx) or before an MCP session, when `open` may
 *   hand out a store another instance has deleted since; a store has
 *   `api(request)` -> {status, body}.
 * - keys: the API keys a request may send (`x-api-key`, or `Authorization: Bearer`).
 * - noAuth: serve without keys (the caller keeps it to loopback); then `hosts`, the
 *   Host header values (`name:port`) the server is reached by, is required, and
 *   requests for another host, from another origin, or with a body that is not
 *   JSON are refused (a browser sends JSON cross-origin only after a preflight,
 *   which no route answers).
 * - log: called with a line for the operator (a store skipped, a 500's cause);
 *   nothing it is given reaches a client.
 */
export function apiAnswerer({ catalog, keys = [], noAuth = false, hosts, log: logger, deadlineMs = core.defaults().apiDeadlineMs, mcp, allowOrigins = [] } = {}) {
  if (!catalog || typeof catalog.open !== 'function') throw new TypeError('apiHandler needs a catalog');
  if (!noAuth && (!Array.isArray(keys) || keys.length === 0)) throw new TypeError('apiHandler needs at least one API key, or noAuth');
  if (noAuth && (!Array.isArray(hosts) || hosts.length === 0 || hosts.some((h) => typeof h !== 'string' || h === ''))) {
    throw new TypeError('apiHandler: noAuth needs the hosts the server is reached by');
  }
  // A key is `KEY`, `KEY=WORKSPACE`, or {key, workspace}.
  const entries = keys.map((k) => (typeof k === 'string' ? keyEntry(k) : k));
  if (entries.some((e) => typeof e?.key !== 'string' || e.key === '' || typeof e.workspace !== 'string' || !WORKSPACE_NAME.test(e.workspace))) {
    throw new TypeError('apiHandler: every API key must be a non-empty string, with a workspace of 1 to 64 letters, digits, "_" or "-"');
  }
  if (entries.some((e) => e.workspace !== DEFAULT_WORKSPACE) && typeof catalog.inWorkspace !== 'function') {
    throw new TypeError('apiHandler: keys name workspaces, but the catalog has no inWorkspace(name)');
  }
  // Each workspace sees its own catalog; the default one is the catalog itself.
  const catalogs = new Map([[DEFAULT_WORKSPACE, catalog]]);
  const catalogOf = (workspace) => {
    if (!catalogs.has(workspace)) catalogs.set(workspace, catalog.inWorkspace(workspace));
    return catalogs.get(workspace);
  };
  // Every key's workspace catalog made now: one the catalog refuses (a directory
  // catalog's names that differ only in case) throws here, where the handler is made,
  // not as a 500 on that workspace's first request.
  for (const e of entries) catalogOf(e.workspace);
  const loopbackHosts = new Set((hosts ?? []).map((h) => h.toLowerCase()));
  if (!Array.isArray(allowOrigins) || allowOrigins.some((o) => o !== '*' && !isOrigin(o))) {
    throw new TypeError('apiHandler: allowOrigins must be origins (scheme://host[:port]) or "*"');
  }
  // Keys authenticate a page's requests as they do any other; without keys, a page
  // must never reach the server (see loopbackRefusal).
  if (noAuth && allowOrigins.length > 0) throw new TypeError('apiHandler: allowOrigins needs API keys, not noAuth');
  const origins = new Set(allowOrigins);
  const log = (line) => {
    try {
      logger?.(line);
    } catch {
      // a log that fails changes no answer
    }
  };
  if (!Number.isSafeInteger(deadlineMs) || deadlineMs <= 0) throw new TypeError('apiHandler: deadlineMs must be a positive integer');
  // Each key's digest, and the id that names it in versions (the key itself is never recorded).
  const digests = Promise.all(
    entries.map(async (e) => {
      const digest = await sha256(e.key);
      return { digest, workspace: e.workspace, keyId: `apikey_${hex(digest).slice(0, 24)}` };
    }),
  );
  // The digest of each key that was accepted, so a client does not pay a hash on
  // every request. Only configured keys get in: at most one entry per key, whatever
  // a client sends.
  const accepted = new Map();
  // The engine's cap on a request body (`MAX_API_BODY_BYTES`), refused here before it is read whole.
  const maxBody = core.defaults().maxApiBodyBytes;
  if (!Number.isSafeInteger(maxBody) || maxBody <= 0) throw new TypeError('apiHandler: the engine gave no maximum body size');

  /** The actor a request acts as, or an error answer. */
  async function authenticate(request) {
    if (noAuth) {
      const refusal = loopbackRefusal(request, loopbackHosts);
      return refusal ? { fail: refusal, status: 403 } : { actor: undefined, workspace: DEFAULT_WORKSPACE };
    }
    // The SDK (1.12) sends its apiKey as "Authorization: Bearer"; curl users send x-api-key.
    const key = request.headers.get('x-api-key') || bearer(request.headers.get('authorization'));
    if (!key) return { fail: NO_KEY };
    const digest = accepted.get(key) ?? (await sha256(key));
    let matched;
    // Every key is compared, so the time taken does not tell which one matched.
    for (const d of await digests) if (sameDigest(d.digest, digest)) matched ??= d;
    if (matched === undefined) return { fail: BAD_KEY };
    const { workspace, keyId } = matched;
    accepted.set(key, digest);
    // As the SDK documents: a key of one workspace may omit the header; if sent, it must match.
    const named = request.headers.get('anthropic-workspace-id');
    if (named !== null && named !== workspace) return { fail: OTHER_WORKSPACE, status: 403 };
    return { actor: { type: 'api_actor', api_key_id: keyId }, workspace };
  }

  async function listAll(catalog, query) {
    const records = [];
    for (const id of await catalog.ids()) {
      let store;
      try {
        store = await catalog.open(id);
      } catch (e) {
        // One damaged or foreign store is left out of the list, not a 500 for all.
        if (!(e instanceof UnusableStore)) throw e;
        log(`memory store ${id} left out: ${e.message}`);
        continue;
      }
      if (!store) continue; // dropped since it was listed
      const r = await store.api({ op: 'store.retrieve', query: {}, body: null });
      if (r.status === 200) records.push(r.body);
    }
    return listStores(records, query);
  }

  async function dispatch(request) {
    const auth = await authenticate(request);
    if (auth.fail) return { status: auth.status ?? 401, body: auth.fail };
    // A key never sees, lists or changes another workspace's stores: they are not in its catalog.
    const catalog = catalogOf(auth.workspace);
    const url = new URL(request.url);
    const match = matchRoute(url.pathname);
    if (!match) return { status: 404, body: NOT_FOUND_ROUTE };
    const op = match.route.methods[request.method];
    if (!op) {
      const allow = Object.keys(match.route.methods).join(', ');
      return {
        status: 405,
        headers: { allow },
        body: errorBody('invalid_request_error', `${request.method} is not allowed here; this route takes ${allow}.`),
      };
    }
    const q = queryOf(url);
    if (q.error) return { status: 400, body: q.error };
    // Keyed, a page cannot send the key without a preflight, and a body that is not
    // JSON meets the engine's own parse error; without keys, it is refused unread.
    const bodied = request.method !== 'GET' && request.method !== 'HEAD';
    const type = bodied ? request.headers.get('content-type') : null;
    if (noAuth && type !== null && !isJson(type)) return { status: 415, body: NOT_JSON };
    const read = await readBody(request, maxBody);
    if (read.tooLarge) return { status: 413, body: TOO_LARGE(maxBody) };
    if (noAuth && type === null && read.text !== null) return { status: 415, body: NOT_JSON };
    if (read.bad) return { status: 400, body: BAD_BODY };
    const engineRequest = { op, query: q.query, body: read.text };
    if (auth.actor) engineRequest.actor = auth.actor;

    if (op === 'store.list') return listAll(catalog, q.query);
    if (op === 'store.create') {
      const made = await catalog.create();
      if (made.refused) return { status: 400, body: errorBody('invalid_request_error', made.refused) };
      const { id, store } = made;
      let answer;
      try {
        answer = await store.api({ ...engineRequest, id });
      } finally {
        // A store the engine did not create leaves no storage behind.
        if (!(answer?.status >= 200 && answer.status < 300)) await catalog.drop(id);
      }
      return answer;
    }
    const store = await catalog.open(match.store);
    if (!store) return { status: 404, body: NO_STORE };
    if (match.id !== undefined) engineRequest.id = match.id;
    // A store deleted meanwhile (through another instance, or closed by a delete
    // through this one) fails in its store or is closed: gone, not broken.
    let answer;
    try {
      answer = await store.api(engineRequest);
    } catch (e) {
      if (!(await stillThere(catalog, match.store))) return { status: 404, body: NO_STORE };
      throw e;
    }
    if (answer.status >= 500 && !(await stillThere(catalog, match.store))) return { status: 404, body: NO_STORE };
    if (op === 'store.delete' && answer.status >= 200 && answer.status < 300) await catalog.drop(match.store);
    return answer;
  }

  // `/mcp?store=ID`: the MCP server over one store of the key's workspace, behind
  // the same keys and loopback checks; `mcp(memory, request, actor)` answers it,
  // its writes on behalf of the key's actor (undefined without keys).
  const MCP_BODY = core.defaults().maxInputBytes + 64 * 1024;
  async function mcpRoute(request) {
    const auth = await authenticate(request);
    if (auth.fail) return { status: auth.status ?? 401, body: auth.fail };
    const params = new URL(request.url).searchParams;
    const id = params.get('store');
    if (!id) return { status: 400, body: MCP_NEEDS_STORE };
    // `tools=records`: seed 002's records toolset in place of the memory-store one.
    const tools = params.get('tools') ?? 'store';
    if (tools !== 'store' && tools !== 'records') return { status: 400, body: MCP_BAD_TOOLS };
    const read = await readBody(request, MCP_BODY);
    if (read.tooLarge) return { status: 413, body: TOO_LARGE(MCP_BODY) };
    if (read.bad) return { status: 400, body: BAD_BODY };
    const catalog = catalogOf(auth.workspace);
    const store = await catalog.open(id);
    if (!store || !(await stillThere(catalog, id))) return { status: 404, body: NO_STORE };
    const headers = new Headers();
    for (const [name, value] of request.headers) {
      if (name.toLowerCase() === 'content-length') continue;
      try {
        headers.append(name, value);
      } catch {
        // a header a web Request cannot carry (the server's parser took it): dropped
      }
    }
    const again = new Request(request.url, { method: request.method, headers, body: read.text ?? undefined });
    // Its writes name the key's actor, as the API's do (none without keys).
    return { response: await mcp(store, again, auth.actor, tools) };
  }

  /** The origin of a page allowed to call with a key (CORS), or null. */
  function allowedOrigin(request) {
    const origin = request.headers.get('origin');
    return origin !== null && (origins.has('*') || origins.has(origin)) ? origin : null;
  }

  return async function answer(request) {
    const origin = allowedOrigin(request);
    if (origin === null) return respond(request);
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      return { status: 204, headers: { ...corsHeaders(origin), ...PREFLIGHT }, text: null };
    }
    const answered = await respond(request);
    if (answered.response) {
      for (const [k, v] of Object.entries(corsHeaders(origin))) answered.response.headers.set(k, v);
    } else {
      Object.assign(answered.headers, corsHeaders(origin));
    }
    return answered;
  };

  async function respond(request) {
    const route = mcp && new URL(request.url).pathname === '/mcp' ? mcpRoute : dispatch;
    let answer;
    let timer;
    // A request still running at the deadline, an API route's or /mcp's, is answered
    // 504; its work may still finish (a write commits whole or not at all), and the
    // others go on meanwhile.
    const late = new Promise((resolve) => {
      timer = setTimeout(() => resolve({ status: 504, body: errorBody('api_error', PAST_DEADLINE(deadlineMs)) }), deadlineMs);
    });
    try {
      answer = await Promise.race([route(request), late]);
      if (!answer || !(answer.response || Number.isInteger(answer.status))) throw new Error('no answer');
    } catch (e) {
      log(`${request.method} ${new URL(request.url).pathname} failed: ${e instanceof Error ? e.message : String(e)}`);
      answer = { status: 500, body: errorBody('api_error', INTERNAL) };
    } finally {
      clearTimeout(timer);
    }
    return answer.response ? answer : plainAnswer(answer);
  }
}

/**
 * Whether `catalog` still holds store `id`, asked again (`has`); a catalog without
 * `has`, or one that cannot answer now, is taken at its word from `open`.
 */
async function stillThere(catalog, id) {
  if (typeof catalog.has !== 'function') return true;
  return catalog.has(id).catch(() => true);
}

/** Whether `text` is exactly an origin: `http(s)://host[:port]`, nothing after. */
function isOrigin(text) {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === text;
  } catch {
    return false;
  }
}

/** What a browser needs to hand an allowed page the answer. */
const corsHeaders = (origin) => ({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'request-id', vary: 'Origin' });
/** A preflight's answer: the methods and headers the API's clients send. */
const PREFLIGHT = {
  'access-control-allow-methods': METHODS,
  'access-control-allow-headers': 'x-api-key, authorization, anthropic-version, anthropic-beta, anthropic-workspace-id, content-type',
  'access-control-max-age': '600',
};

/** A route's `{status, headers?, body}` as the answer every route gives: `{status, headers, text}`. */
function plainAnswer(answer) {
  const headers = {};
  for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name.toLowerCase()] = value;
  headers['content-type'] = JSON_TYPE;
  headers['request-id'] = requestId();
  // No 4xx answers differently when sent again (a 409 is a precondition or a
  // path, not a lock), so the SDK's retry of 409s is switched off.
  if (answer.status >= 400 && answer.status < 500) headers['x-should-retry'] = 'false';
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  return { status: answer.status, headers, text };
}

/** An answer (`apiAnswerer`'s) as a web Response. */
function responseOf(answer) {
  return answer.response ?? new Response(answer.text, { status: answer.status, headers: answer.headers });
}

const NOT_HTTP = errorBody('invalid_request_error', 'The request is not valid HTTP/1.1.');
const HEADERS_TOO_LARGE = errorBody('request_too_large', 'The request headers are too large.');

/**
 * The answer to bytes a server could not parse as a request at all (`headersTooLarge`:
 * its header section is over the server's limit): a 431 or 400 in the API's error object.
 */
export function unparsable(headersTooLarge) {
  return headersTooLarge ? plainAnswer({ status: 431, body: HEADERS_TOO_LARGE }) : plainAnswer({ status: 400, body: NOT_HTTP });
}

/** Methods a fetch Request refuses to carry (and the API never serves), in any case. */
export function isForbiddenMethod(method) {
  return ['TRACE', 'CONNECT', 'TRACK'].includes(method.toUpperCase());
}

/**
 * The answer to a request a server could not hand to the fetch handler at all (a
 * method fetch cannot carry, such as TRACE or CONNECT, or a target that is no URL):
 * `method` is the request's own; a 405 or 400 in the API's error object.
 */
export function unservable(method) {
  if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,32}$/.test(method ?? '') || isForbiddenMethod(method)) {
    const known = /^[A-Za-z]{1,32}$/.test(method ?? '') ? method : 'This method';
    return plainAnswer({ status: 405, headers: { allow: METHODS }, body: errorBody('invalid_request_error', `${known} is not a method this API serves.`) });
  }
  return plainAnswer({ status: 400, body: BAD_TARGET });
}
