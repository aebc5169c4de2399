// The real @anthropic-ai/sdk tool runner against a loopback HTTP server that plays
// scripted Messages API turns asking for every command, failing ones included. The
// exact tool_result blocks the SDK sends back are asserted, for memdir through
// memdir's betaMemoryTool and through the SDK's own betaMemoryTool.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool as sdkBetaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import { STORES, memdir } from './helpers.mjs';
import { scriptedApi } from '../fake-model.mjs';

const NOTES = '/memories/notes.md';

// Each turn: the tool calls the fake model makes, and the tool_result content and
// is_error the SDK must send back for each (same order). Calls within one turn run
// concurrently in the SDK's runner, so they never depend on each other.
const TURNS = [
  [
    [
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      false,
    ],
  ],
  [
    [{ command: 'create', path: NOTES, file_text: 'Line 1\nLine 2\n' }, `File created successfully at: ${NOTES}`, false],
    [{ command: 'create', path: '/memories/other.txt', file_text: 'x' }, 'File created successfully at: /memories/other.txt', false],
    [
      { command: 'view', path: '/memories/nothing' },
      'Error: The path /memories/nothing does not exist. Please provide a valid path.',
      true,
    ],
  ],
  [
    [{ command: 'create', path: NOTES, file_text: 'again' }, `Error: File ${NOTES} already exists`, true],
    [
      { command: 'str_replace', path: NOTES, old_str: 'Line 9', new_str: 'x' },
      `Error: No replacement was performed, old_str \`Line 9\` did not appear verbatim in ${NOTES}.`,
      true,
    ],
    [
      { command: 'str_replace', path: NOTES, old_str: 'Line', new_str: 'x' },
      'Error: No replacement was performed. Multiple occurrences of old_str `Line` in lines: 1, 2. Please ensure it is unique',
      true,
    ],
    [{ command: 'delete', path: '/memories/missing' }, 'Error: The path /memories/missing does not exist', true],
    [
      { command: 'view', path: '/memories/../etc/passwd' },
      'Error: Path /memories/../etc/passwd would escape /memories directory',
      true,
    ],
    [{ command: 'view', path: '/etc/passwd' }, 'Error: Path must start with /memories, got: /etc/passwd', true],
    [{ command: 'bogus', path: NOTES }, 'BOGUS', true],
  ],
  [
    [
      { command: 'str_replace', path: NOTES, old_str: 'Line 2', new_str: 'Line two $& $1' },
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tLine 1\n     2\tLine two $& $1\n     3\t',
      false,
    ],
  ],
  [[{ command: 'insert', path: NOTES, insert_line: 1, insert_text: 'Inserted\n' }, `The file ${NOTES} has been edited.`, false]],
  [
    [
      { command: 'view', path: NOTES, view_range: [1, 2] },
      `Here's the content of ${NOTES} with line numbers:\n     1\tLine 1\n     2\tInserted`,
      false,
    ],
    [
      { command: 'view', path: NOTES, view_range: [5, 6] },
      'Error: Invalid `view_range`: [5, 6]. Its first element `5` should be within the range of lines of the file: [1, 4]',
      true,
    ],
    [
      { command: 'insert', path: NOTES, insert_line: 9, insert_text: 'x' },
      'Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]',
      true,
    ],
    [{ command: 'delete', path: '/memories/other.txt' }, 'Successfully deleted /memories/other.txt', false],
  ],
  [
    [
      { command: 'rename', old_path: NOTES, new_path: '/memories/archive/notes.md' },
      `Successfully renamed ${NOTES} to /memories/archive/notes.md`,
      false,
    ],
  ],
  [
    [
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n31B\t/memories\n31B\t/memories/archive/\n31B\t/memories/archive/notes.md",
      false,
    ],
    [{ command: 'view', path: '/memories/archive/notes.md', view_range: [3, -1] }, `Here's the content of /memories/archive/notes.md with line numbers:\n     3\tLine two $& $1\n     4\t`, false],
  ],
];

const BOGUS_MEMDIR = 'Error: Unknown command "bogus". Expected one of: view, create, str_replace, insert, delete, rename';
const BOGUS_SDK = 'Error: bogus not implemented';


let api;
let client;
before(async () => {
  api = await scriptedApi((i) => TURNS[i]?.map(([input]) => input));
  await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
  client = new Anthropic({
    apiKey: 'test-key',
    baseURL: `http://127.0.0.1:${api.server.address().port}`,
    maxRetries: 0,
  });
});
after(() => api.server.close());

async function runAgent(tool) {
  api.requests.length = 0;
  const final = await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Remember things.' }],
    tools: [tool],
  });
  assert.deepEqual(final.content, [{ type: 'text', text: 'Done.' }]);
  assert.equal(api.requests.length, TURNS.length + 1);
  return api.requests;
}

function expectedResults(i, bogus) {
  return TURNS[i].map(([, content, isError], j) => ({
    type: 'tool_result',
    tool_use_id: `toolu_${i}_${j}`,
    content: content === 'BOGUS' ? bogus : content,
    ...(isError ? { is_error: true } : {}),
  }));
}

const HELPERS = {
  "memdir's betaMemoryTool": [(memory) => memdir.betaMemoryTool(memory), BOGUS_MEMDIR],
  "the SDK's betaMemoryTool": [(memory) => sdkBetaMemoryTool(memory), BOGUS_SDK],
};

describe('the SDK tool runner with memdir', () => {
  for (const [helperName, [wrap, bogus]] of Object.entries(HELPERS)) {
    for (const [kind, make] of Object.entries(STORES)) {
      test(`${helperName} on the ${kind} store: exact tool_result blocks`, async () => {
        const memory = await memdir.openMemory({ store: make().store });
        const requests = await runAgent(wrap(memory));
        // The tool definition the API sees: the SDK strips parse/run.
        assert.deepEqual(requests[0].params.tools, [{ type: 'memory_20250818', name: 'memory' }]);
        for (let i = 0; i < TURNS.length; i++) {
          const sent = requests[i + 1].params.messages.at(-1);
          assert.equal(sent.role, 'user');
          assert.deepEqual(sent.content, expectedResults(i, bogus), `turn ${i + 1}`);
        }
        assert.deepEqual(await memory.entries(), [
          { path: '/memories/archive' },
          { path: '/memories/archive/notes.md', content: 'Line 1\nInserted\nLine two $& $1\n' },
        ]);
      });
    }
  }

  test('extra tool properties pass through to the API like the SDK helper', async () => {
    const memory = await memdir.openMemory();
    const ours = memdir.betaMemoryTool(memory, { cache_control: { type: 'ephemeral' } });
    const theirs = sdkBetaMemoryTool(memory, { cache_control: { type: 'ephemeral' } });
    assert.deepEqual(Object.keys(ours).sort(), Object.keys(theirs).sort());
    assert.equal(ours.parse('x'), theirs.parse('x'));
    api.requests.length = 0;
    await client.beta.messages.toolRunner({
      model: 'claude-sonnet-5-5',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [ours],
      max_iterations: 1,
    });
    assert.deepEqual(api.requests[0].params.tools, [
      { type: 'memory_20250818', name: 'memory', cache_control: { type: 'ephemeral' } },
    ]);
  });
});
