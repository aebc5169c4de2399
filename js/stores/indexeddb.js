// The browser's IndexedDB store, for the two browser entries (browser.js and the
// lean tool.js), each over its own build's glue (glue.js).
import { glue } from '../glue.js';

/**
 * A memory kept in this origin's IndexedDB, in database `memdir:{name}`; every tab
 * that opens the same name shares it without losing writes. Native: no JS runs
 * per store operation, and each command writes in one readwrite transaction.
 * Both builds read and write the same stores.
 */
export function indexedDbStore(name = 'default') {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200) {
    throw new TypeError('indexedDbStore expects a name: a string of 1 to 200 characters');
  }
  return glue.indexedDbStore(name);
}
