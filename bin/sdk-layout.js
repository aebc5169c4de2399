// The SDK's BetaLocalFilesystemMemoryTool layout (DIR/memories/...) on disk: what of
// a directory tree import-dir takes in, and how export-dir writes a memory out.
//
// Both faces touch a tree that someone else may be changing while they run, so
// neither trusts a path twice. Every file and directory below DIR/memories is
// opened once, without following a symlink (O_NOFOLLOW), and then used only through
// that descriptor: its type and size come from fstat, and its children are reached
// through /proc/self/fd/N/name (Linux), which resolves from the descriptor's own
// directory rather than from a path an attacker could swap a symlink into. Where
// /proc is missing, children are reached by path, and only the last component of
// each path is guarded against symlinks.
import { constants as C } from 'node:fs';
import { lstat, mkdir, open, readdir, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';

const FILE_MODE = 0o600;
const DIR_MODE = 0o700;
// O_NONBLOCK: opening a FIFO swapped in after the lstat returns at once (and fstat
// then refuses it) instead of waiting for a writer.
const READ_FLAGS = C.O_RDONLY | C.O_NOFOLLOW | C.O_NONBLOCK;
const DIR_FLAGS = C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW;
const CREATE_FLAGS = C.O_WRONLY | C.O_CREAT | C.O_EXCL | C.O_NOFOLLOW;
const UTF8_BOM = 3; // bytes the decoder drops from the start of a file

// Temporary files the SDK's atomic writes leave behind after a crash: not memories.
const SDK_TEMP = /^\.tmp-\d+-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const thousands = (n) => n.toLocaleString('en-US');

/** The system's words for an I/O failure, without the path Node appends to them. */
function reason(e) {
  const m = String(e?.message ?? e);
  const cut = m.indexOf(', ');
  return e?.code && cut > 0 ? m.slice(0, cut) : m;
}

let viaProc;
/** Whether /proc/self/fd/N names the directory open as N (checked once, on the first). */
async function procWorks(fh) {
  viaProc ??= (async () => {
    try {
      const [a, b] = await Promise.all([fh.stat(), stat(`/proc/self/fd/${fh.fd}`)]);
      return a.dev === b.dev && a.ino === b.ino;
    } catch {
      return false;
    }
  })();
  return viaProc;
}

/** A directory held open; `shown` is its path for messages. */
class Dir {
  constructor(fh, shown, proc) {
    this.fh = fh;
    this.shown = shown;
    this.proc = proc;
  }

  static async open(path, shown, flags) {
    const fh = await open(path, flags);
    return new Dir(fh, shown, await procWorks(fh));
  }

  /** The path that reaches the child `name` of this very directory. */
  at(name) {
    return this.proc ? `/proc/self/fd/${this.fh.fd}/${name}` : join(this.shown, name);
  }

  names() {
    return readdir(this.proc ? `/proc/self/fd/${this.fh.fd}` : this.shown);
  }

  close() {
    return this.fh.close();
  }
}

/**
 * The SDK layout DIR/memories/... as entries `[{path, content?}]`; refuses what would
 * not round-trip (symlinks, special files, text that is not UTF-8) and any file over
 * `maxFileBytes`, or a tree over `maxTotalBytes`, judged from the descriptor's size
 * before reading and never reading more than the limit and a byte.
 */
export async function readSdkLayout(dir, { maxFileBytes, maxTotalBytes }) {
  const root = join(resolve(dir), 'memories');
  const fail = (message) => new Error(`import-dir: ${message}`);
  let top;
  try {
    top = await Dir.open(root, root, DIR_FLAGS);
  } catch (e) {
    if (['ENOENT', 'ENOTDIR', 'ELOOP', 'EMLINK'].includes(e.code)) throw fail(`${root} is not a directory`);
    throw fail(`cannot read ${root}: ${reason(e)}`);
  }
  const entries = [];
  const skipped = [];
  let total = 0;

  async function readFileAt(fh, p) {
    const st = await fh.stat();
    if (!st.isFile()) throw fail(`${p} is not a regular file or directory (symbolic links are not followed)`);
    // A UTF-8 BOM is not content: a file may be that much over the limit.
    const most = maxFileBytes + UTF8_BOM;
    if (st.size > most) {
      throw fail(`${p} is ${thousands(st.size)} bytes, over the limit of ${thousands(maxFileBytes)} bytes per file`);
    }
    const buf = Buffer.allocUnsafe(st.size + 1);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
      if (n === buf.length) break;
    }
    if (n > st.size) throw fail(`${p} grew while it was being read`);
    const bytes = buf.subarray(0, n);
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? UTF8_BOM : 0;
    if (n - bom > maxFileBytes) {
      throw fail(`${p} is ${thousands(n)} bytes, over the limit of ${thousands(maxFileBytes)} bytes per file`);
    }
    total += n - bom;
    if (total > maxTotalBytes) {
      throw fail(`the files under ${root} hold more than ${thousands(maxTotalBytes)} bytes, the memory's quota`);
    }
    try {
      return strictUtf8.decode(bytes);
    } catch {
      throw fail(`${p} is not UTF-8 text; memory files are text`);
    }
  }

  async function walk(d, virt) {
    let names;
    try {
      names = await d.names();
    } catch (e) {
      throw fail(`cannot read ${d.shown}: ${reason(e)}`);
    }
    for (const name of names) {
      const p = join(d.shown, name);
      const v = `${virt}/${name}`;
      const notPlain = () => fail(`${p} is not a regular file or directory (symbolic links are not followed)`);
      let fh;
      try {
        // lstat first, so that a device or a FIFO is never opened at all.
        const s = await lstat(d.at(name));
        if (!s.isFile() && !s.isDirectory()) throw notPlain();
        if (s.isFile() && SDK_TEMP.test(name)) {
          skipped.push(v);
          continue;
        }
        fh = await open(d.at(name), READ_FLAGS);
      } catch (e) {
        // ELOOP (EMLINK on some BSDs): a symlink swapped in since the lstat.
        if (['ELOOP', 'EMLINK', 'ENXIO'].includes(e.code)) throw notPlain();
        if (e.code) throw fail(`cannot read ${p}: ${reason(e)}`);
        throw e;
      }
      let isDir = false;
      try {
        isDir = (await fh.stat()).isDirectory();
        if (!isDir) entries.push({ path: v, content: await readFileAt(fh, p) });
      } catch (e) {
        await fh.close();
        if (e.code) throw fail(`cannot read ${p}: ${reason(e)}`);
        throw e;
      }
      if (!isDir) {
        await fh.close();
        continue;
      }
      entries.push({ path: v });
      const sub = new Dir(fh, p, d.proc);
      try {
        await walk(sub, v);
      } finally {
        await sub.close();
      }
    }
  }

  try {
    await walk(top, '/memories');
  } finally {
    await top.close();
  }
  return { entries, skipped, root };
}

/**
 * The names of `path` below /memories when each is a plain name (not empty, `.`,
 * `..`, nor holding a separator or a control character); undefined otherwise.
 */
function plainNames(path) {
  if (typeof path !== 'string' || !path.startsWith('/memories/')) return undefined;
  const names = path.slice('/memories/'.length).split('/');
  const plain = (n) =>
    n !== '' && n !== '.' && n !== '..' && !/[\u0000-\u001f\u007f]/u.test(n) && (sep === '/' || !/[\\:]/.test(n));
  return names.every(plain) ? names : undefined;
}

/**
 * The memory's entries as a tree of plain names, checked whole before anything is
 * written: the store they come from may have been altered, and a name like `..`
 * must never reach the filesystem.
 */
function planTree(entries) {
  const damaged = (path, why) =>
    new Error(`export-dir: the memory is damaged: ${JSON.stringify(path)} ${why}; nothing was written`);
  const top = { dirs: new Map(), files: new Map() };
  const items = entries.map((e) => {
    const names = plainNames(e.path);
    if (!names) throw damaged(e.path, 'is not a plain path under /memories');
    return { e, names };
  });
  // Parents first, whatever order the entries came in.
  items.sort((a, b) => a.names.length - b.names.length);
  for (const { e, names } of items) {
    let node = top;
    for (const n of names.slice(0, -1)) {
      node = node.dirs.get(n);
      if (!node) throw damaged(e.path, 'has no parent directory in the memory');
    }
    const name = names.at(-1);
    if (node.dirs.has(name) || node.files.has(name)) throw damaged(e.path, 'appears twice');
    if (e.content === undefined) node.dirs.set(name, { dirs: new Map(), files: new Map() });
    else node.files.set(name, e.content);
  }
  return top;
}

/**
 * Writes `entries` (as `memory.entries()` gives them) as DIR/memories/..., which must
 * not exist or be empty. Creates only beneath it: DIR/memories and every directory on
 * the way are entered without following a symlink, and every file is created new
 * (O_EXCL) without following one. DIR itself is the caller's and is taken as named.
 */
export async function writeSdkLayout(dir, entries) {
  const tree = planTree(entries);
  const base = resolve(dir);
  const root = join(base, 'memories');
  const fail = (message) => new Error(`export-dir: ${message}`);
  const io = (p, e) => (e.code ? fail(`cannot write ${p}: ${reason(e)}`) : e);

  let top;
  try {
    await mkdir(base, { recursive: true, mode: DIR_MODE });
    const parent = await Dir.open(base, base, C.O_RDONLY | C.O_DIRECTORY);
    try {
      await mkdir(parent.at('memories'), { mode: DIR_MODE }).catch((e) => (e.code === 'EEXIST' ? undefined : Promise.reject(e)));
      if ((await lstat(parent.at('memories'))).isSymbolicLink()) {
        throw fail(`${root} is a symbolic link; export-dir writes only into a real directory`);
      }
      top = await Dir.open(parent.at('memories'), root, DIR_FLAGS).catch((e) => {
        if (e.code === 'ELOOP' || e.code === 'EMLINK') throw fail(`${root} is a symbolic link; export-dir writes only into a real directory`);
        if (e.code === 'ENOTDIR') throw fail(`${root} is not a directory`);
        throw e;
      });
    } finally {
      await parent.close();
    }
  } catch (e) {
    throw io(root, e);
  }

  let files = 0;
  let dirs = 0;
  async function write(d, node) {
    for (const [name, content] of node.files) {
      const p = join(d.shown, name);
      let fh;
      try {
        fh = await open(d.at(name), CREATE_FLAGS, FILE_MODE);
        await fh.writeFile(content, 'utf8');
        await fh.sync();
      } catch (e) {
        throw e.code === 'EEXIST' ? fail(`${p} appeared while exporting; stopped`) : io(p, e);
      } finally {
        await fh?.close();
      }
      files += 1;
    }
    for (const [name, child] of node.dirs) {
      const p = join(d.shown, name);
      let sub;
      try {
        await mkdir(d.at(name), { mode: DIR_MODE });
        sub = await Dir.open(d.at(name), p, DIR_FLAGS);
      } catch (e) {
        throw ['EEXIST', 'ELOOP', 'EMLINK'].includes(e.code) ? fail(`${p} appeared while exporting; stopped`) : io(p, e);
      }
      dirs += 1;
      try {
        await write(sub, child);
      } finally {
        await sub.close();
      }
    }
  }

  try {
    let existing;
    try {
      existing = await top.names();
    } catch (e) {
      throw io(root, e);
    }
    if (existing.length) throw fail(`${root} is not empty`);
    await write(top, tree);
  } finally {
    await top.close();
  }
  return { files, dirs, root };
}
