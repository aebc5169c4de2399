// The store-directory format from the Node side: what a directory must be for the
// CLI and directoryStore() to open it (each refusal's exact text, exit status 2,
// nothing written), the marker, the old Node layout marked in place, lock waits
// that end at their deadline whatever sits at a lock's path, and Node's locks made
// by hard-linking spare files. The cross-tool tests
// (the CLI and memdir-host on one directory) live in the host suite, which builds
// the host: host/tests/component/cross_tool.rs.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, linkSync, lstatSync, lutimesSync, mkdirSync, readFileSync, readdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { memdir, tempDir } from './helpers.mjs';
import { glue } from '../../js/glue.js';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));
const NODE_ENTRY = new URL('../../js/node.js', import.meta.url).href;
const STORE_DOWN = "Error: The memory directory's storage is unavailable right now; nothing was changed.";
const ROOT_USER = process.getuid?.() === 0;
// The tests that drop to an unprivileged user need this checkout to be readable by
// that user; a checkout under a private directory (mktemp -d is 0700) is not, and
// there they cannot be run at all.
const UNPRIVILEGED_REACH =
  !ROOT_USER ||
  spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(BIN)})`]).status === 0;
const NO_REACH = !UNPRIVILEGED_REACH && 'the unprivileged user (65534) cannot read this checkout';

function cli(args, { uid } = {}) {
  return new Promise((resolve, reject) => {
    const [cmd, argv] = uid === undefined ? [process.execPath, [BIN, ...args]] : ['setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, BIN, ...args]];
    const child = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every entry under `p` (not following links): name, kind, mode, size, contents. */
function listing(p) {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (!st) return 'absent';
  const me = `${st.mode.toString(8)} ${st.size} ${Math.trunc(st.mtimeMs)}`;
  if (st.isSymbolicLink()) return `link ${readlinkSync(p)} ${me}`;
  if (st.isFile()) return `file ${me} ${readFileSync(p).toString('hex')}`;
  if (!st.isDirectory()) return `other ${me}`;
  if ((st.mode & 0o444) === 0 && !ROOT_USER) return `dir ${me} (unreadable)`;
  return { dir: me, entries: Object.fromEntries(readdirSync(p).sort().map((n) => [n, listing(join(p, n))])) };
}

/** A store written by the CLI, for copying into the cases below. */
async function aStore() {
  const dir = join(tempDir(), 'store');
  const r = await cli(['--store', dir, 'create', '/memories/a.md', 'hello']);
  assert.equal(r.code, 0, r.stderr);
  return dir;
}

function copyStore(from, to, { marker = true } = {}) {
  mkdirSync(to, { mode: 0o700 });
  for (const n of readdirSync(from)) {
    if (n === 'memdir-store' && !marker) continue;
    writeFileSync(join(to, n), readFileSync(join(from, n)), { mode: 0o600 });
  }
}

const PROBLEMS = {
  file: 'the store path is not a directory',
  symlink: 'the store path is a symbolic link, which memdir does not follow; name the directory itself',
  foreign: 'the directory is not a memdir store: it holds files memdir did not write; name an empty or new directory',
  damaged: "the store's format marker (memdir-store) is damaged",
  other: "the store's format marker (memdir-store) names a format memdir does not know",
  newer: 'the store is memdir-store version 2, newer than this memdir reads (version 1); upgrade memdir',
  oldHost:
    'the directory is a memdir-host store of the old layout (keys/); open it once with memdir-host (for example `memdir-host export --store DIR`) to convert it',
  unreadable: 'the store directory cannot be read',
};

describe('a directory the CLI refuses: its problem, exit status 2, nothing written', () => {
  const cases = {
    file: (d) => writeFileSync(d, 'not a directory'),
    symlink: (d) => {
      mkdirSync(`${d}-target`);
      symlinkSync(`${d}-target`, d);
    },
    foreign: (d) => {
      mkdirSync(d);
      writeFileSync(join(d, 'notes.txt'), 'mine');
    },
    damaged: (d, store) => {
      copyStore(store, d);
      writeFileSync(join(d, 'memdir-store'), 'memdir-store one\n');
    },
    other: (d, store) => {
      copyStore(store, d);
      writeFileSync(join(d, 'memdir-store'), 'some-other-tool 1\n');
    },
    newer: (d, store) => {
      copyStore(store, d);
      writeFileSync(join(d, 'memdir-store'), 'memdir-store 2\n');
    },
    oldHost: (d) => {
      mkdirSync(join(d, 'keys'), { recursive: true });
      mkdirSync(join(d, 'tmp'));
      writeFileSync(join(d, 'keys', 'khead'), 'raw');
      writeFileSync(join(d, 'lock'), '');
      writeFileSync(join(d, 'turn'), '');
    },
  };
  for (const [name, make] of Object.entries(cases)) {
    test(name, async () => {
      const store = await aStore();
      const d = join(tempDir(), 'case');
      make(d, store);
      const before = listing(d);
      for (const args of [['view', '/memories'], ['create', '/memories/x.md', 'x'], ['exec', '{"command":"view","path":"/memories"}']]) {
        const r = await cli(['--store', d, ...args]);
        assert.deepEqual(r, { code: 2, stdout: '', stderr: `memdir: ${d}: ${PROBLEMS[name]}\n` });
      }
      assert.deepEqual(listing(d), before, 'nothing was written');
      // The library refuses the same way, before any command.
      await assert.rejects(memdir.openMemory({ store: memdir.directoryStore(d) }), { name: 'StoreDirectoryError', message: `${d}: ${PROBLEMS[name]}` });
      assert.deepEqual(listing(d), before, 'nothing was written');
    });
  }

  test('a path under a file: not a directory, for both tools (protocol::Open)', async () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, 'x');
    const d = join(file, 'store');
    const r = await cli(['--store', d, 'view', '/memories']);
    assert.deepEqual(r, { code: 2, stdout: '', stderr: `memdir: ${d}: ${PROBLEMS.file}\n` });
    await assert.rejects(memdir.directoryStore(d).open(), { name: 'StoreDirectoryError', message: `${d}: ${PROBLEMS.file}` });
    assert.equal(readFileSync(file, 'utf8'), 'x');
  });

  test('unreadable (run as an unprivileged user when the suite runs as root)', { skip: NO_REACH }, async () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const d = join(base, 'case');
    mkdirSync(d, { mode: 0o000 });
    const uid = ROOT_USER ? 65534 : undefined;
    if (uid !== undefined) chownSync(d, uid, uid);
    const before = listing(d);
    const r = await cli(['--store', d, 'view', '/memories'], { uid });
    assert.deepEqual(r, { code: 2, stdout: '', stderr: `memdir: ${d}: ${PROBLEMS.unreadable}\n` });
    assert.deepEqual(listing(d), before, 'nothing was written');
  });
});

describe('a directory the CLI opens', () => {
  test('missing or empty: a new store with the marker memdir-store 1, 0600 in 0700', async () => {
    const base = tempDir();
    for (const d of [join(base, 'missing', 'deeper'), join(base, 'empty')]) {
      if (d.endsWith('empty')) mkdirSync(d);
      const r = await cli(['--store', d, 'create', '/memories/a.md', 'hello']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(join(d, 'memdir-store'), 'utf8'), 'memdir-store 1\n');
      assert.equal(lstatSync(join(d, 'memdir-store')).mode & 0o777, 0o600);
      if (!d.endsWith('empty')) assert.equal(lstatSync(d).mode & 0o777, 0o700);
    }
  });

  test('the Node layout from before the marker: marked once, in place, its memory intact', async () => {
    const store = await aStore();
    const d = join(tempDir(), 'old');
    copyStore(store, d, { marker: false });
    const keys = readdirSync(d).sort();
    const r = await cli(['--store', d, 'view', '/memories/a.md']);
    assert.deepEqual(r, { code: 0, stdout: "Here's the content of /memories/a.md with line numbers:\n     1\thello\n", stderr: '' });
    assert.deepEqual(readdirSync(d).sort(), [...keys, 'memdir-store'].sort());
    assert.equal(readFileSync(join(d, 'memdir-store'), 'utf8'), 'memdir-store 1\n');
  });
});

describe('a lock wait always ends', () => {
  // Whatever sits at the head's lock: a wait ends at its deadline with the
  // storage-unavailable answer (a fresh one), or breaks it (an old one).
  const planted = {
    'a dangling symlink': (p) => symlinkSync(join(p, '..', 'nowhere'), p),
    'a directory': (p) => mkdirSync(p),
    'an unreadable file': (p) => writeFileSync(p, '', { mode: 0o000 }),
    'a socket (unopenable even by root)': async (p) => {
      const server = createServer();
      await new Promise((r) => server.listen(p, r));
      return () => server.close(); // listening until the test ends (closing removes the file)
    },
  };
  for (const [what, plant] of Object.entries(planted)) {
    test(what, async () => {
      const dir = join(tempDir(), 'store');
      const memory = await memdir.openMemory({ store: memdir.directoryStore(dir, { lockWaitMs: 400 }) });
      assert.equal(await memory.create({ path: '/memories/a.md', file_text: 'a' }), 'File created successfully at: /memories/a.md');
      const lock = join(dir, `.lock-${'khead'}`);
      const done = await plant(lock);
      const cpuBefore = process.cpuUsage();
      const started = Date.now();
      const r = await memory.execute({ command: 'create', path: '/memories/b.md', file_text: 'b' });
      const took = Date.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      assert.deepEqual(r, { content: STORE_DOWN, is_error: true });
      assert.ok(took >= 400 && took < 3000, `ended in ${took} ms`);
      // Waiting, not spinning: well under the wall time in CPU.
      assert.ok((cpu.user + cpu.system) / 1000 < took * 0.6, `used ${(cpu.user + cpu.system) / 1000} ms of CPU in ${took} ms`);
      // Old enough, it is broken, and the write goes through.
      const old = new Date(Date.now() - 120_000);
      lutimesSync(lock, old, old); // the lock's own times, never a link's target
      assert.equal(await memory.create({ path: '/memories/b.md', file_text: 'b' }), 'File created successfully at: /memories/b.md');
      done?.();
    });
  }

  test('a wait leaves the event loop free: the protocol in the wasm hands its waits back to JS as timers', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir, { lockWaitMs: 400 });
    await store.set('k', new Uint8Array([1]));
    mkdirSync(join(dir, '.lock-kk')); // a fresh lock nobody will release
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const started = Date.now();
    await assert.rejects(store.set('k', new Uint8Array([2])), { name: 'UnavailableError', message: 'the store stayed locked' });
    const took = Date.now() - started;
    clearInterval(timer);
    assert.ok(took >= 400 && took < 3000, `ended in ${took} ms`);
    assert.ok(ticks >= took / 10 / 4, `${ticks} ticks of 10 ms in ${took} ms`);
  });

  test('the CLI with its default wait: ends within the documented 10 s', async () => {
    const dir = join(tempDir(), 'store');
    assert.equal((await cli(['--store', dir, 'create', '/memories/a.md', 'a'])).code, 0);
    symlinkSync(join(dir, 'nowhere'), join(dir, '.lock-khead'));
    const started = Date.now();
    const r = await cli(['--store', dir, 'create', '/memories/b.md', 'b']);
    const took = Date.now() - started;
    assert.deepEqual(r, { code: 1, stdout: '', stderr: `${STORE_DOWN}\n` });
    assert.ok(took >= 10_000 && took < 14_000, `ended in ${took} ms`);
  });

  test('an unreadable lock file, for a process that really cannot read it', { skip: (!ROOT_USER && 'covered above') || NO_REACH }, () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const dir = join(base, 'store');
    const prep = spawnSync(process.execPath, [BIN, '--store', dir, 'create', '/memories/a.md', 'a']);
    assert.equal(prep.status, 0, String(prep.stderr));
    spawnSync('chown', ['-R', '65534:65534', dir]);
    writeFileSync(join(dir, '.lock-khead'), 'secret', { mode: 0o000 }); // root's, mode 000
    const script = `
      const m = await import(${JSON.stringify(NODE_ENTRY)});
      const memory = await m.openMemory({ store: m.directoryStore(${JSON.stringify(dir)}, { lockWaitMs: 400 }) });
      const t = Date.now();
      const r = await memory.execute({ command: 'create', path: '/memories/b.md', file_text: 'b' });
      console.log(JSON.stringify({ r, took: Date.now() - t }));`;
    const out = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const { r, took } = JSON.parse(out.stdout);
    assert.deepEqual(r, { content: STORE_DOWN, is_error: true });
    assert.ok(took >= 400 && took < 3000, `ended in ${took} ms`);
    rmSync(join(dir, '.lock-khead'));
  });
});


describe('a lock is a spare file of the process, hard-linked under its name', () => {
  const SPARE = /^\.tmp-lock-(\d+)-[0-9a-f-]{36}$/;
  const spares = (dir) => readdirSync(dir).filter((n) => SPARE.test(n)).sort();
  const ino = (path) => lstatSync(path).ino;
  const TOKEN = new RegExp(`^${process.pid} \\S+ [0-9a-f-]{36}$`);

  /** The turn's lock file while `store` holds the turn: its inode, links, token and age. */
  const duringTurn = (store, dir) =>
    store.inTurn(async () => {
      const path = join(dir, '.lock-turn');
      const st = lstatSync(path);
      return { ino: st.ino, nlink: st.nlink, token: readFileSync(path, 'utf8'), ageMs: Date.now() - st.mtimeMs };
    });

  test('the turn is the spare, linked while held, reused turn after turn, with its own token and age', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    const first = await duringTurn(store, dir);
    const [spare] = spares(dir);
    assert.deepEqual(spares(dir), [spare]);
    assert.equal(first.ino, ino(join(dir, spare)));
    assert.equal(first.nlink, 2);
    assert.match(first.token, TOKEN);
    // Given back: the spare alone again, and no lock left.
    assert.equal(lstatSync(join(dir, spare)).nlink, 1);
    assert.equal(readdirSync(dir).includes('.lock-turn'), false);
    // An old spare (an idle hour) is made young again by the token written into it.
    const old = new Date(Date.now() - 2 * 3600_000);
    lutimesSync(join(dir, spare), old, old);
    const second = await duringTurn(store, dir);
    assert.equal(second.ino, first.ino);
    assert.notEqual(second.token, first.token);
    assert.match(second.token, TOKEN);
    assert.ok(second.ageMs < 5_000, `the lock is ${second.ageMs} ms old`);
    assert.deepEqual(spares(dir), [spare]);
  });

  test('a spare linked elsewhere (a lock being broken) is left as it is; at most lockSpares are kept', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    const max = glue.storeDirRules().lockSpares;
    assert.equal(max, 4);
    const seen = [];
    for (let i = 0; i <= max; i++) {
      const turn = await duringTurn(store, dir);
      seen.push(turn.ino);
      // Every spare moved aside as a breaker does, holding the token it had.
      for (const s of spares(dir)) if (lstatSync(join(dir, s)).nlink === 1) linkSync(join(dir, s), join(dir, `.lock-turn.stale-${s}`));
    }
    assert.equal(new Set(seen).size, max + 1);
    const kept = spares(dir);
    assert.equal(kept.length, max);
    // The first four turns were spares; with all four linked elsewhere, the fifth was created.
    assert.deepEqual(seen.slice(0, max).sort(), kept.map((s) => ino(join(dir, s))).sort());
    assert.equal(kept.map((s) => ino(join(dir, s))).includes(seen[max]), false);
    // None was rewritten while linked: each aside holds a token of its own.
    const tokens = kept.map((s) => readFileSync(join(dir, `.lock-turn.stale-${s}`), 'utf8'));
    for (const t of tokens) assert.match(t, TOKEN);
    assert.equal(new Set(tokens).size, max);
  });

  test('a spare that went away (swept, or removed by hand) is forgotten, and the next lock still made', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    await duringTurn(store, dir);
    const [gone] = spares(dir);
    rmSync(join(dir, gone));
    const turn = await duringTurn(store, dir);
    const [made] = spares(dir);
    assert.notEqual(made, gone);
    assert.equal(turn.ino, ino(join(dir, made)));
    const memory = await memdir.openMemory({ store });
    assert.equal(await memory.create({ path: '/memories/a.md', file_text: 'a' }), 'File created successfully at: /memories/a.md');
  });

  test('spares are kept in at most lockSpareDirs directories: the least recently used with no lock held gives them up', async () => {
    const max = glue.storeDirRules().lockSpareDirs;
    assert.equal(max, 64);
    // Run in a child: this file's other tests keep spares in directories of their own.
    const script = `
      const m = await import(${JSON.stringify(NODE_ENTRY)});
      const { readdirSync, linkSync } = await import('node:fs');
      const { join } = await import('node:path');
      const base = ${JSON.stringify(tempDir())};
      const spares = (d) => readdirSync(d).filter((n) => n.startsWith('.tmp-lock-'));
      const dirs = [];
      const turn = async (i) => {
        dirs[i] ??= join(base, 's' + i);
        await m.directoryStore(dirs[i]).inTurn(async () => {});
      };
      for (let i = 0; i <= ${max}; i++) await turn(i);
      const first = dirs.map((d) => spares(d).length);
      // The next least recently used (s1) has its spare linked elsewhere, as a lock
      // being broken: it is passed over, and s2 gives its spare up instead.
      const [held] = spares(dirs[1]);
      linkSync(join(dirs[1], held), join(dirs[1], '.lock-turn.stale-x'));
      await turn(${max + 1});
      console.log(JSON.stringify({ first, then: dirs.map((d) => spares(d).length) }));`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const { first, then } = JSON.parse(out.stdout);
    assert.deepEqual(first, [0, ...Array(max).fill(1)]);
    assert.deepEqual(then, [0, 1, 0, ...Array(max - 1).fill(1)]);
  });

  test("a process's spares are removed when it exits, and its writes left only the store's files", () => {
    const dir = join(tempDir(), 'store');
    const script = `
      const m = await import(${JSON.stringify(NODE_ENTRY)});
      const { readdirSync } = await import('node:fs');
      const memory = await m.openMemory({ store: m.directoryStore(${JSON.stringify(dir)}) });
      for (let i = 0; i < 5; i++) await memory.create({ path: '/memories/f' + i + '.md', file_text: 'x' + i });
      console.log(JSON.stringify(readdirSync(${JSON.stringify(dir)}).filter((n) => n.startsWith('.'))));`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    // While it ran: the turn's spare and the head lock's, and the next pack's file
    // made ahead, nothing else hidden.
    const during = JSON.parse(out.stdout);
    assert.equal(during.length, 3, out.stdout);
    assert.equal(during.filter((n) => SPARE.test(n)).length, 2, out.stdout);
    assert.equal(during.filter((n) => STAGE_SPARE.test(n)).length, 1, out.stdout);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.')), []);
  });

  test('a lock given back is removed only while its name is still the spare that made it', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    // Broken as stale by another process while held, and taken by it: its lock
    // file holds the very same token (as if copied), but is not our spare.
    const taken = await store.inTurn(async () => {
      const path = join(dir, '.lock-turn');
      const token = readFileSync(path);
      rmSync(path);
      writeFileSync(path, token, { mode: 0o600 });
      return token;
    });
    assert.deepEqual(readFileSync(join(dir, '.lock-turn')), taken, 'the other lock is left as it is');
    rmSync(join(dir, '.lock-turn'));
    // Ours: given back.
    await store.inTurn(async () => assert.equal(lstatSync(join(dir, '.lock-turn')).nlink, 2));
    assert.equal(readdirSync(dir).includes('.lock-turn'), false);
  });
});

const STAGE_SPARE = /^\.tmp-stage-(\d+)-[0-9a-f-]{36}$/;

describe("a commit's pack is written into an empty file made ahead", () => {
  const stageSpares = (dir) => readdirSync(dir).filter((n) => STAGE_SPARE.test(n)).sort();
  /** Resolves once the spare being made off the event loop is there. */
  const made = async (dir) => {
    for (let i = 0; i < 200 && stageSpares(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    return stageSpares(dir);
  };

  test('each staged pack starts making the next file, and the next commit stages its pack in it: the head is that inode', async () => {
    const dir = join(tempDir(), 'store');
    const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    assert.equal(await memory.create({ path: '/memories/a.md', file_text: 'a' }), 'File created successfully at: /memories/a.md');
    const [spare] = await made(dir);
    const st = lstatSync(join(dir, spare));
    assert.equal(st.size, 0);
    assert.equal(st.nlink, 1);
    assert.equal((st.mode & 0o777).toString(8), '600');
    assert.equal(await memory.create({ path: '/memories/b.md', file_text: 'b' }), 'File created successfully at: /memories/b.md');
    const head = lstatSync(join(dir, 'khead'));
    assert.equal(head.ino, st.ino, 'the pack was staged in the spare and renamed over the head');
    assert.equal(readdirSync(dir).includes(spare), false);
    const [next] = await made(dir);
    assert.notEqual(next, spare);
    assert.equal(await memory.view({ path: '/memories/b.md' }), "Here's the content of /memories/b.md with line numbers:\n     1\tb");
  });

  test('a spare that is no longer an empty file under its name alone is removed, and the pack staged in a new file', async () => {
    const dir = join(tempDir(), 'store');
    const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    await memory.create({ path: '/memories/a.md', file_text: 'a' });
    // Swept away (a sweep of old temporaries, or a hand): forgotten.
    const [swept] = await made(dir);
    rmSync(join(dir, swept));
    assert.equal(await memory.create({ path: '/memories/b.md', file_text: 'b' }), 'File created successfully at: /memories/b.md');
    assert.equal(readdirSync(dir).includes(swept), false);
    // Written by another hand: removed, its bytes kept out of every key.
    const [written] = await made(dir);
    writeFileSync(join(dir, written), "not memdir's");
    assert.equal(await memory.create({ path: '/memories/c.md', file_text: 'c' }), 'File created successfully at: /memories/c.md');
    assert.equal(readdirSync(dir).includes(written), false);
    for (const n of readdirSync(dir)) assert.equal(readFileSync(join(dir, n)).includes("not memdir's"), false, n);
    // Linked elsewhere: removed from here, the other name left holding nothing of ours.
    const [linked] = await made(dir);
    linkSync(join(dir, linked), join(dir, '.tmp-elsewhere'));
    assert.equal(await memory.create({ path: '/memories/d.md', file_text: 'd' }), 'File created successfully at: /memories/d.md');
    assert.equal(readFileSync(join(dir, '.tmp-elsewhere')).length, 0);
    assert.equal(readdirSync(dir).includes(linked), false);
    assert.equal(await memory.view({ path: '/memories' }), (await memdir.openMemory({ store: memdir.directoryStore(dir) }).then((m) => m.view({ path: '/memories' }))));
  });
});

describe('a gc pass over a directory of thousands of files', () => {
  test('reads the directory once, finds every stray object across its pages, and deletes them at the next pass, letting the event loop turn', async () => {
    const dir = join(tempDir(), 'store');
    const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    await memory.create({ path: '/memories/kept.md', file_text: 'kept' });
    const live = readdirSync(dir).sort();
    // 10,000 objects no commit reaches: ten pages of the store's listing.
    const stray = Array.from({ length: 10_000 }, (_, i) => `kblob_2f${createHash('sha256').update(String(i)).digest('hex')}`);
    for (const name of stray) writeFileSync(join(dir, name), '');
    // Counts the store's reads of its directory (node:fs as the store imports it).
    const fs = createRequire(import.meta.url)('node:fs');
    const readdir = fs.readdirSync;
    let reads = 0;
    fs.readdirSync = function (path, ...rest) {
      if (path === dir) reads++;
      return readdir.call(this, path, ...rest);
    };
    syncBuiltinESMExports();
    let first;
    try {
      first = await memory.gc({ minAgeMs: 0 });
    } finally {
      fs.readdirSync = readdir;
      syncBuiltinESMExports();
    }
    assert.deepEqual(first, { reachable: 5, deleted: 0, pending: 10_000 });
    assert.equal(reads, 1);
    // The deletes are synchronous system calls: the pass lets the loop turn between
    // them (STORE_DIR_SLICE_MS), where it used to hold it to its end.
    // Held to its end, the loop turned 2 or 3 times here, around the pass; let
    // go every 20 ms, 30 times and more. Asked: at least once each 100 ms of the pass.
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const started = performance.now();
    const second = await memory.gc({ minAgeMs: 0 });
    const took = performance.now() - started;
    clearInterval(ticking);
    assert.deepEqual(second, { reachable: 5, deleted: 10_000, pending: 0 });
    assert.ok(turns >= Math.max(4, Math.floor(took / 100)), `the loop turned ${turns} times in ${Math.round(took)} ms`);
    // What is left: the memory's files, and the pass's own record of what it found.
    const kept = [...live, 'kgc_2fpending', 'kgc_2fpending-at'].filter((n) => !n.startsWith('.')).sort();
    assert.deepEqual(readdirSync(dir).filter((n) => !n.startsWith('.')).sort(), kept);
    assert.equal((await memory.view({ path: '/memories/kept.md' })), "Here's the content of /memories/kept.md with line numbers:\n     1\tkept");
    memory.close();
  });
});
