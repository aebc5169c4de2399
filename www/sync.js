// Sync in the explorer: keep this page's memory (IndexedDB) and a store of a Memory
// Stores API (memdir serve, Anthropic's API) the same, on demand and on an interval.
// The engine does the sync (memory.sync); this file asks where, remembers it for
// this memory, and says what happened. Where to sync is kept in localStorage; the
// key, as the chat's, only in this tab's sessionStorage (closing the tab forgets it).

import { ask } from './dialogs.js';

const MARKER = '<<<<<<< ours';

/**
 * Wires the Sync button: `memory`, `name` (the memory's), `changed()` after a sync
 * that changed something, `note(text, isError)` for the console, `button` the button.
 */
export function createSync({ memory, name, changed, note, button }) {
  const saved = `memdir:sync:${name}`;
  const savedKey = `memdir:sync-key:${name}`;
  let settings = load(saved, savedKey);
  let timer;
  let running = false;

  async function run() {
    if (running || !settings?.key) return;
    running = true;
    button.textContent = 'Syncing…';
    try {
      const s = await memory.sync({ baseURL: settings.url, apiKey: settings.key, storeId: settings.store });
      const conflicts = s.conflicts > 0 ? await conflicted(memory) : [];
      note(`Synced with ${settings.store} at ${settings.url}: ${s.text}${conflicts.length ? `; both texts kept in ${conflicts.join(', ')}` : ''}`);
      button.textContent = `Synced ${new Date().toLocaleTimeString()}`;
      button.dataset.summary = s.text;
      if (s.pulled + s.merged + s.conflicts > 0) await changed();
    } catch (e) {
      note(`Sync failed: ${e.message}`, true);
      button.textContent = 'Sync failed';
      button.dataset.summary = '';
    } finally {
      running = false;
      // How many syncs have ended: a page (or a test) can wait for the next one.
      button.dataset.runs = String(Number(button.dataset.runs ?? 0) + 1);
    }
  }

  function schedule() {
    clearInterval(timer);
    const minutes = Number(settings?.every ?? 0);
    if (minutes > 0) timer = setInterval(run, minutes * 60_000);
  }

  button.onclick = async () => {
    const answer = await ask({
      title: 'Sync this memory',
      text: 'With a store of a Memory Stores API: memdir serve (started with --allow-origin for this page) or Anthropic’s API. Edits on both sides are merged; overlapping ones keep both texts.',
      fields: [
        { name: 'url', label: 'Server URL', value: settings?.url ?? 'http://127.0.0.1:8787', mono: true },
        { name: 'key', label: 'API key', value: settings?.key ?? '', mono: true },
        { name: 'store', label: 'Memory store id', value: settings?.store ?? '', mono: true },
        { name: 'every', label: 'Also every … minutes (0: only now)', value: String(settings?.every ?? 0) },
      ],
      submit: 'Sync now',
    });
    if (!answer) return;
    const every = Number(answer.every);
    settings = { url: answer.url.trim(), key: answer.key.trim(), store: answer.store.trim(), every: Number.isInteger(every) && every > 0 ? every : 0 };
    localStorage.setItem(saved, JSON.stringify({ ...settings, key: undefined }));
    sessionStorage.setItem(savedKey, settings.key);
    schedule();
    await run();
  };
  schedule();
  return { run };
}

function load(saved, savedKey) {
  try {
    const s = JSON.parse(localStorage.getItem(saved) ?? 'null');
    const key = sessionStorage.getItem(savedKey) ?? '';
    return s && typeof s.url === 'string' && typeof s.store === 'string' ? { ...s, key } : null;
  } catch {
    return null;
  }
}

/** The paths of the memories that hold both texts of an overlap. */
async function conflicted(memory) {
  const entries = await memory.entries();
  return entries.filter((e) => typeof e.content === 'string' && e.content.includes(MARKER)).map((e) => e.path);
}
