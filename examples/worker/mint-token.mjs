#!/usr/bin/env node
// Mints a bearer token for one user of the memory service:
//   AUTH_SECRET=... node mint-token.mjs <user-id>
import { mintToken, MIN_SECRET_LENGTH } from './src/auth.js';

const secret = process.env.AUTH_SECRET;
const userId = process.argv[2];
if (!secret || secret.length < MIN_SECRET_LENGTH || !userId) {
  console.error(`usage: AUTH_SECRET=<at least ${MIN_SECRET_LENGTH} characters> node mint-token.mjs <user-id>`);
  process.exit(2);
}
console.log(await mintToken(secret, userId));
