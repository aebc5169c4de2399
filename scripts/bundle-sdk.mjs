#!/usr/bin/env node
// The official @anthropic-ai/sdk as one ES module for the browser agent page
// (www/agent.js): Vite bundles the SDK's own ESM build with the `browser`
// conditions (its package.json swaps out its Node-only modules) into
// www/vendor/anthropic-sdk.js, which `npm start` serves. Rebuilt only when the
// installed SDK or this script changed (a stamp beside the bundle records both).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(root, 'www', 'vendor');
export const SDK_BUNDLE = join(outDir, 'anthropic-sdk.js');
const stampFile = join(outDir, '.stamp');

function stamp() {
  const pkg = join(root, 'node_modules', '@anthropic-ai', 'sdk', 'package.json');
  if (!existsSync(pkg)) throw new Error('node_modules/@anthropic-ai/sdk is missing: run npm ci');
  const { version } = JSON.parse(readFileSync(pkg, 'utf8'));
  const script = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url))).digest('hex');
  return `${version} ${script}`;
}

/** Whether the bundle is missing or was made from another SDK or script. */
export function sdkBundleStale() {
  return !existsSync(SDK_BUNDLE) || !existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp();
}

/** Bundles the SDK into www/vendor/ when stale (a few seconds); a no-op otherwise. */
export async function bundleSdkIfNeeded() {
  if (!sdkBundleStale()) return;
  const want = stamp();
  const { build } = await import('vite');
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    resolve: { conditions: ['browser'] },
    build: {
      lib: {
        entry: fileURLToPath(import.meta.resolve('@anthropic-ai/sdk')),
        formats: ['es'],
        fileName: () => 'anthropic-sdk.js',
      },
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      // One file: the page imports it as is, with no chunk names to keep in step.
      rollupOptions: { output: { inlineDynamicImports: true } },
    },
  });
  writeFileSync(stampFile, want);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await bundleSdkIfNeeded();
  console.error(`${SDK_BUNDLE} is up to date`);
}
