// Node entry: the wasm is read from the package and instantiated synchronously, so
// importing memdir is all the set-up there is.
import { readFileSync } from 'node:fs';
import * as nodeBuild from '../dist/node/memdir_wasm.js';
import { openMemory as openOnAnyStore } from './core.js';
import { writesInTurn } from './turn.js';
import { useGlue } from './glue.js';
import { DirectoryStore } from './stores/directory.js';

// The build without the IndexedDB store (Node has no IndexedDB).
nodeBuild.initSync({ module: readFileSync(new URL('../dist/node/memdir_wasm_bg.wasm', import.meta.url)) });
useGlue(nodeBuild);

export * from './core.js';
export { directoryStore, DirectoryStore } from './stores/directory.js';
export { postgresStore, PostgresStoreError } from './stores/postgres.js';
export { apiHandler, keyEntry, keysFrom, requestId, UnusableStore } from './api/http.js';
export { listStores, newStoreId } from './api/catalog.js';
export { formatDuration, parseDuration, upkeepStore } from './api/upkeep.js';
export { directoryCatalog } from './api/catalog-dir.js';

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
  // Each call that may write in the directory's turn, shared with memdir-host (see
  // inTurn); reads take part in no race, so they skip the turn's lock file.
  return writesInTurn(memory, (fn) => store.inTurn(fn));
}
