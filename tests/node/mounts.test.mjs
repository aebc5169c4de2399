// Several stores in one memory (`openMemory({ mounts })`), driven by the real SDK
// tool runner against a loopback fake Messages API: a read-only directory store
// of team conventions beside the agent's own in-memory store. The exact
// tool_result blocks are asserted, and the read-only store's files are
// byte-for-byte what they were.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { loadJson, memdir, tempDir } from './helpers.mjs';
import { scriptedApi } from '../fake-model.mjs';
import { FACES, OPEN_CLOCK, SEED_CLOCK, archive, seed } from '../conformance/write-paths.mjs';

const TURNS = [
  [
    [
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n15B\t/memories\n0B\t/memories/me/\n15B\t/memories/team/\n15B\t/memories/team/conventions.md",
      false,
    ],
  ],
  [
    [{ command: 'create', path: '/memories/me/plan.md', file_text: 'Ship it.' }, 'File created successfully at: /memories/me/plan.md', false],
    [
      { command: 'create', path: '/memories/team/new.md', file_text: 'x' },
      'Error: Cannot create /memories/team/new.md: the memory store mounted at /memories/team is read-only',
      true,
    ],
    [
      { command: 'str_replace', path: '/memories/team/conventions.md', old_str: 'ISO', new_str: 'US' },
      'Error: Cannot str_replace /memories/team/conventions.md: the memory store mounted at /memories/team is read-only',
      true,
    ],
    [
      { command: 'create', path: '/memories/elsewhere/a.md', file_text: 'x' },
      'Error: Cannot write /memories/elsewhere/a.md: no memory store is mounted there (the stores are /memories/team, /memories/me)',
      true,
    ],
  ],
  [
    [
      { command: 'rename', old_path: '/memories/me/plan.md', new_path: '/memories/team/plan.md' },
      'Error: Cannot rename /memories/me/plan.md to /memories/team/plan.md: they are in different memory stores (create it in the other store, then delete it here)',
      true,
    ],
    [{ command: 'delete', path: '/memories/me' }, 'Error: Cannot delete /memories/me: a memory store is mounted there', true],
    [
      { command: 'view', path: '/memories/team/conventions.md' },
      "Here's the content of /memories/team/conventions.md with line numbers:\n     1\tUse ISO dates.\n     2\t",
      false,
    ],
  ],
];

function snapshot(dir) {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'hex')]));
}

describe('mounts through the SDK tool runner', () => {
  let api;
  let client;
  before(async () => {
    api = await scriptedApi((i) => TURNS[i]?.map(([input]) => input));
    await new Promise((r) => api.server.listen(0, '127.0.0.1', r));
    client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${api.server.address().port}`, maxRetries: 0 });
  });
  after(() => api.server.close());

  test('a read-only store beside a writable one: exact tool_result blocks, nothing written to the read-only one', async () => {
    const teamDir = tempDir('memdir-team-');
    const alone = await memdir.openMemory({ store: memdir.directoryStore(teamDir) });
    await alone.execute({ command: 'create', path: '/memories/conventions.md', file_text: 'Use ISO dates.\n' });
    alone.close();
    const before = snapshot(teamDir);
    const memory = await memdir.openMemory({
      mounts: [
        { name: 'team', store: memdir.directoryStore(teamDir), access: 'read_only', description: 'Team conventions.', instructions: 'Read them before any task.' },
        { name: 'me', store: memdir.inMemoryStore() },
      ],
      actor: 'sesn_mounts',
    });
    const final = await client.beta.messages.toolRunner({
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      system: memory.instructions(),
      messages: [{ role: 'user', content: 'Plan the release.' }],
      tools: [memdir.betaMemoryTool(memory)],
    });
    assert.deepEqual(final.content, [{ type: 'text', text: 'Done.' }]);
    assert.equal(api.requests[0].params.system, 'Your memory directory is /memories. It holds 2 memory stores:\n- /memories/team (read-only): Team conventions.\n  Read them before any task.\n- /memories/me (read-write)\nA read-only store can be viewed but not changed.\n');
    for (let i = 0; i < TURNS.length; i++) {
      const sent = api.requests[i + 1].params.messages.at(-1);
      assert.deepEqual(
        sent.content,
        TURNS[i].map(([, content, isError], j) => ({ type: 'tool_result', tool_use_id: `toolu_${i}_${j}`, content, ...(isError ? { is_error: true } : {}) })),
        `turn ${i + 1}`,
      );
    }
    assert.deepEqual(snapshot(teamDir), before, 'the read-only store is untouched');
    assert.deepEqual(await memory.entries(), [
      { path: '/memories/me' },
      { path: '/memories/me/plan.md', content: 'Ship it.' },
      { path: '/memories/team' },
      { path: '/memories/team/conventions.md', content: 'Use ISO dates.\n' },
    ]);
    // Each store keeps its own versions, by its own paths.
    const versions = await memory.api({ mount: 'me', op: 'version.list' });
    assert.deepEqual(versions.body.data.map((v) => [v.operation, v.path, v.created_by]), [['created', '/plan.md', { type: 'session_actor', session_id: 'sesn_mounts' }]]);
    assert.equal((await memory.api({ mount: 'nope', op: 'version.list' })).body.error.message, 'No memory store is mounted at "nope".');
  });
});

describe('the shared scenario (tests/conformance/mounts.json)', () => {
  test('a read-only directory store beside a writable one: every answer exact, the read-only files unchanged', async () => {
    const data = loadJson('mounts.json');
    const dirs = [];
    const mounts = [];
    for (const m of data.mounts) {
      const dir = tempDir(`memdir-${m.name}-`);
      const alone = await memdir.openMemory({ store: memdir.directoryStore(dir) });
      for (const [path, text] of Object.entries(m.files)) await alone.execute({ command: 'create', path, file_text: text });
      alone.close();
      dirs.push(dir);
      mounts.push({ name: m.name, access: m.access, store: memdir.directoryStore(dir) });
    }
    const before = snapshot(dirs[0]);
    const memory = await memdir.openMemory({ mounts });
    assert.equal(memory.instructions(), data.instructions);
    for (const [input, content, isError] of data.steps) {
      assert.deepEqual(await memory.execute(input), { content, is_error: isError }, JSON.stringify(input));
    }
    assert.deepEqual(snapshot(dirs[0]), before);
  });
});

describe('the memory-store toolset over mounts', () => {
  test('paths start with the store name; a read-only store refuses writes', async () => {
    const memory = await memdir.openMemory({
      mounts: [
        { name: 'team', store: memdir.inMemoryStore(), access: 'read_only' },
        { name: 'me', store: memdir.inMemoryStore() },
      ],
    });
    const tools = Object.fromEntries(memdir.memoryStoreTools(memory).map((t) => [t.name, t]));
    assert.equal(await tools.memory_write.run({ path: '/me/a.md', content: 'x' }), 'Created /me/a.md (1 byte, content_sha256 2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881).');
    assert.equal(await tools.memory_list.run({}), 'No documents under /team/.\n\nDocuments under /me/:\n/me/a.md (1 byte)');
    await assert.rejects(tools.memory_write.run({ path: '/team/a.md', content: 'x' }), {
      message: 'Cannot write /team/a.md: the memory store at /team is read-only; nothing was written.',
      kind: 'read_only',
    });
    assert.equal((await memory.execute({ command: 'view', path: '/memories/me/a.md' })).content, "Here's the content of /memories/me/a.md with line numbers:\n     1\tx");
  });
});

describe('mount sets the rules refuse', () => {
  const store = () => memdir.inMemoryStore();
  const cases = [
    [Array.from({ length: 9 }, (_, i) => ({ name: `s${i}`, store: store() })), RangeError, 'openMemory: a memory mounts 1 to 8 stores, got 9'],
    [[{ name: 'a', store: store() }, { name: 'a', store: store() }], RangeError, 'openMemory: two stores are mounted at /memories/a'],
    [[{ name: '..', store: store() }], RangeError, 'openMemory: mount name ".." is not a valid directory name under /memories'],
    [[{ name: 'a/b', store: store() }], RangeError, 'openMemory: mount name "a/b" is not a valid directory name under /memories'],
    [[{ name: '', store: store() }, { name: 'b', store: store() }], RangeError, 'openMemory: a store mounted at /memories itself (name "") must be the only one'],
    [[{ name: 'a', store: store(), access: 'write' }], TypeError, "openMemory: a mount's access must be 'read_write' or 'read_only'"],
    [[{ name: 5, store: store() }], TypeError, "openMemory: a mount's name must be a string"],
    [[null], TypeError, 'openMemory: each mount must be an object {name, store, access?, description?, instructions?}'],
    ['team', TypeError, 'openMemory: mounts must be an array of {name, store, access?, description?, instructions?}'],
  ];
  for (const [mounts, type, message] of cases) {
    test(message, async () => {
      await assert.rejects(memdir.openMemory({ mounts }), (e) => e instanceof type && e.message === message);
    });
  }
  test('import goes to one store at a time', async () => {
    const memory = await memdir.openMemory({ mounts: [{ name: 'a', store: store() }] });
    await assert.rejects(memory.import([{ path: '/memories/x.md', content: 'x' }]), {
      message: 'import replaces one store\'s tree: open that store alone (without mounts) to import into it',
    });
  });
});

describe('every write path × access, through the package', () => {
  // The table lives in tests/conformance/write-paths.mjs; here its stores are
  // directories, and the read-only one's files are compared byte for byte.
  async function seeded(dir) {
    const alone = await memdir.openMemory({ store: memdir.directoryStore(dir), clock: () => SEED_CLOCK });
    const ids = await seed(alone);
    alone.close();
    return ids;
  }

  for (const [face, { run, readOnly, readWrite, archived }] of Object.entries(FACES)) {
    test(face, async () => {
      assert.notEqual(archived, undefined, `${face} names no archived answer`);
      const [teamDir, meDir] = [tempDir('memdir-team-'), tempDir('memdir-me-')];
      const ids = await seeded(teamDir);
      const meIds = await seeded(meDir);
      const before = snapshot(teamDir);
      const open = (access) =>
        memdir.openMemory({
          mounts: [
            { name: 'team', store: memdir.directoryStore(teamDir), access },
            { name: 'me', store: memdir.directoryStore(meDir) },
          ],
          clock: () => OPEN_CLOCK,
        });
      const memory = await open('read_only');
      assert.deepEqual(await run(memory, 'team', ids), readOnly);
      assert.deepEqual(snapshot(teamDir), before, `${face} changed the read-only store`);
      memory.close();
      if (readWrite !== null) {
        const both = await open('read_write');
        assert.deepEqual(await run(both, 'me', meIds), readWrite);
        both.close();
      }
      if (archived !== null) {
        const both = await open('read_write');
        await archive(both, 'team');
        const kept = snapshot(teamDir);
        const answer = await run(both, 'team', ids);
        assert.deepEqual(answer, archived);
        // A refusal leaves the archived store as it was.
        if (answer !== 'ok') assert.deepEqual(snapshot(teamDir), kept, `${face} changed the archived store`);
        both.close();
      }
    });
  }
});

describe('a call on behalf of an actor', () => {
  const KEY_ACTOR = { type: 'api_actor', api_key_id: 'apikey_0123' };
  async function mounted() {
    return memdir.openMemory({ mounts: [{ name: 'team', store: memdir.inMemoryStore() }, { name: 'me', store: memdir.inMemoryStore() }] });
  }
  const createdBy = async (memory, at) =>
    (await memory.api({ mount: at, op: 'version.list' })).body.data.map((v) => [v.path, JSON.stringify(v.created_by)]);

  test('its versions name it, in the store the call is routed to', async () => {
    const memory = await mounted();
    assert.deepEqual(await memory.execute({ command: 'create', path: '/memories/team/a.md', file_text: 'a' }, { actor: KEY_ACTOR }), {
      content: 'File created successfully at: /memories/team/a.md',
      is_error: false,
    });
    assert.equal(await memory.handle({ command: 'rename', old_path: '/memories/team/a.md', new_path: '/memories/team/b.md' }, { actor: KEY_ACTOR }), 'Successfully renamed /memories/team/a.md to /memories/team/b.md');
    await memory.toolset('memory_write', { path: '/me/c.md', content: 'c' }, { actor: KEY_ACTOR });
    await memory.execute({ command: 'create', path: '/memories/me/d.md', file_text: 'd' });
    const key = '{"api_key_id":"apikey_0123","type":"api_actor"}';
    assert.deepEqual(await createdBy(memory, 'team'), [['/b.md', key], ['/a.md', key]]);
    // Without one: the memory's own actor ('' here, so none is recorded).
    assert.deepEqual(await createdBy(memory, 'me'), [['/d.md', 'null'], ['/c.md', key]]);
    memory.close();
  });

  test('an actor the engine refuses is a TypeError, before anything runs', async () => {
    const memory = await mounted();
    const refused = {
      name: 'TypeError',
      message: "actor must be an actor object ({type: 'api_actor', api_key_id}, or a session_actor, user_actor or service_account_actor) whose id is 1 to 256 characters without control characters",
    };
    const write = { command: 'create', path: '/memories/team/x.md', file_text: 'x' };
    await assert.rejects(memory.execute(write, { actor: { type: 'api_actor', api_key_id: '' } }), refused);
    await assert.rejects(memory.handle(write, { actor: { type: 'robot', robot_id: 'r' } }), refused);
    await assert.rejects(memory.toolset('memory_write', { path: '/team/x.md', content: 'x' }, { actor: 'apikey_0123' }), refused);
    await assert.rejects(memory.execute(write, { actor: { type: 'api_actor', api_key_id: 'x'.repeat(257) } }), refused);
    assert.deepEqual(await createdBy(memory, 'team'), []);
    memory.close();
  });
});
