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

/**
 * `takeTurn()` for `namespace`, on connections of `pool()` (a promise of the
 * store's pool): resolves a release, or a no-op when the turn is not had within
 * the turn's wait. One round trip to take it, one to give it back. The lock is held
 * by an open transaction on a connection of its own, which PostgreSQL ends once it
 * idles longer than the turn's wait, so a process that stops holds no one up long.
 */
export function turnTaker(pool, namespace) {
  // The lock, as numbers only, so it can go in the one text that takes it.
  const lock = `${TURN_LOCKS}, ${createHash('sha256').update(namespace).digest().readInt32BE(0)}`;
  return async function takeTurn() {
    const waitMs = defaults().turnWaitMs;
    const until = Date.now() + waitMs;
    const p = await pool().catch(() => undefined);
    const slots = p && turnSlots(p);
    if (!slots || !(await slots.take(waitMs))) return () => {};
    let client;
    try {
      client = await connectWithin(p, until - Date.now());
    } catch {
      slots.give();
      return () => {};
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
    try {
      const left = Math.ceil(until - Date.now());
      if (left < 1) throw new Error('no time left');
      await client.query(
        `BEGIN; SET LOCAL lock_timeout = ${left}; SET LOCAL idle_in_transaction_session_timeout = ${waitMs}; SELECT pg_advisory_xact_lock(${lock})`,
      );
    } catch {
      // Not had in time (or the connection failed): the write goes ahead without it.
      await Promise.resolve()
        .then(() => client.query('ROLLBACK'))
        .then(
          () => done(false),
          () => done(true),
        );
      return () => {};
    }
    return () => {
      Promise.resolve()
        .then(() => client.query('COMMIT'))
        .then(
          () => done(false),
          () => done(true),
        );
    };
  };
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
