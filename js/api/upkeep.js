// The upkeep of a server's stores (docs/serve.md#upkeep-version-retention-and-gc):
// each store gets a retention pass (versions past the retention period go, unless
// one holds a live memory's current content), then gc, which deletes what no kept
// commit reaches once it has been unreachable for `minAgeMs`. Servers pass their
// round's interval as that age, so instances sharing a database, each on its own
// timer, never delete a write another has in flight. `memdir serve` runs rounds over
// its catalogs; the edge example runs `upkeepStore` in each store object's alarm.

/** Retention passes one store gets in a round at most; each reads a bounded number of slots. */
export const MAX_RETAIN_PASSES = 10;

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration as flags and settings write it (`30d`, `12h`, `500ms`) in milliseconds;
 * `off` as null when `off` is allowed. Anything else throws a RangeError naming `what`.
 */
export function parseDuration(what, text, { off = false } = {}) {
  if (off && text === 'off') return null;
  const m = /^(\d{1,15})(ms|s|m|h|d)$/.exec(typeof text === 'string' ? text : '');
  const n = m ? Number(m[1]) * UNIT_MS[m[2]] : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new RangeError(`${what} needs a duration: a positive whole number and a unit, ms, s, m, h or d (30d)${off ? ', or off' : ''}`);
  }
  return n;
}

/** `ms` written as parseDuration reads it, in its largest whole unit (`2592000000` -> `30d`). */
export function formatDuration(ms) {
  const [unit, size] = Object.entries(UNIT_MS)
    .reverse()
    .find(([, size]) => ms % size === 0);
  return `${ms / size}${unit}`;
}

/**
 * One store's upkeep: up to MAX_RETAIN_PASSES retention passes (none when
 * `retentionMs` is null), then gc. Resolves {dropped, deleted}.
 */
export async function upkeepStore(memory, { retentionMs, minAgeMs, keepCommits }) {
  let dropped = 0;
  for (let pass = 0; retentionMs !== null && pass < MAX_RETAIN_PASSES; pass++) {
    const r = await memory.retain({ olderThanMs: retentionMs });
    dropped += r.dropped;
    if (!r.more) break;
  }
  const { deleted } = await memory.gc({ keepCommits, minAgeMs });
  return { dropped, deleted };
}

/**
 * One round over every store of `catalogs`. A store that cannot be opened, or
 * fails, is skipped and named in `log`; the round goes on. `stopped()` true ends
 * the round before the next store (a server shutting down). Resolves {stores,
 * dropped, deleted}.
 */
export async function upkeepRound(catalogs, { log = () => {}, stopped = () => false, ...settings }) {
  const report = { stores: 0, dropped: 0, deleted: 0 };
  for (const catalog of catalogs) {
    let ids;
    try {
      ids = await catalog.ids();
    } catch (e) {
      log(`upkeep: cannot list the stores (${e?.kind ?? e?.name ?? 'error'})`);
      continue;
    }
    for (const id of ids) {
      if (stopped()) return report;
      try {
        const memory = await catalog.open(id);
        if (!memory) continue; // deleted meanwhile
        const r = await upkeepStore(memory, settings);
        report.dropped += r.dropped;
        report.deleted += r.deleted;
        report.stores += 1;
      } catch (e) {
        // The kind only: a backend's text or a path stays out of the log.
        log(`upkeep: store ${id} skipped (${e?.kind ?? e?.name ?? 'error'})`);
      }
    }
  }
  return report;
}

/**
 * Runs `round(stopped)` every `intervalMs` (the first after one interval), never two
 * at once. `stop()` clears the timer, makes `stopped()` true and waits for a round
 * under way (which ends at its next store).
 */
export function everyInterval(round, intervalMs) {
  let running;
  let halted = false;
  const stopped = () => halted;
  const timer = setInterval(() => {
    running ??= Promise.resolve()
      .then(() => round(stopped))
      .catch(() => {})
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref?.();
  return {
    async stop() {
      halted = true;
      clearInterval(timer);
      await running;
    },
  };
}
