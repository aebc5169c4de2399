// Shared pieces of the Node suites: the stores under test, a counting wrapper that
// proves "no store operation", and the conformance data's tree format.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import * as memdir from 'memdir';

export { memdir };

export const ROOT = new URL('../../', import.meta.url);
export const CONFORMANCE = new URL('tests/conformance/', ROOT);

export function loadJson(name) {
  return JSON.parse(readFileSync(new URL(name, CONFORMANCE), 'utf8'));
}

const temps = [];
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

/** A fresh temporary directory, removed when the test file ends. */
export function tempDir(label = 'memdir-') {
  const d = mkdtempSync(join(tmpdir(), label));
  temps.push(d);
  return d;
}

/**
 * Runs an example script (`examples/NAME`) with `task` as its argument and `env`
 * over an environment without any real Anthropic key or address; resolves
 * `{code, stdout, stderr}`.
 */
export function runExample(name, env, task = 'Remember that my name is Ada.') {
  const clean = { ...process.env };
  delete clean.ANTHROPIC_API_KEY;
  delete clean.ANTHROPIC_BASE_URL;
  const script = fileURLToPath(new URL(`examples/${name}`, ROOT));
  return runNode([script, task], { ...clean, ...env });
}

/**
 * Runs Node on `args` with exactly `env`; resolves `{code, stdout, stderr}` once it
 * exits (killed after `timeoutMs`, if given).
 */
export function runNode(args, env, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (timeoutMs) setTimeout(() => child.kill('SIGKILL'), timeoutMs).unref();
  });
}

/** The JS store protocol over a Map: what an application's own store looks like. */
export class MapStore {
  map = new Map();
  async get(key) {
    return this.plain().get(key);
  }
  async set(key, value) {
    this.plain().set(key, value);
  }
  async delete(key) {
    this.plain().delete(key);
  }
  async list(prefix, cursor) {
    return this.plain().list(prefix, cursor);
  }
  async compareAndSwap(key, expected, value) {
    return this.plain().compareAndSwap(key, expected, value);
  }

  /** The same protocol over the same Map, answering with plain values: no promises. */
  plain() {
    const map = this.map;
    return {
      get(key) {
        const v = map.get(key);
        return v === undefined ? undefined : v.slice();
      },
      set(key, value) {
        map.set(key, value.slice());
      },
      delete(key) {
        map.delete(key);
      },
      list(prefix, cursor) {
        const keys = [...map.keys()].filter((k) => k.startsWith(prefix) && (cursor === undefined || k > cursor)).sort();
        return keys.length > 100 ? { keys: keys.slice(0, 100), cursor: keys[99] } : { keys };
      },
      compareAndSwap(key, expected, value) {
        const cur = map.get(key);
        const same = cur === undefined ? expected === undefined : expected !== undefined && Buffer.compare(cur, expected) === 0;
        if (!same) return false;
        map.set(key, value.slice());
        return true;
      },
    };
  }
}

/** Wraps a protocol store and counts every call, so a test can assert zero. */
export function counting(inner) {
  const counter = { ops: 0 };
  const store = {};
  for (const m of ['get', 'set', 'delete', 'list', 'compareAndSwap', 'commit']) {
    if (typeof inner[m] !== 'function') continue;
    store[m] = (...args) => {
      counter.ops += 1;
      return inner[m](...args);
    };
  }
  return { store, counter };
}

/**
 * The stores every suite runs on. `make()` returns {store, counter?}: counter is
 * absent for the native memory store, whose operations never leave the wasm.
 */
export const STORES = {
  memory: () => ({ store: memdir.inMemoryStore() }),
  directory: () => counting(memdir.directoryStore(join(tempDir('memdir-dir-'), 'store'))),
  custom: () => counting(new MapStore()),
};

/**
 * The stores the conformance data and the hidden paths run on encrypted at rest
 * too (docs/encryption.md): `make()` returns {store, counter?, encryption}, the
 * answers being the same as on a plaintext store.
 */
const TEST_KEY = Uint8Array.from({ length: 32 }, (_, i) => 0xa5 ^ i);
export const ENCRYPTED_STORES = {
  'encrypted memory': () => ({ store: memdir.inMemoryStore(), encryption: { key: TEST_KEY } }),
  'encrypted custom': () => ({ ...counting(new MapStore()), encryption: { key: TEST_KEY } }),
};

/** A conformance file value: a string, or {repeat, times}. */
export function fileValue(v) {
  return typeof v === 'string' ? v : v.repeat.repeat(v.times);
}

/** A conformance tree ({files, dirs}) as import entries. */
export function treeEntries(tree = {}) {
  const entries = [];
  for (const [path, v] of Object.entries(tree.files ?? {})) entries.push({ path, content: fileValue(v) });
  for (const path of tree.dirs ?? []) entries.push({ path });
  return entries;
}

/** A tree in the conformance format, normalised for comparison. */
export function normalTree(tree = {}) {
  const files = {};
  for (const [path, v] of Object.entries(tree.files ?? {})) files[path] = fileValue(v);
  return { files, dirs: [...(tree.dirs ?? [])].sort() };
}

/** `memory.entries()` in the conformance format: only childless directories listed. */
export function treeOf(entries) {
  const files = {};
  const dirs = [];
  for (const e of entries) {
    if (e.content !== undefined) files[e.path] = e.content;
    else if (!entries.some((o) => o.path.startsWith(`${e.path}/`))) dirs.push(e.path);
  }
  return { files, dirs: dirs.sort() };
}

// `memdir serve` in a child process, shared with bench/serve/.
export { MEMDIR_BIN, startServe } from './child-server.mjs';

/**
 * Whether `name` in the store directory `dir` is one of this process's spare files,
 * which it keeps while it runs (js/stores/store-dir.js, Spares; their own tests are
 * in store-dir.test.mjs): a spare lock file, or the empty file made ahead for the
 * next pack (one holding anything is not a spare: a pack left behind).
 */
export function isOwnSpare(name, dir) {
  if (name.startsWith(`.tmp-lock-${process.pid}-`)) return true;
  return name.startsWith(`.tmp-stage-${process.pid}-`) && statSync(join(dir, name)).size === 0;
}

/** The hidden names (locks, temporaries) in the store directory `dir` but for this process's spares: what a change may not leave behind. */
export function hiddenNames(dir) {
  return readdirSync(dir).filter((f) => f.startsWith('.') && !isOwnSpare(f, dir));
}
