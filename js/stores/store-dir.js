// The JS store protocol on a store directory of the local disk (Node), in the
// `memdir-store` format that the wasmtime host's directory backend (host/src/store_dir.rs)
// reads and writes too. What every file means (key -> file name, the pack, the
// marker, which directories may be opened, lock tokens and when a lock is stale)
// is decided once, in Rust (src/store_dir/), and so is the order of the system
// calls of opening the directory and of every read and change
// (src/store_dir/protocol.rs: create, classify and mark, locks, packs, links,
// renames, syncs, deletes and their pack mates), shared with the host. This file
// takes the turn, hands the protocol its system calls (NodeDirIo: node:fs's
// synchronous calls, made from the wasm) and drives the opening and each change
// (#drive: the waits for a lock and the fsyncs run here, off the event loop).
//
// One name per key, flat in the directory. A file holds a small pack: the values
// of one or more keys with an index. A command's commit writes ONE pack (its new
// objects and the new head), fsyncs it once, hard-links it under each object's
// name and renames it over the head: one fsync per command, as the SDK's own tool
// pays for one file. A reader sees the old or the new value, never half of one.
// An object already stored under its name is left out of the pack (a value is
// packed once), and a delete first rewrites every other key still sharing the
// deleted key's pack as a pack of its own, so no byte of a deleted value stays.
// Mutations of a key hold a lock file for that key, made exclusively (a lock is a
// spare file of this process hard-linked under the lock's name: see Spares),
// which makes compare-and-swap hold across processes sharing the directory (Node or
// host); a lock left by a crashed process is broken once its owner is gone or it
// is old, and a wait for a lock ends at its deadline whatever sits at the lock's
// path.
// Every open uses O_NOFOLLOW and renames, links and unlinks never follow, so no
// symlink planted in the directory is ever followed out of it.
import * as fss from 'node:fs';
import { promisify } from 'node:util';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { glue } from '../glue.js';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
// The format's names and times, read from the engine once the wasm is ready.
let rulesCache;
const rules = () => (rulesCache ??= glue.storeDirRules());

const C = fss.constants;
const fsync = promisify(fss.fsync);
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const NO_ENTRY_UNDEFINED = { throwIfNoEntry: false };
const BIGINT_NO_ENTRY_UNDEFINED = { bigint: true, throwIfNoEntry: false };
const HOST = hostname();

/** The file name of `key` (`k` + an escape of its bytes); throws when too long. */
export function keyToName(key) {
  return glue.storeDirFileName(key);
}

/** The key a file name encodes, or undefined for any file that is not a key. */
export function nameToKey(name) {
  return glue.storeDirListKeys([name], '', undefined, 1)[0];
}

/** An absent name, as the protocol reads it (its code), made without a stack trace. */
function notFound() {
  const e = Object.create(Error.prototype);
  e.code = 'ENOENT';
  e.message = 'no such file or directory';
  return e;
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

// How long the event loop has been held since it last turned: the first ask arms a
// mark that the loop's next turn clears, and later asks measure from it. The engine
// lets the loop turn (`breathe`) once a run of this store's calls, synchronous
// system calls all, has held it past STORE_DIR_SLICE_MS (crates/memdir-wasm/src/store_dir/store.rs).
let heldSince;
function heldMs() {
  if (heldSince === undefined) {
    heldSince = performance.now();
    setImmediate(() => {
      heldSince = undefined;
    });
    return 0;
  }
  return performance.now() - heldSince;
}
const breathe = () => new Promise((r) => setImmediate(r));

/** Writes all of `bytes` at the start of the file open at `fd` (a write may be short). */
function writeAll(fd, bytes) {
  let at = 0;
  while (at < bytes.byteLength) at += fss.writeSync(fd, bytes, at, bytes.byteLength - at, at);
}

/** Makes the file (or directory) at `path` durable, off the event loop. */
function fsyncPath(path, flags) {
  return fsyncFd(fss.openSync(path, flags));
}

/** Makes the file open at `fd` durable, off the event loop, and closes it. */
async function fsyncFd(fd) {
  try {
    await fsync(fd);
  } finally {
    fss.closeSync(fd);
  }
}

/** A file's identity, `dev:ino`, exact (from a bigint stat). */
function fileId(st) {
  return `${st.dev}:${st.ino}`;
}

function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** `names`, each followed by a NUL, which no file name holds. */
function nulTerminated(names) {
  return names.length === 0 ? '' : `${names.join('\0')}\0`;
}

/** The kind of a directory entry (or of lstat's answer) as one character: f, d, l or o. */
function entryKind(d) {
  if (d.isSymbolicLink()) return 'l';
  if (d.isDirectory()) return 'd';
  if (d.isFile()) return 'f';
  return 'o';
}

const ERROR_KINDS = new Map([
  ['ENOENT', 0],
  ['EEXIST', 1],
  // Of a filesystem (or an inode) that takes no more hard links.
  ...['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV'].map((c) => [c, 2]),
  ['ELOOP', 3],
  ['ENOSPC', 4],
  ['EDQUOT', 4],
  ['EACCES', 5],
  ['EROFS', 5],
  ['ENOTDIR', 7],
]);

/**
 * Spare files, per store directory, shared by every store of this process (and
 * thread) on it: lock files, and empty temporaries for the next packs.
 *
 * A lock is made by writing its token into a spare that no lock links
 * now (its link count is 1) and hard-linking the spare under the lock's name: the
 * same exclusive make as a create (a link fails on an existing name), but a link is
 * one directory entry where a create allocates an inode: 6–27 µs against 15–450 on
 * this project's CI disk (the most while its journal is busy), and a command takes two locks (the turn and the head's).
 * The lock then holds its token and its age (the spare's mtime, set by the write)
 * exactly as a created one, so every tool reads, waits for and breaks it the same.
 * At most `lockSpares` per directory (one per lock held at once); with all busy, a
 * lock is created. Spares are temporaries (`.tmp-lock-…`): removed when the process
 * exits, swept like any temporary when a crash left them, and one swept away while
 * kept here is forgotten at its next use.
 *
 * A pack is staged in a new file each commit (it is hard-linked under its objects'
 * names and renamed over the head, so it cannot be reused), and making that file
 * allocates an inode: 0.2–0.6 ms on this project's disk while other writers sync,
 * the largest system call of a commit, and more than a delete's whole floor
 * spends besides its one directory sync. So the file is made ahead: each staged pack
 * starts making the next one (`.tmp-stage-…`, empty, O_EXCL, 0600) off the event
 * loop, while the commit waits for its fsync, and the next commit writes its pack
 * into it. At most `stageSpares` per directory, kept open; one that is no longer an
 * empty file under its name alone (swept, removed or written by another hand) or is
 * older than `stageSpareMaxAgeMs` (so no sweep of a crash's temporaries can take it
 * as it is written) is removed and the pack staged in a new file, as before.
 */
class Spares {
  /** resolved root -> its Spares, the most recently used last */
  static #byRoot = new Map();
  static #exitHook = false;

  /**
   * The spares of `root`, which every store of this process on it shares. At most
   * `lockSpareDirs` directories keep spares: past that, the least recently used
   * one whose spares no lock links gives them up (its files are removed), so a
   * server that opens and deletes stores for months keeps a bounded set.
   */
  static of(root) {
    const byRoot = Spares.#byRoot;
    let spares = byRoot.get(root);
    if (spares) {
      byRoot.delete(root);
    } else {
      if (byRoot.size >= rules().lockSpareDirs) Spares.#evictOne();
      if (!Spares.#exitHook) {
        Spares.#exitHook = true;
        process.once('exit', () => {
          for (const [dir, spares] of byRoot) spares.remove(dir);
        });
      }
      spares = new Spares();
    }
    byRoot.set(root, spares);
    return spares;
  }

  /** Removes the least recently used directory whose spares are all free, if any. */
  static #evictOne() {
    for (const [dir, spares] of Spares.#byRoot) {
      const busy = spares.names.some((n) => (fss.lstatSync(`${dir}/${n}`, NO_ENTRY_UNDEFINED)?.nlink ?? 1) > 1);
      if (busy) continue;
      spares.remove(dir);
      Spares.#byRoot.delete(dir);
      return;
    }
  }

  /** Removes every spare file of the directory `dir` (a stage spare still being made, once made). */
  remove(dir) {
    this.gone = true;
    for (const n of this.names) unlinkQuietly(`${dir}/${n}`);
    for (const { name, fd } of this.stages.splice(0)) {
      closeQuietly(fd);
      unlinkQuietly(`${dir}/${name}`);
    }
  }

  /** The lock spares' names in the directory. */
  names = [];
  /** False once the filesystem refused a link: its locks are created. */
  linkable = true;
  /** Stage spares made ahead, each `{ name, fd, madeAt }`, open for writing. */
  stages = [];
  /** Whether a stage spare is being made now. */
  making = false;
  /** True once given up (evicted, or the process exiting): one still being made is removed once made. */
  gone = false;
}

/**
 * The protocol's system calls (the wasm's `JsDirIo`), on names in the directory
 * `root`: synchronous node:fs calls, microseconds each on a local disk; none
 * follows a symlink. A failed call throws node's own error, which the protocol
 * reads the code of and hands back as it was.
 */
class NodeDirIo {
  /** What a thrown error means to the protocol (its IoKind, by number). */
  kindOf(e) {
    return ERROR_KINDS.get(e?.code) ?? 6;
  }
  #root;
  #staged = new Map();
  /** lock name -> { id, token } of each lock made from a spare and not yet given back */
  #linked = new Map();
  constructor(root) {
    this.#root = root;
  }
  #path(name) {
    return `${this.#root}/${name}`;
  }
  open(name) {
    const fd = fss.openSync(this.#path(name), READ_FLAGS);
    try {
      const st = fss.fstatSync(fd);
      return new Float64Array([fd, st.size, st.isFile() ? 1 : 0]);
    } catch (e) {
      fss.closeSync(fd);
      throw e;
    }
  }
  readAt(fd, position, length) {
    const buf = new Uint8Array(length);
    let done = 0;
    while (done < length) {
      const n = fss.readSync(fd, buf, done, length - done, position + done);
      if (n === 0) return buf.subarray(0, done);
      done += n;
    }
    return buf;
  }
  fileId(fd) {
    return fileId(fss.fstatSync(fd, { bigint: true }));
  }
  close(fd) {
    fss.closeSync(fd);
  }
  /**
   * A new temporary file (O_EXCL, 0600) holding `bytes`, not yet synced; its name.
   * Kept open until synced (the protocol syncs every file it stages at once).
   */
  stage(bytes) {
    const spares = Spares.of(this.#root);
    let name = this.#fillStageSpare(spares, bytes);
    if (name === undefined) {
      name = `${rules().tmpPrefix}${process.pid}-${randomUUID()}`;
      this.#staged.set(name, this.#create(name, bytes));
    }
    this.#makeStageSpare(spares);
    return name;
  }
  /**
   * A stage spare made ahead (Spares), now holding `bytes`, its descriptor kept for
   * the sync; undefined when none is ready or fit: a spare that is not an empty file
   * under its one name, or is too old, is removed instead.
   */
  #fillStageSpare(spares, bytes) {
    while (spares.stages.length > 0) {
      const { name, fd, madeAt } = spares.stages.pop();
      try {
        const st = fss.fstatSync(fd);
        const fit = st.isFile() && st.nlink === 1 && st.size === 0 && Date.now() - madeAt < rules().stageSpareMaxAgeMs;
        if (fit) {
          writeAll(fd, bytes);
          this.#staged.set(name, fd);
          return name;
        }
      } catch {
        // unusable: removed below, and the pack staged in a new file as before
      }
      closeQuietly(fd);
      unlinkQuietly(this.#path(name));
    }
    return undefined;
  }
  /**
   * Starts making the next stage spare off the event loop (it is made while this
   * commit waits for its fsync), unless enough are kept or one is being made.
   */
  #makeStageSpare(spares) {
    if (spares.making || spares.stages.length >= rules().stageSpares) return;
    spares.making = true;
    const name = `${rules().tmpPrefix}stage-${process.pid}-${randomUUID()}`;
    const path = this.#path(name);
    fss.open(path, CREATE_FLAGS, FILE_MODE, (err, fd) => {
      spares.making = false;
      if (err) return; // none made: the next pack is staged in a new file
      if (spares.gone) {
        closeQuietly(fd);
        unlinkQuietly(path);
        return;
      }
      spares.stages.push({ name, fd, madeAt: Date.now() });
    });
  }
  /** The staged file `name`'s descriptor, for its fsync (closed by the caller). */
  takeStaged(name) {
    const fd = this.#staged.get(name);
    this.#staged.delete(name);
    return fd ?? fss.openSync(this.#path(name), READ_FLAGS);
  }
  syncFile(name) {
    const fd = this.takeStaged(name);
    try {
      fss.fsyncSync(fd);
    } finally {
      fss.closeSync(fd);
    }
  }
  /** A lock: a spare holding `bytes` linked as `name` (Spares), else created. */
  createExcl(name, bytes) {
    const spares = Spares.of(this.#root);
    const spare = spares.linkable ? this.#spareHolding(spares, bytes) : undefined;
    if (spare !== undefined) {
      try {
        fss.linkSync(this.#path(spare.name), this.#path(name));
        // Given back by stillHolds: the lock is ours while its name is this file.
        this.#linked.set(name, { id: spare.id, token: Buffer.from(bytes) });
        return;
      } catch (e) {
        if (e?.code === 'EEXIST') throw e;
        // Swept meanwhile, or a filesystem without hard links (then no more spares).
        if (this.kindOf(e) === 2) spares.linkable = false;
        this.#forgetSpare(spares, spare.name);
      }
    }
    fss.closeSync(this.#create(name, bytes));
  }
  /**
   * Whether the lock `name`, made holding `token`, is still ours, as it is given
   * back: a lock made from a spare is ours while `name` is that spare's file (the
   * spare's own name keeps its inode from being reused); a created one, while it
   * holds the token.
   */
  stillHolds(name, token) {
    const made = this.#linked.get(name);
    this.#linked.delete(name);
    if (made === undefined || !made.token.equals(token)) {
      const held = this.readSmall(name);
      return held !== undefined && Buffer.from(held).equals(token);
    }
    const st = fss.lstatSync(this.#path(name), BIGINT_NO_ENTRY_UNDEFINED);
    return st !== undefined && fileId(st) === made.id;
  }
  /**
   * A spare that no lock links now, rewritten to hold exactly `bytes` (which also
   * makes it young), or a new one while there are fewer than `lockSpares`: its
   * name and identity; undefined when all are busy or none can be made.
   */
  #spareHolding(spares, bytes) {
    for (const spare of [...spares.names]) {
      const st = fss.lstatSync(this.#path(spare), BIGINT_NO_ENTRY_UNDEFINED);
      if (st === undefined || !st.isFile()) {
        this.#forgetSpare(spares, spare);
        continue;
      }
      // Linked elsewhere: a lock held now, or one being broken (moved aside).
      if (st.nlink !== 1n) continue;
      let fd;
      try {
        const resize = st.size === BigInt(bytes.byteLength) ? 0 : C.O_TRUNC;
        fd = fss.openSync(this.#path(spare), C.O_WRONLY | C.O_NOFOLLOW | resize);
        writeAll(fd, bytes);
        return { name: spare, id: fileId(st) };
      } catch {
        this.#forgetSpare(spares, spare);
      } finally {
        if (fd !== undefined) fss.closeSync(fd);
      }
    }
    if (spares.names.length >= rules().lockSpares) return undefined;
    const spare = `${rules().tmpPrefix}lock-${process.pid}-${randomUUID()}`;
    let id;
    try {
      const fd = this.#create(spare, bytes);
      try {
        id = fileId(fss.fstatSync(fd, { bigint: true }));
      } finally {
        fss.closeSync(fd);
      }
    } catch {
      unlinkQuietly(this.#path(spare));
      return undefined; // the lock's own create says why
    }
    spares.names.push(spare);
    return { name: spare, id };
  }
  #forgetSpare(spares, spare) {
    const at = spares.names.indexOf(spare);
    if (at >= 0) spares.names.splice(at, 1);
    unlinkQuietly(this.#path(spare));
  }
  /** `name` created exclusively holding `bytes`; its descriptor, open. */
  #create(name, bytes) {
    const path = this.#path(name);
    const fd = fss.openSync(path, CREATE_FLAGS, FILE_MODE);
    try {
      writeAll(fd, bytes);
    } catch (e) {
      fss.closeSync(fd);
      unlinkQuietly(path);
      throw e;
    }
    return fd;
  }
  replace(name, bytes) {
    fss.writeFileSync(this.#path(name), bytes, { flag: C.O_WRONLY | C.O_CREAT | C.O_TRUNC | C.O_NOFOLLOW, mode: FILE_MODE });
  }
  readSmall(name) {
    let fd;
    try {
      fd = fss.openSync(this.#path(name), READ_FLAGS);
      if (!fss.fstatSync(fd).isFile()) return undefined;
      const buf = new Uint8Array(256);
      return buf.subarray(0, fss.readSync(fd, buf, 0, 256, 0));
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fss.closeSync(fd);
    }
  }
  // An absent name is answered without node's exception (a failed lstat builds
  // one, several times the system call's cost): the protocol asks about absent
  // names on every write (each new object's name, the turn's want).
  exists(name) {
    return fss.lstatSync(this.#path(name), NO_ENTRY_UNDEFINED) !== undefined;
  }
  ageMs(name) {
    const st = fss.lstatSync(this.#path(name), NO_ENTRY_UNDEFINED);
    if (st === undefined) throw notFound();
    return Date.now() - st.mtimeMs;
  }
  link(from, to) {
    fss.linkSync(this.#path(from), this.#path(to));
  }
  rename(from, to) {
    fss.renameSync(this.#path(from), this.#path(to));
  }
  unlink(name) {
    fss.unlinkSync(this.#path(name));
  }
  removeDir(name) {
    fss.rmdirSync(this.#path(name));
  }
  syncDir() {
    const fd = fss.openSync(this.#root, C.O_RDONLY | C.O_DIRECTORY);
    try {
      fss.fsyncSync(fd);
    } finally {
      fss.closeSync(fd);
    }
  }
  /** The directory's names, each followed by a NUL (one string crosses into the wasm at once). */
  list() {
    return nulTerminated(fss.readdirSync(this.#root));
  }
  /** The store directory's own kind (lstat), one character as in `entries`. */
  rootKind() {
    return entryKind(fss.lstatSync(this.#root));
  }
  createRoot() {
    fss.mkdirSync(this.#root, { recursive: true, mode: DIR_MODE });
  }
  /** Each entry of the directory (or of its subdirectory `sub`): its kind's character, then its name, then a NUL. */
  entries(sub) {
    const dir = sub === undefined ? this.#root : this.#path(sub);
    return nulTerminated(fss.readdirSync(dir, { withFileTypes: true }).map((d) => entryKind(d) + d.name));
  }
  unique() {
    return randomUUID();
  }
  nowMs() {
    return Date.now();
  }
  alive(pid) {
    return processAlive(pid);
  }
}

export class DirectoryStore {
  #root;
  #given;
  #ready;
  // In-process queue for the turn, so commands of one process wait in turn instead
  // of polling its lock file against each other.
  #queues = new Map();
  #syncDirectory;
  #lockWaitMs;
  #protocol;
  #io;

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

  /**
   * Removes the temporary files last changed more than `olderThanMs` ago. Only for
   * a caller in the directory's turn (inTurn) that knows no writer that old is still
   * at work: a re-encryption, removing what the runs killed before it left (a
   * temporary may hold a value being moved in clear); every open sweeps them too,
   * once an hour old.
   */
  async sweepTemporaries(olderThanMs) {
    await this.#init();
    this.#protocol.sweepTemporaries(olderThanMs);
  }

  /**
   * This directory as the engine runs on it (openMemory and every catalog use it):
   * the same protocol, called from the wasm directly instead of through this
   * object's methods, its waits and fsyncs done here. Opens the directory first.
   */
  async engineStore() {
    await this.#init();
    return this.#protocol.storeHandle({
      wait: sleep,
      syncFile: (name) => fsyncFd(this.#io.takeStaged(name)),
      syncDir: () => fsyncPath(this.#root, C.O_RDONLY | C.O_DIRECTORY),
      heldMs,
      breathe,
    });
  }

  // The system calls here are synchronous (microseconds on a local disk, where a
  // round trip through libuv's thread pool costs tens), except fsync, which can take
  // milliseconds and so runs off the event loop.

  #init() {
    this.#ready ??= (async () => {
      this.#io = new NodeDirIo(this.#root);
      this.#protocol = new glue.DirProtocol(
        this.#io,
        process.pid,
        HOST,
        this.#lockWaitMs ?? rules().lockWaitMs,
        this.#syncDirectory,
      );
      // Created, judged and marked, or refused with nothing written, by the protocol
      // shared with the host, which also sweeps the temporaries a crashed writer left.
      await this.#drive(this.#protocol.open());
    })().catch((e) => {
      this.#ready = undefined; // a later call may succeed (the disk came back)
      if (e?.name === 'StoreDirectoryError') e.message = `${this.#given}: ${e.message}`;
      throw mapError(e);
    });
    return this.#ready;
  }

  async get(key) {
    await this.#init();
    try {
      return this.#protocol.get(key);
    } catch (e) {
      throw mapError(e);
    }
  }

  async set(key, value) {
    await this.#init();
    await this.#drive(this.#protocol.set(key, checkBytes(value)));
  }

  /**
   * Removes `key` leaving no byte of its value on the disk: when its file is a pack
   * shared with other keys, each of them still holding it is first rewritten as a
   * pack of its own (the protocol's Delete).
   */
  async delete(key) {
    await this.#init();
    await this.#drive(this.#protocol.delete(key));
  }

  async list(prefix, cursor) {
    await this.#init();
    const after = cursor === undefined || cursor === null ? undefined : cursor;
    let keys;
    try {
      keys = this.#protocol.list(prefix, after, rules().listPage + 1);
    } catch (e) {
      throw mapError(e);
    }
    const page = rules().listPage;
    if (keys.length > page) return { keys: keys.slice(0, page), cursor: keys[page - 1] };
    return { keys };
  }

  async compareAndSwap(key, expected, value) {
    return this.commit([], key, expected, value);
  }

  /**
   * Writes `objects` (fresh content-addressed keys that nothing reads until the
   * swap publishes them) and compare-and-swaps `key`, with one fsync: one pack holds
   * the objects and the new value; it is made durable, linked under each object's
   * name, then renamed over the key (the protocol's Commit). A refused swap
   * publishes nothing.
   */
  async commit(objects, key, expected, value) {
    await this.#init();
    const keys = [];
    const lengths = [];
    let size = 0;
    for (const [k, v] of objects) {
      keys.push(k);
      lengths.push(checkBytes(v).byteLength);
      size += v.byteLength;
    }
    // The objects' values, one after the other: one copy into the wasm.
    const values = new Uint8Array(size);
    size = 0;
    for (const [, v] of objects) {
      values.set(v, size);
      size += v.byteLength;
    }
    const want = expected === undefined || expected === null ? undefined : checkBytes(expected);
    checkBytes(value);
    let op;
    try {
      op = this.#protocol.commit(keys, lengths, values, key, want, value);
    } catch (e) {
      throw mapError(e);
    }
    return this.#drive(op);
  }

  /**
   * Runs a change of the protocol to its end: the protocol does the system calls
   * of each stretch itself and hands back what must not block the event loop (a
   * wait for a lock another process holds, an fsync), done here.
   */
  async #drive(op) {
    let failed;
    try {
      for (;;) {
        const step = this.#protocol.poll(op, failed);
        failed = undefined;
        if (step === 0) return op.swapped;
        try {
          if (step === 1) await sleep(op.waitMs);
          else if (step === 2) await fsyncFd(this.#io.takeStaged(op.syncName));
          else await fsyncPath(this.#root, C.O_RDONLY | C.O_DIRECTORY);
        } catch (e) {
          failed = e ?? new Error('fsync failed');
        }
      }
    } catch (e) {
      throw mapError(e);
    } finally {
      op.free();
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

  /** Takes the turn (the protocol's Turn); a no-op release when the wait ends. */
  async #acquireTurn() {
    const turn = this.#protocol.turn(rules().turnWaitMs);
    while (this.#protocol.poll(turn, undefined) === 1) await sleep(turn.waitMs);
    if (!turn.swapped) {
      turn.free();
      return () => {};
    }
    return () => {
      this.#protocol.releaseTurn(turn);
      turn.free();
    };
  }

  /** Runs `fn` holding the lock of `name`: in-process queue first, then `acquire`'s lock file. */
  #locked(name, fn, acquire) {
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
}

function closeQuietly(fd) {
  try {
    fss.closeSync(fd);
  } catch {
    // already closed
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
