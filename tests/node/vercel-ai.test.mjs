// examples/vercel-ai.mjs as a user runs it: the Vercel AI SDK (`ai`, `@ai-sdk/anthropic`)
// with anthropic.tools.memory_20250818 backed by memdir's execute, against a loopback
// fake Messages API that answers with tool_use blocks. The fake model's calls reach
// memdir, the files end up in the store, and the tool_result blocks the AI SDK sends
// back are asserted exactly.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { memdir, runExample, tempDir } from './helpers.mjs';
import { modelReply } from '../fake-model.mjs';

const DIR_HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const U = '/memories/user.md';
const P = '/memories/people/ada.md';

const run = (env) => runExample('vercel-ai.mjs', env);

// Each turn: the fake model's tool calls, each with the exact tool_result content
// and is_error the AI SDK must send back. Calls of one turn may run concurrently.
const TURNS = [
  [[{ command: 'view', path: '/memories' }, `${DIR_HEAD}\n0B\t/memories`, false]],
  [
    [{ command: 'create', path: U, file_text: 'Name: Ada\n' }, `File created successfully at: ${U}`, false],
    [{ command: 'view', path: '/memories/nothing' }, 'Error: The path /memories/nothing does not exist. Please provide a valid path.', true],
    [{ command: 'view', path: '/memories/../etc/passwd' }, 'Error: Path /memories/../etc/passwd would escape /memories directory', true],
  ],
  [
    [
      { command: 'str_replace', path: U, old_str: 'Ada', new_str: 'Ada Lovelace' },
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tName: Ada Lovelace\n     2\t',
      false,
    ],
    [{ command: 'create', path: U, file_text: 'again' }, `Error: File ${U} already exists`, true],
  ],
  [[{ command: 'insert', path: U, insert_line: 1, insert_text: 'Likes: engines' }, `The file ${U} has been edited.`, false]],
  [[{ command: 'rename', old_path: U, new_path: P }, `Successfully renamed ${U} to ${P}`, false]],
  [
    [{ command: 'view', path: P }, `Here's the content of ${P} with line numbers:\n     1\tName: Ada Lovelace\n     2\tLikes: engines\n     3\t`, false],
    [{ command: 'delete', path: '/memories/missing' }, 'Error: The path /memories/missing does not exist', true],
  ],
];

test('without ANTHROPIC_API_KEY the Vercel AI SDK example says what it needs and exits 1', async () => {
  const r = await run({});
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^examples\/vercel-ai\.mjs runs the Vercel AI SDK \(ai, @ai-sdk\/anthropic\) with memdir\nbehind anthropic\.tools\.memory_20250818, and needs:\n {2}ANTHROPIC_API_KEY/);
});

test('the AI SDK runs memory_20250818 with memdir\'s execute against a fake Messages API', async () => {
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      seen.push({ url: req.url, params, beta: req.headers['anthropic-beta'], key: req.headers['x-api-key'] });
      const i = seen.length - 1;
      const turn = TURNS[i];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(modelReply(i, params.model, turn?.map(([input]) => input), { text: 'Noted, Ada.' })),
      );
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const store = join(tempDir('memdir-vercel-'), 'memory');
    const r = await run({
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`,
      MEMDIR_STORE: store,
    });
    assert.equal(r.code, 0, r.stderr);

    assert.equal(seen.length, TURNS.length + 1, 'one request per turn, and the last one answered with text');
    for (const s of seen) {
      assert.equal(s.url, '/v1/messages');
      assert.equal(s.key, 'test-key');
      assert.match(s.beta, /context-management-2025-06-27/);
      assert.deepEqual(s.params.tools, [{ name: 'memory', type: 'memory_20250818' }]);
      assert.equal(s.params.system[0].text, memdir.MEMORY_SYSTEM_PROMPT);
    }
    // Request i+1 ends with the user message answering turn i: its tool_result blocks, exact.
    TURNS.forEach((turn, i) => {
      const last = seen[i + 1].params.messages.at(-1);
      assert.equal(last.role, 'user');
      assert.deepEqual(
        last.content,
        turn.map(([, content, isError], j) => ({ type: 'tool_result', tool_use_id: `toolu_${i}_${j}`, content, ...(isError ? { is_error: true } : {}) })),
        `turn ${i}`,
      );
    });

    assert.equal(
      r.stdout,
      TURNS.flat()
        .map(([input]) => `[memory ${input.command} ${input.path ?? input.old_path}]\n`)
        .join('') + `Noted, Ada.\n\nThe memory directory now (${store}):\n${DIR_HEAD}\n34B\t/memories\n34B\t/memories/people/\n34B\t${P}\n`,
    );

    // What the fake model wrote is in the store, for any memdir to read.
    const memory = await memdir.openMemory({ store: memdir.directoryStore(store) });
    assert.deepEqual(await memory.entries(), [
      { path: '/memories/people' },
      { path: P, content: 'Name: Ada Lovelace\nLikes: engines\n' },
    ]);
    memory.close();
  } finally {
    server.close();
  }
});

test('an input off the tool\'s schema is refused by the AI SDK before it reaches memdir', async () => {
  // The AI SDK validates the model's input with its own schema of memory_20250818, so
  // memdir never sees it (memdir's own answer would be its "Unknown command" text).
  const turns = [[{ command: 'bogus', path: '/memories/x' }], [{ command: 'view', path: '/memories' }]];
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      seen.push(params);
      const i = seen.length - 1;
      const calls = turns[i];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(modelReply(i, params.model, calls)),
      );
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const store = join(tempDir('memdir-vercel-'), 'memory');
    const r = await run({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}/v1`, MEMDIR_STORE: store });
    assert.equal(r.code, 0, r.stderr);
    const [refused] = seen[1].messages.at(-1).content;
    assert.equal(refused.type, 'tool_result');
    assert.equal(refused.is_error, true);
    assert.match(refused.content, /^AI_InvalidToolInputError: Invalid input for tool memory: [^]*Invalid discriminator value/);
    assert.deepEqual(seen[2].messages.at(-1).content, [{ type: 'tool_result', tool_use_id: 'toolu_1_0', content: `${DIR_HEAD}\n0B\t/memories` }]);
  } finally {
    server.close();
  }
});
