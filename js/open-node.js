// openMemory as Node's entries export it: core.js's, opening a directory store first.
// Its own module, so the directory catalog (api/catalog-dir.js) opens stores as the
// Node entry does without importing the entry.
import { encryptStore as encryptAnyStore, openMemory as openOnAnyStore } from './core.js';
import { writesInTurn } from './turn.js';
import { DirectoryStore } from './stores/store-dir.js';

/**
 * openMemory (see core.js), opening a directory store first: a directory that is
 * not a store this version can open is refused here, with its problem, rather than
 * failing every command later.
 */
export async function openMemory(options = {}) {
  if (Array.isArray(options?.mounts)) {
    // Each mounted directory is opened (checked) before the memory is.
    const mounts = [];
    for (const m of options.mounts) {
      let store = await m?.store;
      if (store instanceof DirectoryStore) store = await store.engineStore();
      mounts.push(m !== null && typeof m === 'object' ? { ...m, store } : m);
    }
    return openOnAnyStore({ ...options, mounts });
  }
  const store = await options?.store;
  if (!(store instanceof DirectoryStore)) return openOnAnyStore(options);
  const memory = await openOnAnyStore({ ...options, store: await store.engineStore() });
  const rekey = memory.rekey.bind(memory);
  Object.defineProperty(memory, 'rekey', {
    value: (o) => sweptAfter(store, () => rekey(o)),
    writable: true,
    configurable: true,
  });
  // Each call that may write in the directory's turn, shared with memdir-host (see
  // inTurn); reads take part in no race, so they skip the turn's lock file.
  return writesInTurn(memory, (fn) => store.inTurn(fn));
}

/**
 * `run()` (a re-encryption, in the directory's turn), then the temporaries older
 * than it swept: those the runs killed before it left, which may hold values they
 * were moving in clear.
 */
async function sweptAfter(store, run) {
  const started = Date.now();
  const done = await run();
  await store.sweepTemporaries(Date.now() - started);
  return done;
}

/**
 * encryptStore (see core.js); a directory store is encrypted as the engine runs on
 * it (its engineStore), in the directory's turn, so no memdir process sharing it
 * writes between the steps, and what killed runs left is swept after (sweptAfter).
 */
export async function encryptStore(store, encryption) {
  const given = await store;
  if (!(given instanceof DirectoryStore)) return encryptAnyStore(given, encryption);
  return given.inTurn(async () => {
    const handle = await given.engineStore();
    return sweptAfter(given, () => encryptAnyStore(handle, encryption));
  });
}
