// In Chromium, bundled by Vite from the scratch project: memdir's browser entry over
// IndexedDB. `?step=create` writes a file then views it; any load views it again.
// The answers go to window.result for the driver (browser-run.mjs).
import { betaMemoryTool, indexedDbStore, openMemory } from 'memdir';

const run = async (tool, input) => {
  try {
    return { content: await tool.run(input) };
  } catch (e) {
    return { error: e.message };
  }
};

try {
  const tool = betaMemoryTool(await openMemory({ store: indexedDbStore('install-check') }));
  const result = {};
  if (new URL(location.href).searchParams.get('step') === 'create') {
    result.create = await run(tool, { command: 'create', path: '/memories/notes.md', file_text: 'kept in IndexedDB\nacross loads\n' });
  }
  result.file = await run(tool, { command: 'view', path: '/memories/notes.md' });
  result.dir = await run(tool, { command: 'view', path: '/memories' });
  window.result = result;
} catch (e) {
  window.result = { failed: String(e?.stack ?? e) };
}
