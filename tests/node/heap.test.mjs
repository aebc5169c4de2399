// The wasm heap's headroom (crates/memdir-wasm/src/heap.rs; docs/bounds.md): a
// memory store keeps every version in wasm memory, so a run of writes grows that
// memory steadily. After a call that grew it, the engine reserves a quarter again at
// once, so the memory grows in a few large steps instead of a 64 KiB page every
// write or two (each grow cost more than the write on V8: npm run bench). The steps
// are counted here, never timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, inMemoryStore } from '../../js/node.js';
// The same module instance js/node.js initialised: initSync hands back its exports.
import { initSync } from '../../dist/node/memdir_wasm.js';

const wasmMemory = initSync({}).memory;

test('2,000 writes of 5 KiB grow the wasm memory in a few steps, not page by page', async () => {
  const memory = await openMemory({ store: inMemoryStore() });
  const body = 'a line of text in a memory file\n'.repeat(160);
  const sizes = new Set([wasmMemory.buffer.byteLength]);
  const start = wasmMemory.buffer.byteLength;
  for (let i = 0; i < 2000; i++) {
    const text = await memory.execute({ command: 'create', path: `/memories/d${i % 20}/f${i}.md`, file_text: `${i}\n${body}` });
    assert.equal(text.is_error, false, text.content);
    sizes.add(wasmMemory.buffer.byteLength);
  }
  memory.close();
  const grown = (wasmMemory.buffer.byteLength - start) / 2 ** 20;
  // 2,000 versions of 5 KiB are over 10 MiB kept: page by page that was hundreds of
  // grows; with a quarter reserved each time, 14 from a 2 MiB memory to 30 MiB.
  assert.ok(grown >= 10, `the memory grew ${grown.toFixed(1)} MiB`);
  assert.ok(sizes.size - 1 <= 20, `the memory grew ${grown.toFixed(1)} MiB in ${sizes.size - 1} steps`);
});
