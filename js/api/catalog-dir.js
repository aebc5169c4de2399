// The catalog of memory stores that `memdir serve` keeps on the local disk: one
// memdir directory store (js/stores/directory.js) per memory store, in a
// subdirectory of the root named by the store's id. The engine makes the ids and
// keeps everything inside a store; this file only finds, makes and removes the
// subdirectories, and refuses any id that is not a plain name before it can reach
// a path.
import * as fss from 'node:fs';
import { join, resolve } from 'node:path';
import * as memdir from '../node.js';

/** The most memory stores one catalog holds (docs/serve.md). */
export const MAX_STORES = 1000;
const DIR_MODE = 0o700;
// A subdirectory name the catalog may open: what it makes (the engine's store ids
// are letters, digits and "_"), never "", ".", "..", a separator or a dot file.
const PLAIN_NAME = /^[A-Za-z0-9_]{1,128}$/;
const ACTOR = 'memdir-serve';

/**
 * The catalog over the directory `root` (made, mode 0700, when missing), with at
 * most `maxStores` stores. Each store is opened once and kept open.
 */
export function directoryCatalog(root, { maxStores = MAX_STORES } = {}) {
  if (typeof root !== 'string' || root === '') throw new TypeError('directoryCatalog expects a directory path');
  if (!Number.isSafeInteger(maxStores) || maxStores < 1) throw new RangeError('directoryCatalog: maxStores must be a positive integer');
  const base = resolve(root);
  const open = new Map(); // id -> Promise<Memory>
  let turn = Promise.resolve(); // creates, one at a time, so the cap holds

  function ensureRoot() {
    fss.mkdirSync(base, { recursive: true, mode: DIR_MODE });
  }

  /** The store ids present: plain names of real subdirectories, sorted, at most maxStores. */
  function presentIds() {
    let entries;
    try {
      entries = fss.readdirSync(base, { withFileTypes: true });
    } catch (e) {
      if (e.code === 'ENOENT') return [];
      throw e;
    }
    return entries
      .filter((d) => d.isDirectory() && PLAIN_NAME.test(d.name))
      .map((d) => d.name)
      .sort()
      .slice(0, maxStores);
  }

  function exists(id) {
    try {
      const st = fss.lstatSync(join(base, id));
      return st.isDirectory(); // lstat: a symlink is not a store
    } catch {
      return false;
    }
  }

  function openStore(id) {
    let p = open.get(id);
    if (!p) {
      p = memdir.openMemory({ store: memdir.directoryStore(join(base, id)), actor: ACTOR });
      open.set(id, p);
      p.catch(() => open.delete(id));
    }
    return p;
  }

  return {
    /** The directory the catalog keeps (for the operator; never sent to a client). */
    path: base,

    async create() {
      const made = turn.then(async () => {
        ensureRoot();
        if (presentIds().length >= maxStores) {
          return { refused: `This server holds at most ${maxStores} memory stores; delete one to create another.` };
        }
        for (;;) {
          const id = memdir.newStoreId();
          if (!PLAIN_NAME.test(id)) throw new Error('the engine made a store id that is not a plain name');
          try {
            fss.mkdirSync(join(base, id), { mode: DIR_MODE });
          } catch (e) {
            if (e.code === 'EEXIST') continue; // taken: another id
            throw e;
          }
          return { id, store: await openStore(id) };
        }
      });
      turn = made.catch(() => {});
      return made;
    },

    async open(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return null;
      if (!open.has(id) && !exists(id)) return null;
      return openStore(id);
    },

    async ids() {
      return presentIds();
    },

    async drop(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return;
      const p = open.get(id);
      open.delete(id);
      if (p) {
        try {
          (await p).close();
        } catch {
          // never opened: nothing to close
        }
      }
      fss.rmSync(join(base, id), { recursive: true, force: true });
    },

    /** Closes every open store. */
    async close() {
      const all = [...open.values()];
      open.clear();
      for (const p of all) {
        try {
          (await p).close();
        } catch {
          // never opened
        }
      }
    },
  };
}
