// Sync's carrier: each request the engine makes (memdir::sync) goes out as one
// HTTP request of the Memory Stores API, spelled by the engine (glue.syncHttp),
// and its answer comes back as {status, body}. The engine decides everything
// else; here are only fetch, the key, a timeout, a size bound on answers, and
// no redirect followed.
import { glue } from './glue.js';
import { readBody } from './read-body.js';

let defaultsCache;
/** `{baseUrl, timeoutMs, maxAnswerBytes}`, from the engine. */
export function syncDefaults() {
  defaultsCache ??= Object.freeze(JSON.parse(glue.syncDefaults()));
  return defaultsCache;
}

const STORE_ID = /^memstore_[A-Za-z0-9_]{1,120}$/;

/**
 * The checked options of a sync and the name its record is kept under:
 * `{baseURL, apiKey, storeId, fetch, mount}` (`mount`: which store of a memory
 * with several, as the API's requests name it; '' for a store opened alone).
 */
export function syncOptions(options) {
  const { baseURL = syncDefaults().baseUrl, apiKey, storeId, fetch: fetchFn = globalThis.fetch, mount = '' } = options ?? {};
  let base;
  try {
    base = new URL(baseURL);
  } catch {
    throw new TypeError('sync: baseURL must be an http or https URL');
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError('sync: baseURL must be an http or https URL');
  if (typeof apiKey !== 'string' || apiKey.length === 0 || apiKey.length > 1024 || /[\r\n]/.test(apiKey)) {
    throw new TypeError('sync: apiKey must be the remote\'s API key (a non-empty string)');
  }
  if (typeof storeId !== 'string' || !STORE_ID.test(storeId)) throw new TypeError('sync: storeId must be a memory store id (memstore_…)');
  if (typeof fetchFn !== 'function') throw new TypeError('sync: fetch must be a function (globalThis.fetch is missing)');
  if (typeof mount !== 'string') throw new TypeError('sync: mount must be the name of a mount (a string)');
  const root = base.href.replace(/\/+$/, '');
  return { root, apiKey, storeId, fetch: fetchFn, mount, name: `${root} ${storeId}` };
}

/**
 * The engine's remote: one request (JSON text) to the JSON text of {status, body};
 * rejects when no answer came (network failure, timeout, an answer over the bound
 * or not JSON), which stops the sync with what it had done kept.
 */
export function remoteCaller({ root, apiKey, storeId, fetch: fetchFn }) {
  const { timeoutMs, maxAnswerBytes } = syncDefaults();
  return async (requestText) => {
    const http = JSON.parse(glue.syncHttp(requestText, storeId));
    const headers = { ...http.headers, 'x-api-key': apiKey };
    if (http.body !== null) headers['content-type'] = 'application/json';
    const response = await fetchFn(`${root}${http.target}`, {
      method: http.method,
      headers,
      body: http.body ?? undefined,
      signal: AbortSignal.timeout(timeoutMs),
      // No redirect is followed: fetch would send the key (Node's, x-api-key even
      // to another origin), the listing and the body on to wherever it points.
      // 'manual' rather than 'error', which workerd does not implement.
      redirect: 'manual',
    });
    // Passed on as it is, unread, for the engine to refuse: a 3xx, or a browser's
    // opaque redirect (status 0, nothing of it readable).
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => {});
      return JSON.stringify({ status: response.status, body: null });
    }
    const read = await readBody(response, maxAnswerBytes);
    if (read.tooLarge || read.bad) throw new Error('not an answer of the Memory Stores API');
    const body = read.text === null ? null : JSON.parse(read.text);
    return JSON.stringify({ status: response.status, body });
  };
}
