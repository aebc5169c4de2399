// One Memory Stores API call on the wire, as the SDK's `client.beta.memoryStores`
// (1.12) sends it: the same method, path, query, JSON body and the headers a server
// may look at (the key as `Authorization: Bearer`, `anthropic-version`, the beta
// flag, `content-type` only with a body), but through plain fetch, so the bench
// does not time the SDK's own work on the client side (retries, its telemetry
// headers, its response wrappers).

const VERSION = '2026-10-21';
const BETA = 'agent-memory-2026-07-22';

/**
 * Sends one call and reads the whole answer within `timeoutMs`. Resolves
 * {status, body (parsed JSON, or undefined), text, ms}; a timeout or a broken
 * connection resolves {status: 0, error} rather than throwing, so a client counts
 * it as any other wrong answer.
 */
export async function call(base, key, method, path, { query, body, timeoutMs }) {
  const headers = {
    accept: 'application/json',
    'anthropic-version': VERSION,
    'anthropic-beta': BETA,
    authorization: `Bearer ${key}`,
  };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const qs = query ? `?${new URLSearchParams(query)}` : '';
  const t0 = performance.now();
  try {
    const res = await fetch(`${base}${path}${qs}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      // left undefined: the check that reads it fails
    }
    return { status: res.status, body: parsed, text, ms };
  } catch (e) {
    const error = e?.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${e?.name ?? 'Error'}: ${e?.cause?.code ?? e?.message ?? e}`;
    return { status: 0, error, text: '', ms: performance.now() - t0 };
  }
}
