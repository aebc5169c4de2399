// One cold start in a fresh Node process, timed from inside it: the module loaded
// (memdir's import instantiates its wasm), a memory opened, the first answer.
// Side `sdk` is the peer the directory store is held to: the same process with the
// SDK's BetaLocalFilesystemMemoryTool over DIR (its module imported, the tool made,
// its first view).
// Side `tool` is `directory` through memdir/tool.
// Run by bench/cold/bench.mjs:  node bench/cold/node-child.mjs memdir|directory|tool|sdk|empty [DIR]
// Prints {"ms": …, "answer": …} on stdout.
const t0 = performance.now();
const [side, dir] = process.argv.slice(2);
let answer;
if (side === 'empty') {
  const { readFileSync } = await import('node:fs');
  const glue = await import('./dist/empty.js');
  glue.initSync({ module: readFileSync(new URL('./dist/empty_bg.wasm', import.meta.url)) });
  answer = String(glue.ping());
} else if (side === 'memdir' || side === 'directory' || side === 'tool') {
  // `tool`: memdir/tool, the memory tool alone over its lean build, on a directory.
  const memdir = await import(side === 'tool' ? 'memdir/tool' : 'memdir');
  const memory = await memdir.openMemory(side === 'memdir' ? {} : { store: memdir.directoryStore(dir) });
  answer = await memory.view({ command: 'view', path: '/memories' });
} else if (side === 'sdk') {
  const { BetaLocalFilesystemMemoryTool } = await import('@anthropic-ai/sdk/tools/memory/node');
  const tool = await BetaLocalFilesystemMemoryTool.init(dir);
  answer = await tool.view({ command: 'view', path: '/memories' });
} else {
  throw new Error(`unknown side ${side}`);
}
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, answer }));
