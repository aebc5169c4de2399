// A JS store that searches vectors itself (what postgresStore does with pgvector):
// the npm package's store bridge asks its `nearest` while `searchesVectors` reads
// true, keeps only hits live in the tree, and refuses an answer of another shape as
// a storage failure, never as hits.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memdir } from './helpers.mjs';
import { mapStore } from '../../bench/search/map-store.mjs';
import { testEmbedder } from '../../examples/embedders/test-embedder.mjs';

const FAILED = "The memory directory's storage failed; nothing was changed.";

/** A map store whose `nearest` answers what `answer(hashes)` makes of its vectors' hashes. */
function searching(answer) {
  const store = mapStore();
  store.searchesVectors = true;
  store.asked = [];
  store.nearest = async (fingerprint, query, k) => {
    store.asked.push([fingerprint.length, query.constructor.name, query.length, k]);
    const hashes = [...store.data.keys()].filter((key) => key.startsWith('vec/')).map((key) => key.split('/')[1]);
    return answer(hashes);
  };
  return store;
}

async function opened(store) {
  const memory = await memdir.openMemory({ store: memdir.customStore(store), embedder: testEmbedder() });
  await memory.create({ path: '/memories/editor.md', file_text: 'The user prefers dark mode in every editor.\n' });
  await memory.create({ path: '/memories/trip.md', file_text: 'Flight to Lisbon on Friday.\n' });
  await memory.reindex();
  return memory;
}

test("a store's nearest is asked with the fingerprint key, the unit query and the engine's candidates, and only live hits are kept", async () => {
  let stale;
  const store = searching((hashes) => [...(stale ? [[stale, 0.9]] : []), ...hashes.map((h, i) => [h, 0.5 - i / 10])]);
  const memory = await opened(store);
  const hits = await memory.search('夜间模式', { mode: 'semantic' });
  assert.deepEqual(
    hits.map((h) => h.path).sort(),
    ['/memories/editor.md', '/memories/trip.md'],
  );
  assert.deepEqual(store.asked[0], [32, 'Float32Array', 384, 1000]);
  // A hash the store answers whose text is no longer live is never a hit.
  stale = 'a'.repeat(64);
  const again = await memory.search('夜间模式', { mode: 'semantic' });
  assert.equal(again.length, 2);
  assert.equal(again.some((h) => h.score === 0.9), false);
  memory.close();
});

test('an answer of another shape is a storage failure, not hits', async () => {
  const bad = [
    ['a hash that is not 64 hex digits', (h) => [['xyz', 0.5]]],
    ['a hash twice', (h) => [[h[0], 0.5], [h[0], 0.4]]],
    ['a cosine above 1', (h) => [[h[0], 1.5]]],
    ['a cosine that is not a number', (h) => [[h[0], 'high']]],
    ['worse before better', (h) => [[h[0], 0.2], [h[1], 0.3]]],
    ['not an array', () => ({ hits: [] })],
    ['a pair of three', (h) => [[h[0], 0.5, 'x']]],
  ];
  for (const [why, answer] of bad) {
    const memory = await opened(searching(answer));
    await assert.rejects(memory.search('dark', { mode: 'semantic' }), { message: FAILED }, why);
    // Lexical search does not ask the store.
    assert.deepEqual((await memory.search('Lisbon', { mode: 'lexical' })).map((h) => h.path), ['/memories/trip.md'], why);
    memory.close();
  }
});

test('a store whose searchesVectors reads false is not asked: the engine scans', async () => {
  const store = searching(() => {
    throw new Error('not to be asked');
  });
  store.searchesVectors = false;
  const memory = await opened(store);
  assert.deepEqual((await memory.search('夜间模式', { mode: 'semantic', limit: 1 })).map((h) => h.path), ['/memories/editor.md']);
  assert.deepEqual(store.asked, []);
  memory.close();
});
