// `memdir --encryption-key-file`, `memdir encrypt` and `memdir rekey` end to end:
// real processes on a real directory store. A key file is read and judged by the
// engine's rule, a refusal names neither the key nor the file's path; `encrypt`
// and `rekey` killed with SIGKILL at random moments and run again lose nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { memdir, tempDir } from './helpers.mjs';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));
const KEY_HEX = '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff';
const NEW_HEX = 'f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f';

/** Runs the CLI; resolves {code, signal, stdout, stderr}. `killAfterMs`: SIGKILL it then. */
function cli(args, { input = '', killAfterMs } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (killAfterMs !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.stdin.end(input);
  });
}

/** A temporary directory with a store path and the two key files. */
function setup() {
  const dir = tempDir('memdir-cli-enc-');
  const keyFile = join(dir, 'key.hex');
  const newKeyFile = join(dir, 'new.hex');
  writeFileSync(keyFile, `${KEY_HEX}\n`);
  writeFileSync(newKeyFile, `${NEW_HEX}\r\n`);
  return { dir, store: join(dir, 'store'), keyFile, newKeyFile };
}

/** Every file name and byte under `dir` (temporaries a killed run left included), as one Buffer. */
function everyByte(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    out.push(Buffer.from(e.name));
    if (e.isFile()) out.push(readFileSync(join(dir, e.name)));
  }
  return Buffer.concat(out);
}

const idOf = (hex, id) => memdir.encryptionKeyId(hex, id);

describe('memdir --encryption-key-file', () => {
  test('every command that opens a store takes the key; without it the store is refused', async () => {
    const { store, keyFile, dir } = setup();
    const k = ['--store', store, '--encryption-key-file', keyFile];
    assert.deepEqual(await cli([...k, 'create', 'notes/aardwolf.md', 'Aardwolf sings at dawn.']), {
      code: 0,
      signal: null,
      stdout: 'File created successfully at: /memories/notes/aardwolf.md\n',
      stderr: '',
    });
    assert.equal((await cli([...k, 'view', 'notes/aardwolf.md'])).stdout, "Here's the content of /memories/notes/aardwolf.md with line numbers:\n     1\tAardwolf sings at dawn.\n");
    assert.equal((await cli([...k, 'exec', '{"command":"str_replace","path":"/memories/notes/aardwolf.md","old_str":"dawn","new_str":"dusk"}'])).code, 0);
    const search = await cli([...k, 'search', 'aardwolf', '--json']);
    assert.deepEqual(JSON.parse(search.stdout).map((h) => h.path), ['/memories/notes/aardwolf.md']);
    assert.equal((await cli([...k, 'reindex'])).stdout, '{"indexed":1,"pending":false}\n');
    assert.equal((await cli([...k, 'gc'])).code, 0);
    assert.equal((await cli([...k, 'retain'])).code, 0);
    const out = join(dir, 'out');
    assert.equal((await cli([...k, 'export-dir', out])).code, 0);
    assert.equal(readFileSync(join(out, 'memories/notes/aardwolf.md'), 'utf8'), 'Aardwolf sings at dusk.');
    // Nothing of it on disk.
    const bytes = everyByte(store);
    for (const needle of ['Aardwolf', 'aardwolf', 'dusk', 'notes']) assert.equal(bytes.includes(needle), false, needle);

    const id = idOf(KEY_HEX);
    for (const cmd of [['view'], ['search', 'aardwolf'], ['gc'], ['create', 'b.md', 'b']]) {
      assert.deepEqual(await cli(['--store', store, ...cmd]), {
        code: 2,
        signal: null,
        stdout: '',
        stderr: `memdir: this store is encrypted with key id ${id}: open it with that key\n`,
      });
    }
    assert.deepEqual(bytes, everyByte(store), 'a refused command wrote');
  });

  test('a key file is judged by the engine, and no refusal names the key or the path', async () => {
    const { store, keyFile, dir } = setup();
    const plain = join(dir, 'plain');
    assert.equal((await cli(['--store', plain, 'create', 'a.md', 'a'])).code, 0);
    assert.equal((await cli(['--store', store, '--encryption-key-file', keyFile, '--encryption-key-id', 'prod.2026', 'create', 'a.md', 'a'])).code, 0);
    const file = (name, text) => {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    };
    const other = file('other.hex', `${NEW_HEX}\n`);
    const cases = [
      [[store, 'missing.hex'], 'memdir: --encryption-key-file: the file cannot be read\n'],
      [[store, dir], 'memdir: --encryption-key-file: the file cannot be read\n'],
      [[store, file('short.hex', KEY_HEX.slice(2))], 'memdir: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n'],
      [[store, file('two-lines.hex', `${KEY_HEX}\n\n`)], 'memdir: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n'],
      [[store, file('spaced.hex', ` ${KEY_HEX}`)], 'memdir: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n'],
      [[store, file('long.hex', 'a'.repeat(1 << 20))], 'memdir: --encryption-key-file: an encryption key is 32 bytes (64 hex characters)\n'],
      [[store, other], `memdir: this store is encrypted with key id prod.2026, not ${idOf(NEW_HEX)}\n`],
      [[store, keyFile], `memdir: this store is encrypted with key id prod.2026, not ${idOf(KEY_HEX)}\n`],
      [[plain, keyFile], 'memdir: this store is not encrypted: encrypt it first (memdir encrypt)\n'],
    ];
    for (const [[at, key], stderr] of cases) {
      const r = await cli(['--store', at, '--encryption-key-file', key, 'view']);
      assert.deepEqual(r, { code: 2, signal: null, stdout: '', stderr }, key);
      assert.equal(r.stderr.includes(dir), false);
      assert.equal(r.stderr.toLowerCase().includes(KEY_HEX.slice(0, 16)), false);
    }
    const id = await cli(['--store', store, '--encryption-key-file', keyFile, '--encryption-key-id', 'a b', 'view']);
    assert.deepEqual(id, { code: 2, signal: null, stdout: '', stderr: "memdir: --encryption-key-file: a key id is 1 to 64 letters, digits, '.', '_' or '-'\n" });
    const alone = await cli(['--store', store, '--encryption-key-id', 'prod.2026', 'view']);
    assert.deepEqual(alone, { code: 2, signal: null, stdout: '', stderr: 'memdir: --encryption-key-id names the key of --encryption-key-file: give that too\n' });
    const right = await cli(['--store', store, '--encryption-key-file', keyFile, '--encryption-key-id', 'prod.2026', 'view', 'a.md']);
    assert.equal(right.stdout, "Here's the content of /memories/a.md with line numbers:\n     1\ta\n");
  });
});

/** A store of `n` memories made in one `memdir exec` stream; resolves their texts by path. */
async function filled(store, n, key) {
  const texts = {};
  const lines = [];
  for (let i = 0; i < n; i++) {
    const path = `/memories/m${String(i).padStart(4, '0')}/note-${i}.md`;
    texts[path] = `memory number ${i}: tapir${i * 7919} walks\n`;
    lines.push(JSON.stringify({ command: 'create', path, file_text: texts[path] }));
  }
  const k = key ? ['--encryption-key-file', key] : [];
  const r = await cli(['--store', store, ...k, 'exec'], { input: `${lines.join('\n')}\n` });
  assert.equal(r.code, 0, r.stderr);
  return texts;
}

/** Every file of the store, read through the CLI with `key`: `{path: text}`. */
async function readBack(store, key) {
  const out = join(tempDir('memdir-cli-out-'), 'x');
  const r = await cli(['--store', store, '--encryption-key-file', key, 'export-dir', out]);
  assert.equal(r.code, 0, r.stderr);
  const texts = {};
  const walk = (dir, at) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${at}/${e.name}`);
      else texts[`${at}/${e.name}`] = readFileSync(join(dir, e.name), 'utf8');
    }
  };
  walk(join(out, 'memories'), '/memories');
  return texts;
}

// A seeded generator, so a failing run's kill times repeat.
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x9e3779b9) >>> 0;
    return s / 2 ** 32;
  };
}

/**
 * Runs `args` killed with SIGKILL at random moments within the time an uncut run
 * takes, until one run ends by itself; resolves how many were killed and the
 * last run. `afterKill` answering true says the killed run had already finished
 * its work (a kill can land between the last write and the exit): the last run is
 * then `null`.
 */
async function killedUntilDone(args, seed, afterKill) {
  const next = random(seed);
  const started = Date.now();
  let killed = 0;
  // The first kill comes early; later ones reach further into the run.
  for (let attempt = 0; attempt < 40; attempt++) {
    const r = await cli(args, { killAfterMs: 60 + Math.floor(next() * (150 + attempt * 40)) });
    if (r.signal === 'SIGKILL') {
      killed += 1;
      if (await afterKill?.()) return { killed, last: null, ms: Date.now() - started };
      continue;
    }
    return { killed, last: r, ms: Date.now() - started };
  }
  return { killed, last: await cli(args) };
}

describe('memdir encrypt and memdir rekey, killed and run again', () => {
  test('encrypt: a plaintext store encrypted through SIGKILLs at random moments loses nothing', async (t) => {
    const { store, keyFile } = setup();
    const texts = await filled(store, 300);
    // After a cut: the store not yet encrypted (opens without a key), or begun (a
    // key needed), never anything else.
    let begun = 0;
    const afterKill = async () => {
      const r = await cli(['--store', store, 'view', 'm0001/note-1.md']);
      if (r.code === 0) return assert.equal(r.stdout, "Here's the content of /memories/m0001/note-1.md with line numbers:\n     1\tmemory number 1: tapir7919 walks\n     2\t\n");
      assert.deepEqual([r.code, r.stderr], [2, `memdir: this store is encrypted with key id ${idOf(KEY_HEX)}: open it with that key\n`]);
      begun += 1;
    };
    const { killed, last } = await killedUntilDone(['--store', store, '--encryption-key-file', keyFile, 'encrypt'], 49, afterKill);
    t.diagnostic(`cut after the encryption began ${begun} times of ${killed}`);
    assert.ok(begun >= 1, 'no cut fell inside the encryption');
    assert.deepEqual(last, { code: 0, signal: null, stdout: `The store is encrypted with key id ${idOf(KEY_HEX)}\n`, stderr: '' });
    assert.ok(killed >= 2, `killed ${killed} times`);
    t.diagnostic(`memdir encrypt killed ${killed} times, then finished`);
    assert.deepEqual(await readBack(store, keyFile), texts);
    // Nothing in clear: not in a key's file, nor in a temporary a killed run left
    // (it may hold a value it was moving in clear: the finishing run sweeps them).
    const bytes = everyByte(store);
    for (const needle of ['tapir', 'memory number', 'note-1']) assert.equal(bytes.includes(needle), false, needle);
    assert.equal((await cli(['--store', store, 'view'])).code, 2);
  });

  test('rekey: re-encrypted through SIGKILLs at random moments, every memory under the new key, the old key refused', async (t) => {
    const { store, keyFile, newKeyFile } = setup();
    const texts = await filled(store, 300, keyFile);
    const args = ['--store', store, '--encryption-key-file', keyFile, 'rekey', '--new-key-file', newKeyFile, '--new-key-id', 'next'];
    // Cut midway, the store reads whole with the old key, and with the new one
    // once the rotation has begun.
    const view = ['view', 'm0001/note-1.md'];
    const WANT = "Here's the content of /memories/m0001/note-1.md with line numbers:\n     1\tmemory number 1: tapir7919 walks\n     2\t\n";
    let bothRead = 0;
    const afterKill = async () => {
      const old = await cli(['--store', store, '--encryption-key-file', keyFile, ...view]);
      // A kill after the rotation's last write and before the exit: the old key is
      // refused already, the new one reads, and a rerun has nothing left to do.
      if (old.code === 2 && old.stderr === `memdir: this store is encrypted with key id next, not ${idOf(KEY_HEX)}\n`) {
        const next = await cli(['--store', store, '--encryption-key-file', newKeyFile, '--encryption-key-id', 'next', ...view]);
        assert.deepEqual([next.stdout, next.stderr], [WANT, '']);
        return true;
      }
      assert.deepEqual([old.stdout, old.stderr], [WANT, '']);
      const next = await cli(['--store', store, '--encryption-key-file', newKeyFile, '--encryption-key-id', 'next', ...view]);
      if (next.code === 0) {
        assert.equal(next.stdout, WANT);
        bothRead += 1;
      } else {
        assert.equal(next.stderr, `memdir: this store is encrypted with key id ${idOf(KEY_HEX)}, not next\n`);
      }
    };
    const { killed, last } = await killedUntilDone(args, 47, afterKill);
    t.diagnostic(`cut midway, both keys read the store ${bothRead} times of ${killed}`);
    assert.ok(bothRead >= 1, 'no cut fell inside the rotation');
    if (last === null) {
      t.diagnostic(`memdir rekey killed ${killed} times, the last kill after it had finished`);
    } else {
      assert.equal(last.code, 0, last.stderr);
      assert.match(last.stdout, /^The store is encrypted with key id next \(\d+ values re-encrypted\)\n$/);
      t.diagnostic(`memdir rekey killed ${killed} times, then finished: ${last.stdout.trim()}`);
    }
    assert.ok(killed >= 2, `killed ${killed} times`);
    const r = await cli(['--store', store, '--encryption-key-file', newKeyFile, '--encryption-key-id', 'next', 'view', 'm0001/note-1.md']);
    assert.equal(r.stdout, "Here's the content of /memories/m0001/note-1.md with line numbers:\n     1\tmemory number 1: tapir7919 walks\n     2\t\n");
    const old = await cli(['--store', store, '--encryption-key-file', keyFile, 'view']);
    assert.deepEqual(old, { code: 2, signal: null, stdout: '', stderr: `memdir: this store is encrypted with key id next, not ${idOf(KEY_HEX)}\n` });
    const out = join(tempDir('memdir-cli-out-'), 'x');
    const exported = await cli(['--store', store, '--encryption-key-file', newKeyFile, '--encryption-key-id', 'next', 'export-dir', out]);
    assert.equal(exported.code, 0, exported.stderr);
    const seen = {};
    for (const path of Object.keys(texts)) seen[path] = readFileSync(join(out, path), 'utf8');
    assert.deepEqual(seen, texts);
  });
});
