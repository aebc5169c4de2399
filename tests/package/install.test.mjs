// The package as a user gets it. `npm pack` from the working tree (its prepack builds
// dist/), the tarball installed into a scratch project outside the repository beside
// the tools a user brings (the SDK, Vite, wrangler, miniflare, playwright-core, at the
// versions of this repository's package-lock), and there, from tests/package/app/:
//  (a) Node: the SDK's own betaMemoryTool and tool runner against a loopback fake
//      Messages API, over a directory store; then the package's bin reads it back,
//      as a command and as an MCP server (`memdir mcp`, on the MCP SDK installed beside it);
//  (b) Vite bundles a page (browser condition) that runs in headless Chromium over
//      IndexedDB, and a second load finds what the first wrote;
//  (c) wrangler bundles a Worker (workerd condition) with a Durable Object on
//      durableObjectStore, served by workerd through miniflare, asked over HTTP.
// Prints the tarball's size and each step's time.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { test } from 'node:test';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const APP = fileURLToPath(new URL('./app/', import.meta.url));
const execFileAsync = promisify(execFile);
const TOOLS = ['@anthropic-ai/sdk', '@modelcontextprotocol/sdk', 'vite', 'wrangler', 'miniflare', 'playwright-core'];
// What installing the tarball alone may add to a project (memdir itself included).
const MAX_ADDED_PACKAGES = 5;

/** Runs a command; on failure the error carries its output, not just its status. */
function run(cmd, args, options = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20, ...options });
  } catch (e) {
    throw new Error(`${[cmd, ...args].join(' ').slice(0, 300)} failed (${e.status ?? e.signal}):\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}
const npm = (args, cwd) => run('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd });
const node = (args, cwd, env) => run(process.execPath, args, { cwd, env: { ...process.env, ...env } });
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** Each file under `dir` (relative) with its size. */
function filesIn(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => [f, statSync(join(dir, f))])
    .filter(([, s]) => s.isFile())
    .map(([f, s]) => `${f} ${kib(s.size)}`);
}

// What the package may hold: anything else in the tarball got there by accident. Four
// wasm builds: dist/ (the browser's, with IndexedDB) and dist/node/ (every other
// runtime's), and the same two lean for memdir/tool, dist/tool/ and dist/tool/node/.
const SHIPPED = [/^js\/.+\.(js|d\.ts)$/, /^bin\/[a-z-]+\.js$/, /^dist\/(tool\/)?(node\/)?memdir_wasm(\.js|\.d\.ts|_bg\.wasm|_bg\.wasm\.d\.ts)$/, /^docs\/[a-z-]+\.md$/, /^(README\.md|LICENSE|package\.json)$/];
const REQUIRED = ['package.json', 'README.md', 'docs/spec.md', 'docs/memory-stores.md', 'bin/memdir.js', 'bin/serve.js', 'bin/serve-http.js', 'js/api/http.js', 'js/api/catalog-dir.js', 'bin/mcp.js', 'bin/mcp-sdk.js', 'bin/ndjson.js', 'bin/sdk-layout.js', 'dist/memdir_wasm.js', 'dist/memdir_wasm_bg.wasm', 'dist/node/memdir_wasm.js', 'dist/node/memdir_wasm_bg.wasm', 'js/index.d.ts', 'js/node.d.ts', 'js/browser.d.ts', 'js/workerd.d.ts', 'js/api/http.d.ts', 'js/core.js', 'js/glue.js', 'js/node.js', 'js/browser.js', 'js/workerd.js', 'js/default.js', 'js/server.js', 'js/server.d.ts', 'js/server-workerd.js', 'js/server-workerd.d.ts', 'dist/tool/memdir_wasm.js', 'dist/tool/memdir_wasm_bg.wasm', 'dist/tool/node/memdir_wasm.js', 'dist/tool/node/memdir_wasm_bg.wasm', 'js/tool.js', 'js/tool.d.ts', 'js/tool-node.js', 'js/tool-node.d.ts', 'js/stores/indexeddb.js'];

// The Node entry's public surface, pinned: a name added or dropped is a decision.
const NODE_EXPORTS = ['COMMANDS', 'DirectoryStore', 'MEMORY_SYSTEM_PROMPT', 'Memory', 'PostgresStoreError', 'UnusableStore', 'apiHandler', 'betaMemoryTool', 'checkStoreContract', 'customStore', 'defaults', 'directoryCatalog', 'directoryStore', 'encryptStore', 'encryptionKeyId', 'findTool', 'formatDuration', 'inMemoryStore', 'keyEntry', 'keysFrom', 'listStores', 'memoryFindTool', 'memoryRecordTools', 'memoryStore', 'memoryStoreTools', 'memoryTool', 'newStoreId', 'openMemory', 'oversizedInputResult', 'parseDuration', 'postgresStore', 'recordTools', 'requestId', 'syncMemory', 'toolsetTools', 'upkeepStore'];

// memdir/tool's surface under Node (js/tool-node.js), pinned too: the memory tool
// alone, over the lean build (its browser surface, js/tool.js, is pinned by
// tests/browser/tool.test.mjs).
const TOOL_NODE_EXPORTS = ['COMMANDS', 'DirectoryStore', 'MEMORY_SYSTEM_PROMPT', 'Memory', 'betaMemoryTool', 'defaults', 'directoryStore', 'inMemoryStore', 'memoryStore', 'openMemory', 'oversizedInputResult'];

// memdir/server's surface under Node, pinned too: all of it but postgresCatalog is
// also exported by memdir (the same objects), where it was before the subpath.
const SERVER_EXPORTS = ['UnusableStore', 'apiHandler', 'directoryCatalog', 'formatDuration', 'keyEntry', 'keysFrom', 'listStores', 'newStoreId', 'parseDuration', 'postgresCatalog', 'requestId', 'upkeepStore'];

// Run in the scratch project: memdir/tool's resolution, surface and a first view.
const TOOL_PROBE = `
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const m = await import('memdir/tool');
const memory = await m.openMemory({ store: m.directoryStore(join(mkdtempSync(join(tmpdir(), 'memdir-tool-')), 'store')) });
const view = await m.betaMemoryTool(memory).run({ command: 'view', path: '/memories' });
console.log(JSON.stringify({ resolved: import.meta.resolve('memdir/tool'), exports: Object.keys(m).sort(), view }));
`;

const DIR_HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";

// (a): each turn, the tool inputs the fake model sends and the exact tool_result
// content the SDK's runner sends back (calls in one turn run concurrently).
const TURNS = [
  [[{ command: 'view', path: '/memories' }, `${DIR_HEAD}\n0B\t/memories`, false]],
  [
    [{ command: 'create', path: '/memories/notes.md', file_text: 'Line 1\nLine 2\n' }, 'File created successfully at: /memories/notes.md', false],
    [{ command: 'view', path: '/memories/nothing' }, 'Error: The path /memories/nothing does not exist. Please provide a valid path.', true],
  ],
  [
    [
      { command: 'str_replace', path: '/memories/notes.md', old_str: 'Line 2', new_str: 'Line two' },
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tLine 1\n     2\tLine two\n     3\t',
      false,
    ],
    [{ command: 'create', path: '/memories/notes.md', file_text: 'again' }, 'Error: File /memories/notes.md already exists', true],
  ],
  [[{ command: 'rename', old_path: '/memories/notes.md', new_path: '/memories/archive/notes.md' }, 'Successfully renamed /memories/notes.md to /memories/archive/notes.md', false]],
  [
    [{ command: 'view', path: '/memories' }, `${DIR_HEAD}\n16B\t/memories\n16B\t/memories/archive/\n16B\t/memories/archive/notes.md`, false],
    [{ command: 'view', path: '/memories/../etc/passwd' }, 'Error: Path /memories/../etc/passwd would escape /memories directory', true],
  ],
];

test('npm pack, install the tarball into a scratch project, run it on Node, in Chromium (Vite) and in workerd (wrangler)', async (t) => {
  const scratch = realpathSync(mkdtempSync(join(tmpdir(), 'memdir-install-')));
  assert.ok(relative(ROOT, scratch).startsWith(`..${sep}`), `${scratch} is outside the repository`);
  const times = [];
  const step = async (name, fn) => {
    const t0 = performance.now();
    const r = await fn();
    times.push(`${name} ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    t.diagnostic(`${name}: ${((performance.now() - t0) / 1000).toFixed(1)}s`);
    return r;
  };
  try {
    // The suite built dist/ just before: packing a checkout whose dist/ is current
    // needs no Rust toolchain, so it runs with no cargo on the PATH.
    const noCargo = process.env.PATH.split(delimiter).filter((d) => d && !existsSync(join(d, 'cargo'))).join(delimiter);
    const packed = await step('npm pack', () => JSON.parse(run('npm', ['pack', '--json', '--pack-destination', scratch, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: ROOT, env: { ...process.env, PATH: noCargo } }))[0]);
    const paths = packed.files.map((f) => f.path);
    t.diagnostic(`tarball ${packed.filename}: ${kib(packed.size)} packed, ${kib(packed.unpackedSize)} unpacked, ${packed.entryCount} files`);
    for (const f of REQUIRED) assert.ok(paths.includes(f), `${f} is in the tarball`);
    assert.deepEqual(paths.filter((p) => !SHIPPED.some((re) => re.test(p))), [], 'nothing else is in the tarball');

    // Alone, in an empty project: the tarball adds almost nothing (the MCP SDK is an
    // optional peer), and `memdir mcp` then says what to install.
    const alone = join(scratch, 'alone');
    mkdirSync(alone);
    writeFileSync(join(alone, 'package.json'), '{"name":"alone","private":true}');
    await step('npm install (alone)', () => npm(['install', '--prefer-offline', join(scratch, packed.filename)], alone));
    const added = run('npm', ['ls', '--all', '--parseable'], { cwd: alone }).trim().split('\n').slice(1).map((p) => p.slice(p.lastIndexOf('node_modules') + 13));
    t.diagnostic(`the tarball alone adds ${added.length} package(s)`);
    assert.ok(added.length <= MAX_ADDED_PACKAGES, `the tarball alone added ${added.length} packages: ${added.join(', ')}`);
    let noMcp;
    try {
      run(join(alone, 'node_modules', '.bin', 'memdir'), ['mcp'], { cwd: alone, input: '' });
    } catch (e) {
      noMcp = e.message;
    }
    assert.match(
      noMcp ?? '',
      /failed \(2\):\n\nmemdir: mcp needs the MCP SDK, which memdir does not install by itself: npm install @modelcontextprotocol\/sdk@1\.32\.2 in the project memdir runs in \(or -g beside a global memdir\)\n$/,
    );

    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
    const tools = TOOLS.map((name) => `${name}@${lock.packages[`node_modules/${name}`].version}`);
    cpSync(APP, scratch, { recursive: true });
    await step('npm install', () => npm(['install', '--prefer-offline', join(scratch, packed.filename), ...tools], scratch));
    const installed = join(scratch, 'node_modules', 'memdir');
    for (const glue of [join('dist', 'memdir_wasm.js'), join('dist', 'node', 'memdir_wasm.js')]) {
      assert.ok(!readFileSync(join(installed, glue), 'utf8').includes('roundTrip'), `no bench exports in the shipped ${glue}`);
    }

    await t.test('(a) Node: the SDK betaMemoryTool and tool runner, then the bin', async () => {
      const out = await step('node agent', () => node(['node-agent.mjs', JSON.stringify(TURNS.map((turn) => turn.map(([input]) => input)))], scratch));
      const r = JSON.parse(out);
      assert.equal(r.resolved, pathToFileURL(join(installed, 'js', 'node.js')).href, 'memdir is the installed tarball');
      assert.deepEqual(r.exports, NODE_EXPORTS, "the package's public surface changed: update NODE_EXPORTS only if meant");
      assert.equal(r.serverResolved, pathToFileURL(join(installed, 'js', 'server.js')).href, 'memdir/server is the installed tarball');
      assert.deepEqual(r.serverExports, SERVER_EXPORTS, "memdir/server's surface changed: update SERVER_EXPORTS only if meant");
      assert.deepEqual(r.sameObjects, []);
      // memdir/tool in a process of its own (a process loads one build): its surface,
      // and the SDK's tool runner shape over a directory store.
      const tool = JSON.parse(node(['--input-type=module', '-e', TOOL_PROBE], scratch));
      assert.deepEqual(tool, {
        resolved: pathToFileURL(join(installed, 'js', 'tool-node.js')).href,
        exports: TOOL_NODE_EXPORTS,
        view: `${DIR_HEAD}\n0B\t/memories`,
      });
      assert.deepEqual(r.tools, [{ type: 'memory_20250818', name: 'memory' }]);
      assert.deepEqual(
        r.results,
        TURNS.map((turn, i) =>
          turn.map(([, content, isError], j) => ({ type: 'tool_result', tool_use_id: `toolu_${i}_${j}`, content, ...(isError ? { is_error: true } : {}) })),
        ),
      );
      assert.deepEqual(r.final, [{ type: 'text', text: 'Done.' }]);
      const bin = join(scratch, 'node_modules', '.bin', 'memdir');
      assert.equal(
        await step('bin', () => run(bin, ['--store', 'memory', 'view', '/memories/archive/notes.md'], { cwd: scratch })),
        "Here's the content of /memories/archive/notes.md with line numbers:\n     1\tLine 1\n     2\tLine two\n     3\t\n",
      );
      // `memdir mcp` from the tarball, with the MCP SDK the project installed beside it.
      const rpc = [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'install-test', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'memory', arguments: { command: 'view', path: '/memories/archive/notes.md' } } },
      ];
      const served = await step('bin mcp', () =>
        run(bin, ['--store', 'memory', 'mcp'], { cwd: scratch, stdio: ['pipe', 'pipe', 'pipe'], input: rpc.map((m) => `${JSON.stringify(m)}\n`).join('') }),
      );
      const replies = served.trimEnd().split('\n').map((l) => JSON.parse(l)).sort((x, y) => x.id - y.id);
      assert.deepEqual(replies.map((m) => m.id), [1, 2]);
      assert.equal(replies[0].result.serverInfo.name, 'memdir');
      assert.deepEqual(replies[1].result, {
        content: [{ type: 'text', text: "Here's the content of /memories/archive/notes.md with line numbers:\n     1\tLine 1\n     2\tLine two\n     3\t" }],
        isError: false,
      });
    });

    await t.test('(b) Vite bundles a page; Chromium runs it over IndexedDB, twice', async () => {
      await step('vite build', () => run(join(scratch, 'node_modules', '.bin', 'vite'), ['build', 'page', '--outDir', '../page-dist', '--emptyOutDir', '--logLevel', 'warn'], { cwd: scratch }));
      const files = filesIn(join(scratch, 'page-dist'));
      t.diagnostic(`vite output: ${files.join(', ')}`);
      assert.ok(files.some((f) => /\.wasm /.test(f)), 'Vite emitted the wasm');
      const r = JSON.parse(await step('chromium', () => node(['browser-run.mjs', join(scratch, 'page-dist')], scratch)));
      const file = { content: "Here's the content of /memories/notes.md with line numbers:\n     1\tkept in IndexedDB\n     2\tacross loads\n     3\t" };
      const dir = { content: `${DIR_HEAD}\n31B\t/memories\n31B\t/memories/notes.md` };
      assert.deepEqual(r, {
        created: { create: { content: 'File created successfully at: /memories/notes.md' }, file, dir },
        reloaded: { file, dir },
        errors: [],
      });
    });

    await t.test('(c) wrangler bundles a Worker; workerd serves it with a Durable Object store', async () => {
      const out = join(scratch, 'worker-dist');
      const log = await step('wrangler bundle', () =>
        run(join(scratch, 'node_modules', '.bin', 'wrangler'), ['deploy', '--dry-run', '--outdir', out], {
          cwd: join(scratch, 'worker'),
          // No telemetry: CI has no internet beyond the npm registry.
          env: { ...process.env, WRANGLER_SEND_METRICS: 'false', WRANGLER_LOG_PATH: join(scratch, 'wrangler-logs'), NO_COLOR: '1' },
        }),
      );
      t.diagnostic(`wrangler: ${/Total Upload: .*/.exec(log)?.[0]}; ${filesIn(out).join(', ')}`);
      const inputs = [
        { command: 'create', path: '/memories/edge.md', file_text: 'served by workerd' },
        { command: 'view', path: '/memories/edge.md' },
        { command: 'create', path: '/memories/edge.md', file_text: 'again' },
        { command: 'view', path: '/memories' },
      ];
      const r = JSON.parse(await step('workerd', () => node(['worker-run.mjs', out, JSON.stringify(inputs)], scratch)));
      assert.deepEqual(r, [
        { status: 200, body: { content: 'File created successfully at: /memories/edge.md' } },
        { status: 200, body: { content: "Here's the content of /memories/edge.md with line numbers:\n     1\tserved by workerd" } },
        { status: 200, body: { error: 'File /memories/edge.md already exists' } },
        { status: 200, body: { content: `${DIR_HEAD}\n17B\t/memories\n17B\t/memories/edge.md` } },
      ]);
    });

    await t.test("(d) README.md's checked blocks, run as a user runs them", async () => {
      const blocks = readmeBlocks();
      // The Python blocks are run by the Python suite (scripts/test.d/35-python.sh).
      assert.deepEqual(Object.keys(blocks), ['install', 'python-install', 'import', 'quick-start', 'cli', 'python-use']);

      // Install: setup.sh is what CI ran before this suite; `npm pack` made the
      // tarball the README names; the two installs run as written, in a project of
      // their own, the global one under a private prefix.
      const install = commands(blocks.install);
      assert.equal(install[0], 'bash scripts/setup.sh');
      assert.match(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'), /^bash scripts\/setup\.sh$/m);
      assert.equal(install[1], 'npm pack');
      const project = join(scratch, 'readme');
      mkdirSync(project);
      writeFileSync(join(project, 'package.json'), '{"name":"readme","private":true,"type":"module"}');
      cpSync(join(scratch, packed.filename), join(project, packed.filename));
      const prefix = join(scratch, 'global');
      const env = { ...process.env, npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}${delimiter}${process.env.PATH}` };
      assert.deepEqual(install.slice(2), [`npm install ./${packed.filename}`, `npm install -g ./${packed.filename}`]);
      for (const line of install.slice(2)) await step(line, () => run('sh', ['-c', `${line} --no-audit --no-fund --loglevel=error --prefer-offline`], { cwd: project, env }));

      // Every block after the install runs in this one project, in order, as a user
      // follows the README: what one block writes, the next must not lose.
      // The import, from the SDK tool's own ./memory, with the globally installed
      // `memdir` on the PATH.
      mkdirSync(join(project, 'memory', 'memories'), { recursive: true });
      writeFileSync(join(project, 'memory', 'memories', 'from-the-sdk.md'), 'kept\n');
      const imported = [];
      for (const line of commands(blocks.import)) imported.push(await step(line.split(' ').slice(0, 2).join(' '), () => run('sh', ['-c', line], { cwd: project, env })));
      assert.deepEqual(imported, [`Imported 1 files and 0 directories from ${join(project, 'memory', 'memories')}\n`]);

      // The quick start, with the SDK a user brings, against a loopback fake API.
      const sdk = `@anthropic-ai/sdk@${JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages['node_modules/@anthropic-ai/sdk'].version}`;
      await step('npm install sdk', () => npm(['install', '--prefer-offline', sdk], project));
      writeFileSync(join(project, 'quick-start.mjs'), blocks['quick-start']);
      const api = await fakeMessagesApi([[{ command: 'create', path: '/memories/preferences.md', file_text: 'Tabs over spaces.\n' }]]);
      try {
        // Not execFileSync: the fake API answers from this process's event loop.
        const { stdout } = await step('quick start', () =>
          execFileAsync(process.execPath, ['quick-start.mjs'], { cwd: project, timeout: 60_000, env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: api.url } }),
        );
        assert.equal(stdout, "[ { type: 'text', text: 'Done.' } ]\n");
        assert.deepEqual(api.results(), [[{ type: 'tool_result', tool_use_id: 'toolu_0_0', content: 'File created successfully at: /memories/preferences.md' }]]);
      } finally {
        api.close();
      }

      // The CLI lines: each exits 0, the last three show the result, the imported
      // file and what the quick start's model wrote among it, which a search finds.
      const outputs = [];
      for (const line of commands(blocks.cli)) outputs.push(await step(line.split(' ').slice(0, 2).join(' '), () => run('sh', ['-c', line], { cwd: project, env })));
      assert.deepEqual(outputs.slice(-3), [
        `${DIR_HEAD}\n34B\t/memories\n5B\t/memories/from-the-sdk.md\n11B\t/memories/notes.md\n18B\t/memories/preferences.md\n`,
        "Here's the content of /memories/notes.md with line numbers:\n     1\thello again\n",
        '1 memory matches "tabs":\n/memories/preferences.md (score 0.995)\n     1\tTabs over spaces.\n',
      ]);
    });
  } finally {
    t.diagnostic(`steps: ${times.join(', ')}`);
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** README.md's blocks marked `<!-- checked: NAME -->`, by name. */
function readmeBlocks() {
  const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const blocks = {};
  for (const m of text.matchAll(/<!-- checked: ([a-z-]+) -->\n```[a-z]+\n([\s\S]*?)\n```/g)) blocks[m[1]] = `${m[2]}\n`;
  return blocks;
}

/** The commands of a shell block: each line without its trailing comment. */
function commands(block) {
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter(Boolean);
}

/**
 * A loopback fake Messages API: turn i asks for the memory tool inputs `turns[i]`,
 * then a final "Done.". `results()` gives the tool_result blocks the runner sent.
 */
async function fakeMessagesApi(turns) {
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      const i = requests.push(params) - 1;
      const turn = turns[i];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: params.model,
        content: turn ? turn.map((input, j) => ({ type: 'tool_use', id: `toolu_${i}_${j}`, name: 'memory', input })) : [{ type: 'text', text: 'Done.' }],
        stop_reason: turn ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }));
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    results: () => requests.slice(1).map((r) => r.messages.at(-1).content),
    close: () => server.close(),
  };
}
