// Seed 002's records toolset in Node: `memoryRecordTools(memory)` (the shape of
// memoryStoreTools, each tool with run), its settings checked at once, answers
// and errors in the engine's exact words, several mounted stores, and `memdir mcp
// --records` through the MCP SDK's own client.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MapStore, memdir, tempDir } from './helpers.mjs';
import { modelToolReply, scriptedApi } from '../fake-model.mjs';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));
// 2026-11-18T11:06:40Z.
const T0 = 1_795_000_000_000;
const STORE = { content: 'Espresso, never milk.', category: 'user_preference', tags: ['coffee'], importance: 5 };
const DOC = '---\nimportance: 5\ntags: ["coffee"]\ncreated: 2026-11-18T11:06:40.000Z\n---\nEspresso, never milk.';

const open = [];
after(async () => {
  for (const c of open) await c.close();
});

/** A memory over a fresh in-memory store whose clock stands at T0. */
const fresh = (options = {}) => memdir.openMemory({ store: memdir.inMemoryStore(), clock: () => T0, ...options });

/** The retrieval answer with its one score checked and taken out. */
function withoutScore(text, want) {
  const v = JSON.parse(text);
  for (const m of v.memories) {
    // One record, its word once: BM25 is idf = ln(1 + 0.5 / 1.5), times importance.
    assert.ok(Math.abs(m.score - want) < 1e-12, `${m.score} vs ${want}`);
    delete m.score;
  }
  return v;
}

describe('memoryRecordTools', () => {
  test('three runnable tools, the engine definitions, stored and found and deleted by id', async () => {
    const memory = await fresh();
    const tools = memdir.memoryRecordTools(memory);
    assert.deepEqual(
      tools.map((t) => [t.type, t.name, typeof t.run, t.parse('x')]),
      [
        ['custom', 'memory_store', 'function', 'x'],
        ['custom', 'memory_retrieve', 'function', 'x'],
        ['custom', 'memory_delete', 'function', 'x'],
      ],
    );
    const defs = memdir.recordTools();
    for (const [i, t] of tools.entries()) {
      assert.equal(t.description, defs[i].description);
      assert.deepEqual(t.input_schema, defs[i].input_schema);
    }
    assert.deepEqual(defs[0].input_schema.properties.category.enum, ['user_preference', 'project_context', 'factual_knowledge', 'decision_log', 'relationship', 'task_progress']);
    assert.deepEqual(defs[1].input_schema.required, ['query']);
    assert.deepEqual(defs[2].input_schema.required, ['memory_id', 'reason']);

    const [store, retrieve, remove] = tools;
    assert.equal(await store.run(STORE), '{"memory_id":"mem_local_1","success":true}');
    // A memory document the memory tool shows.
    assert.equal(
      await memory.view({ path: '/memories/records/user_preference' }),
      "Here're the files and directories up to 2 levels deep in /memories/records/user_preference, excluding hidden items and node_modules:\n" +
        `${DOC.length}B\t/memories/records/user_preference\n${DOC.length}B\t/memories/records/user_preference/89c33a2e5b8b.md`,
    );
    assert.deepEqual(withoutScore(await retrieve.run({ query: 'espresso' }), 5 * Math.log(4 / 3)), {
      memories: [{ category: 'user_preference', content: 'Espresso, never milk.', created_at: '2026-11-18T11:06:40.000Z', id: 'mem_local_1', importance: 5, tags: ['coffee'] }],
    });
    assert.equal(await retrieve.run({ query: 'espresso', categories: ['decision_log'] }), '{"memories":[]}');
    await assert.rejects(store.run({ ...STORE, importance: 9 }), {
      message: 'Invalid input for memory_store: importance must be a whole number from 1 to 5, got 9.',
      kind: 'input',
    });
    assert.equal(await remove.run({ memory_id: 'mem_local_1', reason: 'Now drinks tea.' }), '{"success":true}');
    const versions = await memory.api({ op: 'version.list', query: { operation: 'deleted' } });
    assert.equal(versions.body.data[0].reason, 'Now drinks tea.');
    await assert.rejects(remove.run({ memory_id: 'mem_local_1', reason: 'again' }), {
      message: 'No memory record has the id "mem_local_1"; memory_retrieve shows the records and their ids.',
      kind: 'not_found',
    });
  });

  test('settings are checked at once, in the engine words, and then ruled by', async () => {
    const memory = await fresh();
    assert.throws(() => memdir.memoryRecordTools({}), { name: 'TypeError', message: 'memoryRecordTools expects a memdir Memory (from openMemory)' });
    assert.throws(() => memdir.memoryRecordTools(memory, { capacity: 0 }), { name: 'RangeError', message: 'capacity must be a whole number from 1 to 10000, not 0.' });
    assert.throws(() => memdir.memoryRecordTools(memory, { capacity: 2.5 }), { name: 'RangeError', message: 'capacity must be a whole number from 1 to 10000, not 2.5.' });
    assert.throws(() => memdir.memoryRecordTools(memory, { halfLifeDays: -1 }), {
      name: 'RangeError',
      message: 'halfLifeDays must be a number of days above 0 and at most 36500, not -1.',
    });
    assert.throws(() => memdir.memoryRecordTools(memory, { similarity: '0.5' }), { name: 'TypeError', message: 'memoryRecordTools: similarity must be a number' });
    const [store] = memdir.memoryRecordTools(memory, { capacity: 1 });
    await store.run({ content: 'First fact about the build.', category: 'factual_knowledge', importance: 1 });
    assert.equal(
      await store.run({ content: 'Second, unrelated: the office is in Lyon.', category: 'factual_knowledge', importance: 4 }),
      '{"memory_id":"mem_local_2","pruned":["mem_local_1"],"success":true}',
    );
  });

  test("a store's turn is taken by memory_store and memory_delete, not by memory_retrieve", async () => {
    const store = new MapStore();
    const log = [];
    store.inTurn = async (fn) => {
      log.push('take');
      try {
        return await fn();
      } finally {
        log.push('give');
      }
    };
    const memory = await memdir.openMemory({ store, clock: () => T0 });
    const [save, retrieve, remove] = memdir.memoryRecordTools(memory);
    await save.run(STORE);
    assert.deepEqual(log, ['take', 'give']);
    await retrieve.run({ query: 'espresso' });
    assert.deepEqual(log, ['take', 'give']);
    await remove.run({ memory_id: 'mem_local_1', reason: 'Now drinks tea.' });
    assert.deepEqual(log, ['take', 'give', 'take', 'give']);
  });

  test('over several mounted stores, a record id names its store', async () => {
    const memory = await memdir.openMemory({
      mounts: [
        { name: 'team', store: memdir.inMemoryStore(), access: 'read_only' },
        { name: 'me', store: memdir.inMemoryStore() },
      ],
      clock: () => T0,
    });
    const [store, retrieve] = memdir.memoryRecordTools(memory);
    assert.equal(await store.run(STORE), '{"memory_id":"me/mem_local_1","success":true}');
    assert.equal(JSON.parse(await retrieve.run({ query: 'milk' })).memories[0].id, 'me/mem_local_1');
    assert.match(await memory.view({ path: '/memories/me/records/user_preference/89c33a2e5b8b.md' }), /Espresso, never milk\.$/);
  });
});

describe('memdir mcp --records', () => {
  test('lists the memory tool and the three record tools, and runs them', async () => {
    const dir = join(tempDir('memdir-records-'), 'store');
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--store', dir, '--records'], stderr: 'pipe' });
    const client = new Client({ name: 'records-test', version: '1.0.0' });
    await client.connect(transport);
    open.push(client);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.annotations?.readOnlyHint]),
      [
        ['memory', false],
        ['memory_store', false],
        ['memory_retrieve', true],
        ['memory_delete', false],
      ],
    );
    for (const [i, def] of memdir.recordTools().entries()) assert.deepEqual(tools[i + 1].inputSchema, def.input_schema);
    const call = (name, args) => client.callTool({ name, arguments: args });
    const stored = await call('memory_store', STORE);
    assert.deepEqual(stored, { content: [{ type: 'text', text: '{"memory_id":"mem_local_1","success":true}' }], isError: false });
    const viewed = await call('memory', { command: 'view', path: '/memories/records/user_preference/89c33a2e5b8b.md' });
    assert.equal(viewed.content[0].text.split('\n').at(-1), '     6\tEspresso, never milk.');
    const bad = await call('memory_delete', { memory_id: 'mem_local_9', reason: 'gone' });
    assert.deepEqual(bad, {
      content: [{ type: 'text', text: 'Error: No memory record has the id "mem_local_9"; memory_retrieve shows the records and their ids.' }],
      isError: true,
    });
    // Without --records the toolset is the memory-store one: its own memory_delete.
    const plain = new Client({ name: 'records-test', version: '1.0.0' });
    await plain.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--store', dir], stderr: 'pipe' }));
    open.push(plain);
    const listed = (await plain.listTools()).tools;
    assert.deepEqual(Object.keys(listed.find((t) => t.name === 'memory_delete').inputSchema.properties), ['content_sha256', 'path']);
    assert.equal(listed.some((t) => t.name === 'memory_store'), false);
  });
});

describe('the records toolset in the Vercel AI SDK', () => {
  test('each tool is one of the AI SDK, of the engine definition, run by memory.records', async () => {
    const memory = await fresh();
    const calls = [
      [{ name: 'memory_store', input: STORE }],
      [
        { name: 'memory_retrieve', input: { query: 'espresso' } },
        { name: 'memory_delete', input: { memory_id: 'mem_local_1' } },
      ],
    ];
    const api = await scriptedApi((i) => calls[i], modelToolReply);
    await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
    try {
      const anthropic = createAnthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${api.server.address().port}/v1` });
      // docs/records.md: the AI SDK form.
      const tools = Object.fromEntries(
        memdir.recordTools().map((def) => [
          def.name,
          tool({ description: def.description, inputSchema: jsonSchema(def.input_schema), execute: (input) => memory.records(def.name, input) }),
        ]),
      );
      await generateText({ model: anthropic('claude-sonnet-4-6'), prompt: 'Remember my coffee.', tools, stopWhen: stepCountIs(4) });
      assert.deepEqual(
        api.requests[0].params.tools.map((t) => t.name),
        ['memory_store', 'memory_retrieve', 'memory_delete'],
      );
      const results = (i) => api.requests[i].params.messages.at(-1).content.map((r) => [r.content, r.is_error ?? false]);
      assert.deepEqual(results(1), [['{"memory_id":"mem_local_1","success":true}', false]]);
      const [[found], [refused, isError]] = results(2);
      assert.deepEqual(withoutScore(found, Math.log(1 + 0.5 / 1.5) * 5), {
        memories: [{ category: 'user_preference', content: 'Espresso, never milk.', created_at: '2026-11-18T11:06:40.000Z', id: 'mem_local_1', importance: 5, tags: ['coffee'] }],
      });
      // A delete without its reason is refused in the engine's words.
      assert.deepEqual([refused, isError], ['Error: Invalid input for memory_delete: reason is required.', true]);
    } finally {
      api.server.close();
    }
  });
});
