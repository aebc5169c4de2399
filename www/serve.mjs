#!/usr/bin/env node
// `npm start`: builds the package if its wasm is missing or older than the Rust
// sources and bundles the Anthropic SDK for the page if needed, then serves the
// browser agent and memory explorer (www/) and the package it imports (js/, dist/)
// on 127.0.0.1. Also a module: tests and the bench start it on a free port with
// `serve({ port: 0 })`.
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleSdkIfNeeded } from '../scripts/bundle-sdk.mjs';
import { distIsFresh } from '../scripts/fresh.mjs';

export { bundleSdkIfNeeded };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Only these top-level folders are served: the page, the package, its wasm, and
// the browser bench page.
const SERVED = ['www', 'js', 'dist', 'bench'];

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.ts': 'text/plain; charset=utf-8',
};

// The pages may talk to Anthropic's API or to a loopback one (a local proxy, a
// test's fake API) and nothing else: the browser enforces what www/agent.js checks,
// so an API key typed into the page cannot be sent anywhere else. [::1] has no CSP
// host form, so a loopback API is 127.0.0.1 or localhost.
const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self' https://api.anthropic.com http://127.0.0.1:* https://127.0.0.1:* http://localhost:* https://localhost:*",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Whether dist/ is missing or older than the Rust it is built from. */
export function needsBuild() {
  return !distIsFresh(root);
}

export function buildIfNeeded() {
  if (!needsBuild()) return;
  console.error('memdir: building the package (npm run build) ...');
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
}

/** Starts the server; resolves `{ url, close }`. Listens on 127.0.0.1 only. */
export function serve({ port = 8080 } = {}) {
  const server = createServer((req, res) => {
    let path;
    try {
      path = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400).end('bad request');
      return;
    }
    if (path === '/' || path === '/index.html') {
      res.writeHead(302, { location: '/www/' }).end();
      return;
    }
    if (path.endsWith('/')) path += 'index.html';
    let file = normalize(join(root, path));
    const top = file.startsWith(root + sep) ? file.slice(root.length + 1).split(sep)[0] : null;
    // MEMDIR_DIST serves another build as dist/ (to compare builds in the bench).
    const dist = join(root, 'dist');
    if (top === 'dist' && process.env.MEMDIR_DIST) file = join(resolve(process.env.MEMDIR_DIST), file.slice(dist.length));
    if (!SERVED.includes(top) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const html = extname(file) === '.html';
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      ...(html ? { 'content-security-policy': CSP, 'referrer-policy': 'no-referrer' } : {}),
      // Always fresh: a rebuilt dist/ must not meet a cached glue file.
      'cache-control': 'no-store',
      // Cross-origin isolation: every resource is our own, and it gives the bench
      // performance.now() at 5 µs instead of 100 µs.
      'cross-origin-opener-policy': 'same-origin',
      'cross-origin-embedder-policy': 'require-corp',
    });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolveServer, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address();
      resolveServer({
        url: `http://127.0.0.1:${bound}`,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildIfNeeded();
  try {
    await bundleSdkIfNeeded();
  } catch (e) {
    // The explorer works without it; the chat says what is missing.
    console.error(`memdir: the browser agent needs the SDK bundle (${e.message}); the explorer still works`);
  }
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await serve({ port });
  console.log(`memdir: talk to Claude with memory, or explore it, at ${url}/www/  (Ctrl+C to stop)`);
}
