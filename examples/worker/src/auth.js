// Bearer tokens, one per user and with an end:
//   base64url(userId) "." expiry "." base64url(HMAC-SHA256(secret, base64url(userId) "." expiry))
// where expiry is the Unix time in seconds (decimal) after which the token is refused.
//
// The service keeps no token list: the HMAC secret (AUTH_SECRET) signs the user id
// and the expiry together, so a token names its own user and its own end, and nobody
// without the secret can make one for another user or move its end. A token leaked
// from a log stops working by itself: TOKEN_LIFETIME_SECONDS after it was minted by
// default, and mintToken makes none that runs longer than MAX_TOKEN_LIFETIME_SECONDS.
// To end every token at once, rotate the secret. Verification uses
// crypto.subtle.verify, which compares in constant time. Plain WebCrypto, so the
// same module mints tokens in Node (mint-token.mjs).

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A user id is 1 to 256 bytes of UTF-8. */
export const MAX_USER_ID_BYTES = 256;
/** The shortest secret the service accepts, in characters. */
export const MIN_SECRET_LENGTH = 32;
const SIGNATURE_BYTES = 32;
/** A longer Authorization header is refused before any decoding. */
const MAX_TOKEN_CHARS = 1024;
/**
 * How long a minted token is good for, unless the minter asks otherwise: one day,
 * long enough for a working session, short enough that a leaked token soon stops.
 */
export const TOKEN_LIFETIME_SECONDS = 24 * 60 * 60;
/** The longest lifetime mintToken gives a token: no token it makes lives for ever. */
export const MAX_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;
/** An expiry is the decimal Unix time in seconds, without leading zeros. */
const EXPIRY = /^[1-9][0-9]{0,11}$/;

function toBase64url(bytes) {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Strict base64url without padding; one encoding per byte string, or null. */
function fromBase64url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return toBase64url(bytes) === text ? bytes : null;
}

const keys = new Map();

function hmacKey(secret) {
  let key = keys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
    keys.set(secret, key);
  }
  return key;
}

/**
 * The token for `userId` under `secret`, good for `lifetimeSeconds` (1 second to
 * MAX_TOKEN_LIFETIME_SECONDS; TOKEN_LIFETIME_SECONDS when not given) from `now`
 * (milliseconds since the epoch).
 */
export async function mintToken(secret, userId, { lifetimeSeconds = TOKEN_LIFETIME_SECONDS, now = Date.now() } = {}) {
  const id = encoder.encode(userId);
  if (typeof userId !== 'string' || id.length === 0 || id.length > MAX_USER_ID_BYTES) {
    throw new RangeError(`a user id must be 1 to ${MAX_USER_ID_BYTES} bytes`);
  }
  if (!Number.isSafeInteger(lifetimeSeconds) || lifetimeSeconds < 1 || lifetimeSeconds > MAX_TOKEN_LIFETIME_SECONDS) {
    throw new RangeError(`a token's lifetime must be 1 to ${MAX_TOKEN_LIFETIME_SECONDS} seconds`);
  }
  const signed = `${toBase64url(id)}.${Math.floor(now / 1000) + lifetimeSeconds}`;
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), encoder.encode(signed)));
  return `${signed}.${toBase64url(signature)}`;
}

/**
 * What a token says at `now` (milliseconds since the epoch): `{ userId }` when it was
 * minted with `secret` and has not expired, `{ expired: true }` when it was minted
 * with `secret` but its expiry is past (from the expiry's second on), or null when
 * it was not minted with `secret`. Only a token the secret signed is told apart as
 * expired, so the answer says nothing about a forgery.
 */
export async function verifyToken(secret, token, now = Date.now()) {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return null;
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [idText, expiry, signatureText] = parts;
  const id = fromBase64url(idText);
  const signature = fromBase64url(signatureText);
  if (!id || !signature || id.length === 0 || id.length > MAX_USER_ID_BYTES || signature.length !== SIGNATURE_BYTES) {
    return null;
  }
  if (!EXPIRY.test(expiry)) return null;
  const signed = encoder.encode(`${idText}.${expiry}`);
  if (!(await crypto.subtle.verify('HMAC', await hmacKey(secret), signature, signed))) return null;
  let userId;
  try {
    userId = strictUtf8.decode(id);
  } catch {
    return null;
  }
  if (now / 1000 >= Number(expiry)) return { expired: true };
  return { userId };
}

/** The bearer token of an Authorization header, or null when there is none. */
export function bearerToken(header) {
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header ?? '');
  return m ? m[1] : null;
}
