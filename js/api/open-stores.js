// The stores a server's catalog keeps open. Each open store holds an engine with
// its caches, so a server with many stores would hold them all: past the engine's
// maxOpenStores the least recently used is let go, and closed a while later
// (storeCloseDelayMs, twice the API deadline), so a request still using it finishes
// first, for at most maxOpenStores let go at once. A request for it afterwards opens
// it again. So a catalog holds at most twice maxOpenStores engines.
import { defaults } from '../core.js';

/** Closes an open store (a promise of a memory), whatever became of its opening. */
function closeOpened(p) {
  return p.then(
    (m) => m.close(),
    () => {},
  );
}

/**
 * A map of id -> Promise<Memory>, least recently used first, holding at most `max`;
 * `get` and `set` count as use. What it lets go is closed `closeDelayMs` later.
 */
export function openStores({ max = defaults().maxOpenStores, closeDelayMs = defaults().storeCloseDelayMs } = {}) {
  const open = new Map();
  const letGo = new Map(); // timer -> the store it closes
  const release = (p) => {
    const timer = setTimeout(() => {
      letGo.delete(timer);
      closeOpened(p);
    }, closeDelayMs);
    timer.unref?.();
    letGo.set(timer, p);
    // At most `max` waiting too (a round over every store lets many go at once): the
    // longest waiting is closed now, a command under way on it still finishing.
    for (const [oldest, q] of letGo) {
      if (letGo.size <= max) break;
      clearTimeout(oldest);
      letGo.delete(oldest);
      closeOpened(q);
    }
  };
  return {
    get(id) {
      const p = open.get(id);
      if (p) {
        open.delete(id);
        open.set(id, p);
      }
      return p;
    },
    set(id, p) {
      open.delete(id);
      open.set(id, p);
      for (const [oldest, q] of open) {
        if (open.size <= max) break;
        open.delete(oldest);
        release(q);
      }
    },
    /** Forgets `id` if `p` is what is open for it (a failed opening), without closing it. */
    forget(id, p) {
      if (open.get(id) === p) open.delete(id);
    },
    /** Forgets `id` without closing it; answers what was open. */
    delete(id) {
      const p = open.get(id);
      open.delete(id);
      return p;
    },
    get size() {
      return open.size;
    },
    /** Closes every store, open or let go. */
    async closeAll() {
      const all = [...open.values(), ...letGo.values()];
      for (const timer of letGo.keys()) clearTimeout(timer);
      open.clear();
      letGo.clear();
      await Promise.all(all.map(closeOpened));
    },
  };
}
