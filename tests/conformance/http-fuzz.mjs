// Random requests for the Memory Stores API's HTTP handler, from a seeded PRNG so
// that a failure names its seed and request number and comes back the same: any
// method, path, query, header and body, built from the routes, the ids and page
// tokens the server has handed out so far, and junk. Run against `memdir serve`
// and apiHandler (tests/node/http-fuzz.test.mjs) and the example worker in
// workerd (tests/workerd/http-fuzz.test.mjs); `checkAnswer` is what every answer
// must be.

/** mulberry32: a small PRNG, enough to pick cases; `seed` a 32-bit integer. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

export const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'PROPFIND', 'X-Odd'];
// Each route with the methods it serves (js/api/http.js), weighted toward work.
const STORE_FIELDS = ['name', 'description', 'metadata'];
const MEMORY_FIELDS = ['path', 'content', 'precondition'];
// Each route with the methods it serves (js/api/http.js), weighted toward work,
// and the fields its bodies take.
const ROUTES = [
  [[], ['GET', 'POST', 'POST', 'POST'], STORE_FIELDS],
  [['{store}'], ['GET', 'POST', 'PATCH', 'GET', 'POST', 'PATCH', 'DELETE'], STORE_FIELDS],
  [['{store}', 'archive'], ['GET', 'DELETE', 'PATCH', 'PUT', 'GET', 'DELETE', 'PATCH', 'POST'], []],
  [['{store}', 'memories'], ['GET', 'POST', 'POST', 'POST'], MEMORY_FIELDS],
  [['{store}', 'memories'], ['GET', 'POST'], MEMORY_FIELDS],
  [['{store}', 'memories'], ['POST'], MEMORY_FIELDS],
  [['{store}', 'memories'], ['POST'], MEMORY_FIELDS],
  [['{store}', 'memories', 'search'], ['GET'], []],
  [['{store}', 'memories', '{memory}'], ['GET', 'POST', 'PATCH', 'DELETE'], MEMORY_FIELDS],
  [['{store}', 'memories', '{memory}'], ['GET', 'POST', 'PATCH'], MEMORY_FIELDS],
  [['{store}', 'memory_versions'], ['GET'], []],
  [['{store}', 'memory_versions', '{version}'], ['GET'], []],
  [['{store}', 'memory_versions', '{version}', 'redact'], ['POST'], []],
];
const JUNK_SEGMENTS = ['', '.', '..', '%2e%2e', '%2F', '%00', '%FF', '%E0%A4%A', 'memstore_', 'mem_0', 'memver_x', '\u00e9', '%F0%9F%98%80', 'a'.repeat(300), 'search', 'archive', 'CON', '~', '*'];
const QUERY_NAMES = ['limit', 'page', 'path_prefix', 'order', 'order_by', 'include_archived', 'view', 'memory_id', 'q', 'query', 'depth', 'created_at[gte]', 'before_id', 'after_id', 'x'];
const TEXTS = ['', 'a', 'notes', '/a.md', '/dir/b.md', '/memories/x', 'x'.repeat(70), '\u0000', '\u202e', '\ud800', '😀', ' spaced ', 'line\nbreak', '../etc', '/a/../../b', 'a'.repeat(2000)];
const FIELDS = ['name', 'description', 'metadata', 'path', 'content', 'precondition', 'view', 'type', 'id', 'archived_at', 'memory_store_id', 'content_sha256', 'new_path'];
const CONTENT_TYPES = ['application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'garbage', ''];

/** A random JSON value, at most `depth` levels deep. */
function value(r, world, depth) {
  switch (r.int(depth > 0 ? 9 : 6)) {
    case 0:
      return r.pick(TEXTS);
    case 1:
      return r.pick([0, -1, 1, 1.5, 1e21, 2 ** 53, -0]);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return world.hashes.length > 0 && r.chance(0.5) ? r.pick(world.hashes) : 'f'.repeat(64);
    case 4:
      return `/${r.pick(['a', 'b', 'dir/c', 'dir/d/e'])}.${r.pick(['md', 'txt', 'json'])}`;
    case 5:
      return r.pick(TEXTS) + r.int(1000);
    case 6:
      return Array.from({ length: r.int(4) }, () => value(r, world, depth - 1));
    default: {
      const o = {};
      for (let i = r.int(4); i > 0; i--) o[r.chance(0.7) ? r.pick(FIELDS) : r.pick(TEXTS)] = value(r, world, depth - 1);
      if (r.chance(0.3)) o.type = 'content_sha256';
      return o;
    }
  }
}

/** A body that is mostly a plausible request object, sometimes not JSON or not UTF-8. */
function body(r, world, maxBody, fields) {
  const roll = r.next();
  if (roll < 0.06) return undefined;
  if (roll < 0.1) return r.pick(['{', '{"name":', '[1,2', 'null', '"x"', '1', '{"a":1}{', '\u0000', ' ']);
  if (roll < 0.13) return new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  if (roll < 0.135) return 'x'.repeat(maxBody + 1 + r.int(10));
  const o = {};
  for (const f of fields) {
    if (r.chance(f === 'name' || f === 'path' ? 0.92 : 0.5)) o[f] = r.chance(0.9) ? plausible(r, world, f) : value(r, world, 2);
  }
  if (r.chance(0.15)) o[r.pick(FIELDS)] = value(r, world, 2);
  return JSON.stringify(o);
}

/** A value for field `f` that the engine may well accept. */
function plausible(r, world, f) {
  switch (f) {
    case 'name':
      return `store ${r.int(100)}`;
    case 'description':
      return r.pick(['', 'about things', 'd'.repeat(r.int(3000))]);
    case 'metadata':
      return Object.fromEntries(Array.from({ length: r.int(4) }, (_, i) => [`k${i}`, r.pick(['v', '', 'x'.repeat(600)])]));
    case 'path':
      return world.paths.length > 0 && r.chance(0.4) ? r.pick(world.paths) : `/${r.pick(['a', 'b', 'notes', 'dir/x', 'dir/y/z'])}.md`;
    case 'content':
      return r.pick(['', 'hello', 'line 1\nline 2\n', 'é😀', 'c'.repeat(r.int(5000))]);
    default:
      if (r.chance(0.3)) return { type: 'not_exists' };
      return { type: 'content_sha256', content_sha256: world.hashes.length > 0 && r.chance(0.7) ? r.pick(world.hashes) : '0'.repeat(64) };
  }
}

/** A page token: one the server gave, one changed a little, or made up. */
function pageToken(r, world) {
  const given = world.pages.length > 0 ? r.pick(world.pages) : 'page_x';
  switch (r.int(6)) {
    case 0:
    case 1:
      return given;
    case 2: {
      const i = r.int(given.length);
      return given.slice(0, i) + String.fromCharCode(33 + r.int(90)) + given.slice(i + 1);
    }
    case 3:
      return given.slice(0, r.int(given.length));
    case 4:
      return given + given;
    default:
      return r.pick(['', '0', 'null', 'eyJ9', 'AAAA', '%00', '\u00ff'.repeat(40), 'a'.repeat(5000)]);
  }
}

function idFor(r, known, prefix) {
  if (known.length > 0 && r.chance(0.85)) return r.pick(known);
  if (r.chance(0.3)) return encodeURIComponent(r.pick(JUNK_SEGMENTS).toWellFormed());
  if (r.chance(0.3)) return `${prefix}${r.int(1e6)}`;
  // As they are: an empty segment, dot segments, escapes good and broken.
  return r.pick(JUNK_SEGMENTS.filter((s) => /^[\x21-\x7e]*$/.test(s)));
}

function query(r, world) {
  if (r.chance(0.5)) return '';
  const parts = [];
  for (let i = 1 + r.int(3); i > 0; i--) {
    const name = r.pick(QUERY_NAMES);
    let v;
    if (name === 'page') v = pageToken(r, world);
    else if (name === 'limit') v = String(r.pick([-1, 0, 1, 2, 5, 20, 100, 101, 1e9, 'ten', '1.5', '']));
    else if (name === 'view') v = r.pick(['basic', 'full', 'FULL', '']);
    else if (name === 'path_prefix') v = r.pick(['/', '/dir', '/dir/', 'dir', '', '/a.md', '%']);
    else v = String(value(r, world, 0));
    parts.push(`${r.chance(0.05) ? '%ZZ' : encodeURIComponent(name)}=${r.chance(0.05) ? '%E0%A4' : encodeURIComponent(v.toWellFormed())}`);
  }
  return `?${parts.join('&')}`;
}

/**
 * The next request: `{method, path, headers, body}` (body a string, bytes or
 * undefined). `world` holds what the server handed out ({stores, memories,
 * versions, pages, paths, hashes}); `auth` the headers of a good request
 * ({'x-api-key'} or {host}) and `spoil` a list of header sets that break it;
 * `methods` the methods a request may have off its route (all of METHODS).
 */
export function nextRequest(r, world, { auth, spoil, maxBody, methods = METHODS }) {
  let method = r.pick(methods);
  let path;
  let fields = FIELDS;
  if (r.chance(0.06)) {
    path = r.pick(['/v1', '/v1/memory_stores/', '/v1//memory_stores', '/v1/messages', '/v1/memory_stores/../memory_stores', '/v1/memory_stores/a/b/c/d/e', '/v1/memory_stores/%2e%2e/x']);
  } else {
    // Mostly routes of a store that exists, with the ids of things it holds.
    // Until a store exists, mostly attempts to make one.
    const [route, methods, takes] = world.stores.length < 3 && r.chance(0.5) ? ROUTES[0] : r.pick(ROUTES);
    if (r.chance(0.85)) method = r.pick(methods);
    fields = takes;
    const store = route.length > 0 ? idFor(r, world.stores, 'memstore_') : '';
    const segments = route.map((s) => {
      if (s === '{store}') return store;
      if (s === '{memory}') return idFor(r, world.memories.get(store) ?? [], 'mem_');
      if (s === '{version}') return idFor(r, world.versions.get(store) ?? [], 'memver_');
      return s;
    });
    path = ['/v1/memory_stores', ...segments].join('/');
  }
  const headers = { ...auth };
  if (r.chance(0.08)) Object.assign(headers, r.pick(spoil));
  const hasBody = method !== 'GET' && method !== 'HEAD' && r.chance(0.85);
  const b = hasBody ? body(r, world, maxBody, fields) : undefined;
  if (b !== undefined || r.chance(0.1)) {
    const type = r.pick(CONTENT_TYPES);
    if (type !== '') headers['content-type'] = type;
  }
  if (r.chance(0.05)) headers[r.pick(['x-junk', 'accept', 'anthropic-version', 'x-stainless-retry-count'])] = r.pick(['', '1', 'a'.repeat(2000), '\u00ff']);
  return { method, path: path + query(r, world), headers, body: b };
}

/** The world a run starts from: nothing handed out yet. */
export function emptyWorld() {
  return { stores: [], memories: new Map(), versions: new Map(), pages: [], paths: [], hashes: [] };
}

/** Records the ids, page tokens, paths and hashes in an answer, bounded. */
export function learn(world, json) {
  const keep = (list, v) => {
    if (typeof v === 'string' && !list.includes(v)) {
      list.push(v);
      if (list.length > 50) list.shift();
    }
  };
  const items = Array.isArray(json?.data) ? json.data : [json];
  if (typeof json?.next_page === 'string') keep(world.pages, json.next_page);
  for (const o of items) {
    if (!o || typeof o !== 'object') continue;
    if (o.type === 'memory_store' && typeof o.id === 'string') keep(world.stores, o.id);
    const store = o.memory_store_id;
    if (typeof store !== 'string') continue;
    const list = (m) => {
      if (!m.has(store)) m.set(store, []);
      return m.get(store);
    };
    if (o.type === 'memory') keep(list(world.memories), o.id);
    if (o.type === 'memory_version') keep(list(world.versions), o.id);
    if (typeof o.memory_version_id === 'string') keep(list(world.versions), o.memory_version_id);
    keep(world.paths, o.path);
    keep(world.hashes, o.content_sha256);
  }
  if (json?.type === 'memory_store_deleted') world.stores = world.stores.filter((s) => s !== json.id);
}

/**
 * What is wrong with an answer `{status, headers: Headers, text}` to `request`,
 * or undefined: a 5xx, no request-id, not JSON, an error that is not the API's
 * error object, or text naming `secret` (a host path).
 */
export function checkAnswer(request, { status, headers, text }, { secret } = {}) {
  if (!Number.isInteger(status) || status < 200 || status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
  if (!/^req_[0-9a-f]{24}$/.test(headers.get('request-id') ?? '')) return `request-id ${headers.get('request-id')}`;
  if (headers.get('content-type') !== 'application/json') return `content-type ${headers.get('content-type')}`;
  if (secret && text.includes(secret)) return 'the answer names the host path';
  // A HEAD answer's body is the server's to drop (Node's and workerd's do).
  if (request.method === 'HEAD') return undefined;
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 300)}`;
  }
  if (status >= 400) {
    const ok =
      json?.type === 'error' &&
      Object.keys(json).sort().join() === 'error,type' &&
      typeof json.error?.type === 'string' &&
      typeof json.error?.message === 'string' &&
      json.error.message.length > 0;
    if (!ok) return `not the API error object: ${text.slice(0, 300)}`;
  } else if (json === null || typeof json !== 'object') {
    return `a ${status} that is no object: ${text.slice(0, 300)}`;
  }
  return undefined;
}

/** The request as a line a failure message can show. */
export function describeRequest(request) {
  const b = request.body instanceof Uint8Array ? `<${request.body.length} bytes>` : JSON.stringify(request.body?.slice?.(0, 200));
  return `${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers).slice(0, 300)} ${b}`;
}

/**
 * Sends `count` requests from `seed` through `send(request)` -> {status, headers,
 * text}, learning from each answer; resolves {problems, statuses}: each problem
 * names the seed, the request's number and the request, so it can be replayed.
 */
export async function fuzz({ seed, count, send, auth, spoil, maxBody, secret, methods }) {
  const r = prng(seed);
  const world = emptyWorld();
  const problems = [];
  const statuses = {};
  for (let i = 0; i < count; i++) {
    const request = nextRequest(r, world, { auth, spoil, maxBody, methods });
    let answer;
    try {
      answer = await send(request);
    } catch (e) {
      problems.push(`seed ${seed} #${i}: no answer (${e?.message ?? e}) to ${describeRequest(request)}`);
      continue;
    }
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    const wrong = checkAnswer(request, answer, { secret });
    if (wrong) problems.push(`seed ${seed} #${i}: ${wrong} for ${describeRequest(request)}`);
    else if (answer.status < 300 && request.method !== 'HEAD') learn(world, JSON.parse(answer.text));
    if (problems.length >= 5) break;
  }
  return { problems, statuses, world };
}
