// Shared set-up for the Playwright suites: Debian's Chromium driven by
// playwright-core (never a downloaded browser), and the explorer's own server.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { bundleSdkIfNeeded, serve } from '../../www/serve.mjs';

/** Where the suites leave screenshots and downloads for a person to look at. */
export const OUT = join(resolve(dirname(fileURLToPath(import.meta.url)), '..', '..'), 'target', 'browser-test');

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export function launch() {
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}

/** The server on a free port: `{ url, close }`, with the page's SDK bundle made if stale. */
export async function server() {
  await bundleSdkIfNeeded();
  return serve({ port: 0 });
}

/**
 * For a node:test suite: the server and Chromium started before its tests and
 * closed after them. Returns `{ browser, url, openExplorer }`, `browser` and `url`
 * filled in when the hook has run, so read them inside a test, not at the
 * module's top level.
 */
export function useBrowser() {
  const env = {
    browser: undefined,
    url: undefined,
    /**
     * A new page of `context` on the explorer (www/) at `search` (`?memory=…#tab`),
     * once it says it is ready; `setUp(page)` runs before it loads. Returns
     * `{ page, errors }`, `errors` its uncaught errors.
     */
    async openExplorer(context, search, setUp) {
      const page = await context.newPage();
      await page.setViewportSize({ width: 1440, height: 860 });
      await setUp?.(page);
      const errors = watchErrors(page);
      await page.goto(`${env.url}/www/${search}`);
      await page.waitForSelector('body[data-ready="true"]');
      return { page, errors };
    },
  };
  let srv;
  before(async () => {
    mkdirSync(OUT, { recursive: true });
    srv = await server();
    env.url = srv.url;
    env.browser = await launch();
  });
  after(async () => {
    await env.browser?.close();
    await srv?.close();
  });
  return env;
}

/** Fails the test on any uncaught page error, instead of letting it pass silently. */
export function watchErrors(page, errors = []) {
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}

/**
 * Runs in the page (pass it to page.evaluate, which sends its source): the origin's
 * IndexedDB read raw through the IndexedDB API, every database (or only the one
 * named), object store, key and value, in cursor order. One
 * `{ name, version, stores: { [store]: [[key, value], ...] } }` a database, in
 * `indexedDB.databases()` order. Bytes become `{ bytes: hex }` and dates
 * `{ date: iso }`; objects keep their fields, so any change to any record shows.
 */
export async function readIndexedDb(only) {
  const request = (r) =>
    new Promise((ok, fail) => {
      r.onsuccess = () => ok(r.result);
      r.onerror = () => fail(r.error);
    });
  const hex = (u8) => Array.from(u8, (b) => b.toString(16).padStart(2, '0')).join('');
  const plain = (x) => {
    if (x instanceof ArrayBuffer) return { bytes: hex(new Uint8Array(x)) };
    if (ArrayBuffer.isView(x)) return { bytes: hex(new Uint8Array(x.buffer, x.byteOffset, x.byteLength)) };
    if (Array.isArray(x)) return x.map(plain);
    if (x instanceof Date) return { date: x.toISOString() };
    if (x !== null && typeof x === 'object') return Object.fromEntries(Object.entries(x).map(([k, v]) => [k, plain(v)]));
    return x;
  };
  const out = [];
  for (const { name } of await indexedDB.databases()) {
    if (only !== undefined && name !== only) continue;
    const db = await request(indexedDB.open(name));
    const stores = {};
    for (const store of db.objectStoreNames) {
      const records = [];
      const cursor = db.transaction(store, 'readonly').objectStore(store).openCursor();
      await new Promise((ok, fail) => {
        cursor.onerror = () => fail(cursor.error);
        cursor.onsuccess = () => {
          const c = cursor.result;
          if (!c) return ok();
          records.push([plain(c.key), plain(c.value)]);
          c.continue();
        };
      });
      stores[store] = records;
    }
    db.close();
    out.push({ name, version: db.version, stores });
  }
  return out;
}
