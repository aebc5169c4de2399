// The `memdir` command end to end: real processes on a real directory store,
// including two processes writing one store at once, the round trip through the
// SDK's BetaLocalFilesystemMemoryTool layout byte for byte, and the filesystem and
// stdin faces held against swapped symlinks, altered stores and oversized input.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, open, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realpathSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { memdir, tempDir } from './helpers.mjs';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));

// Loaded before the CLI: reports the process's peak RSS (KiB) on stderr as it exits.
const REPORT_RSS = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, `maxRSS=${process.resourceUsage().maxRSS}\\n`));",
)}`;

/**
 * Runs the CLI; resolves {code, stdout, stderr} (and {maxRssMiB, seconds} with
 * `measure`). `input` is a string or Buffer, or an iterable of chunks streamed in;
 * `env` is added to this process's environment.
 */
function cli(args, { input, cwd, env, timeoutMs, measure = false } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const node = measure ? [`--import=${REPORT_RSS}`] : [];
    const child = spawn(process.execPath, [...node, BIN, ...args], { cwd, env: env && { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    // A command that should have exited but runs on (a server that started) ends
    // here, and its code is null.
    if (timeoutMs) setTimeout(() => child.kill('SIGKILL'), timeoutMs).unref();
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (!measure) return resolve({ code, stdout, stderr });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const m = /maxRSS=(\d+)\n$/.exec(stderr);
      if (!m) return reject(new Error(`no RSS report in ${JSON.stringify(stderr)}`));
      resolve({ code, stdout, stderr: stderr.slice(0, m.index), maxRssMiB: Number(m[1]) / 1024, seconds });
    });
    if (input === undefined || typeof input === 'string' || Buffer.isBuffer(input)) child.stdin.end(input ?? '');
    // The child may stop reading early (and close stdin) only if it fails: that shows in its answer.
    else pipeline(Readable.from(input, { objectMode: false }), child.stdin).catch(() => {});
  });
}

const LISTING = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";

describe('the memdir CLI', () => {
  test('--help, --version and usage errors', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    for (const word of ['exec', 'view', 'create', 'str_replace', 'insert', 'delete', 'rename', 'import-dir', 'export-dir', '--store']) {
      assert.ok(help.stdout.includes(word), word);
    }
    const version = await cli(['--version']);
    assert.match(version.stdout, /^memdir \d+\.\d+\.\d+\n$/);
    const none = await cli([]);
    assert.equal(none.code, 2);
    assert.equal(none.stderr, 'memdir: no command given; memdir --help lists them\n');
    const bad = await cli(['frobnicate', '--store', tempDir()]);
    assert.deepEqual([bad.code, bad.stderr], [2, 'memdir: unknown command "frobnicate"; memdir --help lists them\n']);
  });

  test('every command refuses an option it does not take, by name, with exit 2, and opens no store', async () => {
    const cwd = tempDir('memdir-flags-');
    // An empty directory: a store opened there would write its format files.
    await mkdir(join(cwd, 'empty'));
    const usage = (stderr) => ({ code: 2, stdout: '', stderr: `memdir: ${stderr}\n` });
    const options = "; memdir --help lists each command's options";
    assert.deepEqual(await cli(['gc', '--kepp', '0', '--store', 'empty'], { cwd }), usage(`gc has no option "--kepp"${options}`));
    assert.deepEqual(await cli(['serve', '--prot', '9000'], { cwd }), usage(`serve has no option "--prot"${options}`));
    assert.deepEqual(await cli(['view', '--force', '--store', 'empty'], { cwd }), usage(`view has no option "--force"${options}`));
    assert.deepEqual(await cli(['create', 'a.md', 'x', '--keep', '1'], { cwd }), usage(`create has no option "--keep"${options}`));
    assert.deepEqual(await cli(['--kepp', '0', 'gc'], { cwd }), usage(`unknown option "--kepp"${options}`));
    assert.deepEqual(await cli(['gc', '--keep=x', '--store', 'empty'], { cwd }), usage('--keep needs a non-negative integer'));
    assert.deepEqual(await cli(['gc', '--store', 'empty', '--keep'], { cwd }), usage('--keep needs a value'));
    assert.deepEqual(await cli(['import-dir', 'memory', '--force=yes'], { cwd }), usage('--force takes no value'));
    assert.deepEqual(await readdir(cwd), ['empty']);
    assert.deepEqual(await readdir(join(cwd, 'empty')), []);
    // After "--" every word is an argument, one that starts with "--" too.
    assert.deepEqual(await cli(['create', 'a.md', '--', '--keep'], { cwd }), { code: 0, stdout: 'File created successfully at: /memories/a.md\n', stderr: '' });
    assert.deepEqual(await cli(['view', 'a.md', '--store=.memdir'], { cwd }), { code: 0, stdout: "Here's the content of /memories/a.md with line numbers:\n     1\t--keep\n", stderr: '' });
    // Text that is not an option's form is an argument without "--": a front matter's
    // first line, words after dashes.
    assert.deepEqual(await cli(['create', 'b.md', '---\ntitle: b\n---'], { cwd }), { code: 0, stdout: 'File created successfully at: /memories/b.md\n', stderr: '' });
    assert.deepEqual(await cli(['insert', 'b.md', '3', '--two words'], { cwd }), { code: 0, stdout: 'The file /memories/b.md has been edited.\n', stderr: '' });
    assert.deepEqual(await cli(['view', 'b.md', '1', '-1'], { cwd }), { code: 0, stdout: "Here's the content of /memories/b.md with line numbers:\n     1\t---\n     2\ttitle: b\n     3\t---\n     4\t--two words\n", stderr: '' });
  });

  test('a command that reads refuses a store directory that is not there, naming it as given; one that starts a store makes it', async () => {
    const cwd = tempDir('memdir-nostore-');
    const usage = (stderr) => ({ code: 2, stdout: '', stderr: `memdir: ${stderr}\n` });
    const makers = '(create, exec, import-dir, mcp and sync make one)';
    for (const [args, cmd] of [
      [['view'], 'view'],
      [['view', 'notes.md'], 'view'],
      [['str_replace', 'notes.md', 'a', 'b'], 'str_replace'],
      [['insert', 'notes.md', '0', 'x'], 'insert'],
      [['delete', 'notes.md'], 'delete'],
      [['rename', 'a.md', 'b.md'], 'rename'],
      [['export-dir', 'out'], 'export-dir'],
      [['gc', '--keep', '0'], 'gc'],
      [['expire', '--older-than', '1d'], 'expire'],
      [['retain'], 'retain'],
    ]) {
      assert.deepEqual(await cli([...args, '--store', 'typo'], { cwd }), usage(`--store "typo": no such directory; ${cmd} needs a store that exists ${makers}`), args.join(' '));
    }
    assert.deepEqual(await cli(['view'], { cwd, env: { MEMDIR_STORE: 'typo' } }), usage(`$MEMDIR_STORE "typo": no such directory; view needs a store that exists ${makers}`));
    assert.deepEqual(await cli(['view'], { cwd }), usage(`the default store "./.memdir": no such directory; view needs a store that exists ${makers}`));
    assert.deepEqual(await readdir(cwd), []);
    // create makes the store; view then reads it.
    assert.deepEqual(await cli(['create', 'notes.md', 'hi', '--store', 'typo'], { cwd }), { code: 0, stdout: 'File created successfully at: /memories/notes.md\n', stderr: '' });
    assert.deepEqual(await cli(['view', 'notes.md', '--store', 'typo'], { cwd }), { code: 0, stdout: "Here's the content of /memories/notes.md with line numbers:\n     1\thi\n", stderr: '' });
  });

  test('serve refuses at start a --store that is a file, and workspace names that differ only in case', async () => {
    const cwd = tempDir('memdir-serve-store-');
    await writeFile(join(cwd, 'afile'), 'not a directory');
    const env = { MEMDIR_API_KEYS: 'k1' };
    const refused = await cli(['serve', '--port', '0', '--store', 'afile'], { cwd, env, timeoutMs: 10_000 });
    assert.deepEqual(refused, {
      code: 2,
      stdout: '',
      stderr: 'memdir: serve: --store "afile" is not a directory: serve keeps its stores in a directory (made when missing) or a postgres:// database\n',
    });
    const clash = (a, b) => `memdir: serve: workspace names "${a}" and "${b}" differ only in case: on a case-insensitive file system they would share one directory, so a directory catalog refuses the pair; rename one\n`;
    // Two keys' workspaces at once.
    const both = await cli(['serve', '--port', '0', '--store', 'stores'], { cwd, env: { MEMDIR_API_KEYS: 'k1=Team,k2=team' }, timeoutMs: 10_000 });
    assert.deepEqual(both, { code: 2, stdout: '', stderr: clash('Team', 'team') });
    // One key's, against a workspace already on disk.
    await mkdir(join(cwd, 'stores', 'ws-Team'), { recursive: true });
    const onDisk = await cli(['serve', '--port', '0', '--store', 'stores'], { cwd, env: { MEMDIR_API_KEYS: 'k1=team' }, timeoutMs: 10_000 });
    assert.deepEqual(onDisk, { code: 2, stdout: '', stderr: clash('Team', 'team') });
    // The catalog itself, as a library uses it: the same name again is the same catalog.
    const catalog = memdir.directoryCatalog(join(cwd, 'stores'));
    assert.equal(catalog.inWorkspace('Team'), catalog.inWorkspace('Team'));
    assert.throws(() => catalog.inWorkspace('TEAM'), { name: 'WorkspaceNameClash', message: clash('Team', 'TEAM').slice('memdir: serve: '.length, -1) });
    // A library's own server: the handler refuses such keys when it is made, not
    // with a 500 on the clashing workspace's first request.
    const fresh = memdir.directoryCatalog(join(cwd, 'other-stores'));
    assert.throws(() => memdir.apiHandler({ catalog: fresh, keys: ['k1=Ops', 'k2=OPS'] }), { name: 'WorkspaceNameClash', message: clash('Ops', 'OPS').slice('memdir: serve: '.length, -1) });
    await fresh.close();
    await catalog.close();
  });

  test('exec, NDJSON on stdin and the shorthands against ./.memdir by default', async () => {
    const cwd = tempDir('memdir-cwd-');
    const created = await cli(['exec', '{"command":"create","path":"/memories/notes.md","file_text":"hello\\nworld"}'], { cwd });
    assert.deepEqual(created, { code: 0, stdout: '{"content":"File created successfully at: /memories/notes.md","is_error":false}\n', stderr: '' });
    // The default store is ./.memdir, made 0700 with 0600 files.
    assert.equal((await stat(join(cwd, '.memdir'))).mode & 0o777, 0o700);
    for (const f of await readdir(join(cwd, '.memdir'))) assert.equal((await stat(join(cwd, '.memdir', f))).mode & 0o777, 0o600, f);

    const again = await cli(['exec', '{"command":"create","path":"/memories/notes.md","file_text":"x"}'], { cwd });
    assert.deepEqual(again, { code: 1, stdout: '{"content":"Error: File /memories/notes.md already exists","is_error":true}\n', stderr: '' });

    const ndjson = [
      '{"command":"str_replace","path":"/memories/notes.md","old_str":"world","new_str":"there"}',
      '',
      '{not json',
      '{"command":"view","path":"/memories/notes.md"}',
      '{"command":"delete","path":"/memories/nope"}',
    ].join('\n');
    const stream = await cli(['exec'], { cwd, input: `${ndjson}\n` });
    // Every line ran; two answered with errors, so the status is 1.
    assert.equal(stream.code, 1);
    assert.deepEqual(stream.stdout.trimEnd().split('\n').map((l) => JSON.parse(l)), [
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\thello\n     2\tthere',
        is_error: false,
      },
      { content: 'Error: Invalid tool input: not valid JSON', is_error: true },
      { content: "Here's the content of /memories/notes.md with line numbers:\n     1\thello\n     2\tthere", is_error: false },
      { content: 'Error: The path /memories/nope does not exist', is_error: true },
    ]);

    const store = ['--store', join(cwd, '.memdir')];
    assert.deepEqual(await cli(['view', ...store]), { code: 0, stdout: `${LISTING}\n11B\t/memories\n11B\t/memories/notes.md\n`, stderr: '' });
    assert.deepEqual(await cli(['insert', 'notes.md', '1', 'middle', ...store]), { code: 0, stdout: 'The file /memories/notes.md has been edited.\n', stderr: '' });
    assert.deepEqual(await cli(['view', '/memories/notes.md', '2', '-1', ...store]), {
      code: 0,
      stdout: "Here's the content of /memories/notes.md with line numbers:\n     2\tmiddle\n     3\tthere\n",
      stderr: '',
    });
    assert.deepEqual(await cli(['create', 'from-stdin.md', '-', ...store], { input: 'piped\ntext' }), {
      code: 0,
      stdout: 'File created successfully at: /memories/from-stdin.md\n',
      stderr: '',
    });
    assert.deepEqual(await cli(['rename', 'from-stdin.md', 'sub/piped.md', ...store]), {
      code: 0,
      stdout: 'Successfully renamed /memories/from-stdin.md to /memories/sub/piped.md\n',
      stderr: '',
    });
    assert.deepEqual(await cli(['str_replace', 'sub/piped.md', 'piped\n', ...store]), {
      code: 0,
      stdout: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\ttext\n',
      stderr: '',
    });
    assert.deepEqual(await cli(['delete', '/memories/../etc', ...store]), {
      code: 1,
      stdout: '',
      stderr: 'Error: Path /memories/../etc would escape /memories directory\n',
    });
    assert.deepEqual(await cli(['delete', 'sub', ...store]), { code: 0, stdout: 'Successfully deleted /memories/sub\n', stderr: '' });
    assert.equal((await cli(['insert', 'notes.md', ...store])).code, 2);
  });

  test('gc drops objects no commit keeps, and the memory reads the same', async () => {
    const store = join(tempDir('memdir-gc-'), 'store');
    const run = (...args) => cli([...args, '--store', store]);
    await run('create', 'a.md', 'one');
    await run('str_replace', 'a.md', 'one', 'two');
    await run('create', 'b.md', 'x');
    await run('delete', 'b.md');
    const before = (await run('view')).stdout;
    const files = async () => (await readdir(store)).length;
    const count = await files();
    // The first pass only marks (a writer may be mid-command), and says so; the second sweeps.
    const marked = await run('gc', '--keep', '0');
    const first = JSON.parse(marked.stdout);
    assert.equal(first.deleted, 0);
    assert.ok(first.pending > 1, marked.stdout);
    assert.deepEqual([marked.code, marked.stderr], [
      0,
      `memdir gc: ${first.pending} unreferenced objects are pending: a command under way in another process may be about to use them, so the next gc deletes those still unreferenced then\n`,
    ]);
    const swept = await run('gc', '--keep', '0');
    const second = JSON.parse(swept.stdout);
    assert.deepEqual([swept.code, swept.stderr], [0, '']);
    assert.ok(second.deleted > 0 && second.deleted === first.pending && second.pending === 0, JSON.stringify([first, second]));
    assert.ok((await files()) < count);
    assert.equal((await run('view')).stdout, before);
    assert.equal((await run('view', 'a.md')).stdout, "Here's the content of /memories/a.md with line numbers:\n     1\ttwo\n");
    assert.equal((await run('gc', '--keep', 'x')).code, 2);
  });

  test('retain drops versions past the period but current ones, and gc then deletes their text', async () => {
    const store = join(tempDir('memdir-retain-'), 'store');
    const run = (...args) => cli([...args, '--store', store]);
    await run('create', 'a.md', 'first PLUM text');
    await run('str_replace', 'a.md', 'first PLUM', 'second');
    await run('create', 'gone.md', 'x');
    await run('delete', 'gone.md');
    const holding = async () => {
      const found = [];
      for (const f of await readdir(store)) if ((await readFile(join(store, f))).includes('PLUM')) found.push(f);
      return found;
    };
    assert.ok((await holding()).length > 0);
    assert.deepEqual(await run('retain'), { code: 0, stdout: '{"dropped":0,"more":false}\n', stderr: '' });
    await new Promise((r) => setTimeout(r, 20));
    // a.md's first version, and both of gone.md's: a.md's current one stays.
    assert.deepEqual(await run('retain', '--retention', '10ms'), { code: 0, stdout: '{"dropped":3,"more":false}\n', stderr: '' });
    for (let i = 0; i < 2; i++) assert.equal((await run('gc', '--keep', '0')).code, 0);
    assert.deepEqual(await holding(), []);
    assert.equal((await run('view', 'a.md')).stdout, "Here's the content of /memories/a.md with line numbers:\n     1\tsecond text\n");
    assert.deepEqual(await run('retain', '--retention', 'off'), {
      code: 2,
      stdout: '',
      stderr: 'memdir: --retention needs a duration: a positive whole number and a unit, ms, s, m, h or d (30d)\n',
    });
  });

  test('expire removes what was not written lately, and says what it removed', async () => {
    const store = join(tempDir('memdir-expire-'), 'store');
    const run = (...args) => cli([...args, '--store', store]);
    await run('create', 'old.md', 'four');
    await new Promise((r) => setTimeout(r, 4000));
    await run('create', 'new.md', 'x');
    // Everything written more than 3 s ago: old.md only (new.md is as old as one
    // process start). A duration as retain takes it.
    assert.deepEqual(await run('expire', '--older-than', '3s'), { code: 0, stdout: '{"removed":1,"bytes":4}\n', stderr: '' });
    assert.equal((await run('view')).stdout, 'Here\'re the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n1B\t/memories\n1B\t/memories/new.md\n');
    const usage = (stderr) => ({ code: 2, stdout: '', stderr: `memdir: ${stderr}\n` });
    assert.deepEqual(await run('expire'), usage('expire needs --older-than D, a duration (30d), or the older --older-than-ms N'));
    assert.deepEqual(await run('expire', '--older-than', '3000'), usage('--older-than needs a duration: a positive whole number and a unit, ms, s, m, h or d (30d)'));
    assert.deepEqual(await run('expire', '--older-than', '1d', '--older-than-ms', '0'), usage('expire needs --older-than D, a duration (30d), or the older --older-than-ms N'));
    assert.deepEqual(await run('expire', '--older-than-ms', '3s'), usage('--older-than-ms needs a whole number of milliseconds (or use --older-than D, as 30d)'));
    // The older form, in milliseconds, still works: 0 expires everything.
    assert.deepEqual(await run('expire', '--older-than-ms', '0'), { code: 0, stdout: '{"removed":1,"bytes":1}\n', stderr: '' });
  });

  test('two processes writing one directory store at once lose no update', async () => {
    const dir = join(tempDir('memdir-race-'), 'store');
    assert.equal((await cli(['create', 'shared.md', 'base', '--store', dir])).code, 0);
    const N = 25;
    const script = (who) =>
      Array.from({ length: N }, (_, i) => [
        JSON.stringify({ command: 'insert', path: '/memories/shared.md', insert_line: 0, insert_text: `${who}-${i}` }),
        JSON.stringify({ command: 'create', path: `/memories/${who}/${i}.md`, file_text: `${who} ${i}` }),
      ]).flat().join('\n') + '\n';
    const [a, b] = await Promise.all([cli(['exec', '--store', dir], { input: script('a') }), cli(['exec', '--store', dir], { input: script('b') })]);
    for (const run of [a, b]) {
      assert.equal(run.code, 0, run.stderr);
      const results = run.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
      assert.equal(results.length, 2 * N);
      for (const r of results) assert.equal(r.is_error, false, r.content);
    }
    const view = await cli(['exec', JSON.stringify({ command: 'view', path: '/memories/shared.md' }), '--store', dir]);
    const lines = JSON.parse(view.stdout).content.split('\n').slice(1).map((l) => l.split('\t')[1]);
    assert.equal(lines.length, 2 * N + 1);
    assert.equal(lines.at(-1), 'base');
    const want = ['a', 'b'].flatMap((w) => Array.from({ length: N }, (_, i) => `${w}-${i}`));
    assert.deepEqual([...lines.slice(0, -1)].sort(), want.sort());
    // Each writer's own inserts stay in its order (each went on top of the last).
    for (const w of ['a', 'b']) {
      const mine = lines.filter((l) => l.startsWith(`${w}-`));
      assert.deepEqual(mine, Array.from({ length: N }, (_, i) => `${w}-${N - 1 - i}`));
    }
    for (const w of ['a', 'b']) {
      const listing = await cli(['view', w, '--store', dir]);
      assert.equal(listing.stdout.trimEnd().split('\n').length, N + 2, listing.stdout);
    }
    // No lock or temporary file left behind.
    assert.deepEqual((await readdir(dir)).filter((f) => f.startsWith('.')), []);
  });

  test("import-dir ./memory moves the SDK tool's folder into the default store, as the README says", async () => {
    const cwd = tempDir('memdir-readme-');
    const sdk = await BetaLocalFilesystemMemoryTool.init(join(cwd, 'memory'));
    await sdk.create({ command: 'create', path: '/memories/notes.md', file_text: 'from the SDK\n' });
    const imported = await cli(['import-dir', './memory'], { cwd });
    assert.deepEqual(imported, { code: 0, stdout: `Imported 1 files and 0 directories from ${join(realpathSync(cwd), 'memory', 'memories')}\n`, stderr: '' });
    const view = await cli(['view', 'notes.md'], { cwd });
    assert.deepEqual(view, { code: 0, stdout: "Here's the content of /memories/notes.md with line numbers:\n     1\tfrom the SDK\n     2\t\n", stderr: '' });
  });

  test("import-dir and export-dir round-trip the SDK's layout byte for byte", async () => {
    const sdkBase = tempDir('memdir-sdkdir-');
    const sdk = await BetaLocalFilesystemMemoryTool.init(sdkBase);
    await sdk.create({ command: 'create', path: '/memories/notes.md', file_text: '# Notes\n\n- one\n- two\n' });
    await sdk.create({ command: 'create', path: '/memories/projects/alpha/status.md', file_text: 'Grüße 🌍\r\ntabs\there\n' });
    await sdk.create({ command: 'create', path: '/memories/projects/beta.txt', file_text: '' });
    await sdk.create({ command: 'create', path: '/memories/.hidden/secret', file_text: 'hidden but kept' });
    await sdk.create({ command: 'create', path: '/memories/gone/x', file_text: 'x' });
    await sdk.delete({ command: 'delete', path: '/memories/gone/x' }); // leaves an empty directory
    await sdk.str_replace({ command: 'str_replace', path: '/memories/notes.md', old_str: '- two', new_str: '- two (done)' });
    await sdk.insert({ command: 'insert', path: '/memories/notes.md', insert_line: 1, insert_text: 'inserted' });
    // A crash leftover of the SDK's atomic writes is not a memory.
    await writeFile(join(sdkBase, 'memories', '.tmp-123-0b3f2c1e-8d4a-4c5e-9f6a-1b2c3d4e5f60'), 'partial');

    const store = join(tempDir('memdir-imp-'), 'store');
    const imported = await cli(['import-dir', sdkBase, '--store', store]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(imported.stdout, `Imported 4 files and 4 directories from ${join(sdkBase, 'memories')}\n`);
    assert.match(imported.stderr, /skipped the SDK's temporary file \/memories\/\.tmp-123-/);

    const view = await cli(['view', '--store', store]);
    assert.equal(
      view.stdout,
      `${LISTING}\n76B\t/memories\n0B\t/memories/gone/\n37B\t/memories/notes.md\n24B\t/memories/projects/\n24B\t/memories/projects/alpha/\n0B\t/memories/projects/beta.txt\n`,
    );
    // A second import over a non-empty memory needs --force.
    const refused = await cli(['import-dir', sdkBase, '--store', store]);
    assert.deepEqual([refused.code, refused.stderr], [2, 'memdir: import-dir: the store already holds memories; --force deletes them all and imports DIR in their place (export-dir keeps a copy first)\n']);

    const outBase = tempDir('memdir-exp-');
    const exported = await cli(['export-dir', outBase, '--store', store]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout, `Exported 4 files and 4 directories to ${join(outBase, 'memories')}\n`);
    const original = await snapshot(join(sdkBase, 'memories'), (name) => !name.startsWith('.tmp-'));
    const copy = await snapshot(join(outBase, 'memories'));
    assert.deepEqual(copy, original);
    assert.equal(Object.keys(copy).length, 8);
    for (const [p, v] of Object.entries(copy)) assert.equal(v.mode, v.dir ? 0o700 : 0o600, p);

    // The SDK reads the exported directory as its own.
    const back = new BetaLocalFilesystemMemoryTool(outBase);
    assert.equal(
      await back.view({ command: 'view', path: '/memories/notes.md' }),
      "Here's the content of /memories/notes.md with line numbers:\n     1\t# Notes\n     2\tinserted\n     3\t\n     4\t- one\n     5\t- two (done)\n     6\t",
    );
    const again = await cli(['export-dir', outBase, '--store', store]);
    assert.deepEqual([again.code, again.stderr], [2, `memdir: export-dir: ${join(outBase, 'memories')} is not empty\n`]);
  });

  test('import-dir refuses symlinks and non-text files, and changes nothing', async () => {
    const base = tempDir('memdir-bad-');
    await mkdir(join(base, 'memories'), { recursive: true });
    await writeFile(join(base, 'memories', 'ok.md'), 'fine');
    await symlink('/etc/passwd', join(base, 'memories', 'link'));
    const store = join(tempDir('memdir-bad-store-'), 'store');
    const linked = await cli(['import-dir', base, '--store', store]);
    assert.equal(linked.code, 2);
    assert.match(linked.stderr, /is not a regular file or directory \(symbolic links are not followed\)/);
    await (await import('node:fs/promises')).unlink(join(base, 'memories', 'link'));
    await writeFile(join(base, 'memories', 'bin.dat'), Buffer.from([0xff, 0xfe, 0x00]));
    const binary = await cli(['import-dir', base, '--store', store]);
    assert.equal(binary.code, 2);
    assert.match(binary.stderr, /bin\.dat is not UTF-8 text; memory files are text\n$/);
    // A name the path rules refuse: the engine's message, all or nothing.
    await (await import('node:fs/promises')).unlink(join(base, 'memories', 'bin.dat'));
    await writeFile(join(base, 'memories', 'bad\u202ename'), 'x');
    const refused = await cli(['import-dir', base, '--store', store]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'Error: Path /memories/bad<U+202E>name contains the invisible format character U+202E, which is not allowed\n');
    const view = await cli(['view', '--store', store]);
    assert.equal(view.stdout, `${LISTING}\n0B\t/memories\n`);
  });

  test('exec drops an NDJSON line over the input cap as it arrives, answers it once, and carries on', async () => {
    const store = join(tempDir('memdir-longline-'), 'store');
    const cap = memdir.defaults().maxInputBytes;
    const MiB = 1024 * 1024;
    const chunk = Buffer.alloc(MiB, 'a');
    // 600 MiB in one line between two valid ones, streamed: never one string anywhere.
    async function* input() {
      yield '{"command":"create","path":"/memories/a.md","file_text":"x"}\n';
      yield '{"command":"create","path":"/memories/big.md","file_text":"';
      for (let i = 0; i < 600; i++) yield chunk;
      yield '"}\n{"command":"view","path":"/memories/a.md"}\n';
    }
    const run = await cli(['exec', '--store', store], { input: input(), measure: true });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stderr, '');
    assert.equal(
      run.stdout,
      [
        '{"content":"File created successfully at: /memories/a.md","is_error":false}',
        '{"content":"Error: Invalid tool input: the input is over the limit of 16,777,216 bytes","is_error":true}',
        '{"content":"Here\'s the content of /memories/a.md with line numbers:\\n     1\\tx","is_error":false}',
        '',
      ].join('\n'),
    );
    // The refusal is the engine's own result for an oversized input, word for word.
    assert.equal(run.stdout.split('\n')[1], JSON.stringify(memdir.oversizedInputResult()));
    // Held at most one capped line (16 MiB) at a time: readline held the whole line
    // and died at 512 MiB with "Invalid string length".
    assert.ok(run.maxRssMiB < 200, `peak RSS ${run.maxRssMiB.toFixed(0)} MiB`);

    // The cap is exact, in bytes, not counting a \r before the \n: a line of `cap`
    // bytes reaches the engine, one of `cap + 1` does not. CRLF, blank lines, a last
    // line without a newline and bytes that are not UTF-8 answer as they always did.
    const padTo = (bytes) => {
      const head = '{"command":"view","path":"/memories/a.md","pad":"';
      return `${head}${'b'.repeat(bytes - head.length - 2)}"}`;
    };
    const edge = await cli(['exec', '--store', store], {
      input: [
        Buffer.from(`${padTo(cap)}\r\n${padTo(cap + 1)}\n\r\n   \n`),
        Buffer.from('{"command":"view","path":"/memories/\xff"}\r\n', 'latin1'),
        Buffer.from('{"command":"view","path":"/memories/a.md"}'),
      ],
    });
    assert.equal(edge.code, 1, edge.stderr);
    assert.deepEqual(edge.stdout.trimEnd().split('\n'), [
      '{"content":"Here\'s the content of /memories/a.md with line numbers:\\n     1\\tx","is_error":false}',
      '{"content":"Error: Invalid tool input: the input is over the limit of 16,777,216 bytes","is_error":true}',
      '{"content":"Error: The path /memories/\ufffd does not exist. Please provide a valid path.","is_error":true}',
      '{"content":"Here\'s the content of /memories/a.md with line numbers:\\n     1\\tx","is_error":false}',
    ]);
  });

  // Directories are entered through /proc/self/fd, which only Linux has; elsewhere a
  // directory swapped for a symlink between two opens can still be followed.
  const linuxOnly = { skip: process.platform !== 'linux' && 'needs /proc/self/fd' };
  test('import-dir reads each file through one descriptor: a symlink swapped in mid-import is never followed', linuxOnly, async () => {
    const base = tempDir('memdir-swap-');
    const mem = join(base, 'memories');
    const aside = join(base, 'aside');
    const outside = join(base, 'outside');
    await mkdir(join(mem, 'd'), { recursive: true });
    await mkdir(join(outside, 'd'), { recursive: true });
    await mkdir(aside);
    await writeFile(join(outside, 'secret.txt'), 'SECRET');
    await writeFile(join(outside, 'd', 'inner.txt'), 'SECRET');
    await writeFile(join(mem, 'd', 'inner.txt'), 'inside');
    await writeFile(join(mem, 'f.txt'), 'inside');
    for (let i = 0; i < 5; i++) await writeFile(join(mem, `still-${i}.txt`), `still ${i}`);
    // Another process turns memories/f.txt into a symlink to an outside file and back,
    // and memories/d into a symlink to an outside directory and back, holding each
    // state for a random few hundred microseconds.
    const SWAPPER = `
      const fs = require('node:fs');
      const [mem, aside, outside] = process.argv.slice(1);
      const hold = () => { const t = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 400000)); while (process.hrtime.bigint() < t); };
      for (const until = Date.now() + 120000; Date.now() < until; ) {
        fs.symlinkSync(outside + '/secret.txt', aside + '/f.lnk');
        fs.renameSync(aside + '/f.lnk', mem + '/f.txt');
        fs.renameSync(mem + '/d', aside + '/d');
        fs.symlinkSync(outside + '/d', mem + '/d');
        hold();
        fs.writeFileSync(aside + '/f.tmp', 'inside');
        fs.renameSync(aside + '/f.tmp', mem + '/f.txt');
        fs.unlinkSync(mem + '/d');
        fs.renameSync(aside + '/d', mem + '/d');
        hold();
      }`;
    const swapper = spawn(process.execPath, ['-e', SWAPPER, mem, aside, outside], { stdio: 'ignore' });
    const store = join(tempDir('memdir-swap-store-'), 'store');
    const outcomes = { imported: 0, refused: 0 };
    try {
      // At least 20 imports, and on until both outcomes were met (at most 150).
      for (let i = 0; i < 150 && (i < 20 || !outcomes.imported || !outcomes.refused); i++) {
        const run = await cli(['import-dir', base, '--force', '--store', store]);
        const memory = await memdir.openMemory({ store: memdir.directoryStore(store) });
        const entries = await memory.entries();
        memory.close();
        for (const e of entries) assert.notEqual(e.content, 'SECRET', `${e.path} was read through a symlink`);
        if (run.code === 0) {
          outcomes.imported += 1;
          // f.txt is always there (renamed over); d may have been away for an instant.
          const files = Object.fromEntries(entries.filter((e) => e.content !== undefined).map((e) => [e.path, e.content]));
          assert.equal(files['/memories/f.txt'], 'inside');
          assert.ok([undefined, 'inside'].includes(files['/memories/d/inner.txt']), JSON.stringify(files));
          for (let k = 0; k < 5; k++) assert.equal(files[`/memories/still-${k}.txt`], `still ${k}`);
          assert.equal(Object.keys(files).length, '/memories/d/inner.txt' in files ? 7 : 6);
        } else {
          outcomes.refused += 1;
          assert.equal(run.code, 2, run.stderr);
          // Only what a race can cause: a symlink met, or a name gone for an instant.
          assert.match(
            run.stderr,
            /^memdir: import-dir: (.*\/memories\/(f\.txt|d) is not a regular file or directory \(symbolic links are not followed\)|cannot read .*\/memories\/d(\/inner\.txt)?: ENOENT: no such file or directory)\n$/,
          );
        }
      }
    } finally {
      swapper.kill();
    }
    if (process.env.MEMDIR_TEST_VERBOSE) console.log(outcomes);
    // The race was real: both states were met.
    assert.ok(outcomes.imported > 0 && outcomes.refused > 0, JSON.stringify(outcomes));
  });

  test('import-dir refuses a file over the per-file limit from its size, unread, and a FIFO without waiting', async () => {
    const base = tempDir('memdir-huge-');
    const mem = join(base, 'memories');
    await mkdir(mem);
    await writeFile(join(mem, 'ok.md'), 'fine');
    // 300 MiB, sparse: cheap to make, and reading it would still cost 300 MiB.
    const fh = await open(join(mem, 'huge.md'), 'wx');
    await fh.truncate(300 * 1024 * 1024);
    await fh.close();
    const store = join(tempDir('memdir-huge-store-'), 'store');
    const huge = await cli(['import-dir', base, '--store', store], { measure: true });
    assert.deepEqual([huge.code, huge.stdout, huge.stderr], [2, '', `memdir: import-dir: ${join(mem, 'huge.md')} is 314,572,800 bytes, over the limit of 102,400 bytes per file\n`]);
    assert.ok(huge.maxRssMiB < 150, `peak RSS ${huge.maxRssMiB.toFixed(0)} MiB`);

    // One byte over the limit is judged the same way; at the limit it is imported.
    const limit = memdir.defaults().maxFileBytes;
    await writeFile(join(mem, 'huge.md'), 'x'.repeat(limit + 1));
    const over = await cli(['import-dir', base, '--store', store]);
    assert.deepEqual([over.code, over.stderr], [2, `memdir: import-dir: ${join(mem, 'huge.md')} is 102,401 bytes, over the limit of 102,400 bytes per file\n`]);
    // A UTF-8 BOM is not content (the decoder drops it), so it does not count.
    await writeFile(join(mem, 'huge.md'), `\ufeff${'x'.repeat(limit)}`);
    const atLimit = await cli(['import-dir', base, '--store', store]);
    assert.deepEqual([atLimit.code, atLimit.stderr], [0, '']);

    // A FIFO nobody writes to: refused at once, not waited on.
    await (await import('node:fs/promises')).unlink(join(mem, 'huge.md'));
    execFileSync('mkfifo', [join(mem, 'pipe')]);
    const fifo = await cli(['import-dir', base, '--force', '--store', store], { measure: true });
    assert.deepEqual(
      [fifo.code, fifo.stderr],
      [2, `memdir: import-dir: ${join(mem, 'pipe')} is not a regular file or directory (symbolic links are not followed)\n`],
    );
    assert.ok(fifo.seconds < 10, `${fifo.seconds} s`);

    // Files each within the limit but together over the memory's quota: refused once
    // the bytes read pass the quota, not after holding the whole tree.
    const { maxTotalBytes } = memdir.defaults();
    const many = join(tempDir('memdir-quota-'), 'memories');
    await mkdir(many);
    for (let i = 0; i <= Math.floor(maxTotalBytes / limit); i++) {
      const f = await open(join(many, `${i}.md`), 'wx');
      await f.truncate(limit);
      await f.close();
    }
    const quota = await cli(['import-dir', join(many, '..'), '--force', '--store', store]);
    assert.deepEqual(
      [quota.code, quota.stderr],
      [2, `memdir: import-dir: the files under ${many} hold more than 104,857,600 bytes, the memory's quota\n`],
    );
  });

  test('export-dir refuses a tampered store whose names would leave the target, and writes nothing', async () => {
    // The engine refuses such a stored name when it reads the node (a stored tree
    // is input); export-dir's own check of every path is a second line behind it.
    const damaged = "memdir: The memory directory's storage is damaged: a stored record is missing or unreadable.\n";
    for (const name of ['../../x.txt', '..', '.', '', '/x.txt', 'x\ny', 'a/b']) {
      const base = tempDir('memdir-tamper-');
      const store = join(base, 'store');
      assert.equal((await cli(['create', 'a.txt', 'planted', '--store', store])).code, 0);
      assert.equal((await cli(['create', 'sub/b.txt', 'fine', '--store', store])).code, 0);
      await renameStoredChild(store, 'a.txt', name);
      const target = join(base, 'deep', 'er', 'exp');
      await mkdir(target, { recursive: true });
      const run = await cli(['export-dir', target, '--store', store]);
      assert.deepEqual([run.code, run.stdout, run.stderr], [2, '', damaged], JSON.stringify(name));
      // Nothing at all was written: not the target's memories/, not anything around it.
      assert.deepEqual(await readdir(target), []);
      assert.deepEqual((await readdir(base)).sort(), ['deep', 'store']);
      assert.deepEqual(await readdir(join(base, 'deep')), ['er']);
      assert.deepEqual(await readdir(join(base, 'deep', 'er')), ['exp']);
    }
  });

  test('export-dir refuses a symlink at DIR/memories and writes nothing through it', async () => {
    const store = join(tempDir('memdir-explink-store-'), 'store');
    assert.equal((await cli(['create', 'a.txt', 'hello', '--store', store])).code, 0);
    const base = tempDir('memdir-explink-');
    const elsewhere = join(base, 'elsewhere');
    await mkdir(elsewhere);
    const target = join(base, 'exp');
    await mkdir(target);
    for (const to of [elsewhere, join(base, 'missing')]) {
      await symlink(to, join(target, 'memories'));
      const run = await cli(['export-dir', target, '--store', store]);
      assert.deepEqual(
        [run.code, run.stdout, run.stderr],
        [2, '', `memdir: export-dir: ${join(target, 'memories')} is a symbolic link; export-dir writes only into a real directory\n`],
      );
      await (await import('node:fs/promises')).unlink(join(target, 'memories'));
    }
    assert.deepEqual(await readdir(elsewhere), []);
    assert.deepEqual((await readdir(base)).sort(), ['elsewhere', 'exp']);
    // The same target without the symlink exports as usual.
    const ok = await cli(['export-dir', target, '--store', store]);
    assert.deepEqual([ok.code, ok.stderr], [0, '']);
    assert.equal(await readFile(join(target, 'memories', 'a.txt'), 'utf8'), 'hello');
  });
});

/** Every file and directory under `root`: content bytes (hex) and permission bits. */
async function snapshot(root, keep = () => true) {
  const out = {};
  async function walk(dir, rel) {
    for (const name of (await readdir(dir)).sort()) {
      if (!keep(name)) continue;
      const p = join(dir, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = await lstat(p);
      if (st.isDirectory()) {
        out[r] = { dir: true, mode: st.mode & 0o777 };
        await walk(p, r);
      } else {
        out[r] = { dir: false, mode: st.mode & 0o777, bytes: (await readFile(p)).toString('hex') };
      }
    }
  }
  await walk(root, '');
  return out;
}

/**
 * A stored tree leaf's entries as its JSON form lists them (`[name, "f" | "d", hash,
 * size, written]`, a file with a memory adding its id and creation time), from
 * either form: the JSON that earlier builds wrote, or the binary form read here from
 * its description in src/storage/node_binary.rs (tag `T1`, LEB128 numbers; flags 1 a
 * directory, 2 a memory's file, 4 with 2: the version that wrote it follows, which the
 * JSON form has no place for and leaves out, as every build before it wrote none).
 */
function leafEntries(bytes) {
  const b = Buffer.from(bytes);
  if (b[0] === 0x7b) return JSON.parse(b.toString('utf8')).e;
  assert.equal(b.subarray(0, 2).toString('latin1'), 'T1', 'a tree leaf');
  let at = 2;
  const number = () => {
    let n = 0n;
    for (let shift = 0n; ; shift += 7n) {
      assert.ok(at < b.length, 'a number runs past the leaf');
      const byte = b[at++];
      n |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return Number(n);
    }
  };
  const entries = [];
  for (let count = number(); count > 0; count--) {
    const len = number();
    const name = b.subarray(at, (at += len)).toString('utf8');
    const flags = b[at++];
    assert.ok([0, 1, 2, 6].includes(flags), `flags ${flags} of ${name}`);
    const hash = b.subarray(at, (at += 32)).toString('hex');
    const entry = [name, flags & 1 ? 'd' : 'f', hash, number(), number()];
    if (flags & 2) entry.push(number(), number());
    if (flags & 4) number();
    entries.push(entry);
  }
  assert.equal(at, b.length, 'the whole leaf read');
  return entries;
}

/**
 * Alters a store the way an edit of its files could: the root node's child `from` is
 * renamed `to`, written as a consistent new node, commit and head (so only the name
 * is wrong), at the key-value level the engine's own checks never see.
 */
async function renameStoredChild(storeDir, from, to) {
  const store = memdir.directoryStore(storeDir);
  const text = (bytes) => Buffer.from(bytes).toString('utf8');
  const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');
  const head = await store.get('head');
  const commit = JSON.parse(text(await store.get(`commit/${text(head)}`)));
  const node = { e: leafEntries(await store.get(`tree/${commit.root}`)) };
  assert.ok(node.e.some(([name]) => name === from), `no ${from} in the root node`);
  node.e = node.e.map(([name, ...rest]) => [name === from ? to : name, ...rest]);
  // Written back in the JSON form, which every build reads.
  const nodeBytes = Buffer.from(JSON.stringify(node));
  await store.set(`tree/${sha(nodeBytes)}`, nodeBytes);
  const commitBytes = Buffer.from(JSON.stringify({ ...commit, root: sha(nodeBytes), parent: text(head) }));
  await store.set(`commit/${sha(commitBytes)}`, commitBytes);
  assert.ok(await store.compareAndSwap('head', head, Buffer.from(sha(commitBytes))));
}
