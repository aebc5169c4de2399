// The catalog of memory stores that `memdir serve` keeps on the local disk: one
// memdir directory store (js/stores/store-dir.js) per memory store, in a
// subdirectory of the root named by the store's id. The engine makes the ids and
// keeps everything inside a store; this file only finds, makes and removes the
// subdirectories, and refuses any id that is not a plain name before it can reach
// a path.
//
// Several servers may share one root, and anyone may copy, damage or plant a
// directory there: so a store is opened only when its directory is there at that
// moment (another server may have deleted it), and kept only once its record names
// the id its directory is named by (a copy under another name is someone else's).
//
// With a master key (`sealer`, js/api/seal-stores.js) every store is opened sealed,
// a store is shredded before its directory goes, and a workspace's directory is
// named by a random label (`ws-w…`), not by the workspace's name.
import { randomUUID } from 'node:crypto';
import * as fss from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { defaults, openMemory } from '../core.js';
import { writesInTurn } from '../turn.js';
import { directoryStore } from '../stores/store-dir.js';
import { UnusableStore, WORKSPACE_NAME } from './http.js';
import { newStoreId } from './catalog.js';
import { openStores } from './open-stores.js';
import { LABELS, isSealRefusal, storeSealer, workspaceLabel } from './seal-stores.js';

const DIR_MODE = 0o700;
// A subdirectory name the catalog may open: what it makes (the engine's store ids
// are letters, digits and "_"), never "", ".", "..", a separator or a dot file.
const PLAIN_NAME = /^[A-Za-z0-9_]{1,128}$/;
// What a deleted store's directory is renamed to before it is removed: a dot name,
// so never a store.
const TOMBSTONE = '.deleted-';
const ACTOR = 'memdir-serve';
// Where workspace NAME's stores are: `ws-NAME` under the root.
const WORKSPACE_DIR = 'ws-';

/**
 * Two workspace names that differ only in case: on a case-insensitive file system
 * (macOS's, Windows') `ws-Team` and `ws-team` are one directory, so one workspace's
 * key would reach the other's stores. Refused on every file system, so a catalog
 * moved from one to another keeps its meaning.
 */
export class WorkspaceNameClash extends Error {
  constructor(a, b) {
    super(`workspace names ${JSON.stringify(a)} and ${JSON.stringify(b)} differ only in case: on a case-insensitive file system they would share one directory, so a directory catalog refuses the pair; rename one`);
    this.name = 'WorkspaceNameClash';
  }
}

/**
 * The catalog over the directory `root` (made, mode 0700, when missing), with at
 * most `maxStores` stores. A store is opened once and kept open among the most
 * recently used (`openStores`: `maxOpen`, `closeDelayMs`). `encryption`: the
 * master key (`{key, keyId?}`, as readKeyFile gives it) every store is sealed under.
 * `embedder`: every store's (docs/semantic.md), or none.
 */
export function directoryCatalog(root, { maxStores = defaults().maxStores, encryption, ...openLimits } = {}) {
  return catalogAt(root, { maxStores, ...openLimits }, storeSealer(encryption));
}

function catalogAt(root, { maxStores = defaults().maxStores, ...openLimits }, sealer) {
  if (typeof root !== 'string' || root === '') throw new TypeError('directoryCatalog expects a directory path');
  if (!Number.isSafeInteger(maxStores) || maxStores < 1) throw new RangeError('directoryCatalog: maxStores must be a positive integer');
  const base = resolve(root);
  const open = openStores({ max: openLimits.maxOpen, closeDelayMs: openLimits.closeDelayMs }); // id -> Promise<Memory>, the store's record checked
  let turn = Promise.resolve(); // creates, one at a time, so the cap holds
  const workspaces = new Map(); // name -> its catalog
  const labels = new Map(); // name -> the label its directory is named by (encrypted only)

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

  /** Removes what deleted stores left; one that will not go now is tried at the next drop. */
  function sweepTombstones() {
    let names;
    try {
      names = fss.readdirSync(base);
    } catch {
      return;
    }
    for (const name of names) {
      if (!name.startsWith(TOMBSTONE)) continue;
      try {
        fss.rmSync(join(base, name), { recursive: true, force: true });
      } catch {
        // left for the next drop
      }
    }
  }

  /** The workspace names whose directories are under the root now. */
  function workspaceDirs() {
    let names;
    try {
      names = fss.readdirSync(base);
    } catch (e) {
      if (e.code === 'ENOENT') return [];
      throw e;
    }
    return names.filter((n) => n.startsWith(WORKSPACE_DIR) && WORKSPACE_NAME.test(n.slice(WORKSPACE_DIR.length))).map((n) => n.slice(WORKSPACE_DIR.length));
  }

  /** The paths of the store directories under the root, then under each workspace's directory. */
  function* everyStoreDir() {
    for (const id of presentIds()) yield join(base, id);
    for (const dir of workspaceDirs().sort()) {
      const sub = catalogAt(join(base, `${WORKSPACE_DIR}${dir}`), { maxStores, ...openLimits }, sealer);
      yield* sub.storeDirs();
    }
  }

  function exists(id) {
    try {
      const st = fss.lstatSync(join(base, id));
      return st.isDirectory(); // lstat: a symlink is not a store
    } catch {
      return false;
    }
  }

  /** Store `id`'s directory as the engine is to run on it: sealed (or checked plaintext), and its turn. */
  async function sealedStore(id) {
    const dir = directoryStore(join(base, id));
    return { dir, sealed: await sealer.open(await dir.engineStore()) };
  }

  async function openStore(id) {
    const { dir, sealed } = await sealedStore(id);
    const memory = await openMemory({ store: sealed, actor: ACTOR, embedder: openLimits.embedder });
    // Each call that may write in the directory's turn, as open-node.js does.
    return writesInTurn(memory, (fn) => dir.inTurn(fn));
  }

  /**
   * Crypto-shredding: the wrapped data key of store `id` deleted before anything
   * else of it, so that what a removal leaves (or a disk keeps) can never be read.
   * A store whose directory is gone, or that cannot be opened (its data key is
   * already unreadable), has nothing to shred.
   */
  async function shred(id) {
    if (!sealer.encrypted || !exists(id)) return;
    let sealed;
    try {
      ({ sealed } = await sealedStore(id));
    } catch (e) {
      if (isSealRefusal(e)) return;
      throw e;
    }
    await sealer.shred(sealed);
  }

  /** The store in directory `id`, once its record says it is store `id`; else UnusableStore. */
  async function openChecked(id) {
    let memory;
    try {
      memory = await openStore(id);
    } catch (e) {
      // The engine's refusal of a wrong key, or of a plaintext store on an encrypted
      // server and the reverse, is said as it is.
      if (isSealRefusal(e)) throw new UnusableStore(e.message);
      throw new UnusableStore(`its directory is not a store directory memdir can open (${e?.message ?? e})`);
    }
    let record;
    try {
      record = await memory.api({ op: 'store.retrieve', query: {}, body: null });
    } catch (e) {
      record = { status: 500, body: String(e?.message ?? e) };
    }
    if (record?.status === 200 && record.body?.id === id) return memory;
    memory.close();
    if (record?.status === 200) throw new UnusableStore(`its directory holds the record of another store, ${JSON.stringify(String(record.body?.id))} (a copy?)`);
    throw new UnusableStore(`its directory holds no store record (${record?.status} ${JSON.stringify(record?.body)})`);
  }

  /** Closes and forgets the open store `id`, if it is open. */
  async function forget(id) {
    const p = open.delete(id);
    if (!p) return;
    try {
      (await p).close();
    } catch {
      // never opened: nothing to close
    }
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
          const id = newStoreId();
          if (!PLAIN_NAME.test(id)) throw new Error('the engine made a store id that is not a plain name');
          try {
            fss.mkdirSync(join(base, id), { mode: DIR_MODE });
          } catch (e) {
            if (e.code === 'EEXIST') continue; // taken: another id
            throw e;
          }
          // Its record is made by the engine right after; no check to wait for.
          const p = openStore(id);
          open.set(id, p);
          p.catch(() => open.forget(id, p));
          return { id, store: await p };
        }
      });
      turn = made.catch(() => {});
      return made;
    },

    async open(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return null;
      // Asked every time: another server on this root may have deleted it.
      if (!exists(id)) {
        await forget(id);
        return null;
      }
      let p = open.get(id);
      if (!p) {
        p = openChecked(id);
        open.set(id, p);
        // Not kept when refused: the next request looks again, and reports again.
        p.catch(() => {
          open.forget(id, p);
        });
      }
      return p;
    },

    async ids() {
      return presentIds();
    },

    // Renamed away in one step, then removed: another server's command under way on
    // it fails whole (its paths are gone), and a removal that stops part-way leaves
    // a tombstone no one opens, never a half-deleted store. Each drop sweeps them.
    async drop(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return;
      await forget(id);
      await shred(id);
      try {
        fss.renameSync(join(base, id), join(base, `${TOMBSTONE}${id}-${randomUUID()}`));
      } catch (e) {
        if (e.code !== 'ENOENT') throw e; // gone already: another server deleted it
      }
      sweepTombstones();
    },

    // Asked again after a command on the store failed: another server on this root
    // may have deleted it meanwhile.
    async has(id) {
      if (typeof id !== 'string' || !PLAIN_NAME.test(id)) return false;
      if (exists(id)) return true;
      await forget(id);
      return false;
    },

    /**
     * The catalog of workspace `name`: its own directory `ws-<name>` under the root
     * (a name no store id takes, so the root's own list never shows it), with its
     * own cap. The default workspace's stores stay at the root itself.
     */
    inWorkspace(name) {
      if (typeof name !== 'string' || !WORKSPACE_NAME.test(name)) throw new TypeError('directoryCatalog: not a workspace name');
      if (!workspaces.has(name)) {
        let dir = name;
        if (sealer.encrypted) {
          // Labels are random lower-case hex: two never differ only in case.
          dir = labels.get(name);
          if (dir === undefined) throw new TypeError('directoryCatalog: an encrypted catalog finds a workspace only after ready([name])');
        } else {
          const folded = name.toLowerCase();
          // Those asked for before, and those already on disk (made under another
          // configuration): a name differing only in case from either is refused.
          for (const other of [...workspaces.keys(), ...workspaceDirs()]) {
            if (other !== name && other.toLowerCase() === folded) throw new WorkspaceNameClash(other, name);
          }
        }
        workspaces.set(name, catalogAt(join(base, `${WORKSPACE_DIR}${dir}`), { maxStores, ...openLimits }, sealer));
      }
      return workspaces.get(name);
    },

    /**
     * Makes the catalog ready for the workspaces `names`: on an encrypted catalog,
     * each one's label, read from (or made in) the sealed labels store under the
     * root; `inWorkspace` then finds them. A plaintext catalog needs nothing.
     */
    async ready(names = []) {
      if (!sealer.encrypted) return;
      const wanted = names.filter((n) => !labels.has(n));
      if (wanted.length === 0) return;
      ensureRoot();
      const store = directoryStore(join(base, LABELS));
      const sealed = await sealer.open(await store.engineStore());
      for (const name of wanted) {
        if (typeof name !== 'string' || !WORKSPACE_NAME.test(name)) throw new TypeError('directoryCatalog: not a workspace name');
        labels.set(name, await store.inTurn(() => workspaceLabel(sealed, name)));
      }
    },

    /**
     * Opens one store under the root (the workspace labels store, else the first
     * by name, the root's own before any workspace's), if any, and rejects with
     * the engine's refusal when this catalog's key does not open it (another
     * master key; a plaintext catalog with a key, or the reverse): `memdir serve`
     * asks before anything is written.
     */
    async check() {
      // The labels store first: an encrypted catalog with no store yet has it.
      const labelsDir = join(base, LABELS);
      const first = fss.existsSync(labelsDir) ? { value: labelsDir } : everyStoreDir().next();
      if (first.done) return;
      await sealer.open(await directoryStore(first.value).engineStore());
    },

    /** Every store directory under the root, the workspaces' too. */
    storeDirs: () => everyStoreDir(),

    /**
     * Every store of every workspace, and the labels store, each as `{id, handle,
     * inTurn}` (a store handle of its directory, not sealed), for `memdir serve-rekey`.
     */
    async *everyStore() {
      const labelsDir = join(base, LABELS);
      const dirs = [...(fss.existsSync(labelsDir) ? [labelsDir] : []), ...everyStoreDir()];
      for (const path of dirs) {
        const dir = directoryStore(path);
        yield { id: basename(path), handle: await dir.engineStore(), inTurn: (fn) => dir.inTurn(fn) };
      }
    },

    /** The sealer its stores are opened with (serve-rekey re-wraps with it). */
    sealer,

    /** Closes every open store, each workspace's too. */
    async close() {
      for (const w of workspaces.values()) await w.close();
      workspaces.clear();
      await open.closeAll();
    },
  };
}
