// Store policies: the secrets option of openMemory (credentials the model writes are
// stored as written, refused, or redacted) and the expiry sweep.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memdir } from './helpers.mjs';

const KEY = `sk-ant-api03-${'Zx9_yW8-'.repeat(10)}`;
const create = { command: 'create', path: '/memories/keys.md', file_text: `anthropic ${KEY}\nok` };

test('secrets default to being stored as written', async () => {
  const memory = await memdir.openMemory();
  await memory.create(create);
  assert.equal(
    await memory.view({ command: 'view', path: '/memories/keys.md' }),
    `Here's the content of /memories/keys.md with line numbers:\n     1\tanthropic ${KEY}\n     2\tok`,
  );
});

test("secrets: 'refuse' refuses the write and stores nothing", async () => {
  const memory = await memdir.openMemory({ secrets: 'refuse' });
  await assert.rejects(memory.create(create), {
    message:
      'Cannot write /memories/keys.md: the text looks like it holds a credential (Anthropic API key). Memories must not store credentials; nothing was written.',
  });
  assert.deepEqual(await memory.entries(), []);
  const raw = await memory.execute({ command: 'insert', path: '/memories/x.md', insert_line: 0, insert_text: KEY });
  assert.equal(raw.is_error, true);
});

test("secrets: 'redact' stores the text with the credential replaced", async () => {
  const memory = await memdir.openMemory({ secrets: 'redact' });
  assert.equal(await memory.create(create), 'File created successfully at: /memories/keys.md');
  assert.deepEqual(await memory.entries(), [
    { path: '/memories/keys.md', content: 'anthropic [redacted: Anthropic API key]\nok' },
  ]);
});

test('an unknown secrets policy is a TypeError', async () => {
  await assert.rejects(memdir.openMemory({ secrets: 'maybe' }), {
    name: 'TypeError',
    message: "openMemory: secrets must be 'allow', 'refuse' or 'redact'",
  });
});

test('expire removes what was not written for a while, by the memory clock', async () => {
  let now = 1_000;
  const memory = await memdir.openMemory({ clock: () => now });
  await memory.create({ command: 'create', path: '/memories/old.md', file_text: 'old' });
  now = 50_000;
  await memory.create({ command: 'create', path: '/memories/new.md', file_text: 'new' });
  assert.deepEqual(await memory.expire({ olderThanMs: 10_000 }), { removed: 1, bytes: 3 });
  assert.deepEqual(await memory.entries(), [{ path: '/memories/new.md', content: 'new' }]);
  await assert.rejects(memory.expire({}), { name: 'RangeError' });
});
