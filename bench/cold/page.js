// The cold-start bench in a page (bench/cold/bench.mjs loads it in a fresh browser
// context per sample, so nothing is cached): the module imported and its wasm
// compiled and instantiated, a memory opened, the first answer.
export async function coldStart(side, name) {
  const t0 = performance.now();
  let answer;
  if (side === 'empty') {
    const glue = await import('/bench/cold/dist/empty.js');
    await glue.default({ module_or_path: new URL('/bench/cold/dist/empty_bg.wasm', location.href) });
    answer = String(glue.ping());
  } else {
    const memdir = await import('/js/browser.js');
    const memory = await memdir.openMemory(side === 'indexeddb' ? { store: memdir.indexedDbStore(name) } : {});
    answer = await memory.view({ command: 'view', path: '/memories' });
  }
  return { ms: performance.now() - t0, answer };
}
