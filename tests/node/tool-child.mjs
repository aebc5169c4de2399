// memdir/tool in a process of its own (a process loads one build: js/glue.js), for
// tests/node/tool.test.mjs: reads a JSON list of tasks from the file named by its
// argument, runs each through memdir/tool over its directory store, and prints the
// answers as JSON. A task: {dir, limits, input?, inputText?, handler?: {dir, name}}
// (the raw face on dir, the handler `name` on a copy), or {dir, inputs} (each input
// through the raw face, in one memory).
import { readFileSync } from 'node:fs';
import * as tool from 'memdir/tool';

const tasks = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const open = (dir, limits) => tool.openMemory({ store: tool.directoryStore(dir), limits });
const out = [];
for (const t of tasks) {
  const memory = await open(t.dir, t.limits);
  if (t.inputs) {
    const answers = [];
    for (const input of t.inputs) answers.push(await memory.execute(input));
    out.push(answers);
    continue;
  }
  const raw = await (t.inputText !== undefined ? memory.executeJson(t.inputText) : memory.execute(t.input));
  let handled = null;
  if (t.handler) {
    const copy = await open(t.handler.dir, t.limits);
    handled = await copy[t.handler.name](t.input).then(
      (text) => ({ content: text, is_error: false }),
      (e) => ({ content: `Error: ${e.message}`, is_error: true, isError: e instanceof Error }),
    );
  }
  out.push({ raw, handled });
}
process.stdout.write(JSON.stringify({ resolved: import.meta.resolve('memdir/tool'), exports: Object.keys(tool).sort(), out }));
