// What a cold start compiles (issue 50, bench/cold): V8 compiles a wasm function on
// its first call, on the main thread, so the functions a fresh process's open and
// first view call are compiled while the user waits. A view must compile the view's
// code, not every write's: wasm-opt -O3 inlined each function with one caller into
// it whatever its size (scripts/build.mjs limits that), and the engine polls a view
// and a write each in a function of its own (`outlined`, src/store.rs), as the
// directory store's protocol steps a write's kinds (crates/memdir-wasm's
// store_dir/protocol.rs). Each Node build's bytes compiled by an open of an empty
// directory store and by its first view (the functions' body sizes, as V8 reports
// them under --trace-wasm-compilation-times, a flag of the child process only) stay
// under a ceiling set at the size last measured, with a few KiB for
// the path's variation: growth is a decision made here. No time is measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KIB = 1024;
const child = fileURLToPath(new URL('./cold-compile-child.mjs', import.meta.url));

const BUILDS = [
  // 2026-11-28: open 42.4 KiB, first view 61.8-66.5 KiB (from 57.4 and 148.2, when a
  // view compiled the write path's one 57 KiB function); the view's path varies by a
  // few KiB from run to run (a store call answered at once or on a later turn).
  { entry: 'memdir/tool', openKib: 48, viewKib: 80 },
  // 2026-11-28: open 42.9 KiB, first view 62.8-67.4 KiB (from 54.2 and 107.0).
  { entry: 'memdir', openKib: 48, viewKib: 80 },
];

/** Body bytes V8 compiles lazily in a fresh process that goes as far as `until`. */
function compiledUpTo(entry, until) {
  const dir = mkdtempSync(join(tmpdir(), 'memdir-cold-compile-'));
  try {
    const out = execFileSync(process.execPath, ['--trace-wasm-compilation-times', child, entry, until, join(dir, 'store')], {
      encoding: 'utf8',
    });
    let bytes = 0;
    for (const line of out.split('\n')) {
      const fn = /^Compiled function .* using Liftoff, .* bodysize (\d+) /.exec(line);
      if (fn) bytes += Number(fn[1]);
    }
    return bytes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Body bytes V8 compiles lazily for the import, the open and the first view. */
function compiledBytes(entry) {
  const [imported, opened, viewed] = ['import', 'open', 'view'].map((until) => compiledUpTo(entry, until));
  return { import: imported, open: opened - imported, view: viewed - opened };
}

for (const b of BUILDS) {
  test(`${b.entry}: an open compiles at most ${b.openKib} KiB of wasm, its first view ${b.viewKib} KiB`, (t) => {
    const bytes = compiledBytes(b.entry);
    t.diagnostic(`${b.entry}: import ${(bytes.import / KIB).toFixed(1)} KiB, open ${(bytes.open / KIB).toFixed(1)} KiB, first view ${(bytes.view / KIB).toFixed(1)} KiB`);
    assert.ok(bytes.import > 0 && bytes.open > 0 && bytes.view > 0, 'no wasm compiled lazily: is the trace format the one parsed here?');
    assert.ok(bytes.open <= b.openKib * KIB, `${b.entry}: an open compiled ${(bytes.open / KIB).toFixed(1)} KiB, over ${b.openKib}`);
    assert.ok(bytes.view <= b.viewKib * KIB, `${b.entry}: a first view compiled ${(bytes.view / KIB).toFixed(1)} KiB, over ${b.viewKib}`);
  });
}
