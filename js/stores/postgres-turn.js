// A PostgreSQL store's turn: its writes through several processes one at a time,
// each in the order it asked. A write plans against the head it read; without a
// turn, the process that just committed starts its next write with every object
// cached and commits again before the other's retry has read the new head, so the
// other loses its compare-and-swap again and again. The turn is an advisory lock
// per namespace, which PostgreSQL grants in the order asked. Fairness only: a turn
// not had in time lets the write go ahead, and the compare-and-swap keeps it right.

import { createHash } from 'node:crypto';
import { defaults } from '../core.js';

/**
 * The advisory locks of store turns are `(TURN_LOCKS, a hash of the namespace)`: a
 * class of their own, apart from the catalog's one-key lock. Two namespaces whose
 * hashes meet share a turn, which costs only fairness.
 */
export const TURN_LOCKS = 0x6d656d64;

/** What `takeTurn` resolves when the turn is not had: nothing to give back, nothing read. */
const NO_TURN = Object.freeze({ release: () => {}, rows: undefined });

/**
 * `takeTurn(then)` for `namespace`, on connections of `pool()` (a promise of the
 * store's pool): resolves `{release, rows}`, or a no-op release when the turn is
 * not had within the turn's wait. One round trip to take it, one to give it back.
 * The lock is held by an open transaction on a connection of its own, which
 * PostgreSQL ends once it idles longer than the turn's wait, so a process that
 * stops holds no one up long.
 *
 * `read`, if given, is one query `{text, values}` (`$n` parameters: strings, safe
 * integers, null, arrays of strings) that runs in the same round trip once the
 * lock is had: a write's first read, which then sees every commit made before the
 * turn was given (the statement starts after the lock is granted, so its snapshot
 * is taken then), without a round trip of its own inside the turn. A simple query
 * takes no parameters, so the text is prepared on the connection once (PREPARE, as
 * the driver does for the other queries) and then only EXECUTEd with the values as
 * literals. `rows` are its rows; undefined when it did not run.
 */
export function turnTaker(pool, namespace) {
  // The lock, as numbers only, so it can go in the one text that takes it.
  const lock = `${TURN_LOCKS}, ${createHash('sha256').update(namespace).digest().readInt32BE(0)}`;
  return async function takeTurn(read) {
    const waitMs = defaults().turnWaitMs;
    const until = Date.now() + waitMs;
    const p = await pool().catch(() => undefined);
    const slots = p && turnSlots(p);
    if (!slots || !(await slots.take(waitMs))) return NO_TURN;
    let client;
    try {
      client = await connectWithin(p, until - Date.now());
    } catch {
      slots.give();
      return NO_TURN;
    }
    // The server ends a holder that idles too long; that must not end this process.
    const dropped = () => {};
    client.on?.('error', dropped);
    const done = (broken) => {
      slots.give();
      try {
        client.off?.('error', dropped);
        client.release(broken);
      } catch {
        // A pool of the application's that refuses the release: nothing to undo here.
      }
    };
    let rows;
    const after = readAfter(read, client);
    try {
      const left = Math.ceil(until - Date.now());
      if (left < 1) throw new Error('no time left');
      const turn = `BEGIN; SET LOCAL lock_timeout = ${left}; SET LOCAL idle_in_transaction_session_timeout = ${waitMs}; SELECT pg_advisory_xact_lock(${lock})`;
      const results = await client.query(after === undefined ? turn : `${turn}; ${after.sql}`);
      if (after !== undefined) {
        after.done();
        // One result per statement: the read's is the last.
        if (Array.isArray(results) && results.length === after.count + 4) rows = results.at(-1)?.rows;
      }
    } catch {
      // Not had in time (or the connection failed): the write goes ahead without it.
      // A connection whose prepared read is in doubt (a PREPARE outlives a rolled
      // back transaction; an application's pool may have discarded it) is dropped.
      const doubt = after !== undefined;
      await Promise.resolve()
        .then(() => client.query('ROLLBACK'))
        .then(
          () => done(doubt),
          () => done(true),
        );
      return NO_TURN;
    }
    const release = () => {
      Promise.resolve()
        .then(() => client.query('COMMIT'))
        .then(
          () => done(false),
          () => done(true),
        );
    };
    return { release, rows: Array.isArray(rows) ? rows : undefined };
  };
}

// The reads a turn runs, by text: each prepared once per connection, under a name
// of its own. The texts are the few the store writes, so the names are bounded by
// the code; the connections that have each, by the pool.
const readNames = new Map();
const preparedOn = new WeakMap();

/**
 * What runs `read` on `client` after the lock: `{sql, count, done}` (`count`
 * statements; `done()` once they ran), or undefined: none asked, a driver with no
 * quoting of its own, or a value a literal cannot carry (a NUL would end the simple
 * query early; PostgreSQL text holds none anyway).
 */
function readAfter(read, client) {
  if (read === undefined || typeof client.escapeLiteral !== 'function') return undefined;
  let args;
  try {
    const literal = (v) => {
      if (v === null) return 'NULL';
      if (typeof v === 'string' && !v.includes('\0')) return client.escapeLiteral(v);
      if (Number.isSafeInteger(v)) return String(v);
      if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) return `ARRAY[${v.map(literal).join(', ')}]::text[]`;
      throw new TypeError('a value a literal cannot carry');
    };
    args = read.values.map(literal);
  } catch {
    return undefined;
  }
  let name = readNames.get(read.text);
  if (name === undefined) {
    name = `memdir_turn_${readNames.size}`;
    readNames.set(read.text, name);
  }
  let have = preparedOn.get(client);
  if (have === undefined) {
    have = new Set();
    preparedOn.set(client, have);
  }
  const execute = `EXECUTE ${name}(${args.join(', ')})`;
  if (have.has(name)) return { sql: execute, count: 1, done: () => {} };
  return { sql: `PREPARE ${name} AS ${read.text}; ${execute}`, count: 2, done: () => have.add(name) };
}

/**
 * A connection of `p` within `ms`, or a rejection: an application's pool may wait
 * for one without end. A connection that comes after all goes straight back.
 */
function connectWithin(p, ms) {
  const connecting = Promise.resolve().then(() => p.connect());
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('no connection in time')), Math.max(0, ms));
  });
  return Promise.race([connecting, late])
    .finally(() => clearTimeout(timer))
    .catch((e) => {
      connecting.then(
        (c) => c.release(),
        () => {},
      );
      throw e;
    });
}

const slotsOf = new WeakMap();
/**
 * The turns one pool may hold at once: half its connections (`options.max`, which
 * node-postgres's pools always carry), so a holder's own queries always find one;
 * a turn on every connection would wait on itself. A pool of one connection, or one
 * that does not say its size, holds none.
 */
function turnSlots(p) {
  let slots = slotsOf.get(p);
  if (slots === undefined) {
    const max = Number.isSafeInteger(p.options?.max) ? p.options.max : 0;
    slots = semaphore(Math.floor(max / 2));
    slotsOf.set(p, slots);
  }
  return slots.size > 0 ? slots : undefined;
}

/** `size` places, taken in the order asked for; `take(ms)` resolves false after `ms`. */
function semaphore(size) {
  let free = size;
  const waiting = [];
  return {
    size,
    take(ms) {
      if (free > 0) {
        free--;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const waiter = { resolve };
        waiter.timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(waiter), 1);
          resolve(false);
        }, ms);
        waiting.push(waiter);
      });
    },
    give() {
      const next = waiting.shift();
      if (next === undefined) {
        free++;
        return;
      }
      clearTimeout(next.timer);
      next.resolve(true);
    },
  };
}
