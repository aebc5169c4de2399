// The engine's store-contract suite against each Node store, and what the directory
// store promises beyond it: modes, key names, no symlink followed, locks that hold
// across processes and that a crash does not leave stuck.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs, { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { keyToName, nameToKey } from '../../js/stores/store-dir.js';
import { processTurn } from '../../js/turn.js';
import { MapStore, hiddenNames, memdir, tempDir } from './helpers.mjs';

const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => (b === undefined ? undefined : new TextDecoder().decode(b));
// Every file of a store directory, read raw, that holds `marker`'s bytes.
const filesHolding = (dir, marker) =>
  readdirSync(dir)
    .filter((f) => lstatSync(join(dir, f)).isFile() && readFileSync(join(dir, f)).includes(Buffer.from(marker)))
    .sort();

describe('the store-contract suite', () => {
  test('inMemoryStore(), and memoryStore(), its old name kept as an alias', async () => {
    await memdir.checkStoreContract(memdir.inMemoryStore());
    assert.equal(memdir.memoryStore, memdir.inMemoryStore);
    await memdir.checkStoreContract(memdir.memoryStore());
  });
  test('directoryStore(path), through its methods', async () => {
    await memdir.checkStoreContract(memdir.directoryStore(join(tempDir(), 'store')));
  });
  test('directoryStore(path), as the engine runs on it (engineStore)', async () => {
    const handle = await memdir.directoryStore(join(tempDir(), 'store')).engineStore();
    assert.equal(handle.kind, 'directory');
    await memdir.checkStoreContract(handle);
  });
  test('customStore over a Map', async () => {
    await memdir.checkStoreContract(memdir.customStore(new MapStore()));
  });
  test('a store that breaks the contract is named', async () => {
    const liar = new MapStore();
    liar.compareAndSwap = async () => true; // never refuses
    await assert.rejects(memdir.checkStoreContract(liar), { message: 'CAS wrote the wrong value' });
  });
});

describe("an application's own store", () => {
  /** A MapStore whose every call yields to the event loop first, so commands interleave; counts lost swaps. */
  function slowStore() {
    const inner = new MapStore();
    const lost = { swaps: 0 };
    const store = {};
    for (const m of ['get', 'set', 'delete', 'list', 'compareAndSwap']) {
      store[m] = async (...args) => {
        await new Promise((r) => setImmediate(r));
        const answer = await inner[m](...args);
        if (m === 'compareAndSwap' && answer === false) lost.swaps += 1;
        return answer;
      };
    }
    return { store, lost };
  }

  test('writes of one memory take turns: 20 at once, and not one loses a race', async () => {
    const { store, lost } = slowStore();
    const memory = await memdir.openMemory({ store });
    const writes = Array.from({ length: 20 }, (_, i) => memory.create({ path: `/memories/n${i}.md`, file_text: `${i}\n` }));
    assert.deepEqual(await Promise.all(writes), writes.map((_, i) => `File created successfully at: /memories/n${i}.md`));
    assert.equal(lost.swaps, 0);
    const api = Array.from({ length: 10 }, (_, i) => memory.api({ op: 'memory.create', body: { path: `/api${i}.md`, content: `${i}` } }));
    assert.deepEqual((await Promise.all(api)).map((a) => a.status), Array(10).fill(200));
    assert.equal(lost.swaps, 0);
    assert.equal((await memory.entries()).length, 30);
  });

  test('a write waits for the one before it, but not past the turn\'s wait: a store call that never settles holds up no one for good', async () => {
    const turn = processTurn(50);
    const order = [];
    const first = turn(async () => order.push('first'));
    const second = turn(async () => order.push('second'));
    await Promise.all([first, second]);
    assert.deepEqual(order, ['first', 'second']);
    turn(() => new Promise(() => {})); // a write whose store never answers
    const start = performance.now();
    const after = await turn(async () => performance.now() - start);
    assert.ok(after >= 40, `the write after it ran at ${after.toFixed(1)} ms, before the wait was over`);
    assert.equal(memdir.defaults().turnWaitMs, 10000);
  });

  test("a store's own turn (inTurn) wraps each write inside the process's turn, and no read", async () => {
    const store = new MapStore();
    const log = [];
    store.inTurn = async (fn) => {
      log.push('take');
      try {
        return await fn();
      } finally {
        log.push('give');
      }
    };
    const memory = await memdir.openMemory({ store });
    const writes = [1, 2].map((i) => memory.create({ path: `/memories/${i}.md`, file_text: `${i}\n` }));
    assert.deepEqual(await Promise.all(writes), ['File created successfully at: /memories/1.md', 'File created successfully at: /memories/2.md']);
    await memory.view({ path: '/memories/1.md' });
    await memory.api({ op: 'memory.list', body: {} });
    // Taken once per write, and given back before the next write takes it.
    assert.deepEqual(log, ['take', 'give', 'take', 'give']);
    assert.throws(() => memdir.customStore(Object.assign(new MapStore(), { inTurn: 1 })), {
      name: 'TypeError',
      message: "customStore: the store's inTurn must be a function when present",
    });
  });

  test('a read takes no turn: it answers while a write waits on the store', async () => {
    const { store } = slowStore();
    const memory = await memdir.openMemory({ store });
    await memory.create({ path: '/memories/a.md', file_text: 'one\n' });
    let open;
    const gate = new Promise((r) => (open = r));
    const set = store.set;
    store.set = async (...args) => {
      await gate;
      return set(...args);
    };
    let wrote = false;
    const write = memory.create({ path: '/memories/b.md', file_text: 'two\n' }).then(() => (wrote = true));
    const shown = "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t";
    assert.equal(await memory.view({ path: '/memories/a.md' }), shown);
    assert.equal(wrote, false);
    open();
    await write;
    assert.equal(wrote, true);
  });
});

describe('the directory store', () => {
  test('key names: portable, lowercase, never hidden, and reversible', () => {
    for (const key of ['head', 'blob/0a1b', 'ls/A/0', 'ls/a/0', '.x', '_', 'é', 'a b', '']) {
      const name = keyToName(key);
      assert.match(name, /^k[a-z0-9_-]*$/, key);
      assert.equal(nameToKey(name), key);
    }
    assert.notEqual(keyToName('ls/A/0').toLowerCase(), keyToName('ls/a/0').toLowerCase());
    for (const foreign of ['memories', '.tmp-1-x', '.lock-khead', 'k_zz', 'k_61', 'kA', 'k_c3']) assert.equal(nameToKey(foreign), undefined, foreign);
  });

  test('files 0600 in a 0700 directory; foreign files ignored by list, refused at the next open', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    await store.set('blob/1', bytes('one'));
    await store.compareAndSwap('head', undefined, bytes('h'));
    writeFileSync(join(dir, 'README'), 'not a key');
    mkdirSync(join(dir, 'memories'));
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const f of readdirSync(dir).filter((f) => f.startsWith('k'))) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
    assert.deepEqual(await store.list(''), { keys: ['blob/1', 'head'] });
    await assert.rejects(memdir.directoryStore(dir).open(), { name: 'StoreDirectoryError' });
  });

  test('a symlink planted under a key name is never followed', async () => {
    const base = tempDir();
    const dir = join(base, 'store');
    const outside = join(base, 'outside.txt');
    writeFileSync(outside, 'host secret');
    const store = memdir.directoryStore(dir);
    await store.set('blob/x', bytes('x'));
    symlinkSync(outside, join(dir, keyToName('blob/evil')));
    await assert.rejects(store.get('blob/evil'), (e) => e.code === 'ELOOP');
    // Writing the key replaces the link itself; the target outside is untouched.
    await store.set('blob/evil', bytes('mine'));
    assert.equal(text(await store.get('blob/evil')), 'mine');
    assert.equal(readFileSync(outside, 'utf8'), 'host secret');
    assert.equal(lstatSync(join(dir, keyToName('blob/evil'))).isSymbolicLink(), false);
    // Through the engine: a clear storage error, no path, no backend text.
    symlinkSync(outside, join(dir, keyToName('head')));
    const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    assert.deepEqual(await memory.execute({ command: 'view', path: '/memories' }), {
      content: "Error: The memory directory's storage failed; nothing was changed.",
      is_error: true,
    });
  });

  test('a lock left by a dead process is broken; one held by a live process is waited for', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    await store.set('head', bytes('0'));
    const lock = join(dir, `.lock-${keyToName('head')}`);
    const { hostname } = await import('node:os');
    // A pid that cannot be alive (over the kernel's pid_max).
    writeFileSync(lock, `4194305 ${hostname()} dead-owner`);
    assert.equal(await store.compareAndSwap('head', bytes('0'), bytes('1')), true);
    assert.equal(existsSync(lock), false);
    // An old lock from another host is broken by age.
    writeFileSync(lock, '1 another-host old-owner');
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    assert.equal(await store.compareAndSwap('head', bytes('1'), bytes('2')), true);
    // A fresh lock of a live process (this one's parent) is waited for.
    writeFileSync(lock, `${process.ppid} ${hostname()} live-owner`);
    const started = Date.now();
    setTimeout(() => {
      // The owner releases it.
      import('node:fs').then((fs) => fs.unlinkSync(lock));
    }, 150);
    assert.equal(await store.compareAndSwap('head', bytes('2'), bytes('3')), true);
    assert.ok(Date.now() - started >= 140, 'did not wait for the live lock');
    assert.equal(text(await store.get('head')), '3');
  });

  test('a full disk is the storage-full refusal, and leaves no file and no change', async () => {
    const dir = join(tempDir(), 'store');
    // A child process whose writes fail with ENOSPC once told to (node:fs patched
    // before memdir loads, so the store's own calls see it).
    const script = `
      import fs from 'node:fs';
      import { syncBuiltinESMExports } from 'node:module';
      const write = fs.writeSync;
      let full = false;
      fs.writeSync = (...a) => {
        if (!full) return write(...a);
        const e = new Error('ENOSPC: no space left on device, write');
        e.code = 'ENOSPC';
        throw e;
      };
      syncBuiltinESMExports();
      const memdir = await import('memdir');
      const memory = await memdir.openMemory({ store: memdir.directoryStore(${JSON.stringify(dir)}) });
      await memory.create({ path: '/memories/a.md', file_text: 'one\\n' });
      full = true;
      const refused = await memory.execute({ command: 'create', path: '/memories/b.md', file_text: 'two\\n' });
      full = false;
      const after = await memory.execute({ command: 'view', path: '/memories' });
      console.log(JSON.stringify({ refused, after }));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    for await (const chunk of child.stdout) out += chunk;
    const { refused, after } = JSON.parse(out);
    assert.deepEqual(refused, { content: "Error: The memory directory's storage is full; nothing was changed.", is_error: true });
    assert.equal(after.content.includes('b.md'), false);
    assert.deepEqual(hiddenNames(dir), []);
  });

  test('reads run outside the turn; a write waits for it', async () => {
    const dir = join(tempDir(), 'store');
    const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    await memory.create({ path: '/memories/a.md', file_text: 'one\n' });
    const { hostname } = await import('node:os');
    // Another live process (this one's parent) holds the turn.
    const turn = join(dir, '.lock-turn');
    writeFileSync(turn, `${process.ppid} ${hostname()} other-process`);
    let wrote = false;
    const write = memory.create({ path: '/memories/b.md', file_text: 'two\n' }).then(() => (wrote = true));
    try {
      // The turn is waited for up to 10 s: a read that took it would lose this race.
      const waited = new Promise((r) => setTimeout(r, 5000, 'waited for the turn'));
      const reads = Promise.all([
        memory.view({ path: '/memories/a.md' }),
        memory.execute({ command: 'view', path: '/memories/a.md' }),
        memory.api({ op: 'memory.list', query: { path_prefix: '/' } }),
        memory.toolset('memory_read', { path: '/a.md' }),
        memory.entries(),
      ]);
      const got = await Promise.race([reads, waited]);
      assert.notEqual(got, 'waited for the turn');
      const [view, executed, list, read, entries] = got;
      const shown = "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t";
      assert.equal(view, shown);
      assert.deepEqual(executed, { content: shown, is_error: false });
      assert.deepEqual(list.body.data.map((m) => m.path), ['/a.md']);
      assert.equal(read.split('\n')[0], '/a.md (4 bytes, content_sha256 2c8b08da5ce60398e1f19af0e5dccc744df274b826abe585eaba68c525434806):');
      assert.deepEqual(entries.map((e) => e.path), ['/memories/a.md']);
      assert.equal(wrote, false, "the write ran inside another process's turn");
    } finally {
      unlinkSync(turn);
      await write;
    }
    assert.equal(await memory.view({ path: '/memories/b.md' }), 'Here\'s the content of /memories/b.md with line numbers:\n     1\ttwo\n     2\t');
  });

  test('compare-and-swap holds across processes: no increment lost, races really lost', async (t) => {
    // Three processes increment one counter by get + compare-and-swap. They start
    // together (each waits for "go" once its store is open), so their swaps race;
    // a refused swap is a lost race, retried. The test needs at least one: without
    // it, the processes ran one after another and the swap was never put to the
    // test. On a loaded machine the processes may still not overlap, so each round
    // runs longer than the last, a bounded number of times.
    const storeModule = new URL('../../js/node.js', import.meta.url).href;
    const PROCESSES = 3;
    const worker = (dir, n) => `
      const { directoryStore } = await import(${JSON.stringify(storeModule)});
      const s = directoryStore(${JSON.stringify(dir)});
      const enc = new TextEncoder(), dec = new TextDecoder();
      console.log('ready');
      await new Promise((go) => process.stdin.once('data', go));
      process.stdin.destroy();
      let lost = 0;
      for (let i = 0; i < ${n}; i++) {
        for (;;) {
          const cur = await s.get('counter');
          if (await s.compareAndSwap('counter', cur, enc.encode(String(Number(dec.decode(cur)) + 1)))) break;
          lost++;
        }
      }
      console.log(lost);
    `;
    /** One round: PROCESSES workers of `n` increments each, started at once; their lost races. */
    const round = async (n) => {
      const dir = join(tempDir(), 'store');
      const store = memdir.directoryStore(dir);
      await store.set('counter', bytes('0'));
      const children = [];
      const readies = [];
      const results = [];
      for (let i = 0; i < PROCESSES; i++) {
        const child = spawn(process.execPath, ['--input-type=module', '-e', worker(dir, n)], { stdio: ['pipe', 'pipe', 'inherit'] });
        let out = '';
        let ready;
        readies.push(new Promise((r) => (ready = r)));
        child.stdout.on('data', (d) => {
          out += d;
          if (out.startsWith('ready\n')) ready();
        });
        results.push(
          new Promise((resolve, reject) => {
            child.on('error', reject);
            child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker exited ${code}`))));
          }),
        );
        children.push(child);
      }
      await Promise.all(readies);
      for (const child of children) child.stdin.end('go\n');
      const outs = await Promise.all(results);
      const lost = outs.map((o) => {
        const [ready, count, ...rest] = o.split('\n');
        assert.deepEqual([ready, rest], ['ready', ['']], o);
        assert.match(count, /^\d+$/);
        return Number(count);
      });
      assert.equal(text(await store.get('counter')), String(PROCESSES * n), 'an increment was lost');
      assert.deepEqual(hiddenNames(dir), []);
      return lost;
    };
    const rounds = [];
    for (let n = 40; n <= 40 * 2 ** 4 && !rounds.some((lost) => lost.some((l) => l > 0)); n *= 2) {
      rounds.push(await round(n));
      t.diagnostic(`${n} increments in each of ${PROCESSES} processes: lost races ${rounds.at(-1).join(', ')}`);
    }
    assert.ok(
      rounds.at(-1).some((l) => l > 0),
      `no compare-and-swap lost a race in ${rounds.length} rounds: the processes never contended`,
    );
  });

  test('syncDirectory: true also works (fsyncs the directory after each change)', async () => {
    const store = memdir.directoryStore(join(tempDir(), 'store'), { syncDirectory: true });
    const memory = await memdir.openMemory({ store });
    assert.equal(await memory.create({ path: '/memories/a', file_text: 'x' }), 'File created successfully at: /memories/a');
    assert.equal(await memory.delete({ path: '/memories/a' }), 'Successfully deleted /memories/a');
    await store.set('x', bytes('1'));
    await store.delete('x');
    assert.equal(await store.get('x'), undefined);
  });

  test('on a filesystem without hard links, objects are copies', async () => {
    const { createRequire, syncBuiltinESMExports } = await import('node:module');
    const cjsFs = createRequire(import.meta.url)('node:fs');
    const realLink = cjsFs.linkSync;
    cjsFs.linkSync = () => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    };
    syncBuiltinESMExports();
    try {
      const dir = join(tempDir(), 'store');
      const store = memdir.directoryStore(dir);
      assert.equal(await store.commit([['blob/a', bytes('MEMDIR-A-copied')], ['tree/b', bytes('B')]], 'head', undefined, bytes('H')), true);
      assert.deepEqual([text(await store.get('blob/a')), text(await store.get('tree/b')), text(await store.get('head'))], ['MEMDIR-A-copied', 'B', 'H']);
      assert.notEqual(lstatSync(join(dir, keyToName('blob/a'))).ino, lstatSync(join(dir, keyToName('head'))).ino);
      // Each copy holds every value: a delete rewrites the copies too.
      assert.deepEqual(filesHolding(dir, 'MEMDIR-A-copied'), ['kblob_2fa', 'khead', 'ktree_2fb']);
      await store.delete('blob/a');
      assert.deepEqual(filesHolding(dir, 'MEMDIR-A-copied'), []);
      assert.deepEqual([text(await store.get('tree/b')), text(await store.get('head'))], ['B', 'H']);
      const fresh = join(tempDir(), 'store');
      const memory = await memdir.openMemory({ store: memdir.directoryStore(fresh) });
      assert.equal(await memory.create({ path: '/memories/x', file_text: 'x' }), 'File created successfully at: /memories/x');
      assert.equal(await memory.view({ path: '/memories/x' }), "Here's the content of /memories/x with line numbers:\n     1\tx");
      for (const d of [dir, fresh]) assert.deepEqual(hiddenNames(d), []);
    } finally {
      cjsFs.linkSync = realLink;
      syncBuiltinESMExports();
    }
  });

  test('a deleted value leaves no byte in any file of its pack', async () => {
    const SECRET = 'MEMDIR-REDACTED-7f3a91 the text to forget';
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    assert.equal(await store.commit([['blob/secret', bytes(SECRET)], ['tree/a', bytes('tree A')], ['blob/b', bytes('bee')]], 'head', undefined, bytes('H1')), true);
    const ino = (k) => lstatSync(join(dir, keyToName(k))).ino;
    assert.equal(ino('blob/secret'), ino('head'));
    assert.deepEqual(filesHolding(dir, SECRET), ['kblob_2fb', 'kblob_2fsecret', 'khead', 'ktree_2fa']);
    await store.delete('blob/secret');
    assert.deepEqual(filesHolding(dir, SECRET), []);
    assert.equal(await store.get('blob/secret'), undefined);
    assert.deepEqual([text(await store.get('tree/a')), text(await store.get('blob/b')), text(await store.get('head'))], ['tree A', 'bee', 'H1']);
    // Each mate is a pack of its own now: a later delete touches nothing else.
    assert.notEqual(ino('tree/a'), ino('head'));
    await store.delete('tree/a');
    assert.deepEqual([text(await store.get('blob/b')), text(await store.get('head'))], ['bee', 'H1']);
    await store.delete('blob/secret'); // gone already: no error
    assert.deepEqual(hiddenNames(dir), []);
  });

  test('an object committed again is packed once, so its delete leaves nothing', async () => {
    const SECRET = 'MEMDIR-REDACTED-c0ffee written twice';
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    assert.equal(await store.commit([['blob/x', bytes(SECRET)], ['tree/1', bytes('one')]], 'head', undefined, bytes('H1')), true);
    assert.equal(await store.commit([['blob/x', bytes(SECRET)], ['tree/2', bytes('two')]], 'head', bytes('H1'), bytes('H2')), true);
    assert.deepEqual(filesHolding(dir, SECRET), ['kblob_2fx', 'ktree_2f1']);
    await store.delete('blob/x');
    assert.deepEqual(filesHolding(dir, SECRET), []);
    assert.deepEqual([text(await store.get('tree/1')), text(await store.get('tree/2')), text(await store.get('head'))], ['one', 'two', 'H2']);
    // Swept meanwhile, an object left out is written again, on its own.
    assert.equal(await store.commit([['tree/1', bytes('one')], ['blob/y', bytes('why')]], 'head', bytes('H2'), bytes('H3')), true);
    assert.equal(text(await store.get('tree/1')), 'one');
    await store.delete('tree/1');
    assert.equal(await store.commit([['tree/1', bytes('one')]], 'head', bytes('H3'), bytes('H4')), true);
    assert.equal(text(await store.get('tree/1')), 'one');
  });

  test('deletes of one pack at once, from two stores, lose no other value', async () => {
    const dir = join(tempDir(), 'store');
    const objects = Array.from({ length: 24 }, (_, i) => [`blob/${String(i).padStart(2, '0')}`, `MARK-${String(i).padStart(2, '0')}-${'v'.repeat(i * 10)}`]);
    const a = memdir.directoryStore(dir, { lockWaitMs: 2000 });
    const b = memdir.directoryStore(dir, { lockWaitMs: 2000 });
    assert.equal(await a.commit(objects.map(([k, v]) => [k, bytes(v)]), 'head', undefined, bytes('H')), true);
    const gone = objects.filter((_, i) => i % 2 === 0);
    const kept = objects.filter((_, i) => i % 2 === 1);
    let deleting = true;
    const reader = (async () => {
      const r = memdir.directoryStore(dir);
      let reads = 0;
      while (deleting || reads === 0) {
        await new Promise((r) => setImmediate(r)); // let the deletes' fsyncs and waits run
        for (const [k, v] of kept) {
          assert.equal(text(await r.get(k)), v, k);
          reads++;
        }
      }
      return reads;
    })();
    await Promise.all([
      (async () => {
        for (const [k] of gone) await a.delete(k);
      })(),
      (async () => {
        for (const [k] of [...gone].reverse()) await b.delete(k);
      })(),
    ]);
    deleting = false;
    assert.ok((await reader) > 0);
    for (const [k, v] of gone) {
      assert.equal(await a.get(k), undefined, k);
      assert.deepEqual(filesHolding(dir, v), [], k);
    }
    for (const [k, v] of kept) assert.equal(text(await b.get(k)), v, k);
    assert.equal(text(await a.get('head')), 'H');
  });

  test('a write makes no system call that fails: the names of new objects and the turn\'s want are looked up, not opened', async () => {
    const memory = await memdir.openMemory({ store: memdir.directoryStore(join(tempDir(), 'store')) });
    await memory.execute({ command: 'create', path: '/memories/a.md', file_text: 'one' });
    // Every synchronous node:fs call the store makes, patched in place: a failed one
    // builds an exception, several times the cost of a call that answers.
    const failed = [];
    const originals = new Map();
    for (const name of Object.keys(fs).filter((n) => n.endsWith('Sync'))) {
      const f = fs[name];
      originals.set(name, f);
      fs[name] = function (...args) {
        try {
          return f.apply(this, args);
        } catch (e) {
          failed.push(`${name} ${e.code}`);
          throw e;
        }
      };
    }
    syncBuiltinESMExports();
    try {
      for (const i of [1, 2, 3]) {
        assert.equal((await memory.execute({ command: 'create', path: `/memories/n${i}.md`, file_text: `new ${i}` })).is_error, false);
      }
      assert.equal((await memory.execute({ command: 'str_replace', path: '/memories/a.md', old_str: 'one', new_str: 'two' })).is_error, false);
    } finally {
      for (const [name, f] of originals) fs[name] = f;
      syncBuiltinESMExports();
    }
    assert.deepEqual(failed, []);
  });

  test('a commit is one pack: the objects and the head share one file', async () => {
    const dir = join(tempDir(), 'store');
    const store = memdir.directoryStore(dir);
    assert.equal(await store.commit([['blob/a', bytes('A')], ['tree/b', bytes('B')]], 'head', undefined, bytes('H')), true);
    const ino = (k) => lstatSync(join(dir, keyToName(k))).ino;
    assert.equal(ino('blob/a'), ino('head'));
    assert.equal(ino('tree/b'), ino('head'));
    assert.deepEqual([text(await store.get('blob/a')), text(await store.get('tree/b')), text(await store.get('head'))], ['A', 'B', 'H']);
    // A refused swap publishes nothing (the protocol shared with the host): no
    // object, and the head left alone.
    assert.equal(await store.commit([['blob/c', bytes('C')]], 'head', bytes('stale'), bytes('H2')), false);
    assert.deepEqual([await store.get('blob/c'), text(await store.get('head'))], [undefined, 'H']);
    // Deleting one name leaves the others readable.
    await store.delete('blob/a');
    assert.equal(await store.get('blob/a'), undefined);
    assert.equal(text(await store.get('tree/b')), 'B');
    // A damaged file is an error, not a wrong value.
    writeFileSync(join(dir, keyToName('blob/bad')), 'garbage');
    await assert.rejects(store.get('blob/bad'), { message: 'a store file is damaged' });
    assert.deepEqual(hiddenNames(dir), []);
  });
});
