// No import circles among the package's own modules: every relative import
// (`import … from`, `export … from`, `import '…'`, `import('…')`) of every file
// under js/ and bin/, read as text (no parser to install), makes a graph with no
// cycle. A circle makes a module run before one it imports has finished running
// (its bindings still in the temporal dead zone), and hides which module depends
// on which. And js/ has a direction: the entries package.json names (node.js,
// server.js, browser.js, workerd.js, default.js, server-workerd.js) import the
// library, and no module of js/ imports an entry (which would load a wasm build
// as a side effect of importing a library module).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCES = /\.(m?js)$/;

/** The files under `dir`, relative to the repository root. */
function filesUnder(dir) {
  const out = [];
  for (const d of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) out.push(...filesUnder(path));
    else if (SOURCES.test(d.name)) out.push(path);
  }
  return out.sort();
}

/** The relative specifiers `text` imports, comments left out. */
function relativeImports(text) {
  const code = text
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .join('\n');
  const found = [];
  const forms = [
    /^\s*(?:import|export)\b[^;'"`]*?\bfrom\s*(['"])(\.{1,2}\/[^'"]+)\1/gm,
    /^\s*import\s*(['"])(\.{1,2}\/[^'"]+)\1/gm,
    /\bimport\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g,
  ];
  for (const form of forms) for (const m of code.matchAll(form)) found.push(m[2]);
  return found;
}

/** file -> the files it imports (those under the scanned folders only). */
function importGraph(files) {
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const edges = [];
    for (const spec of relativeImports(readFileSync(join(ROOT, file), 'utf8'))) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec)).split('\\').join('/');
      if (known.has(target)) edges.push(target);
      else assert.ok(existsSync(join(ROOT, target)) || target.startsWith('dist/'), `${file} imports ${spec}, which is not there`);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The first circle in `graph`, as the files around it (the first repeated at the end), or null. */
function firstCircle(graph) {
  const state = new Map(); // file -> 'open' while on the path, 'done' once explored
  const path = [];
  function visit(file) {
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') return [...path.slice(path.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(file, 'done');
    return null;
  }
  for (const file of graph.keys()) {
    if (state.has(file)) continue;
    const found = visit(file);
    if (found) return found;
  }
  return null;
}

test('the circle finder names a circle, and finds none in a tree', () => {
  const circle = new Map([
    ['a.js', ['b.js']],
    ['b.js', ['c.js']],
    ['c.js', ['a.js']],
  ]);
  assert.deepEqual(firstCircle(circle), ['a.js', 'b.js', 'c.js', 'a.js']);
  const tree = new Map([
    ['a.js', ['b.js', 'c.js']],
    ['b.js', ['c.js']],
    ['c.js', []],
  ]);
  assert.equal(firstCircle(tree), null);
});

test('every form of relative import is read, comments and packages left out', () => {
  const text = [
    "import { a } from './a.js';",
    'import {',
    '  b,',
    "} from '../b.js';",
    "export * from './c.js';",
    "export { d } from './d.js';",
    "import './e.js';",
    "  const f = await import('./f.js');",
    "// import { g } from './g.js';",
    "/* import('./h.js') */",
    "import pg from 'pg';",
    "import { readFileSync } from 'node:fs';",
  ].join('\n');
  assert.deepEqual(relativeImports(text), ['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
});

test('no module under js/ or bin/ imports itself through others', () => {
  const files = [...filesUnder('js'), ...filesUnder('bin')];
  assert.ok(files.includes('js/node.js') && files.includes('bin/memdir.js'), 'the scan found the package');
  const circle = firstCircle(importGraph(files));
  assert.equal(circle, null, `import circle: ${circle?.join(' → ')}`);
});

/** The files package.json's exports name as entries (every condition's `default`). */
function entries() {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const out = new Set();
  const walk = (v) => {
    if (typeof v === 'string') {
      if (v.endsWith('.js')) out.add(v.replace(/^\.\//, ''));
    } else if (v !== null && typeof v === 'object') for (const [k, w] of Object.entries(v)) if (k !== 'types') walk(w);
  };
  walk(pkg.exports);
  return out;
}

test('no module under js/ imports an entry: an entry loads a wasm build, and nothing but the runtime picks one', () => {
  const entry = entries();
  assert.ok(entry.has('js/node.js') && entry.has('js/server.js') && entry.has('js/browser.js'), 'the entries are read from package.json');
  const graph = importGraph(filesUnder('js'));
  const offending = [...graph].flatMap(([file, targets]) => targets.filter((t) => entry.has(t)).map((t) => `${file} → ${t}`));
  assert.deepEqual(offending, []);
});

// The server's pieces have one home, memdir/server; memdir still exports them (the
// same objects, so code written before the subpath keeps working unchanged).
const SERVER_EXPORTS = ['UnusableStore', 'apiHandler', 'directoryCatalog', 'formatDuration', 'keyEntry', 'keysFrom', 'listStores', 'newStoreId', 'parseDuration', 'postgresCatalog', 'requestId', 'upkeepStore'];

test('memdir/server exports the server pieces, and memdir the same objects', async () => {
  const server = await import('memdir/server');
  const memdir = await import('memdir');
  assert.deepEqual(Object.keys(server).sort(), SERVER_EXPORTS);
  for (const name of SERVER_EXPORTS.filter((n) => n !== 'postgresCatalog')) assert.equal(memdir[name], server[name], `memdir.${name} is memdir/server's`);
  assert.equal(memdir.postgresCatalog, undefined, 'postgresCatalog is new: only memdir/server has it');
});
