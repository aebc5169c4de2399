// A memory service for agents at the edge: one Durable Object per user, each
// holding that user's /memories in its own storage; and the Memory Stores API
// (/v1/memory_stores…, src/stores.js), one Durable Object per memory store.
//
//   POST /memory   Authorization: Bearer <token>   Content-Type: application/json
//   body: a memory tool input, e.g. {"command":"view","path":"/memories"}
//   200 {"content": "...", "is_error": false}      the command ran
//   422 {"content": "Error: ...", "is_error": true} the command was refused; the body
//       is still the tool result to hand back to the model
//   4xx/5xx {"error": "<code>", "message": "..."}  the request never reached the engine
//
// The Worker checks everything about the HTTP request (route, credentials, content
// type, size, encoding) and hands only the verified user id and the body text to
// that user's object, so a token can reach no object but its own user's.

import { DurableObject } from 'cloudflare:workers';
import { openMemory, durableObjectStore } from 'memdir';
import { bearerToken, MIN_SECRET_LENGTH, verifyToken } from './auth.js';
import { memoryStores } from './stores.js';

export { MemoryStoreObject, StoreCatalogObject } from './stores.js';

/**
 * The largest body taken. A create at the engine's 100 KiB per-file limit can take
 * six times that in JSON (`\u0001` escapes), and str_replace carries two strings.
 */
const MAX_BODY_BYTES = 2 * 1024 * 1024;

const JSON_TYPE = 'application/json; charset=utf-8';

function reply(status, body, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

function refuse(status, error, message, headers) {
  return reply(status, { error, message }, headers);
}

/** `application/json`, with no charset or a UTF-8 one. */
function isJson(contentType) {
  const [type, ...params] = (contentType ?? '').split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => !p.startsWith('charset=') || /^charset="?utf-8"?$/.test(p));
}

/** The body as text, or a Response saying why not; reads no more than MAX_BODY_BYTES. */
async function readBody(request) {
  const tooLarge = () =>
    refuse(413, 'body_too_large', `The request body is over the limit of ${MAX_BODY_BYTES.toLocaleString('en-US')} bytes.`);
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) return tooLarge();
  const parts = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        return tooLarge();
      }
      parts.push(value);
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse(400, 'invalid_encoding', 'The request body is not valid UTF-8.');
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    // All of /v1 is the API's: a path it does not serve gets its 404, in its words.
    if (url.pathname === '/v1' || url.pathname.startsWith('/v1/')) {
      return memoryStores(request, env);
    }
    if (url.pathname !== '/memory') return refuse(404, 'not_found', 'Not found: this service answers POST /memory.');
    if (request.method !== 'POST') {
      return refuse(405, 'method_not_allowed', 'Use POST /memory with a memory tool input as the JSON body.', { allow: 'POST' });
    }
    const secret = env.AUTH_SECRET;
    if (typeof secret !== 'string' || secret.length < MIN_SECRET_LENGTH) {
      // Never serve without a real secret: an empty one would let anyone mint tokens.
      return refuse(500, 'not_configured', `The service has no AUTH_SECRET of at least ${MIN_SECRET_LENGTH} characters.`);
    }
    const token = bearerToken(request.headers.get('authorization'));
    if (token === null) {
      return refuse(401, 'unauthorized', 'Send the credentials: an Authorization: Bearer <token> header.', {
        'www-authenticate': 'Bearer realm="memdir"',
      });
    }
    const verified = await verifyToken(secret, token);
    if (verified === null) {
      return refuse(401, 'invalid_token', 'The bearer token is not valid.', {
        'www-authenticate': 'Bearer realm="memdir", error="invalid_token"',
      });
    }
    if (verified.expired) {
      // RFC 6750 names an expired token invalid_token too; the message says which.
      return refuse(401, 'invalid_token', 'The bearer token has expired: mint a new one.', {
        'www-authenticate': 'Bearer realm="memdir", error="invalid_token", error_description="The token expired"',
      });
    }
    const { userId } = verified;
    if (!isJson(request.headers.get('content-type'))) {
      return refuse(415, 'unsupported_media_type', 'Send the tool input with Content-Type: application/json.');
    }
    const body = await readBody(request);
    if (body instanceof Response) return body;
    const memory = env.MEMORY.get(env.MEMORY.idFromName(userId));
    let result;
    try {
      result = await memory.execute(userId, body);
    } catch (e) {
      // Durable Objects mark transient failures (an overloaded or restarting object).
      if (e?.retryable || e?.overloaded) {
        return refuse(503, 'unavailable', 'The memory service is busy; try again.', { 'retry-after': '1' });
      }
      return refuse(500, 'internal', 'The memory service failed to run the command.');
    }
    return reply(result.is_error ? 422 : 200, result);
  },
};

/** One user's memory directory, in this object's own storage. */
export class MemoryObject extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.memory = this.open();
  }

  /** The memory over this object's storage (a promise); `options` as for openMemory. */
  open(options) {
    return openMemory({ ...options, store: durableObjectStore(this.ctx.storage) });
  }

  /**
   * Runs one tool input (JSON text) for `userId`. The Worker already verified the
   * user; this object checks once more that it is that user's object, so a bug in
   * routing cannot let one user's request into another's memory.
   */
  async execute(userId, input) {
    if (typeof userId !== 'string' || !this.ctx.id.equals(this.env.MEMORY.idFromName(userId))) {
      throw new Error('This request is for another user\'s memory.');
    }
    // The body text goes to the engine as is, so malformed JSON gets its own message.
    return (await this.memory).executeJson(input);
  }
}
