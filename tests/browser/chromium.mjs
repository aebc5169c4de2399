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
 * closed after them. Returns `{ browser, url }`, filled in when the hook has run,
 * so read them inside a test, not at the module's top level.
 */
export function useBrowser() {
  const env = { browser: undefined, url: undefined };
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
