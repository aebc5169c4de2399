// Bearer tokens, one per user: base64url(userId) "." base64url(HMAC-SHA256(secret, userId)).
//
// The service keeps no token list: the HMAC secret (AUTH_SECRET) signs the user id,
// so a token names its own user and nobody without the secret can make one for
// another user. Verification uses crypto.subtle.verify, which compares in constant
// time. Plain WebCrypto, so the same module mints tokens in Node (mint-token.mjs).

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A user id is 1 to 256 bytes of UTF-8. */
export const MAX_USER_ID_BYTES = 256;
/** The shortest secret the service accepts, in characters. */
export const MIN_SECRET_LENGTH = 32;
const SIGNATURE_BYTES = 32;
/** A longer Authorization header is refused before any decoding. */
const MAX_TOKEN_CHARS = 1024;

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

/** The token for `userId` under `secret`. */
export async function mintToken(secret, userId) {
  const id = encoder.encode(userId);
  if (typeof userId !== 'string' || id.length === 0 || id.length > MAX_USER_ID_BYTES) {
    throw new RangeError(`a user id must be 1 to ${MAX_USER_ID_BYTES} bytes`);
  }
  const signature = new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(secret), id));
  return `${toBase64url(id)}.${toBase64url(signature)}`;
}

/** The user id a token was minted for, or null when it was not minted with `secret`. */
export async function verifyToken(secret, token) {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS) return null;
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const id = fromBase64url(parts[0]);
  const signature = fromBase64url(parts[1]);
  if (!id || !signature || id.length === 0 || id.length > MAX_USER_ID_BYTES || signature.length !== SIGNATURE_BYTES) {
    return null;
  }
  if (!(await crypto.subtle.verify('HMAC', await hmacKey(secret), signature, id))) return null;
  try {
    return strictUtf8.decode(id);
  } catch {
    return null;
  }
}

/** The bearer token of an Authorization header, or null when there is none. */
export function bearerToken(header) {
  const m = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(header ?? '');
  return m ? m[1] : null;
}
