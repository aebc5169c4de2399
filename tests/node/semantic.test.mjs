// Semantic and hybrid search through the npm package on Node (issue 47):
// openMemory({ embedder }) bridging an async JS embedder through the wasm,
// memory.search / recall modes, reindex and searchStatus with the fingerprint,
// and a bad embedder's exact error with nothing lost.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { join } from 'node:path';
import { MEMDIR_BIN, STORES, memdir, runNode, tempDir } from './helpers.mjs';
import { testEmbedder, testVector } from '../../examples/embedders/test-embedder.mjs';

const FILES = [
  ['/memories/prefs/editor.md', 'The user prefers dark mode in every editor.\n'],
  ['/memories/prefs/schedule.md', 'The user hates meetings before ten.\n'],
  ['/memories/notes/zebra.md', 'zebra crossing near the office\n'],
];

async function filled(options) {
  const memory = await memdir.openMemory(options);
  for (const [path, text] of FILES) await memory.create({ path, file_text: text });
  return memory;
}

/** The test embedder, counting its calls and texts by kind. */
function counting() {
  const inner = testEmbedder();
  const seen = { calls: 0, query: 0, document: 0 };
  return {
    seen,
    embedder: {
      id: inner.id,
      dims: inner.dims,
      async embed(texts, kind) {
        seen.calls += 1;
        seen[kind] += texts.length;
        return inner.embed(texts, kind);
      },
    },
  };
}

for (const [kind, make] of Object.entries(STORES)) {
  describe(`semantic search on the ${kind} store`, () => {
    test('finds by meaning across scripts, hybrid by default, writes never embed', async () => {
      const { seen, embedder } = counting();
      const memory = await filled({ store: make().store, embedder });
      assert.equal(seen.calls, 0, 'a write called the embedder');
      assert.deepEqual(await memory.searchStatus(), {
        indexed: 0,
        pending: true,
        fingerprint: 'memdir-test-ngram-v1:384:l2:text-start:2000',
        vectors: { indexed: 0, pending: 3 },
      });
      assert.deepEqual(await memory.search('夜间模式', { mode: 'lexical' }), []);
      const hits = await memory.search('夜间模式', { mode: 'semantic', limit: 1 });
      assert.deepEqual(hits.map(({ path, lines }) => ({ path, lines })), [
        { path: '/memories/prefs/editor.md', lines: [{ line: 1, text: 'The user prefers dark mode in every editor.' }] },
      ]);
      assert.equal(seen.document, 3);
      // Hybrid by default: the keyword hit first in both lists, 1/61 + 1/61.
      const [first] = await memory.search('zebra');
      assert.equal(first.path, '/memories/notes/zebra.md');
      assert.equal(first.score, 2 / 61);
      const [only, ...rest] = await memory.search('zebra', { minScore: 0.99 });
      assert.deepEqual([only.path, only.score, rest], ['/memories/notes/zebra.md', 1 / 61, []]);
      assert.equal(
        await memory.recall('morning availability', { mode: 'semantic', limit: 1 }),
        await memory.recall('morning availability', { mode: 'semantic', limit: 1 }),
      );
      assert.match(await memory.recall('morning availability', { mode: 'semantic', limit: 1 }), /meetings before ten/);
      assert.deepEqual(await memory.searchStatus(), {
        indexed: 3,
        pending: false,
        fingerprint: 'memdir-test-ngram-v1:384:l2:text-start:2000',
        vectors: { indexed: 3, pending: 0 },
      });
      assert.equal(seen.document, 3, 'each text embedded once');
      memory.close();
    });
  });
}

test('without an embedder: lexical, and the status says so', async () => {
  const memory = await filled({});
  assert.deepEqual((await memory.search('zebra')).map((h) => h.path), ['/memories/notes/zebra.md']);
  assert.deepEqual(await memory.searchStatus(), { indexed: 3, pending: false });
  await assert.rejects(memory.search('zebra', { mode: 'semantic' }), {
    message: "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.",
    kind: 'input',
  });
  memory.close();
});

test('reindex embeds every live text and answers the status', async () => {
  const { seen, embedder } = counting();
  const memory = await filled({ embedder });
  assert.deepEqual(await memory.reindex(), {
    indexed: 3,
    pending: false,
    fingerprint: 'memdir-test-ngram-v1:384:l2:text-start:2000',
    vectors: { indexed: 3, pending: 0 },
  });
  assert.deepEqual([seen.document, seen.query], [3, 0]);
  memory.close();
});

test('mounted stores search by meaning together', async () => {
  const embedder = testEmbedder();
  const memory = await memdir.openMemory({
    embedder,
    mounts: [
      { name: 'a', store: memdir.inMemoryStore() },
      { name: 'b', store: memdir.inMemoryStore() },
    ],
  });
  await memory.create({ path: '/memories/a/editor.md', file_text: 'The user prefers dark mode.\n' });
  await memory.create({ path: '/memories/b/trip.md', file_text: 'Flight to Lisbon on Friday.\n' });
  const hits = await memory.search('夜间模式', { mode: 'semantic' });
  assert.deepEqual(hits.map((h) => h.path), ['/memories/a/editor.md', '/memories/b/trip.md']);
  assert.deepEqual((await memory.searchStatus()).vectors, { indexed: 2, pending: 0 });
  memory.close();
});

const BAD = [
  ['throws', async () => { throw new Error('secret key sk-123 refused'); }, "The embedder failed (it threw or its promise rejected); no vector was kept, and search with mode 'lexical' still answers."],
  ['count', async (texts) => [...texts, 'x'].map(() => new Float32Array(4).fill(1)), 'The embedder answered 4 vectors for 3 texts; it must answer one per text, in order. No vector was kept.'],
  ['dims', async (texts) => texts.map(() => [1, 2, 3]), 'The embedder answered a vector of 3 numbers; it declares dims 4. No vector was kept.'],
  ['nan', async (texts) => texts.map(() => [1, NaN, 0, 0]), 'The embedder answered a vector holding NaN or an infinity. No vector was kept.'],
  ['not a number', async (texts) => texts.map(() => [1, 'x', 0, 0]), 'The embedder answered a vector holding NaN or an infinity. No vector was kept.'],
  ['shape', async () => 'vectors', 'The embedder must answer an array of vectors, one per text, each an array of numbers or a Float32Array. No vector was kept.'],
];

for (const [name, embed, message] of BAD) {
  test(`a bad embedder (${name}) gets a clear error and loses nothing`, async () => {
    const store = memdir.inMemoryStore();
    const memory = await filled({ store, embedder: { id: 'bad', dims: 4, embed } });
    await assert.rejects(memory.search('zebra'), { message, kind: 'input' });
    await assert.rejects(memory.reindex(), { message });
    assert.deepEqual((await memory.search('zebra', { mode: 'lexical' })).map((h) => h.path), ['/memories/notes/zebra.md']);
    assert.equal(await memory.view({ path: '/memories/notes/zebra.md' }), await memory.view({ path: '/memories/notes/zebra.md' }));
    assert.match(await memory.view({ path: '/memories/notes/zebra.md' }), /zebra crossing/);
    memory.close();
  });
}

test('an embedder that is not one is refused when the memory opens', async () => {
  const cases = [
    ['nope', 'openMemory: embedder must be an object {id, dims, embed(texts, kind)}'],
    [{ dims: 4, embed() {} }, 'openMemory: embedder.id must be a non-empty string of at most 200 characters'],
    [{ id: 'x', dims: 0, embed() {} }, 'openMemory: embedder.dims must be a whole number from 1 to 4096'],
    [{ id: 'x', dims: 4.5, embed() {} }, 'openMemory: embedder.dims must be a whole number from 1 to 4096'],
    [{ id: 'x', dims: 4 }, 'openMemory: embedder.embed must be a function (texts, kind) => vectors'],
  ];
  for (const [embedder, message] of cases) {
    await assert.rejects(memdir.openMemory({ embedder }), { name: 'TypeError', message });
  }
  assert.equal(memdir.defaults().embedMaxDims, 4096);
  assert.equal(memdir.defaults().embedBatch, 32);
});

test('the JS test embedder answers the Rust twin numbers (spot check)', () => {
  const v = testVector('夜间模式', 384);
  // Only the concepts' and trigrams' dimensions are set; the counts are whole.
  assert.ok(v.every((x) => Number.isInteger(x)));
  assert.ok(v.some((x) => Math.abs(x) >= 4), 'a concept counts four times');
});

test('memdir search and reindex with --embedder (a JS module) and --mode', async () => {
  const dir = join(tempDir('memdir-cli-semantic-'), 'store');
  const memory = await filled({ store: memdir.directoryStore(dir) });
  memory.close();
  const module = new URL('../../examples/embedders/test-embedder.mjs', import.meta.url).pathname;
  const cli = (...args) => runNode([MEMDIR_BIN, '--store', dir, ...args], { PATH: process.env.PATH }, 30_000);
  const lexical = await cli('search', '夜间模式', '--json');
  assert.deepEqual([lexical.code, lexical.stdout], [0, '[]\n']);
  const reindexed = await cli('reindex', '--embedder', module);
  assert.deepEqual([reindexed.code, reindexed.stderr], [0, '']);
  assert.equal(
    reindexed.stdout,
    '{"indexed":3,"pending":false,"fingerprint":"memdir-test-ngram-v1:384:l2:text-start:2000","vectors":{"indexed":3,"pending":0}}\n',
  );
  const r = await cli('search', '夜间模式', '--embedder', module, '--mode', 'semantic', '--limit', '1');
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /^1 memory matches "夜间模式":\n\/memories\/prefs\/editor\.md \(score 0\.\d{3}\)\n {5}1\tThe user prefers dark mode in every editor\.\n$/);
  const refused = await cli('search', 'zebra', '--mode', 'semantic');
  assert.deepEqual([refused.code, refused.stderr], [2, "memdir: Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.\n"]);
  const missing = await cli('search', 'zebra', '--embedder', 'no-such-module.mjs');
  assert.deepEqual([missing.code, missing.stderr], [2, 'memdir: --embedder "no-such-module.mjs": the module cannot be loaded\n']);
});

test('an optional rerank hook reorders the hits it was given, and nothing else', async () => {
  const memory = await filled({ embedder: testEmbedder() });
  const hits = await memory.search('user', { mode: 'lexical' });
  assert.deepEqual(hits.map((h) => h.path), ['/memories/prefs/schedule.md', '/memories/prefs/editor.md']);
  const reversed = await memory.search('user', { mode: 'lexical', rerank: (q, hs) => (q === 'user' ? [...hs].reverse() : hs) });
  assert.deepEqual(reversed, [...hits].reverse());
  const refused = 'The rerank hook must answer some of the hits it was given, each once: an array of hits from its input.';
  for (const bad of [() => 'x', (q, hs) => [...hs, hs[0]], () => [{ path: '/memories/other.md' }]]) {
    await assert.rejects(memory.search('user', { mode: 'lexical', rerank: bad }), { message: refused, kind: 'input' });
  }
  await assert.rejects(memory.search('user', { rerank: () => { throw new Error('key sk-1'); } }), {
    message: 'The rerank hook failed (it threw or its promise rejected).',
  });
  memory.close();
});

const clients = [];
after(async () => {
  for (const c of clients) await c.close();
});

test('memdir mcp --records --embedder: memory_retrieve by meaning, near duplicates by cosine', async () => {
  const dir = join(tempDir('memdir-mcp-semantic-'), 'store');
  const module = new URL('../../examples/embedders/test-embedder.mjs', import.meta.url).pathname;
  const transport = new StdioClientTransport({ command: process.execPath, args: [MEMDIR_BIN, 'mcp', '--store', dir, '--records', '--embedder', module], stderr: 'pipe' });
  const client = new Client({ name: 'semantic-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const call = async (name, args) => JSON.parse((await client.callTool({ name, arguments: args })).content[0].text);
  const store = (content) => call('memory_store', { content, category: 'user_preference', importance: 3 });
  assert.deepEqual(await store('The user prefers dark mode in every editor.'), { memory_id: 'mem_local_1', success: true });
  // One word apart (a Jaccard of 7/9, under 0.8): by cosine, the same record.
  assert.deepEqual(await store('The user prefers dark mode in each editor.'), { memory_id: 'mem_local_1', replaced: true, success: true });
  const other = await store('The user hates meetings before ten.');
  assert.deepEqual([other.success, other.replaced, other.memory_id === 'mem_local_1'], [true, undefined, false]);
  const found = await call('memory_retrieve', { query: '夜间模式', limit: 1 });
  assert.deepEqual(found.memories.map((m) => m.content), ['The user prefers dark mode in each editor.']);
});
