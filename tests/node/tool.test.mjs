// `memdir/tool` under Node (js/tool-node.js, the lean build in dist/tool/node/),
// beside the full build over the same directory stores: every conformance case of
// tests/conformance/cases.json with its `before` tree put by the full build
// (import), its input run by memdir/tool in a child process (a process loads one
// build) on both faces (execute, and the handler on a copy for the six commands),
// and its `after` tree read back by the full build; every hostile path in every
// argument position refused in the engine's words with the directory unchanged;
// and memdir/tool's surface, and its refusal to load beside memdir.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { loadJson, memdir, normalTree, tempDir, treeEntries, treeOf } from './helpers.mjs';
import { distIsFresh } from '../../scripts/fresh.mjs';
import { hostilePositions } from '../conformance/hostile-positions.mjs';

const { cases } = loadJson('cases.json');
const { paths: hostile } = loadJson('hostile-paths.json');
const HANDLERS = new Set(memdir.COMMANDS);
const CHILD = fileURLToPath(new URL('tool-child.mjs', import.meta.url));
const TOOL_NODE = pathToFileURL(fileURLToPath(new URL('../../js/tool-node.js', import.meta.url))).href;

/** memdir/tool's answers to `tasks` (see tool-child.mjs). */
function inTool(tasks) {
  const file = join(tempDir('memdir-tool-tasks-'), 'tasks.json');
  writeFileSync(file, JSON.stringify(tasks));
  return JSON.parse(execFileSync(process.execPath, [CHILD, file], { encoding: 'utf8', maxBuffer: 256 << 20 }));
}

const limitsOf = (c) => ({ maxFileBytes: c.limits?.max_file_bytes, maxTotalBytes: c.limits?.max_total_bytes, readLimitChars: c.limits?.read_limit_chars });

/** Every file under `dir` with its bytes, names sorted. */
function filesOf(dir) {
  return readdirSync(dir, { recursive: true }).sort().map((f) => {
    try {
      return [f, readFileSync(join(dir, f)).toString('hex')];
    } catch {
      return [f, null]; // a directory
    }
  });
}

test('every conformance case through memdir/tool over a directory store, set up and read back by the full build', async () => {
  const tasks = [];
  for (const c of cases) {
    const command = c.input && typeof c.input === 'object' && !Array.isArray(c.input) ? c.input.command : undefined;
    const task = { dir: join(tempDir('memdir-tool-case-'), 'store'), limits: limitsOf(c), input: c.input, inputText: c.input_text };
    if (typeof command === 'string' && HANDLERS.has(command)) task.handler = { dir: join(tempDir('memdir-tool-case-'), 'store'), name: command };
    for (const dir of task.handler ? [task.dir, task.handler.dir] : [task.dir]) {
      const memory = await memdir.openMemory({ store: memdir.directoryStore(dir), limits: task.limits });
      await memory.import(treeEntries(c.before));
    }
    tasks.push(task);
  }
  const { resolved, exports, out } = inTool(tasks);
  assert.equal(resolved, TOOL_NODE);
  assert.deepEqual(exports, ['COMMANDS', 'DirectoryStore', 'MEMORY_SYSTEM_PROMPT', 'Memory', 'betaMemoryTool', 'defaults', 'directoryStore', 'inMemoryStore', 'memoryStore', 'openMemory', 'oversizedInputResult']);
  const treeIn = async (dir, limits) => treeOf(await (await memdir.openMemory({ store: memdir.directoryStore(dir), limits })).entries());
  for (const [i, c] of cases.entries()) {
    const expected = { content: c.content, is_error: c.is_error };
    const after = normalTree(c.after ?? c.before);
    assert.deepEqual(out[i].raw, expected, c.name);
    assert.deepEqual(await treeIn(tasks[i].dir, tasks[i].limits), after, `${c.name}: the tree after`);
    if (tasks[i].handler) {
      const { isError, ...handled } = out[i].handled;
      assert.deepEqual(handled, expected, `${c.name}: the handler face`);
      if (c.is_error) assert.equal(isError, true, `${c.name}: the handler rejects with an Error`);
      assert.deepEqual(await treeIn(tasks[i].handler.dir, tasks[i].limits), after, `${c.name}: the tree after the handler`);
    }
  }
});

test('every hostile path through memdir/tool, refused in the engine\'s words, the directory unchanged', async () => {
  const dir = join(tempDir('memdir-tool-hostile-'), 'store');
  const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
  await memory.import([{ path: '/memories/a.txt', content: 'a' }]);
  const before = filesOf(dir);
  const positions = hostilePositions();
  const { out } = inTool(Object.values(positions).map((build) => ({ dir, inputs: hostile.map((h) => build(h.path)) })));
  for (const [p, position] of Object.keys(positions).entries()) {
    for (const [i, h] of hostile.entries()) {
      assert.deepEqual(out[p][i], { content: `Error: ${h.message}`, is_error: true }, `${position}, ${h.rule}: ${JSON.stringify(h.path)}`);
    }
  }
  assert.deepEqual(filesOf(dir), before, 'a hostile path changed the directory');
});

test('memdir/tool refuses to load beside memdir in one process', () => {
  const said = execFileSync(process.execPath, ['--input-type=module', '-e', "await import('memdir'); await import('memdir/tool').then(() => console.log('loaded'), (e) => console.log(e.message));"], {
    encoding: 'utf8',
    cwd: fileURLToPath(new URL('../../', import.meta.url)),
  });
  assert.equal(said, 'memdir and memdir/tool are two builds of one engine and cannot both be loaded here: import one of them\n');
});

test('memdir/tool starts compiling its wasm before it loads its other modules', () => {
  // An ES module's imports run in their order: the one that starts the background
  // compile comes first, so the entry's other modules load while V8 compiles.
  const entry = readFileSync(new URL('../../js/tool-node.js', import.meta.url), 'utf8');
  const imports = [...entry.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*'([^']+)'|^import\s*'([^']+)'/gm)].map((m) => m[1] ?? m[2]);
  assert.equal(imports[0], './wasm-tool-node.js');
  const start = readFileSync(new URL('../../js/wasm-tool-node.js', import.meta.url), 'utf8');
  assert.match(start, /^export const compiled = WebAssembly\.compile\(readFileSync\(/m);
  assert.match(entry, /^toolBuild\.initSync\(\{ module: await compiled \}\);$/m);
});

test('a checkout whose dist/ lacks a memdir/tool build is not fresh, so prepack and npm start build it', () => {
  const root = tempDir('memdir-fresh-');
  // The sources an hour older than the builds.
  const past = new Date(Date.now() - 3_600_000);
  for (const f of ['Cargo.toml', 'Cargo.lock']) {
    writeFileSync(join(root, f), '');
    utimesSync(join(root, f), past, past);
  }
  const builds = ['', 'node', 'tool', join('tool', 'node')];
  for (const d of builds) {
    mkdirSync(join(root, 'dist', d), { recursive: true });
    writeFileSync(join(root, 'dist', d, 'memdir_wasm_bg.wasm'), '');
  }
  assert.equal(distIsFresh(root), true);
  for (const d of builds.slice(2)) {
    rmSync(join(root, 'dist', d, 'memdir_wasm_bg.wasm'));
    assert.equal(distIsFresh(root), false, `without dist/${d}`);
    writeFileSync(join(root, 'dist', d, 'memdir_wasm_bg.wasm'), '');
  }
});
