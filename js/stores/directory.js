// The JS store protocol on a directory of the local disk (Node).
//
// One file per key, flat in the directory, named by an escape of the key that keeps
// every name portable (lowercase only, so a case-insensitive disk cannot merge two
// keys) and never starts with a dot. Every write goes to a fresh temporary file,
// is fsynced and renamed over the target, so a reader sees the old or the new value,
// never half of one. Mutations of a key hold a lock file for that key created with
// O_EXCL, which makes compare-and-swap hold across processes sharing the directory;
// a lock left by a crashed process is broken once its owner is gone or it is old.
// Every open uses O_NOFOLLOW and renames and unlinks never follow, so no symlink
// planted in the directory is ever followed out of it.
import { constants as C, promises as fs } from 'node:fs';
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

  #init() {
    this.#ready ??= (async () => {
      await fs.mkdir(this.#root, { recursive: true, mode: DIR_MODE });
      const st = await fs.stat(this.#root);
      if (!st.isDirectory()) throw storeError('the store path is not a directory', 'UnavailableError');
      await this.#sweepTemporaries();
    })().catch((e) => {
      this.#ready = undefined; // a later call may succeed (the disk came back)
      throw mapError(e);
    });
    return this.#ready;
  }

  /** Removes temporary files that a crashed writer left long ago. */
  async #sweepTemporaries() {
    const now = Date.now();
    for (const name of await fs.readdir(this.#root)) {
      if (!name.startsWith('.tmp-')) continue;
      const p = join(this.#root, name);
      const st = await fs.lstat(p).catch(() => undefined);
      if (st && now - st.mtimeMs > TMP_STALE_MS) await fs.unlink(p).catch(() => {});
    }
  }

  async get(key) {
    await this.#init();
    return this.#read(keyToName(key));
  }

  async #read(name) {
    let fh;
    try {
      fh = await fs.open(join(this.#root, name), READ_FLAGS);
    } catch (e) {
      if (e.code === 'ENOENT') return undefined;
      throw mapError(e);
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) throw storeError('not a regular file');
      return await fh.readFile();
    } finally {
      await fh.close();
    }
  }

  async set(key, value) {
    await this.#init();
    const name = keyToName(key);
    const bytes = checkBytes(value);
    await this.#locked(name, async () => {
      await this.#install(await this.#writeTemp(bytes), name);
      await this.#syncDir();
    });
  }

  async delete(key) {
    await this.#init();
    const name = keyToName(key);
    await this.#locked(name, async () => {
      try {
        await fs.unlink(join(this.#root, name));
      } catch (e) {
        if (e.code !== 'ENOENT') throw mapError(e);
        return;
      }
      await this.#syncDir();
    });
  }

  async list(prefix, cursor) {
    await this.#init();
    const keys = [];
    for (const name of await fs.readdir(this.#root).catch((e) => Promise.reject(mapError(e)))) {
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
   * swap publishes them) and compare-and-swaps `key`, with one round of fsyncs: the
   * temporary files of the objects and of the new value are written and fsynced in
   * parallel, then renamed into place, objects first. Renames in one directory reach
   * the disk in order (the journal of ext4 and xfs), so a head that survives a crash
   * never names an object that did not. The objects are written even when the swap
   * is refused, as the protocol's default commit would.
   */
  async commit(objects, key, expected, value) {
    await this.#init();
    const name = keyToName(key);
    const files = objects.map(([k, v]) => [keyToName(k), checkBytes(v)]);
    const want = expected === undefined || expected === null ? undefined : checkBytes(expected);
    const bytes = checkBytes(value);
    const objectTemps = Promise.all(files.map(([, v]) => this.#writeTemp(v)));
    objectTemps.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    let headTemp;
    try {
      return await this.#locked(name, async () => {
        const current = await this.#read(name);
        const matches = current === undefined ? want === undefined : want !== undefined && sameBytes(current, want);
        const temps = await Promise.all([objectTemps, matches ? (headTemp = this.#writeTemp(bytes)) : undefined]);
        await Promise.all(temps[0].map((tmp, i) => this.#install(tmp, files[i][0])));
        if (matches) await this.#install(temps[1], name);
        if (matches || files.length) await this.#syncDir();
        return matches;
      });
    } catch (e) {
      // Leave no temporary file behind whichever step failed.
      for (const tmp of [...((await objectTemps.catch(() => [])) ?? []), await headTemp?.catch(() => undefined)]) {
        if (tmp) await fs.unlink(tmp).catch(() => {});
      }
      throw e;
    }
  }

  /** A new temporary file (O_EXCL, 0600) holding `bytes`, fsynced; its path. */
  async #writeTemp(bytes) {
    const tmp = join(this.#root, `.tmp-${process.pid}-${randomUUID()}`);
    let fh;
    try {
      fh = await fs.open(tmp, CREATE_FLAGS, FILE_MODE);
      await fh.writeFile(bytes);
      await fh.sync();
      await fh.close();
      return tmp;
    } catch (e) {
      await fh?.close().catch(() => {});
      await fs.unlink(tmp).catch(() => {});
      throw mapError(e);
    }
  }

  /** Renames a temporary file over the key's file (rename never follows a symlink). */
  async #install(tmp, name) {
    try {
      await fs.rename(tmp, join(this.#root, name));
    } catch (e) {
      await fs.unlink(tmp).catch(() => {});
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
    const dh = await fs.open(this.#root, C.O_RDONLY | C.O_DIRECTORY);
    try {
      await dh.sync();
    } finally {
      await dh.close();
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
        await release();
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
        const fh = await fs.open(lockPath, CREATE_FLAGS, FILE_MODE);
        try {
          await fh.writeFile(token);
        } finally {
          await fh.close();
        }
        return async () => {
          // Remove the lock only if it is still ours (it may have been broken as stale).
          const held = await fs.readFile(lockPath, { encoding: 'utf8', flag: READ_FLAGS }).catch(() => undefined);
          if (held === token) await fs.unlink(lockPath).catch(() => {});
        };
      } catch (e) {
        if (e.code !== 'EEXIST') throw mapError(e);
      }
      if (await this.#breakIfStale(lockPath)) continue;
      if (Date.now() > deadline) throw storeError('the store stayed locked', 'UnavailableError');
      await sleep(Math.min(1 + attempt, 25) * (0.5 + Math.random()));
    }
  }

  /** Breaks a lock whose owner process is gone or that is too old to be live. */
  async #breakIfStale(lockPath) {
    let st;
    let token;
    try {
      st = await fs.lstat(lockPath);
      token = await fs.readFile(lockPath, { encoding: 'utf8', flag: READ_FLAGS });
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
      await fs.rename(lockPath, aside);
    } catch {
      return true;
    }
    const moved = await fs.readFile(aside, { encoding: 'utf8', flag: READ_FLAGS }).catch(() => undefined);
    if (moved !== token) {
      // We moved a lock taken after our check: put it back unless a new one exists.
      await fs.link(aside, lockPath).catch(() => {});
    }
    await fs.unlink(aside).catch(() => {});
    return true;
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
