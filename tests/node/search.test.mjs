// memory.search, memory.recall, memory.reindex and memory.searchStatus on every
// Node store (in memory, a directory, an application's own, PostgreSQL), across
// mounted stores, through `memdir search` and `memdir reindex`, and the memory_find
// client tool through the SDK's tool runner and the Vercel AI SDK, each answer
// asserted exactly.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool as sdkBetaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { startPostgres } from './pg-cluster.mjs';
import { MEMDIR_BIN, STORES, memdir, runNode, tempDir } from './helpers.mjs';
import { modelToolReply, scriptedApi } from '../fake-model.mjs';

const FILES = [
  ['/memories/preferences/formatting.md', 'Use tabs, never spaces.\nWrap lines at 100 columns.\n'],
  ['/memories/tea.md', 'Green tea at four.\nNo sugar.\nTea with lemon on Sundays.\n'],
  ['/memories/notes/zh.md', '我们明天去北京开会。\n'],
  ['/memories/notes/de.md', 'Die Straße ist gesperrt.\nSicherheitsrichtlinie lesen.\n'],
];

async function filled(store) {
  const memory = await memdir.openMemory({ store });
  for (const [path, text] of FILES) await memory.create({ path, file_text: text });
  return memory;
}

// Every hit but its score, which is the engine's BM25 (held to a plain BM25 in
// tests/all/search.rs): here, that each store answers the same numbers, best first.
const shape = (hits) => hits.map(({ path, lines }) => ({ path, lines }));
const bestFirst = (hits) => hits.every((h, i) => i === 0 || hits[i - 1].score >= h.score);

// What each query finds on every store, exactly.
const EXPECTED = {
  tea: [{ path: '/memories/tea.md', lines: [{ line: 1, text: 'Green tea at four.' }, { line: 3, text: 'Tea with lemon on Sundays.' }] }],
  formatting: [{ path: '/memories/preferences/formatting.md', lines: [] }],
  北京: [{ path: '/memories/notes/zh.md', lines: [{ line: 1, text: '我们明天去北京开会。' }] }],
  STRASSE: [{ path: '/memories/notes/de.md', lines: [{ line: 1, text: 'Die Straße ist gesperrt.' }] }],
  richtlinie: [{ path: '/memories/notes/de.md', lines: [{ line: 2, text: 'Sicherheitsrichtlinie lesen.' }] }],
};

let cluster;
const pools = [];
before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await Promise.all(pools.map((p) => p.close()));
  cluster?.stop();
});

const ALL_STORES = {
  ...STORES,
  postgres: () => {
    const store = memdir.postgresStore(cluster.url(), { namespace: `search_${pools.length}` });
    pools.push(store);
    return { store };
  },
};

describe('memory.search on every store', () => {
  let reference;
  for (const [kind, make] of Object.entries(ALL_STORES)) {
    test(`on the ${kind} store: ranked hits with their best lines, the same scores as every other store`, async () => {
      const memory = await filled(make().store);
      const answers = {};
      for (const [query, expected] of Object.entries(EXPECTED)) {
        const hits = await memory.search(query);
        assert.deepEqual(shape(hits), expected, query);
        assert.ok(hits.every((h) => typeof h.score === 'number' && h.score > 0), query);
        answers[query] = hits;
      }
      // Several hits, best first: the file holding "tea" twice beats the one whose
      // path holds it once; equal scores by path.
      await memory.create({ path: '/memories/notes/tea-list.md', file_text: 'oolong\n' });
      const two = await memory.search('tea');
      assert.deepEqual(two.map((h) => h.path), ['/memories/tea.md', '/memories/notes/tea-list.md']);
      assert.ok(bestFirst(two));
      assert.deepEqual(await memory.search('tea', { limit: 1 }), [two[0]]);
      assert.deepEqual(await memory.search('tea', { pathPrefix: '/memories/notes' }), [two[1]]);
      answers.two = two;
      reference ??= answers;
      assert.deepEqual(answers, reference, 'every store answers the same, scores included');
      memory.close();
    });
  }

  test('a deleted or renamed-away memory is never a hit, and an edit is found at once', async () => {
    const memory = await filled(memdir.inMemoryStore());
    await memory.delete({ path: '/memories/tea.md' });
    assert.deepEqual(await memory.search('tea'), []);
    await memory.rename({ old_path: '/memories/notes/de.md', new_path: '/memories/archive/de.md' });
    assert.deepEqual(shape(await memory.search('straße')), [{ path: '/memories/archive/de.md', lines: [{ line: 1, text: 'Die Straße ist gesperrt.' }] }]);
    await memory.str_replace({ path: '/memories/archive/de.md', old_str: 'Straße', new_str: 'Gasse' });
    assert.deepEqual(await memory.search('strasse'), []);
    memory.close();
  });

  test('a query or option the engine refuses rejects with its words and kind input', async () => {
    const memory = await filled(memdir.inMemoryStore());
    const refused = async (call, message) => assert.rejects(call, (e) => e instanceof Error && e.message === message && e.kind === 'input');
    await refused(memory.search(''), 'The search query is empty: give the words to look for.');
    await refused(memory.search('!!!'), 'The search query holds no words to look for (only punctuation or symbols).');
    await refused(memory.search('x'.repeat(257)), 'The search query is 257 characters long; the most is 256.');
    await refused(memory.search(42), 'query must be a string.');
    await refused(memory.search(), 'query must be a string.');
    await refused(memory.search('tea', 5), 'the options must be an object.');
    await refused(memory.search('tea', { limit: 0 }), 'limit must be a whole number from 1 to 100, not 0.');
    await refused(memory.search('tea', { limit: 101 }), 'limit must be a whole number from 1 to 100, not 101.');
    await refused(memory.search('tea', { limit: '3' }), 'limit must be a whole number from 1 to 100, not "3".');
    await refused(memory.search('tea', { pathPrefix: 'notes' }), 'path_prefix must be a directory path under /memories, such as /memories/notes.');
    await refused(memory.search('tea', { pathPrefix: '/memories/../etc' }), 'path_prefix must be a directory path under /memories, such as /memories/notes.');
    await refused(memory.recall('tea', { maxChars: 0 }), 'max_chars must be a whole number from 1 to 100,000.');
    await refused(memory.find({ query: 'tea', limit: -1 }), 'limit must be a whole number from 1 to 100, not -1.');
    await refused(memory.find('not an object'), 'the options must be an object.');
    // An option given in the engine's spelling is not the JS one: left out.
    assert.deepEqual((await memory.search('tea', { path_prefix: '/memories/notes' })).map((h) => h.path), ['/memories/tea.md']);
    memory.close();
    await assert.rejects(memory.search('tea'), { kind: 'closed' });
    await assert.rejects(memory.recall('tea'), { kind: 'closed' });
    await assert.rejects(memory.reindex(), { kind: 'closed' });
    await assert.rejects(memory.searchStatus(), { kind: 'closed' });
  });

  test('a model naming search or reindex as a memory command gets the unknown-command answer', async () => {
    const memory = await memdir.openMemory();
    // The SDK's own helper calls memory[input.command](input) for any command.
    const tool = sdkBetaMemoryTool(memory);
    for (const command of ['search', 'recall', 'reindex', 'searchStatus', 'find']) {
      await assert.rejects(tool.run({ command, path: '/memories' }), {
        message: `Unknown command "${command}". Expected one of: view, create, str_replace, insert, delete, rename`,
      });
    }
    memory.close();
  });
});

describe('memory.recall', () => {
  test('the most relevant memories whole while they fit, then their best lines, then nothing', async () => {
    const memory = await filled(memdir.inMemoryStore());
    await memory.create({ path: '/memories/notes/tea-list.md', file_text: 'oolong\n' });
    assert.equal(
      await memory.recall('tea'),
      '<memories>\n<memory path="/memories/tea.md">\nGreen tea at four.\nNo sugar.\nTea with lemon on Sundays.\n</memory>\n<memory path="/memories/notes/tea-list.md">\noolong\n</memory>\n</memories>',
    );
    // Within 110 characters the first does not fit, whole or by its lines: the next does.
    assert.equal(await memory.recall('tea', { maxChars: 110 }), '<memories>\n<memory path="/memories/notes/tea-list.md">\noolong\n</memory>\n</memories>');
    await memory.create({ path: '/memories/long.md', file_text: `Tea first.\n${'filler\n'.repeat(50)}Tea last, TEA again.\n` });
    assert.equal(
      await memory.recall('last again', { maxChars: 150 }),
      '<memories>\n<memory path="/memories/long.md" lines="52">\n52: Tea last, TEA again.\n</memory>\n</memories>',
    );
    assert.equal(await memory.recall('tea', { limit: 1, pathPrefix: '/memories/notes' }), '<memories>\n<memory path="/memories/notes/tea-list.md">\noolong\n</memory>\n</memories>');
    assert.equal(await memory.recall('tea', { maxChars: 20 }), '');
    assert.equal(await memory.recall('coffee'), '');
    memory.close();
  });
});

describe('memory.reindex and memory.searchStatus', () => {
  test('say how many memories are indexed and whether writes wait, on a directory store', async () => {
    const dir = join(tempDir('memdir-search-'), 'store');
    const memory = await filled(memdir.directoryStore(dir));
    assert.deepEqual(await memory.searchStatus(), { indexed: 0, pending: true });
    assert.deepEqual(await memory.reindex(), { indexed: 4, pending: false });
    assert.deepEqual(await memory.searchStatus(), { indexed: 4, pending: false });
    await memory.delete({ path: '/memories/tea.md' });
    assert.deepEqual(await memory.searchStatus(), { indexed: 4, pending: true });
    assert.deepEqual(await memory.search('tea'), []);
    assert.deepEqual(await memory.searchStatus(), { indexed: 3, pending: false });
    memory.close();
    // The index is in the store: another process's memory reads it as it is.
    const again = await memdir.openMemory({ store: memdir.directoryStore(dir) });
    assert.deepEqual(await again.searchStatus(), { indexed: 3, pending: false });
    again.close();
  });

  test('reindex runs one bounded round after another until no write waits', async () => {
    // One more memory than two rounds read (SEARCH_INDEX_WORK, 20,000 each): the
    // search reads one, and reindex the two after it.
    const memory = await memdir.openMemory();
    const n = 40_001;
    await memory.import(Array.from({ length: n }, (_, i) => ({ path: `/memories/d${i % 50}/m${i}.md`, content: `note ${i}\n` })));
    // A search reads one round, and memory_find tells the model the rest waits.
    const LATE = 'Some memories written lately are not indexed yet: search again to include them.';
    const early = (await memory.find({ query: 'note', limit: 1 })).split('\n');
    assert.deepEqual([early[0], early.length, early.at(-1)], ['1 memory matches "note":', 4, LATE]);
    assert.deepEqual(await memory.searchStatus(), { indexed: 20_000, pending: true });
    assert.deepEqual(await memory.reindex(), { indexed: n, pending: false });
    const late = (await memory.find({ query: 'note', limit: 1 })).split('\n');
    assert.deepEqual([late[0], late.length], ['1 memory matches "note":', 3]);
    memory.close();
  });
});

describe('search across mounted stores', () => {
  test('merges every store\'s hits by score, each under its mount; pathPrefix asks one store', async () => {
    const team = memdir.inMemoryStore();
    const seed = await memdir.openMemory({ store: team });
    await seed.create({ path: '/memories/tea.md', file_text: 'Team tea at four.\n' });
    seed.close();
    const memory = await memdir.openMemory({
      mounts: [
        { name: 'me', store: memdir.inMemoryStore() },
        { name: 'team', store: team, access: 'read_only' },
      ],
    });
    await memory.create({ path: '/memories/me/tea.md', file_text: 'My tea, green tea.\n' });
    await memory.create({ path: '/memories/me/coffee.md', file_text: 'Coffee, no tea.\n' });
    const hits = await memory.search('tea');
    // Each store ranks its own (the team's holds one memory, whose "tea" is rarer
    // there than in "me"'s two), and the merge takes the scores as they are.
    assert.deepEqual(shape(hits), [
      { path: '/memories/team/tea.md', lines: [{ line: 1, text: 'Team tea at four.' }] },
      { path: '/memories/me/tea.md', lines: [{ line: 1, text: 'My tea, green tea.' }] },
      { path: '/memories/me/coffee.md', lines: [{ line: 1, text: 'Coffee, no tea.' }] },
    ]);
    assert.ok(bestFirst(hits));
    const alone = await memdir.openMemory({ store: team });
    assert.deepEqual(hits[0], { ...(await alone.search('tea'))[0], path: '/memories/team/tea.md' });
    alone.close();
    assert.deepEqual(shape(await memory.search('tea', { pathPrefix: '/memories/team' })), [{ path: '/memories/team/tea.md', lines: [{ line: 1, text: 'Team tea at four.' }] }]);
    assert.deepEqual(await memory.search('tea', { pathPrefix: '/memories/nobody' }), []);
    assert.equal(
      await memory.recall('green', { limit: 1 }),
      '<memories>\n<memory path="/memories/me/tea.md">\nMy tea, green tea.\n</memory>\n</memories>',
    );
    // The read-only store is indexed too (the index is derived data, kept beside the tree).
    assert.deepEqual(await memory.reindex(), { indexed: 3, pending: false });
    memory.close();
  });
});

describe('memdir search and memdir reindex', () => {
  const cli = (dir, ...args) => runNode([MEMDIR_BIN, '--store', dir, ...args], { PATH: process.env.PATH }, 30_000);
  let dir;
  let hits;
  before(async () => {
    dir = join(tempDir('memdir-cli-search-'), 'store');
    const memory = await filled(memdir.directoryStore(dir));
    await memory.create({ path: '/memories/notes/tea-list.md', file_text: 'oolong\n' });
    hits = await memory.search('tea');
    memory.close();
  });

  test('prints each path with its score and numbered lines, best first', async () => {
    const r = await cli(dir, 'search', 'tea');
    assert.equal(r.stderr, '');
    assert.equal(r.code, 0);
    assert.equal(
      r.stdout,
      `2 memories match "tea", best first:\n/memories/tea.md (score ${hits[0].score.toFixed(3)})\n     1\tGreen tea at four.\n     3\tTea with lemon on Sundays.\n/memories/notes/tea-list.md (score ${hits[1].score.toFixed(3)})\n`,
    );
    const words = await cli(dir, 'search', 'green', 'tea', '--limit', '1');
    assert.equal(words.stdout.split('\n')[0], '1 memory matches "green tea":');
    const none = await cli(dir, 'search', 'coffee');
    assert.deepEqual([none.code, none.stdout], [0, 'No memory matches "coffee".\n']);
  });

  test('--json prints one array of {path, score, lines} as memory.search answers', async () => {
    const r = await cli(dir, 'search', '--json', 'tea');
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${JSON.stringify(hits)}\n`);
    const under = await cli(dir, 'search', 'tea', '--json', '--prefix', 'notes', '--limit=5');
    assert.equal(under.stdout, `${JSON.stringify([hits[1]])}\n`);
  });

  test('bad flags and values exit 2 in the engine\'s or the CLI\'s words', async () => {
    const cases = [
      [['search', 'tea', '--limt', '3'], 'memdir: search has no option "--limt"; memdir --help lists each command\'s options\n'],
      [['search', 'tea', '--limit', '0'], 'memdir: limit must be a whole number from 1 to 100, not 0.\n'],
      [['search', 'tea', '--limit', 'many'], 'memdir: limit must be a whole number from 1 to 100, not "many".\n'],
      [['search', 'tea', '--prefix', '/etc'], 'memdir: path_prefix must be a directory path under /memories, such as /memories/notes.\n'],
      [['search', '--json'], 'memdir: usage: memdir search QUERY [--limit N] [--prefix P] [--json] [--mode M] [--embedder FILE]\n'],
      [['search', '...'], 'memdir: The search query holds no words to look for (only punctuation or symbols).\n'],
      [['search', 'tea', '--json=yes'], 'memdir: --json takes no value\n'],
      [['reindex', 'now'], 'memdir: usage: memdir reindex\n'],
      [['reindex', '--limit', '3'], 'memdir: reindex has no option "--limit"; memdir --help lists each command\'s options\n'],
    ];
    for (const [args, stderr] of cases) {
      const r = await cli(dir, ...args);
      assert.deepEqual([r.code, r.stdout, r.stderr], [2, '', stderr], args.join(' '));
    }
  });

  test('reindex prints {indexed,pending}', async () => {
    const r = await cli(dir, 'reindex');
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, '{"indexed":5,"pending":false}\n', '']);
  });
});

// The memory tool and memory_find together, as an application gives them to a model.
const FIND_TURNS = (score) => [
  [
    ['memory', { command: 'create', path: '/memories/tea.md', file_text: 'Green tea at four.\nNo sugar.\n' }, 'File created successfully at: /memories/tea.md'],
    ['memory_find', { query: '' }, 'Error: The search query is empty: give the words to look for.', true],
  ],
  [
    ['memory_find', { query: 'TEA' }, `1 memory matches "TEA":\n/memories/tea.md (score ${score})\n     1\tGreen tea at four.`],
    ['memory_find', { query: 'tea', path_prefix: '/memories/none' }, 'No memory matches "tea".'],
  ],
];

describe('the memory_find client tool', () => {
  test('is defined once, in the engine, apart from the toolset\'s memory_search', () => {
    const def = memdir.findTool();
    assert.equal(def.name, 'memory_find');
    assert.deepEqual(Object.keys(def.input_schema.properties).sort(), ['limit', 'path_prefix', 'query']);
    assert.deepEqual(def.input_schema.required, ['query']);
    assert.equal(memdir.toolsetTools().some((t) => t.name === def.name), false);
    assert.ok(Object.isFrozen(def.input_schema));
    assert.throws(() => memdir.memoryFindTool({}), { name: 'TypeError', message: 'memoryFindTool expects a memdir Memory (from openMemory)' });
  });

  test('runs in the SDK tool runner beside betaMemoryTool: exact tool_result blocks', async () => {
    // The calls; the answers (with the score the engine gives) are checked after.
    const calls = FIND_TURNS('');
    const api = await scriptedApi((i) => calls[i]?.map(([name, input]) => ({ name, input })), modelToolReply);
    await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
    try {
      const client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${api.server.address().port}`, maxRetries: 0 });
      const memory = await memdir.openMemory();
      const find = memdir.memoryFindTool(memory, { cache_control: { type: 'ephemeral' } });
      const final = await client.beta.messages.toolRunner({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Remember and find.' }],
        tools: [memdir.betaMemoryTool(memory), find],
      });
      assert.deepEqual(final.content, [{ type: 'text', text: 'Done.' }]);
      const { tools } = api.requests[0].params;
      assert.deepEqual(tools.map((t) => t.name), ['memory', 'memory_find']);
      assert.deepEqual(tools[1], { type: 'custom', name: 'memory_find', description: memdir.findTool().description, input_schema: memdir.findTool().input_schema, cache_control: { type: 'ephemeral' } });
      const [hit] = await memory.search('TEA');
      FIND_TURNS(hit.score.toFixed(3)).forEach((turn, i) => {
        assert.deepEqual(
          api.requests[i + 1].params.messages.at(-1).content,
          turn.map(([, , content, isError], j) => ({ type: 'tool_result', tool_use_id: `toolu_${i}_${j}`, content, ...(isError ? { is_error: true } : {}) })),
          `turn ${i}`,
        );
      });
      memory.close();
    } finally {
      api.server.close();
    }
  });

  test('runs in the Vercel AI SDK as a tool of its own JSON schema', async () => {
    const memory = await memdir.openMemory();
    await memory.create({ path: '/memories/tea.md', file_text: 'Green tea at four.\nNo sugar.\n' });
    const [hit] = await memory.search('tea');
    const calls = [[{ name: 'memory_find', input: { query: 'tea', limit: 3 } }, { name: 'memory_find', input: { query: '?' } }]];
    const api = await scriptedApi((i) => calls[i], modelToolReply);
    await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
    try {
      const anthropic = createAnthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${api.server.address().port}/v1` });
      const def = memdir.findTool();
      await generateText({
        model: anthropic('claude-sonnet-4-6'),
        prompt: 'Find my tea.',
        tools: {
          [def.name]: tool({ description: def.description, inputSchema: jsonSchema(def.input_schema), execute: (input) => memory.find(input) }),
        },
        stopWhen: stepCountIs(3),
      });
      const sent = api.requests[0].params.tools;
      assert.deepEqual(sent.map((t) => [t.name, t.description]), [[def.name, def.description]]);
      const results = api.requests[1].params.messages.at(-1).content;
      assert.deepEqual(
        results.map((r) => [r.tool_use_id, r.content, r.is_error ?? false]),
        [
          ['toolu_0_0', `1 memory matches "tea":\n/memories/tea.md (score ${hit.score.toFixed(3)})\n     1\tGreen tea at four.`, false],
          // The AI SDK sends a rejection as String(error).
          ['toolu_0_1', 'Error: The search query holds no words to look for (only punctuation or symbols).', true],
        ],
      );
      memory.close();
    } finally {
      api.server.close();
    }
  });
});
