// The load of `npm run bench:serve` on one server configuration: every client makes
// its first memories, then all run their closed loops through a warm-up and the
// measured window. A call is timed if it ends inside the window; throughput is the
// calls that ended there over the window's length. Every answer of every phase is
// checked, and a wrong one counts as an error of its kind whenever it happened.
import { KINDS } from './client.mjs';

// After a wrong answer a client waits this long before it starts over, so a server
// that answers at once with errors (or is gone) is not hammered in a tight loop.
const PAUSE_AFTER_ERROR_MS = 100;
// The first wrong answers are kept to be printed; the rest only counted.
const KEPT_ERRORS = 10;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The value at percentile `p` (nearest rank) of ascending `sorted`. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Runs `clients` (bench/serve/client.mjs) for `warmupMs`, then `measureMs`.
 * Resolves {windowMs, kinds: {kind: {n, opsPerSec, p50, p99, errors}}, all: {...},
 * errors: [first messages], errorCount}.
 */
export async function runLoad(clients, { warmupMs, measureMs }) {
  const samples = Object.fromEntries(KINDS.map((k) => [k, []]));
  const errors = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const messages = [];
  const wrong = (r) => {
    errors[r.kind] += 1;
    if (messages.length < KEPT_ERRORS) messages.push(r.error);
  };

  // Setup, untimed: a client whose first memories fail starts over, as after any error.
  await Promise.all(
    clients.map(async (c) => {
      for (let r = await c.setup(); r; r = await c.reset()) {
        wrong(r);
        if (errors['memory.create'] > clients.length * 10) throw new Error(`setup keeps failing: ${messages.join('\n')}`);
        await sleep(PAUSE_AFTER_ERROR_MS);
      }
    }),
  );

  const start = performance.now() + warmupMs;
  const end = start + measureMs;
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < end) {
        const r = await c.step();
        const done = performance.now();
        if (r.error === undefined) {
          if (done >= start && done <= end) samples[r.kind].push(r.ms);
          continue;
        }
        wrong(r);
        await sleep(PAUSE_AFTER_ERROR_MS);
        for (let again = await c.reset(); again && performance.now() < end; again = await c.reset()) {
          wrong(again);
          await sleep(PAUSE_AFTER_ERROR_MS);
        }
      }
    }),
  );

  const summary = (ms, errorCount) => {
    const sorted = Float64Array.from(ms).sort();
    return { n: sorted.length, opsPerSec: sorted.length / (measureMs / 1000), p50: percentile(sorted, 50), p99: percentile(sorted, 99), errors: errorCount };
  };
  const kinds = Object.fromEntries(KINDS.map((k) => [k, summary(samples[k], errors[k])]));
  const errorCount = Object.values(errors).reduce((a, b) => a + b, 0);
  return { windowMs: measureMs, kinds, all: summary(KINDS.flatMap((k) => samples[k]), errorCount), errors: messages, errorCount };
}
