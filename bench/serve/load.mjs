// The load of `npm run bench:serve` on one server configuration: its clients make
// their first memories (`setup`), then run their closed loops for a while
// (`runFor`), as often as the bench gives this configuration a turn; the clients
// keep their memories and models from one turn to the next. In a measured turn a
// call started in the turn is timed (it may end after it: the next turn waits for
// it), so throughput is the calls started over the turns' length, the same count a
// steady closed loop completes. Every answer of every phase is checked, and a wrong
// one counts as an error of its kind whenever it happened.
import { KINDS } from './client.mjs';

// After a wrong answer a client waits this long before it starts over, so a server
// that answers at once with errors (or is gone) is not hammered in a tight loop.
const PAUSE_AFTER_ERROR_MS = 100;
// The first wrong answers are kept to be printed; the rest only counted.
const KEPT_ERRORS = 10;
// Setup gives up once a client's first memories have failed this many times.
const SETUP_TRIES = 10;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The value at percentile `p` (nearest rank) of ascending `sorted`. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** What one configuration's calls came to: timings of measured calls, wrong answers of all. */
export function recorder() {
  const samples = Object.fromEntries(KINDS.map((k) => [k, []]));
  const errors = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const messages = [];
  let measuredMs = 0;
  return {
    sample: (kind, ms) => samples[kind].push(ms),
    wrong(r) {
      errors[r.kind] += 1;
      if (messages.length < KEPT_ERRORS) messages.push(r.error);
    },
    addMeasured: (ms) => (measuredMs += ms),
    /** {measuredMs, kinds: {kind: {n, opsPerSec, p50, p99, errors}}, all, errors: [first messages], errorCount}. */
    summary() {
      const summarize = (ms, errorCount) => {
        const sorted = Float64Array.from(ms).sort();
        return { n: sorted.length, opsPerSec: sorted.length / (measuredMs / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: errorCount };
      };
      const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
      return {
        measuredMs,
        kinds: Object.fromEntries(KINDS.map((k) => [k, summarize(samples[k], errors[k])])),
        all: summarize(KINDS.flatMap((k) => samples[k]), errorCount),
        errors: messages,
        errorCount,
      };
    },
  };
}

/** Every client makes its first memories (untimed); one that fails tries again, within a bound. */
export async function setup(clients, rec) {
  await Promise.all(
    clients.map(async (c) => {
      for (let tries = 0, r = await c.setup(); r; r = await c.setup()) {
        rec.wrong(r);
        if (++tries >= SETUP_TRIES) throw new Error(`the first memories keep failing: ${r.error}`);
        await sleep(PAUSE_AFTER_ERROR_MS);
      }
    }),
  );
}

/** Runs every client's loop for `ms`, then waits for the calls under way; `measured`: time them. */
export async function runFor(clients, ms, rec, { measured }) {
  const end = performance.now() + ms;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const r = await c.step();
        if (r.error === undefined) {
          if (measured) rec.sample(r.kind, r.ms);
        } else {
          rec.wrong(r);
          await sleep(PAUSE_AFTER_ERROR_MS);
        }
      }
    }),
  );
  if (measured) rec.addMeasured(ms);
}
