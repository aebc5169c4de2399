// The memory-store toolset through the real @anthropic-ai/sdk tool runner: a
// loopback fake Messages API plays the model, asking for each of the six tools
// (failing calls included); the exact tool_result blocks the SDK sends back are
// asserted, then what the memory holds and the versions its writes recorded.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { STORES, memdir } from './helpers.mjs';
import { modelToolReply, scriptedApi } from '../fake-model.mjs';

const sha = (s) => createHash('sha256').update(s).digest('hex');
const A = 'Tea at four\nLine 2\n';
const A2 = 'Tea at four\nLine two\n';

// Each turn: the calls the fake model makes, and the tool_result content and
// is_error the SDK must send back for each (same order). Calls within one turn
// run concurrently in the runner, so none depends on another of its turn.
const TURNS = [
  [['memory_list', {}, 'No documents under /.']],
  [
    ['memory_write', { path: '/notes/a.md', content: A }, `Created /notes/a.md (19 bytes, content_sha256 ${sha(A)}).`],
    ['memory_write', { path: '/x.md' }, 'Error: Invalid input for memory_write: content is required.', true],
  ],
  [
    ['memory_write', { path: '/prefs.md', content: 'green tea' }, `Created /prefs.md (9 bytes, content_sha256 ${sha('green tea')}).`],
    ['memory_read', { path: '/notes/a.md' }, `/notes/a.md (19 bytes, content_sha256 ${sha(A)}):\n${A}`],
  ],
  [
    ['memory_search', { query: 'TEA' }, '2 documents under / match "TEA", best first:\n/prefs.md (score 0.202)\n     1\tgreen tea\n/notes/a.md (score 0.166)\n     1\tTea at four'],
    ['memory_list', { depth: 1 }, 'Documents under /:\n/notes/ (directory)\n/prefs.md (9 bytes)'],
    ['memory_read', { path: '/nope.md' }, 'Error: No document at /nope.md; memory_list shows the documents there are.', true],
    ['memory_read', { path: 'notes/a.md' }, 'Error: path must start with \'/\', got "notes/a.md"', true],
  ],
  [
    [
      'memory_edit',
      { path: '/notes/a.md', old_str: 'Line 2', new_str: 'Line two', content_sha256: sha(A) },
      `Edited /notes/a.md (21 bytes, content_sha256 ${sha(A2)}).`,
    ],
    ['memory_write', { path: '/prefs.md', content: 'x', create_only: true }, 'Error: /prefs.md already exists and create_only is set; nothing was written.', true],
    [
      'memory_edit',
      { path: '/prefs.md', old_str: 'e', new_str: 'E' },
      'Error: old_str appears 3 times in /prefs.md, on line 1; nothing was changed. Include more of the text around it so that it appears once.',
      true,
    ],
  ],
  [
    [
      'memory_edit',
      { path: '/notes/a.md', old_str: 'four', new_str: '4', content_sha256: sha(A) },
      `Error: /notes/a.md has changed since that content_sha256 was read (it is now ${sha(A2)}); nothing was changed. Read it again with memory_read.`,
      true,
    ],
    ['memory_delete', { path: '/prefs.md' }, 'Deleted /prefs.md.'],
  ],
  [['memory_list', {}, 'Documents under /:\n/notes/a.md (21 bytes)']],
];


let api;
let client;
before(async () => {
  api = await scriptedApi((i) => TURNS[i]?.map(([name, input]) => ({ name, input })), modelToolReply);
  await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
  client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${api.server.address().port}`, maxRetries: 0 });
});
after(() => api.server.close());

describe('the SDK tool runner with memoryStoreTools', () => {
  for (const [kind, make] of Object.entries(STORES)) {
    test(`on the ${kind} store: exact tool_result blocks, then the documents and their versions`, async () => {
      const memory = await memdir.openMemory({ store: make().store, actor: 'sesn_runner' });
      api.requests.length = 0;
      const final = await client.beta.messages.toolRunner({
        model: 'claude-sonnet-4-6',
        max_tokens: 1024,
        messages: [{ role: 'user', content: 'Remember things.' }],
        tools: memdir.memoryStoreTools(memory),
      });
      assert.deepEqual(final.content, [{ type: 'text', text: 'Done.' }]);
      assert.equal(api.requests.length, TURNS.length + 1);

      // The definitions the API sees: the engine's, with run and parse stripped.
      assert.deepEqual(
        api.requests[0].params.tools,
        memdir.toolsetTools().map(({ name, description, input_schema }) => ({ type: 'custom', name, description, input_schema })),
      );
      assert.deepEqual(
        api.requests[0].params.tools.map((t) => t.name),
        ['memory_list', 'memory_search', 'memory_read', 'memory_write', 'memory_edit', 'memory_delete'],
      );
      for (let i = 0; i < TURNS.length; i++) {
        const sent = api.requests[i + 1].params.messages.at(-1);
        assert.equal(sent.role, 'user');
        assert.deepEqual(
          sent.content,
          TURNS[i].map(([, , content, isError], j) => ({
            type: 'tool_result',
            tool_use_id: `toolu_${i}_${j}`,
            content,
            ...(isError ? { is_error: true } : {}),
          })),
          `turn ${i + 1}`,
        );
      }

      // What the memory holds, as the memory tool sees it.
      assert.deepEqual(await memory.entries(), [{ path: '/memories/notes' }, { path: '/memories/notes/a.md', content: A2 }]);
      // The versions the writes recorded, through the Memory Stores API.
      const { status, body } = await memory.api({ op: 'version.list' });
      assert.equal(status, 200);
      assert.deepEqual(
        body.data.map((v) => [v.memory_id, v.operation, v.path, v.content_sha256, v.created_by]),
        [
          ['mem_local_2', 'deleted', '/prefs.md', null, { type: 'session_actor', session_id: 'sesn_runner' }],
          ['mem_local_1', 'modified', '/notes/a.md', sha(A2), { type: 'session_actor', session_id: 'sesn_runner' }],
          ['mem_local_2', 'created', '/prefs.md', sha('green tea'), { type: 'session_actor', session_id: 'sesn_runner' }],
          ['mem_local_1', 'created', '/notes/a.md', sha(A), { type: 'session_actor', session_id: 'sesn_runner' }],
        ],
      );
      memory.close();
    });
  }

  test('a closed memory, an unknown tool and a non-memdir argument are refused in words', async () => {
    assert.throws(() => memdir.memoryStoreTools({}), { name: 'TypeError', message: 'memoryStoreTools expects a memdir Memory (from openMemory)' });
    const memory = await memdir.openMemory();
    const [list] = memdir.memoryStoreTools(memory);
    await assert.rejects(memory.toolset('memory_rename', {}), {
      message: 'Unknown tool "memory_rename". The memory tools are memory_list, memory_search, memory_read, memory_write, memory_edit and memory_delete.',
      kind: 'unknown_tool',
    });
    memory.close();
    await assert.rejects(list.run({}), { message: 'This memory was closed; open it again to use it.', kind: 'closed' });
  });
});
