// The package's two wasm builds (scripts/build.mjs): what each carries and how big
// it is gzipped. The browser's (dist/) has the IndexedDB store; the one Node, workerd
// and the default entry load (dist/node/) has not. Each must stay under its ceiling,
// set at the size measured when the builds were split, rounded up to the next 10 KiB,
// so growth is a decision made here. The size targets are printed beside them: they
// are not met (the memory-store API took both builds past them), and this says so
// rather than passing quietly.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const KIB = 1024;
const BUILDS = [
  // Measured 2026-11-22 at the split: 885.2 KiB raw, 343.1 KiB gzipped; after the
  // size pass (branch h-size, with main at d267002): 773.3 KiB raw, 326.5 KiB gzipped.
  // Version retention (issue 21, 2026-11-25) took it to 788.0 KiB raw, 332.8 KiB
  // gzipped: a browser's store keeps versions too, so it carries `retain`; the
  // server-only routes it carries are issue 23's to split out. Sync (2026-11-25):
  // 905.1 KiB raw, 376.7 KiB gzipped (diffy's merge about 9 KiB of that): a page
  // syncs its memory, so the browser build carries it.
  { name: 'browser', dir: '../../dist/', ceilingKib: 385, targetKib: 150, indexedDb: true },
  // Measured 2026-11-22 at the split: 856.5 KiB raw, 331.3 KiB gzipped; after the
  // size pass (branch h-size, with main at d267002): 744.4 KiB raw, 314.1 KiB gzipped.
  // Version retention: 759.3 KiB raw, 319.9 KiB gzipped. Sync: 876.5 KiB raw,
  // 364.5 KiB gzipped. The store-directory protocol moved into Rust (one for Node
  // and the host): 902.5 KiB raw, 375.8 KiB gzipped; workerd and the default entry
  // carry it without a directory store until issue 23 gives Node its own build.
  { name: 'Node/workerd/default', dir: '../../dist/node/', ceilingKib: 385, targetKib: 130, indexedDb: false },
];

/** The build's wasm, gzipped as build.mjs reports it (level 9). */
function measure(dir) {
  const wasm = readFileSync(new URL(`${dir}memdir_wasm_bg.wasm`, import.meta.url));
  return { wasm, raw: wasm.length, gz: gzipSync(wasm, { level: 9 }).length };
}

for (const b of BUILDS) {
  test(`the ${b.name} build stays under ${b.ceilingKib} KiB gzipped (target: ${b.targetKib} KiB)`, (t) => {
    const { raw, gz } = measure(b.dir);
    const met = gz <= b.targetKib * KIB;
    t.diagnostic(
      `${b.name} wasm: ${(raw / KIB).toFixed(1)} KiB raw, ${(gz / KIB).toFixed(1)} KiB gzipped; ceiling ${b.ceilingKib} KiB; ` +
        `target ≤ ${b.targetKib} KiB ${met ? 'met' : `NOT met (${((gz - b.targetKib * KIB) / KIB).toFixed(1)} KiB over)`}`,
    );
    assert.ok(gz <= b.ceilingKib * KIB, `${b.name} wasm is ${(gz / KIB).toFixed(1)} KiB gzipped, over its ${b.ceilingKib} KiB ceiling`);
  });
}

test('only the browser build carries the IndexedDB store', () => {
  for (const b of BUILDS) {
    const { wasm } = measure(b.dir);
    const mod = new WebAssembly.Module(wasm);
    const exported = WebAssembly.Module.exports(mod).some((e) => e.name === 'indexedDbStore');
    assert.equal(exported, b.indexedDb, `${b.name} build exports indexedDbStore: ${exported}`);
    // Its glue binds IndexedDB's classes only where the store is compiled in.
    const glue = readFileSync(new URL(`${b.dir}memdir_wasm.js`, import.meta.url), 'utf8');
    assert.equal(glue.includes('instanceof IDBFactory'), b.indexedDb, `${b.name} glue binds IDBFactory`);
  }
});
