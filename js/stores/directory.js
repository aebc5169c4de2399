// The JS store protocol on a directory of the local disk (Node).
//
// One name per key, flat in the directory, made by an escape of the key that keeps
// every name portable (lowercase only, so a case-insensitive disk cannot merge two
// keys) and never starts with a dot. A file holds a small pack: the values of one
// or more keys with an index (see PACK below). A command's commit writes ONE pack
// (its new objects and the new head), fsyncs it once, hard-links it under each
// object's name and renames it over the head: one fsync per command, as the SDK's
// own tool pays for one file. A reader sees the old or the new value, never half
// of one. Mutations of a key hold a lock file for that key created with O_EXCL,
// which makes compare-and-swap hold across processes sharing the directory; a lock
// left by a crashed process is broken once its owner is gone or it is old. Every
// open uses O_NOFOLLOW and renames, links and unlinks never follow, so no symlink
// planted in the directory is ever followed out of it.
import * as fss from 'node:fs';
import { promisify } from 'node:util';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const PAGE = 1000;
const LOCK_WAIT_MS = 10_000;
// A lock is held for one read-compare-write; one this old was left by a crash.
const LOCK_STALE_MS = 30_000;
const TMP_STALE_MS = 60 * 60 * 1000;
const MAX_NAME = 255;
// Errors of a filesystem (or an inode) that takes no more hard links.
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

const C = fss.constants;
const fsync = promisify(fss.fsync);
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const HOST = hostname();

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** `k` + the key's UTF-8 bytes, `[a-z0-9-]` as they are and every other byte `_xx`. */
export function keyToName(key) {
  let name = 'k';
  for (const b of utf8.encode(key)) {
    const plain = (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2d;
    name += plain ? String.fromCharCode(b) : `_${b.toString(16).padStart(2, '0')}`;
  }
  if (name.length > MAX_NAME) throw storeError('the key is too long for a file name');
  return name;
}

/** The key a file name encodes, or undefined for any file that is not a key. */
export function nameToKey(name) {
  if (!name.startsWith('k')) return undefined;
  const bytes = [];
  for (let i = 1; i < name.length; ) {
    const c = name.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d) {
      bytes.push(c);
      i += 1;
    } else if (c === 0x5f && /^[0-9a-f]{2}$/.test(name.slice(i + 1, i + 3))) {
      const b = parseInt(name.slice(i + 1, i + 3), 16);
      const plain = (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x2d;
      if (plain) return undefined; // not the canonical name of any key
      bytes.push(b);
      i += 3;
    } else {
      return undefined;
    }
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    return undefined;
  }
}

function storeError(message, name = 'Error') {
  const e = new Error(message);
  e.name = name;
  return e;
}

/** A disk error as the protocol's kinds: a full disk is QuotaExceededError. */
function mapError(e) {
  if (e && (e.code === 'ENOSPC' || e.code === 'EDQUOT')) return storeError('the disk is full', 'QuotaExceededError');
  return e;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function byteCompare(a, b) {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function sameBytes(a, b) {
  return a.byteLength === b.byteLength && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

// PACK: "MDP1", u32 count, then per entry u16 key length, the key (UTF-8), u32
// value length; then the values in the same order. All little-endian.
const MAGIC = 0x3150444d; // "MDP1"

function encodePack(entries) {
  const keys = entries.map(([k]) => utf8.encode(k));
  let size = 8;
  for (const [i, [, v]] of entries.entries()) size += 6 + keys[i].length + v.byteLength;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, MAGIC, true);
  dv.setUint32(4, entries.length, true);
  let at = 8;
  for (const [i, [, v]] of entries.entries()) {
    dv.setUint16(at, keys[i].length, true);
    out.set(keys[i], at + 2);
    dv.setUint32(at + 2 + keys[i].length, v.byteLength, true);
    at += 6 + keys[i].length;
  }
  for (const [, v] of entries) {
    out.set(v, at);
    at += v.byteLength;
  }
  return out;
}

/**
 * The value of `key` in the pack open at `fd` (`size` bytes), reading only the
 * index and that value: a pack may hold a whole import. Throws on anything
 * malformed (a damaged file).
 */
function packValue(fd, size, key) {
  const bad = () => storeError('a store file is damaged');
  let head = readAt(fd, 0, Math.min(size, 4096));
  const need = (n) => {
    if (n > size) throw bad();
    if (n > head.length) head = readAt(fd, 0, Math.min(size, Math.max(n, head.length * 2)));
  };
  need(8);
  const dv = () => new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (dv().getUint32(0, true) !== MAGIC) throw bad();
  const count = dv().getUint32(4, true);
  const want = utf8.encode(key);
  let at = 8;
  let offset = 0;
  let found;
  for (let i = 0; i < count; i++) {
    need(at + 6);
    const klen = dv().getUint16(at, true);
    need(at + 6 + klen);
    const vlen = dv().getUint32(at + 2 + klen, true);
    if (found === undefined && klen === want.length && Buffer.compare(head.subarray(at + 2, at + 2 + klen), want) === 0) {
      found = [offset, vlen];
    }
    offset += vlen;
    at += 6 + klen;
  }
  if (found === undefined || at + offset !== size) throw bad();
  return readAt(fd, at + found[0], found[1]);
}

/** Exactly `length` bytes at `position` of `fd`. */
function readAt(fd, position, length) {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = fss.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw storeError('a store file is damaged');
    done += n;
  }
  return buf;
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

export class DirectoryStore {
  #root;
  #ready;
  // In-process queue per lock, so commands of one process wait in turn instead of
  // polling the lock file against each other.
  #queues = new Map();
  #syncDirectory;

  constructor(path, { syncDirectory = false } = {}) {
    if (typeof path !== 'string' || path === '') throw new TypeError('directoryStore expects a directory path');
    this.#root = resolve(path);
    this.#syncDirectory = Boolean(syncDirectory);
  }

  /** The directory's absolute path (for the application; never shown to the model). */
  get path() {
    return this.#root;
  }

  // The system calls here are synchronous (microseconds on a local disk, where a
  // round trip through libuv's thread pool costs tens), except fsync, which can take
  // milliseconds and so runs off the event loop.

  #init() {
    this.#ready ??= (async () => {
      fss.mkdirSync(this.#root, { recursive: true, mode: DIR_MODE });
      if (!fss.statSync(this.#root).isDirectory()) throw storeError('the store path is not a directory', 'UnavailableError');
      this.#sweepTemporaries();
    })().catch((e) => {
      this.#ready = undefined; // a later call may succeed (the disk came back)
      throw mapError(e);
    });
    return this.#ready;
  }

  /** Removes temporary files that a crashed writer left long ago. */
  #sweepTemporaries() {
    const now = Date.now();
    for (const name of fss.readdirSync(this.#root)) {
      if (!name.startsWith('.tmp-')) continue;
      const p = join(this.#root, name);
      try {
        if (now - fss.lstatSync(p).mtimeMs > TMP_STALE_MS) fss.unlinkSync(p);
      } catch {
        // another process swept it first
      }
    }
  }

  async get(key) {
    await this.#init();
    return this.#value(key);
  }

  /** The value of `key`, or undefined when absent; never through a symlink. */
  #value(key) {
    let fd;
    try {
      fd = fss.openSync(join(this.#root, keyToName(key)), READ_FLAGS);
    } catch (e) {
      if (e.code === 'ENOENT') return undefined;
      throw mapError(e);
    }
    try {
      const st = fss.fstatSync(fd);
      if (!st.isFile()) throw storeError('not a regular file');
      return packValue(fd, st.size, key);
    } catch (e) {
      throw mapError(e);
    } finally {
      fss.closeSync(fd);
    }
  }

  async set(key, value) {
    await this.#init();
    const name = keyToName(key);
    const pack = encodePack([[key, checkBytes(value)]]);
    const tmp = await this.#writeTemp(pack);
    try {
      await this.#locked(name, async () => {
        this.#install(tmp, name);
        await this.#syncDir();
      });
    } finally {
      unlinkQuietly(tmp); // gone already when installed
    }
  }

  async delete(key) {
    await this.#init();
    const name = keyToName(key);
    await this.#locked(name, async () => {
      try {
        fss.unlinkSync(join(this.#root, name));
      } catch (e) {
        if (e.code !== 'ENOENT') throw mapError(e);
        return;
      }
      await this.#syncDir();
    });
  }

  async list(prefix, cursor) {
    await this.#init();
    let names;
    try {
      names = fss.readdirSync(this.#root);
    } catch (e) {
      throw mapError(e);
    }
    const keys = [];
    for (const name of names) {
      const key = nameToKey(name);
      if (key === undefined || !key.startsWith(prefix)) continue;
      if (cursor !== undefined && cursor !== null && byteCompare(key, cursor) <= 0) continue;
      keys.push(key);
    }
    keys.sort(byteCompare);
    if (keys.length > PAGE) return { keys: keys.slice(0, PAGE), cursor: keys[PAGE - 1] };
    return { keys };
  }

  async compareAndSwap(key, expected, value) {
    return this.commit([], key, expected, value);
  }

  /**
   * Writes `objects` (fresh content-addressed keys that nothing reads until the
   * swap publishes them) and compare-and-swaps `key`, with one fsync: one pack holds
   * the objects and the new value; it is made durable, linked under each object's
   * name, then renamed over the key. Links and renames in one directory reach the
   * disk in order (the journal of ext4 and xfs), so a head that survives a crash
   * never names an object that did not. The objects are written even when the swap
   * is refused, as the protocol's default commit would.
   */
  async commit(objects, key, expected, value) {
    await this.#init();
    const name = keyToName(key);
    const names = objects.map(([k]) => keyToName(k));
    const want = expected === undefined || expected === null ? undefined : checkBytes(expected);
    const pack = encodePack([...objects.map(([k, v]) => [k, checkBytes(v)]), [key, checkBytes(value)]]);
    // Written and fsynced before taking the lock, so the lock is held for no fsync.
    const tmp = await this.#writeTemp(pack);
    try {
      return await this.#locked(name, async () => {
        let current;
        try {
          current = this.#value(key);
        } catch {
          current = null; // a damaged value matches nothing
        }
        const matches = current === undefined ? want === undefined : want !== undefined && current !== null && sameBytes(current, want);
        for (const n of names) await this.#linkAs(tmp, n, pack);
        if (matches) this.#install(tmp, name);
        if (matches || names.length) await this.#syncDir();
        return matches;
      });
    } finally {
      unlinkQuietly(tmp); // gone already when installed
    }
  }

  /** A new temporary file (O_EXCL, 0600) holding `bytes`, fsynced; its path. */
  async #writeTemp(bytes) {
    const tmp = join(this.#root, `.tmp-${process.pid}-${randomUUID()}`);
    let fd;
    try {
      fd = fss.openSync(tmp, CREATE_FLAGS, FILE_MODE);
      let at = 0;
      while (at < bytes.byteLength) at += fss.writeSync(fd, bytes, at, bytes.byteLength - at);
      await fsync(fd);
      return tmp;
    } catch (e) {
      unlinkQuietly(tmp);
      throw mapError(e);
    } finally {
      if (fd !== undefined) fss.closeSync(fd);
    }
  }

  /**
   * Makes `name` another link to the file at `src`, replacing what it named; on a
   * filesystem without hard links, a copy of `bytes` (one more fsync) instead.
   */
  async #linkAs(src, name, bytes) {
    const target = join(this.#root, name);
    try {
      fss.linkSync(src, target);
      return;
    } catch (e) {
      if (NO_LINKS.has(e.code)) return this.#copyAs(bytes, name);
      if (e.code !== 'EEXIST') throw mapError(e);
    }
    // Replace atomically: a fresh link, renamed over the old name.
    const tmp = join(this.#root, `.tmp-${process.pid}-${randomUUID()}`);
    try {
      fss.linkSync(src, tmp);
      fss.renameSync(tmp, target);
    } catch (e) {
      if (NO_LINKS.has(e.code)) return this.#copyAs(bytes, name);
      throw mapError(e);
    } finally {
      unlinkQuietly(tmp); // rename leaves it when both names were one file already
    }
  }

  async #copyAs(bytes, name) {
    const tmp = await this.#writeTemp(bytes);
    try {
      this.#install(tmp, name);
    } finally {
      unlinkQuietly(tmp);
    }
  }

  /** Renames a temporary file over the key's file (rename never follows a symlink). */
  #install(tmp, name) {
    try {
      fss.renameSync(tmp, join(this.#root, name));
    } catch (e) {
      throw mapError(e);
    }
  }

  /**
   * Makes renames and unlinks durable at once. Off by default, as in the SDK's own
   * filesystem tool: without it a crash can lose the last moment of commands (the
   * journal commits them within seconds) but never tears one.
   */
  async #syncDir() {
    if (!this.#syncDirectory) return;
    const fd = fss.openSync(this.#root, C.O_RDONLY | C.O_DIRECTORY);
    try {
      await fsync(fd);
    } finally {
      fss.closeSync(fd);
    }
  }

  /** Runs `fn` holding the lock of `name`: in-process queue first, then the lock file. */
  #locked(name, fn) {
    const prev = this.#queues.get(name) ?? Promise.resolve();
    const run = prev.then(async () => {
      const release = await this.#acquire(name);
      try {
        return await fn();
      } finally {
        release();
      }
    });
    const tail = run.catch(() => {});
    this.#queues.set(name, tail);
    tail.then(() => {
      if (this.#queues.get(name) === tail) this.#queues.delete(name);
    });
    return run;
  }

  async #acquire(name) {
    const lockPath = join(this.#root, `.lock-${name}`);
    const token = `${process.pid} ${HOST} ${randomUUID()}`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = fss.openSync(lockPath, CREATE_FLAGS, FILE_MODE);
        try {
          fss.writeSync(fd, token);
        } finally {
          fss.closeSync(fd);
        }
        return () => {
          // Remove the lock only if it is still ours (it may have been broken as stale).
          if (readQuietly(lockPath) === token) unlinkQuietly(lockPath);
        };
      } catch (e) {
        if (e.code !== 'EEXIST') throw mapError(e);
      }
      if (this.#breakIfStale(lockPath)) continue;
      if (Date.now() > deadline) throw storeError('the store stayed locked', 'UnavailableError');
      await sleep(Math.min(1 + attempt, 25) * (0.5 + Math.random()));
    }
  }

  /** Breaks a lock whose owner process is gone or that is too old to be live. */
  #breakIfStale(lockPath) {
    let st;
    let token;
    try {
      st = fss.lstatSync(lockPath);
      token = fss.readFileSync(lockPath, { encoding: 'utf8', flag: READ_FLAGS });
    } catch {
      return true; // released meanwhile: try again at once
    }
    const [pid, host] = token.split(' ');
    const ownerGone = host === HOST && Number(pid) !== process.pid && /^\d+$/.test(pid) && !processAlive(Number(pid));
    const old = Date.now() - st.mtimeMs > LOCK_STALE_MS;
    if (!ownerGone && !old) return false;
    // Move it aside first: of two processes breaking the same lock only one wins the rename.
    const aside = `${lockPath}.stale-${randomUUID()}`;
    try {
      fss.renameSync(lockPath, aside);
    } catch {
      return true;
    }
    if (readQuietly(aside) !== token) {
      // We moved a lock taken after our check: put it back unless a new one exists.
      try {
        fss.linkSync(aside, lockPath);
      } catch {
        // a newer lock is in place; the one we moved was released by its owner's check
      }
    }
    unlinkQuietly(aside);
    return true;
  }
}

function readQuietly(path) {
  try {
    return fss.readFileSync(path, { encoding: 'utf8', flag: READ_FLAGS });
  } catch {
    return undefined;
  }
}

function unlinkQuietly(path) {
  try {
    fss.unlinkSync(path);
  } catch {
    // already gone
  }
}

function checkBytes(v) {
  if (!(v instanceof Uint8Array)) throw new TypeError('store values must be Uint8Array');
  return v;
}

/**
 * A store in the directory `path` (made with mode 0700 when missing).
 * options.syncDirectory: also fsync the directory after each write (durable at
 * once, slower).
 */
export function directoryStore(path, options) {
  return new DirectoryStore(path, options);
}
