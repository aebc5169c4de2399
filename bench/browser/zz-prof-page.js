// scratch: views and writes over IndexedDB, timed, for a CDP profile
import * as memdir from '/js/browser.js';
import { workload } from '/bench/workload.mjs';
export async function run(kind, n) {
  const { initial, commands } = workload({});
  const name = 'prof-' + Math.random().toString(36).slice(2);
  const m = await memdir.openMemory({ store: memdir.indexedDbStore(name) });
  await m.import([...initial].map(([path, content]) => ({ path, content })));
  const cmds = commands.filter(([k, i]) => k === kind && (k === 'view dir' || initial.has(i.path)));
  for (const [, input] of cmds.slice(0, 50)) await m.execute(input);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const [, input] = cmds[i % cmds.length];
    await m.execute(kind.startsWith('view') ? input : { command: 'insert', path: [...initial.keys()][i % 200], insert_line: 1, insert_text: 'x' + i });
  }
  return (performance.now() - t0) / n;
}
