#!/usr/bin/env node
// `npm run build`: the engine's wasm-bindgen crate -> dist/ (glue + optimised wasm).
// Also the package's `prepack`, so a tarball never leaves without its wasm.
//
// Steps: cargo (wasm32-unknown-unknown, profile release-wasm), the pinned
// wasm-bindgen CLI (--target web: one glue file every runtime entry can initialise
// its own way), wasm-opt from the npm `binaryen` package (Debian's is broken), then
// the gzipped sizes. Honours CARGO_TARGET_DIR; `--no-opt` skips wasm-opt, `--force`
// rebuilds dist/ even when cargo's output has not changed. `--bench` builds the
// benchmark's variant instead (feature `bench`: the round-trip floor's exports) into
// bench/dist/, which `npm run bench` loads beside the package; it never goes in dist/.
// `--empty` builds the cold-start bench's peer (bench/cold/empty, a module with one
// function and nothing else) the same way into bench/cold/dist/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const WASM_BINDGEN_VERSION = '0.2.130';
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const empty = args.has('--empty');
const bench = args.has('--bench') || empty;
const dist = join(root, empty ? join('bench', 'cold', 'dist') : bench ? join('bench', 'dist') : 'dist');
// Its own profile, so the two builds live side by side in target/.
const profile = bench && !empty ? 'bench-wasm' : 'release-wasm';

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
// The peer is its own workspace (never part of the package's), built in a subdirectory
// of the same target directory with the same profile.
const peerTarget = join(targetDir, 'bench-empty');
if (empty) run('cargo', ['build', '--manifest-path', join(root, 'bench', 'cold', 'empty', 'Cargo.toml'), '--target-dir', peerTarget, '--target', 'wasm32-unknown-unknown', '--profile', profile]);
else run('cargo', ['build', '-p', 'memdir-wasm', '--target', 'wasm32-unknown-unknown', '--profile', profile, ...(bench ? ['--features', 'bench'] : [])]);
const outName = empty ? 'empty' : 'memdir_wasm';
const built = empty
  ? join(peerTarget, 'wasm32-unknown-unknown', profile, 'memdir_bench_empty.wasm')
  : join(targetDir, 'wasm32-unknown-unknown', profile, 'memdir_wasm.wasm');
if (!existsSync(built)) throw new Error(`cargo did not produce ${built}`);

// Nothing to do when cargo's output is the one dist/ was made from (a no-op build
// stays a second long, so every test script can call it).
const stampFile = join(dist, '.stamp');
const stamp = `${createHash('sha256').update(readFileSync(built)).digest('hex')} ${args.has('--no-opt') ? 'no-opt' : 'opt'}`;
if (!args.has('--force') && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(dist, `${outName}_bg.wasm`))) {
  console.error(`${relative(root, dist)}/ is up to date`);
  process.exit(0);
}
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
run(findWasmBindgen(), ['--target', 'web', '--out-dir', dist, '--out-name', outName, built]);

const wasm = join(dist, `${outName}_bg.wasm`);
if (!args.has('--no-opt')) {
  const wasmOpt = join(root, 'node_modules', 'binaryen', 'bin', 'wasm-opt');
  if (!existsSync(wasmOpt)) throw new Error('node_modules/binaryen is missing: run npm ci');
  const tmp = `${wasm}.opt`;
  // The features rustc enables by default for wasm32-unknown-unknown.
  const features = [
    '--enable-bulk-memory',
    '--enable-mutable-globals',
    '--enable-nontrapping-float-to-int',
    '--enable-sign-ext',
    '--enable-reference-types',
    '--enable-multivalue',
  ];
  run(process.execPath, [wasmOpt, wasm, '-Oz', ...features, '-o', tmp]);
  renameSync(tmp, wasm);
}

writeFileSync(stampFile, stamp);

const gz = (p) => gzipSync(readFileSync(p), { level: 9 }).length;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
for (const f of [`${outName}_bg.wasm`, `${outName}.js`]) {
  const p = join(dist, f);
  console.error(`${bench ? `${relative(root, dist)}/` : ''}${f}: ${kib(statSync(p).size)} raw, ${kib(gz(p))} gzipped`);
}

// The bench build has no entries of its own.
if (bench) process.exit(0);

/** The JS an entry loads: itself and its relative imports, recursively (not the wasm). */
function jsClosure(file, seen = new Set()) {
  if (seen.has(file) || !file.endsWith('.js') || !existsSync(file)) return seen;
  seen.add(file);
  for (const m of readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    jsClosure(resolve(dirname(file), m[1]), seen);
  }
  return seen;
}
for (const entry of ['node', 'browser', 'workerd', 'default']) {
  const files = [...jsClosure(join(root, 'js', `${entry}.js`))];
  const bytes = Buffer.concat(files.map((f) => readFileSync(f)));
  console.error(`js/${entry}.js with its imports (${files.length} files, wasm aside): ${kib(bytes.length)} raw, ${kib(gzipSync(bytes, { level: 9 }).length)} gzipped`);
}
