// One case of hostile-stores.json run on a JS protocol store: shared by the Node
// runner and the one inside workerd, so both observe the same way. Load every raw
// key, open an engine, then record what it answers and whether the store moved;
// `expected(c)` is what must be recorded.

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** A store value of the data file (a string, or {hex}) as bytes. */
export function valueBytes(v) {
  if (typeof v === 'string') return encoder.encode(v);
  return Uint8Array.from(v.hex.match(/../g) ?? [], (h) => Number.parseInt(h, 16));
}

/** Bytes as the data file writes a value: UTF-8 text as a string, else {hex}. */
function valueJson(bytes) {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return { hex: Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('') };
  }
}

/** Every key and value of `store`, in key order, in the data file's form. */
export async function snapshot(store) {
  const out = [];
  let cursor;
  do {
    const page = await store.list('', cursor);
    for (const k of page.keys) out.push([k, valueJson(await store.get(k))]);
    cursor = page.cursor;
  } while (cursor !== undefined && cursor !== null);
  return JSON.stringify(out.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** What running case `c` on the empty `store` gives; `open()` opens a memory over it. */
export async function observe(store, open, probes, c) {
  for (const [k, v] of Object.entries(c.store)) await store.set(k, valueBytes(v));
  const loaded = await snapshot(store);
  const memory = await open();
  const entries = await memory.entries().then(
    () => null,
    (e) => ({ message: e.message, kind: e.kind }),
  );
  const answers = [];
  const changedAfter = [];
  for (const [i, probe] of probes.entries()) {
    answers.push(await memory.execute(probe));
    if ((i + 1 < probes.length || !c.writes) && (await snapshot(store)) !== loaded) changedAfter.push(i);
  }
  return { loaded: loaded === (await snapshotOf(c.store)), entries, answers, changedAfter };
}

function snapshotOf(store) {
  const keys = Object.keys(store).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(keys.map((k) => [k, store[k]]));
}

/** What `observe` must give for `c`: its exact answers, damage reported, no store change. */
export function expected(c) {
  const entries = c.entries_error === null ? null : { message: c.entries_error, kind: 'damaged' };
  return { loaded: true, entries, answers: c.answers, changedAfter: [] };
}
