// What every catalog of memory stores shares, in the engine's words: a page of
// stores and a new store id. Only a server runs them (apiHandler, the directory and
// PostgreSQL catalogs), so the browser's build does not carry them: the Node and
// workerd entries export them.
import { glue } from '../glue.js';

/**
 * One page of memory stores from their records (each what `store.retrieve`
 * answered), newest first, filtered and paged by `query` (`include_archived`,
 * `created_at[gte]`, `created_at[lte]`, `limit`, `page`, as URL strings).
 * Resolves nothing asynchronously: returns `{status, body}`.
 */
export function listStores(records, query = {}) {
  return JSON.parse(glue.listStores(JSON.stringify(records), JSON.stringify(query)));
}

/** A new random memory store id (`memstore_…`). */
export function newStoreId() {
  const random = new Uint8Array(15);
  crypto.getRandomValues(random);
  return glue.newStoreId(random);
}
