// kvStore(namespace): the JS store protocol on Workers KV.
//
// WARNING, and the reason this store warns at run time: Workers KV is eventually
// consistent. A write can take up to a minute to reach other locations, and KV has
// no atomic compare-and-swap, so the swap here is a read, a comparison and a write:
// atomic only against other commands in this isolate (they share a lock), not
// against another isolate or location. Two writers can lose each other's updates,
// and a reader elsewhere can see a head before the objects it names. Use it only
// with a single writer; for several writers use durableObjectStore. KV also allows
// about one write per second to one key, so each memory takes about one command
// per second.

import { equalBytes, exclusive } from './shared.js';

/** Workers KV caps a key at 512 bytes (values may be 25 MiB, far above any record). */
const MAX_KEY_BYTES = 512;
/** KV's largest page. */
const PAGE = 1000;

const encoder = new TextEncoder();
let warned = false;

/**
 * @param {KVNamespace} namespace a Workers KV binding
 * @param {{ prefix?: string }} [options] a namespace inside the KV namespace
 */
export function kvStore(namespace, options = {}) {
  if (namespace === null || typeof namespace !== 'object' || typeof namespace.get !== 'function' || typeof namespace.list !== 'function') {
    throw new TypeError('kvStore(namespace) needs a Workers KV namespace binding');
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string') throw new TypeError('kvStore: options.prefix must be a string');
  if (!warned) {
    warned = true;
    console.warn(
      'memdir: kvStore uses Workers KV, which is eventually consistent and has no atomic compare-and-swap: ' +
        'it is safe only with a single writer. Use durableObjectStore for several writers.',
    );
  }

  const full = (key) => {
    if (typeof key !== 'string') throw new TypeError('a key must be a string');
    const k = prefix + key;
    if (encoder.encode(k).length > MAX_KEY_BYTES) throw new RangeError('key over the Workers KV key size limit');
    return k;
  };

  async function get(key) {
    const buf = await namespace.get(full(key), { type: 'arrayBuffer' });
    return buf === null ? undefined : new Uint8Array(buf);
  }

  async function set(key, value) {
    if (!(value instanceof Uint8Array)) throw new TypeError('a value must be a Uint8Array');
    await namespace.put(full(key), value);
  }

  async function compareAndSwap(key, expected, value) {
    return exclusive(namespace, async () => {
      if (!equalBytes(await get(key), expected)) return false;
      await set(key, value);
      return true;
    });
  }

  return {
    get,
    set,
    async delete(key) {
      await namespace.delete(full(key));
    },

    // KV resumes a listing only from its own opaque cursor, while the protocol wants
    // cursors that sort after the page's keys. So the cursor is the page's last key,
    // a NUL (which no key contains, so it still sorts below every later key) and
    // KV's cursor.
    async list(listPrefix, cursor) {
      let kvCursor;
      if (typeof cursor === 'string') {
        const at = cursor.indexOf('\0');
        if (at < 0) throw new TypeError('not a cursor of this store');
        kvCursor = cursor.slice(at + 1);
      }
      for (;;) {
        const page = await namespace.list({ prefix: full(listPrefix), limit: PAGE, ...(kvCursor ? { cursor: kvCursor } : {}) });
        const keys = page.keys.map((k) => k.name.slice(prefix.length));
        if (page.list_complete) return { keys };
        // KV may answer an empty page that is not the last; the protocol forbids that.
        if (keys.length === 0) {
          kvCursor = page.cursor;
          continue;
        }
        return { keys, cursor: `${keys[keys.length - 1]}\0${page.cursor}` };
      }
    },

    compareAndSwap,

    // The head is checked first so a refused commit writes nothing, then the objects
    // go out before the head, so the head never names something not yet written.
    async commit(objects, key, expected, value) {
      return exclusive(namespace, async () => {
        if (!equalBytes(await get(key), expected)) return false;
        await Promise.all(objects.map(([k, v]) => set(k, v)));
        await set(key, value);
        return true;
      });
    },
  };
}
