// What `memdir serve --encryption-key-file F` does to the stores it holds, through
// the engine's `memdir::seal` (exported by crates/memdir-wasm/src/serve_seal.rs):
//
// - every store is opened through `Sealed` under the server's master key: each has
//   its own data key, made when the store is made and kept in the store wrapped
//   under the master key (envelope keys), so one store's bytes say nothing of
//   another's and several instances sharing the master key open every store;
// - a store deleted is shredded first (`Sealed::shred`: its wrapped data key
//   deleted), so whatever of it is left behind can never be read, by anyone;
// - the master key is rotated by re-wrapping each store's data key (`rewrap`);
// - what the catalog itself would keep in clear (a workspace's name, in a
//   directory's name or a row) is replaced by a random label, the name-to-label
//   table kept in a store of its own (`LABELS`), sealed like every other.
//
// Without a key (a plaintext server) stores are opened through `Sealed` too, which
// passes a plaintext store through untouched and refuses an encrypted one in its
// own words rather than as an unreadable store.
import { glue } from '../glue.js';

/** The store beside the memory stores that holds the workspace labels (a dot name: never a store id). */
export const LABELS = '.memdir-serve';

/**
 * A refusal of `memdir::seal` (a wrong master key, a plaintext store opened with a
 * key or the reverse, a damaged encryption record): its text is the engine's, and
 * names no key material and no path.
 */
export function isSealRefusal(e) {
  return e?.name === 'EncryptionError' && e.kind === 'encryption';
}

const fresh = () => crypto.getRandomValues(new Uint8Array(32));

/**
 * The sealer of a server whose master key is `encryption` (`{key, keyId?}`: 32
 * bytes, or their 64 hex characters as bin/key-file.js reads them), or of a
 * plaintext server (undefined).
 */
export function storeSealer(encryption) {
  let master;
  if (encryption !== undefined) {
    const { key, keyId } = encryption;
    master = new glue.ServeKey(key instanceof Uint8Array ? key : undefined, typeof key === 'string' ? key : undefined, keyId);
  }
  return {
    /** Whether the server's stores are encrypted. */
    encrypted: master !== undefined,
    /** The master key's id (undefined: plaintext). */
    keyId: master?.id,
    /** `handle` (a store handle of the catalog's backend) as the engine is to run on it: sealed, or checked plaintext. */
    open(handle) {
      return master === undefined ? glue.openPlain(handle) : master.open(handle, fresh());
    },
    /** Deletes the wrapped data key of the sealed store `sealed` (a handle `open` made). */
    shred(sealed) {
      return glue.sealShred(sealed);
    },
    /**
     * Re-wraps the data key of the store over `handle` (a backend's handle, not yet
     * sealed) from this master key to `next`'s: `'rewrapped'`, or `'already'` when a
     * run before this one did it (the store opens under `next`'s key).
     */
    rewrap(handle, next) {
      return master.rewrap(handle, next.master(), fresh());
    },
    /** The master key, for `rewrap` of another sealer. */
    master: () => master,
  };
}

/**
 * The label a workspace's name is kept under at rest: the name itself on a
 * plaintext server; on an encrypted one a random label (`w` and 32 hex digits),
 * made the first time a name is asked for and kept in the sealed store `labels`
 * (a store handle `sealer.open` made), so every instance sharing the catalog finds
 * the same one. The engine's compare-and-swap decides between instances making one
 * at once.
 */
export async function workspaceLabel(labels, name) {
  const key = `workspace/${name}`;
  const had = await glue.sealedGet(labels, key);
  if (had !== undefined) return new TextDecoder().decode(had);
  const random = crypto.getRandomValues(new Uint8Array(16));
  const label = `w${[...random].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  if (await glue.sealedSwap(labels, key, undefined, new TextEncoder().encode(label))) return label;
  // Another instance made one first: its label is the one.
  const theirs = await glue.sealedGet(labels, key);
  if (theirs === undefined) throw new Error('the workspace labels store lost a label it had just made');
  return new TextDecoder().decode(theirs);
}
