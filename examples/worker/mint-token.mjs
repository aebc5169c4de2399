#!/usr/bin/env node
// Mints a bearer token for one user of the memory service:
//   AUTH_SECRET=... node mint-token.mjs <user-id> [lifetime in seconds]
// The token is refused once its lifetime is over (one day unless given).
import { MAX_TOKEN_LIFETIME_SECONDS, MIN_SECRET_LENGTH, mintToken, TOKEN_LIFETIME_SECONDS } from './src/auth.js';

const secret = process.env.AUTH_SECRET;
const [userId, lifetime = String(TOKEN_LIFETIME_SECONDS), ...rest] = process.argv.slice(2);
const seconds = /^[1-9][0-9]*$/.test(lifetime) ? Number(lifetime) : NaN;
if (!secret || secret.length < MIN_SECRET_LENGTH || !userId || rest.length || !(seconds <= MAX_TOKEN_LIFETIME_SECONDS)) {
  console.error(
    `usage: AUTH_SECRET=<at least ${MIN_SECRET_LENGTH} characters> node mint-token.mjs <user-id> [lifetime: 1 to ${MAX_TOKEN_LIFETIME_SECONDS} seconds, default ${TOKEN_LIFETIME_SECONDS}]`,
  );
  process.exit(2);
}
console.log(await mintToken(secret, userId, { lifetimeSeconds: seconds }));
