// How `memdir serve` meets Node's http server: a request as the API's answerer
// (js/api/http.js) reads it, its body read only when asked for, and the answer
// written straight back. No web Request, Headers, stream or Response is made on
// the way: the answerer needs only a few of their parts, and leaving them out cut
// the server's CPU per call by about 30% under `npm run bench:serve`.
import { defaults } from '../js/node.js';
import { isForbiddenMethod, unservable } from '../js/api/http.js';

// A body the answerer refused part-way (or never read) is read on and thrown away
// before the answer goes, so the client gets its 413 (or 403...) rather than a broken
// pipe; past drainMaxBytes, or drainWaitMs, the answer goes and the connection is cut.
// Both are the engine's (src/config.rs), as every limit is.
const { drainMaxBytes: DRAIN_MAX_BYTES, drainWaitMs: DRAIN_WAIT_MS } = defaults();

/**
 * A request's headers as the answerer reads them: `get` and `has` by name in any
 * case, a name sent twice read as its values joined by ", " (as fetch's Headers
 * does), and the pairs when iterated.
 */
class RequestHeaders {
  #values = new Map();

  constructor(raw) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i].toLowerCase();
      const had = this.#values.get(name);
      this.#values.set(name, had === undefined ? raw[i + 1] : `${had}, ${raw[i + 1]}`);
    }
  }

  get(name) {
    return this.#values.get(name.toLowerCase()) ?? null;
  }

  has(name) {
    return this.#values.has(name.toLowerCase());
  }

  [Symbol.iterator]() {
    return this.#values.entries();
  }
}

/**
 * The body of `req`, read a chunk at a time as the answerer asks (the connection is
 * paused between asks, so an unread body is held by the client, not here).
 * Cancelled (the answerer refused it), the rest is drained unheld.
 */
function bodyReader(req) {
  const chunks = [];
  let ended = false;
  let failure;
  let wake;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const onData = (chunk) => {
    chunks.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    req.pause();
    notify();
  };
  const onEnd = () => {
    ended = true;
    notify();
  };
  const onError = (e) => {
    failure ??= e;
    notify();
  };
  // A request whose connection ended before its body did fails the read: Node emits
  // no 'error' for it to a request nobody listened to, and a client may have gone
  // before the body was asked for.
  const onClose = () => onError(new Error('the request ended before its body did'));
  if (req.destroyed && !req.readableEnded) onClose();
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('error', onError);
  req.once('close', onClose);
  req.pause();
  return {
    async read() {
      for (;;) {
        if (chunks.length > 0) return { done: false, value: chunks.shift() };
        if (ended) return { done: true, value: undefined };
        if (failure !== undefined) throw failure;
        await new Promise((resolve) => {
          wake = resolve;
          req.resume();
        });
      }
    },
    async cancel() {
      req.off('data', onData);
      drain(req);
    },
  };
}

const DRAINING = Symbol('draining');

/** Reads the rest of a request body and throws it away, up to DRAIN_MAX_BYTES bytes. */
function drain(req) {
  if (req.complete || req.destroyed || req[DRAINING]) return;
  req[DRAINING] = true;
  req.removeAllListeners('data');
  let drained = 0;
  req.on('data', (chunk) => {
    drained += chunk.byteLength;
    if (drained > DRAIN_MAX_BYTES) req.destroy();
  });
  req.resume();
}

/**
 * Resolves once the body nobody read is drained (drain) to its end, or cut, or after
 * DRAIN_WAIT_MS; at once when it declares more than DRAIN_MAX_BYTES. An answer sent
 * first would close the connection with bytes still arriving, which resets it, and
 * a client still sending then sees that reset (EPIPE) instead of the answer: 9 of
 * 100 refused 4 MiB uploads here. A slow sender holds only its own answer.
 */
function drained(req) {
  if (req.complete || req.destroyed || Number(req.headers['content-length']) > DRAIN_MAX_BYTES) return undefined;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      for (const event of ['end', 'close', 'error']) req.off(event, done);
      resolve();
    };
    const timer = setTimeout(done, DRAIN_WAIT_MS);
    for (const event of ['end', 'close', 'error']) req.once(event, done);
    drain(req);
  });
}

/**
 * A Node request as the answerer reads it (its url resolved against `origin`, as a
 * fetch Request's would be), or, for a method or a target no fetch Request carries,
 * the answer to it (`{answer}`).
 */
export function nodeRequest(req, origin) {
  const method = req.method ?? 'GET';
  if (isForbiddenMethod(method)) return { answer: unservable(method) };
  let url;
  try {
    url = new URL(req.url ?? '/', origin);
  } catch {
    url = new URL('/', origin);
  }
  // A target naming credentials (`http://user:pass@host/...`) is no path this API
  // reads, as no fetch Request carries one.
  if (url.username !== '' || url.password !== '') return { answer: unservable(method) };
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return {
    request: {
      method,
      url: url.href,
      headers: new RequestHeaders(req.rawHeaders),
      body: hasBody ? { getReader: () => bodyReader(req) } : null,
    },
  };
}

/**
 * Writes `answer` (the answerer's: `{status, headers, text}`, or `{response}`) to
 * `res`, once the body nobody read is drained; `closing()`: whether the server is
 * stopping, so this connection takes no further request.
 */
export async function send(res, req, answer, closing) {
  let status;
  let headers;
  let body;
  if (answer.response) {
    body = Buffer.from(await answer.response.arrayBuffer());
    status = answer.response.status;
    headers = Object.fromEntries(answer.response.headers);
  } else {
    body = answer.text ?? '';
    ({ status, headers } = answer);
  }
  await drained(req);
  headers['content-length'] = String(Buffer.byteLength(body));
  if (closing()) headers.connection = 'close';
  res.writeHead(status, headers);
  res.end(body);
  // One declared over the limit, answered at once, is read on until the cut.
  drain(req);
}
