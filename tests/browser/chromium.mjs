// Shared set-up for the Playwright suites: Debian's Chromium driven by
// playwright-core (never a downloaded browser), and the explorer's own server.
import { chromium } from 'playwright-core';
import { bundleSdkIfNeeded, serve } from '../../www/serve.mjs';

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

/** Fails the test on any uncaught page error, instead of letting it pass silently. */
export function watchErrors(page, errors = []) {
  page.on('pageerror', (e) => errors.push(e.message));
  return errors;
}
