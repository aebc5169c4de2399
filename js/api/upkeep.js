// The upkeep of a server's stores (docs/serve.md#upkeep): each round gives every
// store a retention pass (versions past the retention period go, unless one holds
// a live memory's current content), then gc, which deletes what no kept commit
// reaches once it has been unreachable for `minAgeMs`. Servers pass their round's
// interval as that age, so instances sharing a database, each on its own timer,
// never delete a write another has in flight.

/** Retention passes one store gets in a round at most; each reads a bounded number of slots. */
export const MAX_RETAIN_PASSES = 10;

/**
 * One round over every store of `catalogs`. `retentionMs` null keeps every version
 * (gc still runs). A store that cannot be opened, or fails, is skipped and named
 * in `log`; the round goes on. `stopped()` true ends the round before the next
 * store (a server shutting down). Resolves {stores, dropped, deleted}.
 */
export async function upkeepRound(catalogs, { retentionMs, minAgeMs, keepCommits, log = () => {}, stopped = () => false }) {
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
        for (let pass = 0; retentionMs !== null && pass < MAX_RETAIN_PASSES; pass++) {
          const r = await memory.retain({ olderThanMs: retentionMs });
          report.dropped += r.dropped;
          if (!r.more) break;
        }
        report.deleted += (await memory.gc({ keepCommits, minAgeMs })).deleted;
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
