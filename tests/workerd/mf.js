// Starts real workerd through miniflare on the package's own files, with no bundler.
//
// Miniflare hands workerd a list of modules; workerd resolves every import against
// module names, and resolves a bare `memdir` relative to the importing module
// (`examples/worker/src/index.js` asks for `examples/worker/src/memdir`). So the
// list is walked from the entry by following static imports, and each bare
// `memdir` (or `memdir/server`) becomes a one-line module beside its importer that
// re-exports the package's `workerd` entry for it, read from package.json's exports
// as a bundler would.

import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** A secret for the tests only. */
export const AUTH_SECRET = 'test-secret-for-memdir-workerd-suite-0123456789';
/** API keys for the memory-store routes, tests only. */
export const API_KEYS = ['test-key-memdir-one', 'test-key-memdir-two'];
/** A key of another workspace, configured as KEY=WORKSPACE. */
export const TEAM_KEY = 'test-key-memdir-team';
const KEYS_SECRET = [...API_KEYS, `${TEAM_KEY}=team-b`].join(',');
export const COMPATIBILITY_DATE = '2026-04-20';

function workerdEntry(subpath = '.') {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  // A condition names its file directly or through {types, default}.
  const condition = pkg.exports?.[subpath]?.workerd;
  const entry = typeof condition === 'string' ? condition : condition?.default;
  if (typeof entry !== 'string') throw new Error(`package.json has no exports["${subpath}"].workerd`);
  return join(root, entry);
}

// Static imports and re-exports, at the start of a line as every module here
// writes them: `import x from '…'`, `export * from '…'`, `import '…'`. Nothing
// between the keyword and `from` may be a quote, so a string such as `'import'`
// inside code is never taken for one.
const IMPORT = /^(?:import|export)\b(?:[^'"`;]*?\bfrom)?\s*['"]([^'"]+)['"]/gm;

/** Every module reachable from `entry` by static imports, as miniflare module definitions. */
export function modulesFrom(entry) {
  const seen = new Map();
  const visit = (file) => {
    if (seen.has(file)) return;
    if (file.endsWith('.wasm')) {
      seen.set(file, { type: 'CompiledWasm', path: file });
      return;
    }
    const source = readFileSync(file, 'utf8');
    seen.set(file, { type: 'ESModule', path: file, contents: source });
    for (const [, spec] of source.matchAll(IMPORT)) {
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else if (spec === 'memdir' || spec.startsWith('memdir/')) {
        // `memdir` or one of its subpaths (`memdir/server`), as package.json maps it.
        const pkgEntry = workerdEntry(spec === 'memdir' ? '.' : `.${spec.slice('memdir'.length)}`);
        const alias = join(dirname(file), spec);
        let target = relative(dirname(alias), pkgEntry);
        if (!target.startsWith('.')) target = `./${target}`;
        seen.set(alias, { type: 'ESModule', path: alias, contents: `export * from '${target}';\n` });
        visit(pkgEntry);
      } else if (!spec.startsWith('cloudflare:') && !spec.startsWith('node:')) {
        throw new Error(`${relative(root, file)} imports ${spec}, which this loader cannot resolve`);
      }
    }
  };
  visit(resolve(entry));
  return [...seen.values()];
}

/**
 * Miniflare running `entry` (default: the test harness around the example service).
 * `persist`: a directory for Durable Object storage, so a second instance sees the data.
 * `bindings`: more environment for the Worker (upkeep settings, say).
 */
export function start({ entry = join(root, 'tests/workerd/harness.js'), persist, secret = AUTH_SECRET, bindings = {} } = {}) {
  return new Miniflare({
    modulesRoot: root,
    modules: modulesFrom(entry),
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { AUTH_SECRET: secret, MEMDIR_API_KEYS: KEYS_SECRET, ...bindings },
    durableObjects: {
      MEMORY: { className: 'TestMemoryObject', useSQLite: true },
      STORES: { className: 'StoreTestObject', useSQLite: true },
      STORES_KV: { className: 'StoreTestObjectKv' },
      MEMORY_STORE: { className: 'TestMemoryStoreObject', useSQLite: true },
      MEMORY_CATALOG: { className: 'StoreCatalogObject', useSQLite: true },
    },
    kvNamespaces: ['KV'],
    ...(persist ? { durableObjectsPersist: persist } : {}),
  });
}

/**
 * Bundles examples/worker as a deploy would (`wrangler deploy --dry-run`) into `out`;
 * returns wrangler's log and the bundle's module files.
 */
export function bundleExample(out) {
  const log = execFileSync(join(root, 'node_modules/.bin/wrangler'), ['deploy', '--dry-run', '--outdir', out], {
    cwd: join(root, 'examples/worker'),
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: join(out, 'logs'), NO_COLOR: '1' },
    encoding: 'utf8',
  });
  const files = readdirSync(out).filter((f) => f.endsWith('.js') || f.endsWith('.wasm'));
  return { log, files };
}

/** Miniflare options serving the bundle in `out` as examples/worker/wrangler.toml describes it. */
export function bundleOptions(out) {
  return {
    scriptPath: join(out, 'index.js'),
    modulesRoot: out,
    modules: true,
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings: { AUTH_SECRET, MEMDIR_API_KEYS: KEYS_SECRET },
    durableObjects: {
      MEMORY: { className: 'MemoryObject', useSQLite: true },
      MEMORY_STORE: { className: 'MemoryStoreObject', useSQLite: true },
      MEMORY_CATALOG: { className: 'StoreCatalogObject', useSQLite: true },
    },
  };
}
