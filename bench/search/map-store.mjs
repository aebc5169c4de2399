// The store bench/search sums memdir's index bytes on: the JS store protocol
// (js/index.d.ts, JsStore) over a Map.

/**
 * A JS store over a Map that answers at once, so the bytes under `index/` can be
 * summed; its keys also kept sorted (binary search), so a listing costs what it lists.
 */
export function mapStore() {
  const data = new Map();
  const keys = [];
  const at = (key) => {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const put = (key, value) => {
    if (!data.has(key)) keys.splice(at(key), 0, key);
    data.set(key, value.slice());
  };
  const same = (a, b) => (a == null ? b == null : b != null && a.length === b.length && a.every((x, i) => x === b[i]));
  return {
    data,
    get: (key) => data.get(key) ?? null,
    set: (key, value) => put(key, value),
    delete(key) {
      if (data.delete(key)) keys.splice(at(key), 1);
    },
    list(prefix, cursor) {
      const out = [];
      for (let i = Math.max(at(prefix), cursor == null ? 0 : at(`${cursor}\0`)); i < keys.length && keys[i].startsWith(prefix); i++) out.push(keys[i]);
      return { keys: out, cursor: null };
    },
    compareAndSwap(key, expected, value) {
      if (!same(data.get(key), expected)) return false;
      put(key, value);
      return true;
    },
    commit(objects, key, expected, value) {
      if (!same(data.get(key), expected)) return false;
      for (const [k, v] of objects) put(k, v);
      put(key, value);
      return true;
    },
  };
}
