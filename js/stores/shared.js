// What the edge stores share: comparing bytes (workerd has no Buffer) and taking
// turns on one storage object or namespace within an isolate.

/** Whether two byte arrays (or two absent values) hold the same bytes. */
export function equalBytes(a, b) {
  if (a === undefined || b === undefined) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const locks = new WeakMap();

/** Runs `fn` after every earlier `exclusive` call on `target` has finished. */
export async function exclusive(target, fn) {
  const before = locks.get(target) ?? Promise.resolve();
  let release;
  const mine = new Promise((resolve) => (release = resolve));
  const tail = before.then(() => mine);
  locks.set(target, tail);
  await before;
  try {
    return await fn();
  } finally {
    release();
    if (locks.get(target) === tail) locks.delete(target);
  }
}
