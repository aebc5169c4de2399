// Serves the Vite build in argv[2] on loopback and loads it in headless Chromium
// (Debian's, through playwright-core): first `?step=create`, then a plain load of
// the same origin, which must find the file in IndexedDB. Prints both answers as JSON.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { chromium } from 'playwright-core';

const root = normalize(process.argv[2]);
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
const server = createServer((req, res) => {
  let file = normalize(join(root, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  if (file.endsWith(sep)) file = join(file, 'index.html');
  if (!file.startsWith(root + sep) || !existsSync(file) || !statSync(file).isFile()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
  createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const load = async (href) => {
    await page.goto(href);
    await page.waitForFunction(() => window.result !== undefined, null, { timeout: 30_000 });
    return page.evaluate(() => window.result);
  };
  const created = await load(`${url}?step=create`);
  const reloaded = await load(url);
  console.log(JSON.stringify({ created, reloaded, errors }));
} finally {
  await browser.close();
  server.close();
}
