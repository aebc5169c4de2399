// The JS store protocol on a store directory of the local disk (Node), in the
// `memdir-store` format that the wasmtime host's directory backend (host/src/dir.rs)
// reads and writes too. What every file means (key -> file name, the pack, the
// marker, which directories may be opened, lock tokens and when a lock is stale)
// is decided once, in Rust (src/store_dir.rs), and asked through the wasm glue;
// this file does the system calls.
//
// One name per key, flat in the directory. A file holds a small pack: the values
// of one or more keys with an index. A command's commit writes ONE pack (its new
// objects and the new head), fsyncs it once, hard-links it under each object's
// name and renames it over the head: one fsync per command, as the SDK's own tool
// pays for one file. A reader sees the old or the new value, never half of one.
// An object already stored under its name is left out of the pack (a value is
// packed once), and a delete first rewrites every other key still sharing the
// deleted key's pack as a pack of its own, so no byte of a deleted value stays.
// Mutations of a key hold a lock file for that key created with O_EXCL, which makes
// compare-and-swap hold across processes sharing the directory (Node or host); a
// lock left by a crashed process is broken once its owner is gone or it is old,
// and a wait for a lock ends at its deadline whatever sits at the lock's path.
// Every open uses O_NOFOLLOW and renames, links and unlinks never follow, so no
// symlink planted in the directory is ever followed out of it.
import * as fss from 'node:fs';
import { promisify } from 'node:util';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { glue } from '../glue.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
const PAGE = 1000;
// Errors of a filesystem (or an inode) that takes no more hard links.
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);
// The format's names and times, read from the engine once the wasm is ready.
let rulesCache;
const rules = () => (rulesCache ??= glue.storeDirRules());

const C = fss.constants;
const fsync = promisify(fss.fsync);
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const HOST = hostname();
const utf8 = new TextEncoder();

/** The file name of `key` (`k` + an escape of its bytes); throws when too long. */
export function keyToName(key) {
  return glue.storeDirFileName(key);
}

/** The key a file name encodes, or undefined for any file that is not a key. */
export function nameToKey(name) {
  return glue.storeDirListKeys([name], '', undefined, 1)[0];
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

function sameBytes(a, b) {
  return a.byteLength === b.byteLength && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
}

/**
 * A pack of `entries` ([key, bytes] pairs): its index is made by the engine, the
 * values follow it in order (they stay here rather than cross into wasm and back).
 */
function encodePack(entries) {
  const index = glue.storeDirPackIndex(entries.map(([k]) => k), entries.map(([, v]) => v.byteLength));
  let size = index.byteLength;
  for (const [, v] of entries) size += v.byteLength;
  const out = new Uint8Array(size);
  out.set(index, 0);
  let at = index.byteLength;
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
  let head = readAt(fd, 0, Math.min(size, 4096));
  for (;;) {
    const where = glue.storeDirLocate(head, size, key);
    if (where.length === 2) return readAt(fd, where[0], where[1]);
    head = readAt(fd, 0, where[0]);
  }
}

/**
 * The other keys of the pack open at `fd` (`size` bytes) when it holds `key`: what
 * a delete of `key` rewrites first (the rule is the engine's, storeDirMates). None
 * for a damaged file, whose keys cannot be known.
 */
function packMates(fd, size, key) {
  let head = readAt(fd, 0, Math.min(size, 4096));
  for (;;) {
    let mates;
    try {
      mates = glue.storeDirMates(head, size, key);
    } catch {
      return [];
    }
    if (Array.isArray(mates)) return mates;
    head = readAt(fd, 0, mates);
  }
}

/** Exactly `length` bytes at `position` of `fd`. */
function readAt(fd, position, length) {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = fss.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) throw glue.storeDirError('damaged-file');
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

/** The kind of a directory entry as the format's rules name it (lstat, never followed). */
function entryKind(d) {
  if (d.isSymbolicLink()) return 'l';
  if (d.isDirectory()) return 'd';
  if (d.isFile()) return 'f';
  return 'o';
}

export class DirectoryStore {
  #root;
  #given;
  #ready;
  // In-process queue per lock, so commands of one process wait in turn instead of
  // polling the lock file against each other.
  #queues = new Map();
  #syncDirectory;
  #lockWaitMs;

  constructor(path, { syncDirectory = false, lockWaitMs } = {}) {
    if (typeof path !== 'string' || path === '') throw new TypeError('directoryStore expects a directory path');
    if (lockWaitMs !== undefined && !(Number.isFinite(lockWaitMs) && lockWaitMs >= 0)) {
      throw new RangeError('directoryStore: lockWaitMs must be a non-negative number');
    }
    this.#given = path;
    this.#root = resolve(path);
    this.#syncDirectory = Boolean(syncDirectory);
    this.#lockWaitMs = lockWaitMs;
  }

  /** The directory's absolute path (for the application; never shown to the model). */
  get path() {
    return this.#root;
  }

  /**
   * Opens the store directory now: creates it when missing or empty, marks a store
   * from before the format marker, and rejects with a `StoreDirectoryError` naming
   * the directory's problem (as the caller named it) when it is not a store this
   * version can open; nothing is written then. Every other method opens it first.
   */
  open() {
    return this.#init();
  }

  // The system calls here are synchronous (microseconds on a local disk, where a
  // round trip through libuv's thread pool costs tens), except fsync, which can take
  // milliseconds and so runs off the event loop.

  #init() {
    this.#ready ??= (async () => {
      await this.#openDirectory();
      this.#sweepTemporaries();
    })().catch((e) => {
      this.#ready = undefined; // a later call may succeed (the disk came back)
      if (e?.name === 'StoreDirectoryError') e.message = `${this.#given}: ${e.message}`;
      throw mapError(e);
    });
    return this.#ready;
  }

  /** What the directory is, by the format's rules; refused before anything is written. */
  async #openDirectory() {
    const problem = (p) => glue.storeDirError(p);
    let st;
    try {
      st = fss.lstatSync(this.#root);
    } catch (e) {
      if (e.code === 'EACCES') throw problem('unreadable');
      if (e.code === 'ENOTDIR') throw problem('not-a-directory');
      if (e.code !== 'ENOENT') throw problem('io');
      try {
        fss.mkdirSync(this.#root, { recursive: true, mode: DIR_MODE });
        st = fss.lstatSync(this.#root);
      } catch (e2) {
        throw problem(e2.code === 'ENOTDIR' ? 'not-a-directory' : 'io');
      }
    }
    if (st.isSymbolicLink()) throw problem('symlink');
    if (!st.isDirectory()) throw problem('not-a-directory');
    let entries;
    try {
      entries = fss.readdirSync(this.#root, { withFileTypes: true });
    } catch (e) {
      throw problem(e.code === 'EACCES' ? 'unreadable' : 'io');
    }
    const layout = glue.storeDirClassify(entries.map((d) => d.name), entries.map(entryKind).join(''));
    if (layout === 'current') return this.#checkMarker();
    // The old host layout needs the host's advisory lock (flock, which Node lacks)
    // to be converted safely, so the host converts it.
    if (layout === 'old-host') throw problem('old-host');
    // Empty, or the Node layout from before the marker (the same files): the
    // marker is all there is to write.
    const tmp = await this.#writeTemp(utf8.encode(rules().markerText));
    try {
      this.#install(tmp, rules().format);
      await this.#syncDir(true);
    } catch {
      throw problem('io');
    } finally {
      unlinkQuietly(tmp);
    }
  }

  #checkMarker() {
    let bytes;
    let fd;
    try {
      fd = fss.openSync(join(this.#root, rules().format), READ_FLAGS);
      if (!fss.fstatSync(fd).isFile()) throw new Error('not a file');
      const buf = Buffer.alloc(256);
      bytes = buf.subarray(0, fss.readSync(fd, buf, 0, 256, 0));
    } catch {
      throw glue.storeDirError('damaged-marker');
    } finally {
      if (fd !== undefined) fss.closeSync(fd);
    }
    glue.storeDirCheckMarker(bytes);
  }

  /** Removes temporary files that a crashed writer left long ago. */
  #sweepTemporaries() {
    const now = Date.now();
    for (const name of fss.readdirSync(this.#root)) {
      if (!name.startsWith(rules().tmpPrefix)) continue;
      const p = join(this.#root, name);
      try {
        if (now - fss.lstatSync(p).mtimeMs > rules().tmpStaleMs) fss.unlinkSync(p);
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

  /**
   * Removes `key` leaving no byte of its value on the disk: when its file is a pack
   * shared with other keys, each of them still holding it is first rewritten as a
   * pack of its own (#split), one lock at a time (two deletes of one pack's keys
   * would otherwise wait on each other's lock); the name is then unlinked if it
   * still names the pack that was split (kept open, so its inode is not reused
   * meanwhile), or looked at afresh.
   */
  async delete(key) {
    await this.#init();
    const name = keyToName(key);
    const path = join(this.#root, name);
    let split; // the pack whose mates were rewritten: { fd, dev, ino }
    try {
      for (;;) {
        const mates = await this.#locked(name, async () => {
          let fd;
          try {
            fd = fss.openSync(path, READ_FLAGS);
          } catch (e) {
            if (e.code === 'ENOENT') return [];
            // A symlink or anything else at a key's name: unlinked, never followed.
            await this.#unlink(path);
            return [];
          }
          let kept = false;
          try {
            const st = fss.fstatSync(fd, { bigint: true });
            const same = split !== undefined && split.dev === st.dev && split.ino === st.ino;
            const mates = st.isFile() && !same ? packMates(fd, Number(st.size), key) : [];
            if (mates.length === 0) {
              await this.#unlink(path);
              return [];
            }
            if (split !== undefined) fss.closeSync(split.fd);
            split = { fd, dev: st.dev, ino: st.ino };
            kept = true;
            return mates;
          } catch (e) {
            throw mapError(e);
          } finally {
            if (!kept) fss.closeSync(fd);
          }
        });
        if (mates.length === 0) return;
        for (const mate of mates) await this.#split(mate, key);
      }
    } finally {
      if (split !== undefined) fss.closeSync(split.fd);
    }
  }

  /** Removes a key's name (gone already is fine), then syncs the directory if asked to. */
  async #unlink(path) {
    try {
      fss.unlinkSync(path);
    } catch (e) {
      if (e.code === 'ENOENT') return;
      throw mapError(e);
    }
    await this.#syncDir();
  }

  /**
   * Rewrites `mate` as a pack of its own value only, if its file still holds
   * `deleted`'s value: under `mate`'s lock, so no set or swap of it interleaves; the
   * value is copied byte for byte, so a reader sees the old pack or the new one with
   * the same value. A mate gone meanwhile (or a symlink at its name) is left alone.
   */
  async #split(mate, deleted) {
    const name = keyToName(mate);
    const path = join(this.#root, name);
    await this.#locked(name, async () => {
      let fd;
      try {
        fd = fss.openSync(path, READ_FLAGS);
      } catch (e) {
        if (e.code === 'ENOENT' || e.code === 'ELOOP') return;
        throw mapError(e);
      }
      let value;
      try {
        const st = fss.fstatSync(fd);
        if (!st.isFile() || packMates(fd, st.size, deleted).length === 0) return;
        try {
          value = packValue(fd, st.size, mate);
        } catch (e) {
          if (e.code !== undefined) throw e;
          return; // holds `deleted` but not `mate`: damaged, nothing of its own to keep
        }
      } catch (e) {
        throw mapError(e);
      } finally {
        fss.closeSync(fd);
      }
      const tmp = await this.#writeTemp(encodePack([[mate, value]]));
      try {
        this.#install(tmp, name);
      } finally {
        unlinkQuietly(tmp);
      }
    });
  }

  /** Whether `key`'s name already holds `value` (a commit then leaves it out of its pack). */
  #holds(key, value) {
    try {
      const current = this.#value(key);
      return current !== undefined && sameBytes(current, value);
    } catch {
      return false;
    }
  }

  async list(prefix, cursor) {
    await this.#init();
    let names;
    try {
      names = fss.readdirSync(this.#root);
    } catch (e) {
      throw mapError(e);
    }
    const after = cursor === undefined || cursor === null ? undefined : cursor;
    const keys = glue.storeDirListKeys(names, prefix, after, PAGE + 1);
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
    for (const [k, v] of objects) {
      keyToName(k);
      checkBytes(v);
    }
    // An object already stored under its name stays out of the pack: packed twice,
    // a later delete would leave the older copy behind.
    const stored = [];
    const fresh = [];
    for (const object of objects) (this.#holds(object[0], object[1]) ? stored : fresh).push(object);
    const names = fresh.map(([k]) => keyToName(k));
    const want = expected === undefined || expected === null ? undefined : checkBytes(expected);
    const pack = encodePack([...fresh, [key, checkBytes(value)]]);
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
        // One left out but deleted since (a sweep): written again, on its own.
        let again = false;
        for (const [k, v] of stored) {
          const n = keyToName(k);
          try {
            fss.lstatSync(join(this.#root, n));
          } catch (e) {
            if (e.code !== 'ENOENT') throw mapError(e);
            await this.#copyAs(encodePack([[k, v]]), n);
            again = true;
          }
        }
        if (matches) this.#install(tmp, name);
        if (matches || names.length || again) await this.#syncDir();
        return matches;
      });
    } finally {
      unlinkQuietly(tmp); // gone already when installed
    }
  }

  /** A new temporary file (O_EXCL, 0600) holding `bytes`, fsynced; its path. */
  async #writeTemp(bytes) {
    const tmp = join(this.#root, `${rules().tmpPrefix}${process.pid}-${randomUUID()}`);
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
    const tmp = join(this.#root, `${rules().tmpPrefix}${process.pid}-${randomUUID()}`);
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
  async #syncDir(always = false) {
    if (!this.#syncDirectory && !always) return;
    const fd = fss.openSync(this.#root, C.O_RDONLY | C.O_DIRECTORY);
    try {
      await fsync(fd);
    } finally {
      fss.closeSync(fd);
    }
  }

  /**
   * Runs `fn` (a whole command) in this process's turn, as memdir-host does: of
   * two processes streaming writes, the one that just won would otherwise start its
   * next command ahead while the loser re-reads, and the loser can lose every
   * retry. Fairness only: when the turn is not had in time, `fn` runs anyway and
   * the compare-and-swap keeps it safe. openMemory wraps each command in it.
   */
  async inTurn(fn) {
    await this.#init();
    return this.#locked(rules().turnLock, fn, () => this.#acquireTurn());
  }

  /** Takes the turn, letting a fresh waiter that is not us go first; a no-op release when the wait ends. */
  async #acquireTurn() {
    const path = join(this.#root, rules().turnLock);
    const want = join(this.#root, rules().turnWant);
    const token = glue.storeDirLockToken(process.pid, HOST, randomUUID());
    const deadline = Date.now() + rules().turnWaitMs;
    while (Date.now() < deadline) {
      let wanted = false;
      try {
        wanted = Date.now() - fss.lstatSync(want).mtimeMs < rules().wantFreshMs;
      } catch {
        // nobody waits
      }
      if (wanted && readQuietly(want) !== token) {
        await sleep(rules().turnPollMs);
        continue;
      }
      try {
        const fd = fss.openSync(path, CREATE_FLAGS, FILE_MODE);
        try {
          fss.writeSync(fd, token);
        } finally {
          fss.closeSync(fd);
        }
        if (wanted) unlinkQuietly(want);
        return () => {
          if (readQuietly(path) === token) unlinkQuietly(path);
        };
      } catch (e) {
        if (e.code !== 'EEXIST') return () => {};
      }
      this.#breakIfStale(path);
      try {
        fss.writeFileSync(want, token, { flag: C.O_WRONLY | C.O_CREAT | C.O_TRUNC | C.O_NOFOLLOW, mode: FILE_MODE });
      } catch {
        // a waiter that cannot say so still waits, only unfavoured
      }
      await sleep(rules().turnPollMs);
    }
    return () => {};
  }

  /** Runs `fn` holding the lock of `name`: in-process queue first, then the lock file. */
  #locked(name, fn, acquire = () => this.#acquire(name)) {
    const prev = this.#queues.get(name) ?? Promise.resolve();
    const run = prev.then(async () => {
      const release = await acquire();
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

  /**
   * Takes the lock file of `name`. Every way round the loop passes the deadline
   * check, whatever sits at the lock's path (a directory, a dangling symlink, an
   * unreadable file): only its age can make such a thing stale.
   */
  async #acquire(name) {
    const lockPath = join(this.#root, `${rules().lockPrefix}${name}`);
    const token = glue.storeDirLockToken(process.pid, HOST, randomUUID());
    const deadline = Date.now() + (this.#lockWaitMs ?? rules().lockWaitMs);
    for (let attempt = 0; ; attempt++) {
      try {
        const fd = fss.openSync(lockPath, CREATE_FLAGS, FILE_MODE);
        try {
          fss.writeSync(fd, token);
        } catch (e) {
          fss.closeSync(fd);
          unlinkQuietly(lockPath);
          throw e;
        }
        fss.closeSync(fd);
        return () => {
          // Remove the lock only if it is still ours (it may have been broken as stale).
          if (readQuietly(lockPath) === token) unlinkQuietly(lockPath);
        };
      } catch (e) {
        if (e.code !== 'EEXIST') throw mapError(e);
      }
      const broke = this.#breakIfStale(lockPath);
      if (Date.now() >= deadline) throw storeError('the store stayed locked', 'UnavailableError');
      await sleep(broke ? 0 : Math.min(1 + attempt, 25) * (0.5 + Math.random()));
    }
  }

  /** Breaks a lock whose owner process is gone or that is too old to be live; true when it may be free now. */
  #breakIfStale(lockPath) {
    let st;
    try {
      st = fss.lstatSync(lockPath);
    } catch (e) {
      return e.code === 'ENOENT'; // released meanwhile: try again at once
    }
    const token = readQuietly(lockPath); // undefined when it cannot be read
    if (!glue.storeDirLockIsStale(token, Date.now() - st.mtimeMs, HOST, process.pid, processAlive)) return false;
    // Move it aside first: of two processes breaking the same lock only one wins the rename.
    const aside = `${lockPath}.stale-${randomUUID()}`;
    try {
      fss.renameSync(lockPath, aside);
    } catch {
      return true;
    }
    if (token !== undefined && readQuietly(aside) !== token) {
      // We moved a lock taken after our check: put it back unless a new one exists.
      try {
        fss.linkSync(aside, lockPath);
      } catch {
        // a newer lock is in place; the one we moved was released by its owner's check
      }
    }
    try {
      fss.rmSync(aside, { recursive: false });
    } catch {
      try {
        fss.rmdirSync(aside);
      } catch {
        // a directory with something in it stays aside, under a name no lock uses
      }
    }
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
 * once, slower). options.lockWaitMs: how long a write waits for a key's lock
 * before failing (default: the format's, 10 s).
 */
export function directoryStore(path, options) {
  return new DirectoryStore(path, options);
}
