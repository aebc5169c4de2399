// Run by cold-compile.test.mjs under --trace-wasm-compilation-times: imports ENTRY
// (memdir or memdir/tool) and, as far as UNTIL says, opens a directory store at DIR
// (`open`) and views /memories (`view`). The trace counts everything compiled up to
// the process's exit, so each phase is a process of its own.
//   node --trace-wasm-compilation-times cold-compile-child.mjs ENTRY import|open|view DIR
const [entry, until, dir] = process.argv.slice(2);
const memdir = await import(entry);
if (until !== 'import') {
  const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
  if (until === 'view') {
    const answer = await memory.view({ command: 'view', path: '/memories' });
    const expected = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories";
    if (answer !== expected) throw new Error(`the view answered ${JSON.stringify(answer)}`);
  }
}
