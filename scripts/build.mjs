#!/usr/bin/env node
// `npm run build`: the engine's wasm-bindgen crate -> dist/ (glue + optimised wasm),
// twice: dist/ for the browser (feature `indexeddb`) and dist/node/ for Node, workerd
// and the default entry, which have no IndexedDB and so need not carry its code.
// Then the same two lean, for `memdir/tool` (feature `tool`): dist/tool/ and
// dist/tool/node/.
// Also the package's `prepack`, so a tarball never leaves without its wasm.
//
// Steps, per build: cargo (wasm32-unknown-unknown, profile release-wasm-browser or
// release-wasm), the pinned wasm-bindgen CLI (--target web: a glue file each runtime
// entry can initialise its own way), wasm-opt from the npm `binaryen` package (Debian's is broken;
// -Oz for the browser's build, which a page downloads, -O3 for the others, which run
// for speed, inlining a function into its one caller only when small: see
// buildVariant), then the gzipped sizes. Honours CARGO_TARGET_DIR; `--no-opt` skips wasm-opt, `--force`
// rebuilds dist/ even when cargo's output has not changed. `--bench` builds the
// benchmark's variant instead (feature `bench`: the round-trip floor's exports) into
// bench/dist/, which `npm run bench` loads beside the package; it never goes in dist/.
// `--empty` builds the cold-start bench's peer (bench/cold/empty, a module with one
// function and nothing else, its own workspace) the same way into bench/cold/dist/.
// `--if-stale` (the package's `prepack`) builds nothing when dist/ is newer than its
// sources, so a checkout with a current dist/ packs without a Rust toolchain.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { distIsFresh } from './fresh.mjs';

const WASM_BINDGEN_VERSION = '0.2.130';
// The largest function (in wasm-opt's size measure) that wasm-opt -O3 inlines into
// its one caller for that reason alone (its default: any size). See buildVariant.
const ONE_CALLER_INLINE_MAX = 0;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const bench = args.has('--bench');
const empty = args.has('--empty');
if (args.has('--if-stale') && !bench && !empty && distIsFresh(root)) {
  console.error('dist/ is newer than its sources: nothing to build');
  process.exit(0);
}

function run(cmd, argv, opts = {}) {
  console.error(`$ ${[cmd, ...argv].join(' ')}`);
  // Everything to stderr: as `prepack`, stdout is `npm pack --json`'s answer.
  execFileSync(cmd, argv, { stdio: ['inherit', 2, 2], cwd: root, ...opts });
}

function findWasmBindgen() {
  const candidates = ['wasm-bindgen', join(homedir(), '.cargo', 'bin', 'wasm-bindgen')];
  for (const c of candidates) {
    try {
      const out = execFileSync(c, ['--version'], { encoding: 'utf8' }).trim();
      if (out === `wasm-bindgen ${WASM_BINDGEN_VERSION}`) return c;
      console.error(`${c} is "${out}", not ${WASM_BINDGEN_VERSION}; looking further`);
    } catch {
      // not on this path; try the next
    }
  }
  throw new Error(
    `wasm-bindgen ${WASM_BINDGEN_VERSION} not found: cargo install wasm-bindgen-cli --version =${WASM_BINDGEN_VERSION}`,
  );
}

const targetEnv = process.env.CARGO_TARGET_DIR;
const targetDir = targetEnv ? (isAbsolute(targetEnv) ? targetEnv : resolve(root, targetEnv)) : join(root, 'target');
const gz = (p) => gzipSync(readFileSync(p), { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const glue = (name) => [`${name}.js`, `${name}.d.ts`, `${name}_bg.wasm`, `${name}_bg.wasm.d.ts`];
// The cold-start bench's peer: its own workspace, built in a subdirectory of the same
// target directory.
const PEER = {
  manifest: join(root, 'bench', 'cold', 'empty', 'Cargo.toml'),
  targetDir: join(targetDir, 'bench-empty'),
  name: 'empty',
  crate: 'memdir_bench_empty',
};

/**
 * One build of the crate into `out`: cargo with `features` under its own `profile`
 * (so the builds sit side by side in target/ and a no-op build relinks nothing),
 * wasm-bindgen, wasm-opt. Skipped when cargo's output is the one `out` was made from.
 */
function buildVariant({ profile, features, out, peer, opt = '-O3', strip = false }) {
  const name = peer ? peer.name : 'memdir_wasm';
  if (peer) run('cargo', ['build', '--manifest-path', peer.manifest, '--target-dir', peer.targetDir, '--target', 'wasm32-unknown-unknown', '--profile', profile]);
  else run('cargo', ['build', '-p', 'memdir-wasm', '--target', 'wasm32-unknown-unknown', '--profile', profile, ...(features.length ? ['--features', features.join(',')] : [])]);
  const built = peer
    ? join(peer.targetDir, 'wasm32-unknown-unknown', profile, `${peer.crate}.wasm`)
    : join(targetDir, 'wasm32-unknown-unknown', profile, 'memdir_wasm.wasm');
  if (!existsSync(built)) throw new Error(`cargo did not produce ${built}`);

  // Nothing to do when cargo's output is the one `out` was made from (a no-op build
  // stays a second or two long, so every test script can call it).
  const stampFile = join(out, '.stamp');
  const inlining = opt === '-O3' ? ['--one-caller-inline-max-function-size', String(ONE_CALLER_INLINE_MAX)] : [];
  const stamp = `${createHash('sha256').update(readFileSync(built)).digest('hex')} ${args.has('--no-opt') ? 'no-opt' : [opt, ...inlining].join(' ')}${strip ? ' strip' : ''}`;
  const wasm = join(out, `${name}_bg.wasm`);
  if (!args.has('--force') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(wasm)) {
    console.error(`${relative(root, out)}/ is up to date`);
    // Newer than the sources again, for the mtime check of www/serve.mjs's needsBuild().
    const now = new Date();
    utimesSync(wasm, now, now);
    return;
  }
  // Only this build's own files: dist/ also holds dist/node/.
  for (const f of [...glue(name), '.stamp']) rmSync(join(out, f), { force: true });
  mkdirSync(out, { recursive: true });
  run(findWasmBindgen(), ['--target', 'web', '--out-dir', out, '--out-name', name, built]);

  if (!args.has('--no-opt')) {
    const wasmOpt = join(root, 'node_modules', 'binaryen', 'bin', 'wasm-opt');
    if (!existsSync(wasmOpt)) throw new Error('node_modules/binaryen is missing: run npm ci');
    const tmp = `${wasm}.opt`;
    // The features rustc enables by default for wasm32-unknown-unknown, and SIMD,
    // which .cargo/config.toml adds.
    const features = [
      '--enable-bulk-memory',
      '--enable-mutable-globals',
      '--enable-nontrapping-float-to-int',
      '--enable-sign-ext',
      '--enable-reference-types',
      '--enable-multivalue',
      '--enable-simd',
    ];
    const stripped = strip ? ['--strip-producers', '--strip-target-features'] : [];
    // -O3 inlines every function that has one caller, whatever its size: the view
    // path and every write's then become one function of tens of KiB, and V8, which
    // compiles a wasm function on its first call (lazily, on the main thread),
    // compiled a write's code for a process's first view. None is inlined for
    // having one caller (tiny ones still are, by -O3's other rules): a cold start
    // compiles the code it runs (bench/cold, tests/node/cold-compile.test.mjs).
    run(process.execPath, [wasmOpt, wasm, ...stripped, opt, ...inlining, ...features, '-o', tmp]);
    renameSync(tmp, wasm);
  }
  writeFileSync(stampFile, stamp);
}

// The package carries four builds: the browser's, with the IndexedDB store (dist/,
// loaded by js/browser.js), and the one for everything else, without it (dist/node/,
// loaded by js/node.js, js/workerd.js and js/default.js); and the lean builds of
// `memdir/tool`, the same two without every face but the memory tool (dist/tool/,
// loaded by js/tool.js; dist/tool/node/, by js/tool-node.js).
const variants = empty
  ? [{ profile: 'release-wasm', features: [], out: join(root, 'bench', 'cold', 'dist'), peer: PEER }]
  : bench
  ? [{ profile: 'bench-wasm', features: ['bench'], out: join(root, 'bench', 'dist') }]
  : [
      { profile: 'release-wasm-browser', features: ['indexeddb'], out: join(root, 'dist'), opt: '-Oz' },
      { profile: 'release-wasm', features: [], out: join(root, 'dist', 'node') },
      // The lean builds of `memdir/tool` (feature `tool`: the memory tool alone),
      // the browser's (with IndexedDB, for size) and Node's (for speed).
      // Its custom sections (the toolchain's names, the target's features) are
      // dropped too: 0.2 KiB a page need not fetch, on a 200 KiB budget.
      { profile: 'release-wasm-tool-browser', features: ['indexeddb', 'tool'], out: join(root, 'dist', 'tool'), opt: '-Oz', strip: true },
      { profile: 'release-wasm-tool', features: ['tool'], out: join(root, 'dist', 'tool', 'node') },
    ];
for (const v of variants) buildVariant(v);
for (const { out, peer } of variants) {
  const name = peer ? peer.name : 'memdir_wasm';
  for (const f of [`${name}_bg.wasm`, `${name}.js`]) {
    const p = join(out, f);
    console.error(`${relative(root, p)}: ${kib(statSync(p).size)} raw, ${kib(gz(p))} gzipped`);
  }
}

// The bench builds have no entries of their own.
if (bench || empty) process.exit(0);

/** The JS an entry loads: itself and its relative imports, recursively (not the wasm). */
function jsClosure(file, seen = new Set()) {
  if (seen.has(file) || !file.endsWith('.js') || !existsSync(file)) return seen;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    jsClosure(resolve(dirname(file), m[1]), seen);
  }
  return seen;
}
for (const entry of ['node', 'browser', 'workerd', 'default', 'tool', 'tool-node']) {
  const files = [...jsClosure(join(root, 'js', `${entry}.js`))];
  const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
  console.error(`js/${entry}.js with its imports (${files.length} files, wasm aside): ${kib(bytes.length)} raw, ${kib(gzipSync(bytes, { level: 9 }).length)} gzipped`);
}
