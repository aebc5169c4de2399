// When an exported call's work runs (crates/memdir-wasm/src/lib.rs, one_promise):
// at once, inside the call, so that a store answering at once (in memory, or a JS
// store answering with plain values: js_store.rs, settle) gives a promise already
// settled; and queued, as before, when the call is made while memdir is already
// working (a clock or a store's callback calling back in), so that one command
// never runs inside another.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, inMemoryStore } from '../../js/node.js';
import { MapStore } from './helpers.mjs';
// The same module instance js/node.js initialised: its raw classes, under the wrapper.
import { Memory as Core, jsStore, memoryStore as coreStore } from '../../dist/node/memdir_wasm.js';
import { AT_ONCE } from '../../js/glue.js';

const CONFIG = JSON.stringify({
  maxFileBytes: 1 << 20,
  maxTotalBytes: 1 << 24,
  readLimitChars: 1 << 20,
  maxMemories: 1000,
  actor: '',
  maxRetries: 3,
  secrets: 'allow',
});

/** 'settled' if `promise` had settled (either way) when this was called, else 'pending'. */
async function stateOf(promise) {
  // A settled promise's reaction is queued at once, ahead of the marker's; a
  // promise settled by a queued task settles after the marker's.
  const settled = () => 'settled';
  return Promise.race([promise.then(settled, settled), Promise.resolve().then(() => 'pending')]);
}

test('a command on the memory store has settled when its call returns', async () => {
  const core = new Core(coreStore(), CONFIG, undefined);
  assert.equal(await stateOf(core.handleJson(JSON.stringify({ command: 'create', path: '/memories/a.md', file_text: 'one\n' }))), 'settled');
  const view = core.handleJson(JSON.stringify({ command: 'view', path: '/memories/a.md' }));
  assert.equal(await stateOf(view), 'settled');
  assert.equal(await view, "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\t");
  // A failure too: the promise is rejected at once, with the tool's error.
  const missing = core.handleJson(JSON.stringify({ command: 'view', path: '/memories/none.md' }));
  assert.equal(await stateOf(missing), 'settled');
  await assert.rejects(missing, { kind: 'refused', message: 'The path /memories/none.md does not exist. Please provide a valid path.' });
});

test('a command made from inside another (its clock calling back) runs after it, not inside it', async () => {
  let memory;
  let inner = null;
  const clock = () => {
    if (memory && inner === null) inner = memory.view({ command: 'view', path: '/memories' });
    return 1_700_000_000_000;
  };
  memory = await openMemory({ store: inMemoryStore(), clock });
  await memory.create({ command: 'create', path: '/memories/first.md', file_text: 'x' });
  assert.notEqual(inner, null, 'the clock was read during the create');
  // Run inside the create, the view would have listed the directory before first.md was in it.
  assert.equal(
    await inner,
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n1B\t/memories\n1B\t/memories/first.md",
  );
});

test('a command on a JS store answering with plain values has settled when its call returns; on one answering with promises, not', async () => {
  for (const [later, want] of [[false, 'settled'], [true, 'pending']]) {
    const store = new MapStore();
    const core = new Core(jsStore(later ? store : store.plain()), CONFIG, undefined);
    await core.handleJson(JSON.stringify({ command: 'create', path: '/memories/a.md', file_text: 'one' }));
    const view = core.handleJson(JSON.stringify({ command: 'view', path: '/memories/a.md' }));
    assert.equal(await stateOf(view), want, later ? 'promises' : 'plain values');
    assert.equal(await view, "Here's the content of /memories/a.md with line numbers:\n     1\tone");
  }
});

test("a store's face that answers at once is the one the engine calls; its async methods are left to other callers", async () => {
  const calls = { public: 0, atOnce: 0 };
  const atOnce = Object.fromEntries(Object.entries(new MapStore().plain()).map(([name, f]) => [name, (...a) => (calls.atOnce++, f(...a))]));
  const store = Object.fromEntries(Object.keys(atOnce).map((name) => [name, async () => {
    calls.public++;
    throw new Error('the async face was called');
  }]));
  Object.defineProperty(store, AT_ONCE, { value: atOnce });
  const memory = await openMemory({ store });
  await memory.create({ command: 'create', path: '/memories/b.md', file_text: 'two' });
  assert.equal(await memory.view({ command: 'view', path: '/memories/b.md' }), "Here's the content of /memories/b.md with line numbers:\n     1\ttwo");
  assert.equal(calls.public, 0);
  assert.ok(calls.atOnce >= 3, `the at-once face was called ${calls.atOnce} times`);
});
