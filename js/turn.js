// Which calls of a Memory may write, and running those one at a time. A write plans
// against the head it read and publishes with one compare-and-swap; two writes of
// one process interleaved on an async store (PostgreSQL, a Durable Object, an
// application's own) would race each other, and the loser waits out a backoff and
// plans again. Taking them in turn, each writes first time; reads take no turn.
import { API_WRITE_OPS, COMMANDS, READ_ONLY_COMMANDS, readOnlyTools } from './glue.js';

/** The Memory methods that reach a store, so the ones a turn may wrap. */
const TURN_METHODS = () => [...COMMANDS, 'handle', 'execute', 'executeJson', 'entries', 'import', 'gc', 'expire', 'retain', 'api', 'toolset', 'reindex', 'records', 'rekey'];

/**
 * Whether `memory[method](first, ...)` may change the store, by the engine's own
 * lists of what reads. Anything it cannot tell (tool input still in JSON text) may.
 */
function mayWrite(method, first) {
  if (READ_ONLY_COMMANDS.includes(method)) return false;
  if (COMMANDS.includes(method)) return true;
  switch (method) {
    case 'handle':
    case 'execute':
      return !(first !== null && typeof first === 'object' && READ_ONLY_COMMANDS.includes(first.command));
    case 'entries':
      return false;
    case 'api':
      return !(first !== null && typeof first === 'object' && typeof first.op === 'string' && !API_WRITE_OPS.includes(first.op));
    case 'toolset':
      return !readOnlyTools().includes(first);
    case 'records':
      return first !== 'memory_retrieve';
    default:
      return true;
  }
}

/** `memory`, with each call that may write run through `turn(fn)`; reads run at once. */
export function writesInTurn(memory, turn) {
  for (const m of TURN_METHODS()) {
    const run = memory[m].bind(memory);
    const value = (...args) => (mayWrite(m, args[0]) ? turn(() => run(...args)) : run(...args));
    Object.defineProperty(memory, m, { value, writable: true, configurable: true });
  }
  return memory;
}

/**
 * A turn within this process: one call at a time, in the order they came. A call
 * waits for the one before it at most `maxWaitMs`, then runs anyway: the turn only
 * spares lost races, the compare-and-swap keeps the store right, and a store call
 * that never settles must not hold up every write after it.
 */
export function processTurn(maxWaitMs) {
  let tail = Promise.resolve();
  return (fn) => {
    const run = atMost(tail, maxWaitMs).then(fn);
    tail = run.catch(() => {});
    return run;
  };
}

/** Resolves when `previous` settles or `ms` have passed, whichever is first. */
function atMost(previous, ms) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([previous, late]).finally(() => clearTimeout(timer));
}
