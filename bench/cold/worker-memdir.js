// The cold-start bench's memdir Worker (bench/cold/bench.mjs): the package's workerd
// entry instantiates the wasm as the module loads; the first request opens a memory
// (the in-memory store) and answers its first view.
import { openMemory } from 'memdir';

export default {
  async fetch() {
    const memory = await openMemory();
    return new Response(await memory.view({ command: 'view', path: '/memories' }));
  },
};
