// examples/agent.mjs as a user runs it: without a key it says what it needs; with
// one (and the SDK's ANTHROPIC_BASE_URL pointed at a loopback fake API) it runs the
// tool runner loop with memdir on a directory store.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { memdir, runExample, tempDir } from './helpers.mjs';
import { modelReply } from '../fake-model.mjs';


const run = (env) => runExample('agent.mjs', env);

test('without ANTHROPIC_API_KEY the example says what it needs and exits 1', async () => {
  const r = await run({});
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^examples\/agent\.mjs runs a real agent with memdir as its memory tool, and needs:\n  ANTHROPIC_API_KEY/);
});

test('with a key the example runs the SDK tool runner loop on a directory store', async () => {
  const turns = [
    [{ command: 'view', path: '/memories' }],
    [{ command: 'create', path: '/memories/user.md', file_text: 'Name: Ada\n' }],
  ];
  const seen = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      seen.push({ params, beta: req.headers['anthropic-beta'] });
      const i = seen.length - 1;
      const calls = turns[i];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(modelReply(i, params.model, calls, { text: 'Noted, Ada.' })),
      );
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    const store = join(tempDir('memdir-example-'), 'memory');
    const r = await run({
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.address().port}`,
      MEMDIR_STORE: store,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(
      r.stdout,
      `[memory view /memories]\n[memory create /memories/user.md]\nNoted, Ada.\n\nThe memory directory now (${store}):\n` +
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n10B\t/memories\n10B\t/memories/user.md\n",
    );
    assert.equal(seen.length, 3);
    assert.match(seen[0].params.system, /^IMPORTANT: ALWAYS VIEW YOUR MEMORY DIRECTORY BEFORE DOING ANYTHING ELSE\./);
    assert.match(seen[0].beta, /context-management-2025-06-27/);
    assert.deepEqual(seen[2].params.messages.at(-1).content, [
      { type: 'tool_result', tool_use_id: 'toolu_1_0', content: 'File created successfully at: /memories/user.md' },
    ]);
    // The memory outlives the process: a fresh one reads it from the directory.
    const again = await memdir.openMemory({ store: memdir.directoryStore(store) });
    assert.deepEqual(await again.entries(), [{ path: '/memories/user.md', content: 'Name: Ada\n' }]);
  } finally {
    server.close();
  }
});
