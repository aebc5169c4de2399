// Malformed inputs from JavaScript and misbehaving stores: each answered with a
// clear error, never a trap, and the same memory object keeps working afterwards.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MapStore, memdir } from './helpers.mjs';

const NOT_OBJECT = 'Error: Invalid tool input: expected a JSON object with a "command" field';
const NOT_JSON = 'Error: Invalid tool input: not valid JSON';
const FAILED = "Error: The memory directory's storage failed; nothing was changed.";
const FULL = "Error: The memory directory's storage is full; nothing was changed.";
const UNAVAILABLE = "Error: The memory directory's storage is unavailable right now; nothing was changed.";

/** The memory still answers correctly: a create, a view and a delete round trip. */
async function stillWorks(memory, name = 'health') {
  const p = `/memories/${name}-${Math.random().toString(36).slice(2)}.txt`;
  assert.equal(await memory.create({ command: 'create', path: p, file_text: 'ok' }), `File created successfully at: ${p}`);
  assert.equal(await memory.view({ command: 'view', path: p }), `Here's the content of ${p} with line numbers:\n     1\tok`);
  assert.equal(await memory.delete({ command: 'delete', path: p }), `Successfully deleted ${p}`);
}

const throwingGetter = {
  command: 'view',
  get path() {
    throw new Error('getter exploded at /home/secret');
  },
};
const cyclic = { command: 'view', path: '/memories' };
cyclic.self = cyclic;
const throwingProxy = new Proxy(
  {},
  {
    ownKeys() {
      throw new Error('proxy trap');
    },
    get() {
      throw new Error('proxy trap');
    },
  },
);

const deeplyNested = { command: 'view', path: '/memories' };
for (let i = 0, cur = (deeplyNested.extra = {}); i < 5000; i++) cur = cur.a = {};

// [label, input, content the raw face answers]
const BAD_INPUTS = [
  // Past serde_json's nesting limit: refused, not a stack overflow in wasm.
  ['a 5,000-deep nested extra field', deeplyNested, NOT_JSON],
  ['undefined', undefined, NOT_OBJECT],
  ['null', null, NOT_OBJECT],
  ['a number', 42, NOT_OBJECT],
  ['NaN', NaN, NOT_OBJECT],
  ['a string value', 'view', NOT_OBJECT],
  ['an array', [{ command: 'view', path: '/memories' }], NOT_OBJECT],
  ['a function', () => 1, NOT_OBJECT],
  ['a symbol', Symbol('x'), NOT_OBJECT],
  ['an empty object', {}, 'Error: Invalid tool input: missing field "command"'],
  ['a numeric command', { command: 7 }, 'Error: Invalid tool input: field "command" must be a string'],
  ['a numeric path', { command: 'view', path: 1 }, 'Error: Invalid view input: field "path" must be a string'],
  ['a string insert_line', { command: 'insert', path: '/memories/a', insert_line: '1', insert_text: 'x' }, 'Error: Invalid insert input: field "insert_line" must be a number'],
  ['a NaN insert_line', { command: 'insert', path: '/memories/a', insert_line: NaN, insert_text: 'x' }, 'Error: Invalid insert input: field "insert_line" must be a number'],
  ['a BigInt insert_line', { command: 'insert', path: '/memories/a', insert_line: 1n, insert_text: 'x' }, NOT_JSON],
  ['a three-element view_range', { command: 'view', path: '/memories', view_range: [1, 2, 3] }, 'Error: Invalid view input: field "view_range" must be an array of two integers'],
  ['a float view_range', { command: 'view', path: '/memories', view_range: [1.5, 2] }, 'Error: Invalid view input: field "view_range" must be an array of two integers'],
  ['a lone surrogate in a path', { command: 'create', path: '/memories/\ud800x', file_text: 'x' }, NOT_JSON],
  ['a lone surrogate in file_text', { command: 'create', path: '/memories/a', file_text: 'a\udfffb' }, NOT_JSON],
  ['a getter that throws', throwingGetter, NOT_JSON],
  ['a proxy whose traps throw', throwingProxy, NOT_JSON],
  ['a cycle', cyclic, NOT_JSON],
  ['a toJSON that throws', { toJSON() { throw new Error('no'); } }, NOT_JSON],
  [
    'a 10 MB file_text',
    { command: 'create', path: '/memories/h', file_text: 'x'.repeat(10_000_000) },
    'Error: Cannot write /memories/h: the content would be 10,000,000 bytes, over the limit of 102,400 bytes per file. Nothing was written.',
  ],
  [
    'a 70 M-character input (refused before it is copied into the engine)',
    { command: 'create', path: '/memories/h', file_text: 'é'.repeat(70 * 1024 * 1024) },
    'Error: Invalid tool input: the input is over the limit of 16,777,216 bytes',
  ],
  [
    'an input under the cap in characters but over it in UTF-8 bytes (refused by the engine, same words)',
    { command: 'create', path: '/memories/h', file_text: 'é'.repeat(9 * 1024 * 1024) },
    'Error: Invalid tool input: the input is over the limit of 16,777,216 bytes',
  ],
];

describe('malformed inputs from JavaScript', () => {
  test('each is answered with a clear error on both faces, and the memory keeps working', async () => {
    const memory = await memdir.openMemory();
    for (const [label, input, content] of BAD_INPUTS) {
      assert.deepEqual(await memory.execute(input), { content, is_error: true }, label);
      await assert.rejects(memory.handle(input), (e) => e instanceof Error && `Error: ${e.message}` === content, label);
      await stillWorks(memory);
    }
    assert.deepEqual(await memory.entries(), []);
  });

  test('every failure carries its kind: on the handler face as error.kind, on the raw face as a non-enumerable kind', async () => {
    const memory = await memdir.openMemory({ limits: { maxFileBytes: 10 } });
    const cases = [
      [{ command: 'nope' }, 'input'],
      [{ command: 'view', path: '/etc' }, 'path'],
      [{ command: 'view', path: '/memories/missing' }, 'refused'],
      [{ command: 'create', path: '/memories/big', file_text: 'x'.repeat(11) }, 'limit'],
      [{ command: 'create', path: '/memories/h', file_text: 'é'.repeat(9 * 1024 * 1024) }, 'input'],
    ];
    for (const [input, kind] of cases) {
      await assert.rejects(memory.handle(input), (e) => e.kind === kind, JSON.stringify(input).slice(0, 80));
      const raw = await memory.execute(input);
      assert.equal(raw.kind, kind);
      assert.deepEqual(Object.keys(raw), ['content', 'is_error'], 'kind never travels with a spread tool_result');
    }
    const ok = await memory.execute({ command: 'view', path: '/memories' });
    assert.equal(ok.kind, undefined);
    memory.close();
    await assert.rejects(memory.handle({ command: 'view', path: '/memories' }), (e) => e.kind === 'closed');
  });

  test('the defaults every face reads come from the engine', () => {
    assert.deepEqual(memdir.defaults(), {
      maxFileBytes: 102400,
      maxTotalBytes: 104857600,
      readLimitChars: 100000,
      maxRetries: 32,
      maxRetriesCap: 10000,
      keepCommits: 100,
      maxInputBytes: 16777216,
      secrets: 'allow',
      secretPolicies: ['allow', 'refuse', 'redact'],
      maxMemories: 2000,
      maxApiBodyBytes: 1048576,
      apiDeadlineMs: 30000,
      retentionMs: 2592000000,
      upkeepIntervalMs: 3600000,
      upkeepKeepCommits: 0,
      maxStores: 1000,
      maxOpenStores: 64,
      storeCloseDelayMs: 60000,
      turnWaitMs: 10000,
      closeGraceMs: 10000,
      drainMaxBytes: 67108864,
      drainWaitMs: 10000,
      maxValueBytes: 67108864,
      reindexRounds: 100,
      searchDefaultLimit: 10,
      encryptionKeyFileBytes: 1024,
      embedBatch: 32,
      embedMaxDims: 4096,
    });
  });

  test('handler methods take the command from their own name and survive any argument', async () => {
    const memory = await memdir.openMemory();
    await assert.rejects(memory.view(undefined), { message: NOT_OBJECT.slice(7) });
    await assert.rejects(memory.view(throwingGetter), { message: NOT_JSON.slice(7) });
    await assert.rejects(memory.create({ path: '/memories/a' }), { message: 'Invalid create input: missing field "file_text"' });
    // A mismatched `command` field: the handler's name wins, as the SDK routes by it.
    assert.equal(await memory.create({ command: 'view', path: '/memories/a', file_text: '' }), 'File created successfully at: /memories/a');
    await stillWorks(memory);
  });

  test('JSON text with a lone surrogate or an invalid document', async () => {
    const memory = await memdir.openMemory();
    for (const text of ['{"command":"view","path":"/memories/\ud800"}', '['.repeat(200_000) + ']'.repeat(200_000), '{', '', 'null', '{"command":"view","path":"/memories"} x']) {
      const got = await memory.executeJson(text);
      assert.equal(got.is_error, true, text);
      assert.match(got.content, /^Error: Invalid tool input: /);
    }
    assert.equal((await memory.executeJson('{"command":"view","path":"/memories"}')).is_error, false);
    await stillWorks(memory);
  });

  test('bad options are refused when opening', async () => {
    await assert.rejects(memdir.openMemory({ limits: { maxFileBytes: -1 } }), RangeError);
    await assert.rejects(memdir.openMemory({ limits: { readLimitChars: 1.5 } }), RangeError);
    await assert.rejects(memdir.openMemory({ clock: 5 }), TypeError);
    await assert.rejects(memdir.openMemory({ store: { get() {} } }), /no set, delete, list, compareAndSwap methods/);
    assert.throws(() => memdir.customStore(null), TypeError);
  });

  test('a clock that throws or lies does not fail commands', async () => {
    for (const clock of [() => { throw new Error('clock'); }, () => 'noon', () => -5, () => Infinity]) {
      const memory = await memdir.openMemory({ clock });
      await stillWorks(memory);
    }
  });
});

/** A MapStore whose chosen operation misbehaves while `broken` is set. */
class FaultyStore extends MapStore {
  broken = null;
  constructor() {
    super();
    for (const op of ['get', 'set', 'delete', 'list', 'compareAndSwap']) {
      const real = this[op].bind(this);
      this[op] = (...args) => (this.broken?.op === op ? this.broken.act(...args) : real(...args));
    }
  }
}

const SECRET = 'backend said: /var/lib/secret/db.sqlite key=blob/abc';
const named = (name) => Object.assign(new Error(SECRET), { name });

// [label, op, misbehaviour, content]
const FAULTS = [
  ['get throws', 'get', () => { throw new Error(SECRET); }, FAILED],
  ['get rejects', 'get', async () => { throw new Error(SECRET); }, FAILED],
  ['get rejects with a string', 'get', () => Promise.reject(SECRET), FAILED],
  ['get returns a string', 'get', async () => 'not bytes', FAILED],
  ['get returns an array of numbers', 'get', async () => [1, 2, 3], FAILED],
  ['get returns garbage bytes', 'get', async () => new Uint8Array([0xff, 0, 1]), null],
  // Larger than any value memdir writes: refused before it is copied into wasm.
  ['get returns 65 MiB', 'get', async () => new Uint8Array(65 * 1024 * 1024), FAILED],
  ['compareAndSwap returns "yes"', 'compareAndSwap', async () => 'yes', FAILED],
  ['compareAndSwap throws QuotaExceededError', 'compareAndSwap', async () => { throw named('QuotaExceededError'); }, FULL],
  ['compareAndSwap throws UnavailableError', 'compareAndSwap', async () => { throw named('UnavailableError'); }, UNAVAILABLE],
  ['set throws QuotaExceededError', 'set', () => { throw named('QuotaExceededError'); }, FULL],
  ['set rejects', 'set', async () => { throw new TypeError(SECRET); }, FAILED],
  ['a thenable whose then throws', 'get', () => ({ get then() { throw new Error(SECRET); } }), FAILED],
  // The same wrong answers given at once, as plain values (taken without a promise).
  ['get returns a string at once', 'get', () => 'not bytes', FAILED],
  ['get returns an object at once', 'get', () => ({ then: 'not a function', length: 3 }), FAILED],
  ['get returns garbage bytes at once', 'get', () => new Uint8Array([0xff, 0, 1]), null],
  ['get returns 65 MiB at once', 'get', () => new Uint8Array(65 * 1024 * 1024), FAILED],
  ['compareAndSwap returns "yes" at once', 'compareAndSwap', () => 'yes', FAILED],
];

describe('a store that throws, rejects or returns the wrong type', () => {
  for (const [label, op, act, content] of FAULTS) {
    test(`${label}: a clear memory-directory error, nothing half-written, the memory keeps working`, async () => {
      const store = new FaultyStore();
      const memory = await memdir.openMemory({ store });
      await memory.create({ command: 'create', path: '/memories/keep.md', file_text: 'one\ntwo' });
      const before = await memory.entries();
      const snapshot = new Map(store.map);
      // A second client over the same store has nothing cached, so every command
      // must go to the store (the first may answer from its cache of the head).
      // Opened before the store breaks: opening reads whether the store is
      // encrypted, and a store broken then is refused at open.
      const fresh = await memdir.openMemory({ store });
      store.broken = { op, act };
      const commands = [
        { command: 'view', path: '/memories/keep.md' },
        { command: 'create', path: '/memories/new.md', file_text: 'x' },
        { command: 'str_replace', path: '/memories/keep.md', old_str: 'two', new_str: '2' },
        { command: 'rename', old_path: '/memories/keep.md', new_path: '/memories/moved.md' },
        { command: 'delete', path: '/memories/keep.md' },
      ];
      for (const input of commands) {
        if (op !== 'get' && input.command === 'view') continue; // a view only reads
        const got = await fresh.execute(input);
        assert.equal(got.is_error, true, JSON.stringify(input));
        if (content) assert.equal(got.content, content);
        else assert.match(got.content, /^Error: The memory directory's storage (is damaged|failed)/);
        assert.ok(!got.content.includes('secret') && !got.content.includes('blob/'), 'backend text leaked');
      }
      store.broken = null;
      // Nothing published: the head still names the same tree.
      assert.equal(Buffer.compare(store.map.get('head'), snapshot.get('head')), 0);
      assert.deepEqual(await fresh.entries(), before);
      await stillWorks(fresh);
      await stillWorks(memory);
      assert.deepEqual(await memory.entries(), before);
    });
  }

  test('a listing that goes backwards or loops is refused, not followed', async () => {
    const store = new FaultyStore();
    const handle = memdir.customStore(store);
    store.broken = { op: 'list', act: async (prefix) => ({ keys: [`${prefix}b`, `${prefix}a`] }) };
    await assert.rejects(memdir.checkStoreContract(handle), /list failed: storage operation failed/);
    store.broken = { op: 'list', act: async (prefix) => ({ keys: [`${prefix}a`], cursor: `${prefix}a` }) };
    // The same page again for its own cursor: refused on the second call.
    const other = new FaultyStore();
    const pages = [];
    other.broken = { op: 'list', act: async (prefix, cursor) => (pages.push(cursor), { keys: [`${prefix}a`], cursor: `${prefix}a` }) };
    const memory = await memdir.openMemory({ store: other });
    await assert.rejects(memory.gc({ keepCommits: 1 }), Error);
    assert.ok(pages.length <= 2, `followed ${pages.length} pages`);
    other.broken = null;
    await stillWorks(memory);
  });
});

describe('concurrency on one memory object', () => {
  test('fifty concurrent creates over a slow async store all land', async () => {
    const store = new MapStore();
    const slow = {
      get: async (k) => (await tick(), store.get(k)),
      set: async (k, v) => (await tick(), store.set(k, v)),
      delete: async (k) => (await tick(), store.delete(k)),
      list: async (p, c) => (await tick(), store.list(p, c)),
      compareAndSwap: async (k, e, v) => (await tick(), store.compareAndSwap(k, e, v)),
    };
    const memory = await memdir.openMemory({ store: slow, maxRetries: 200 });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => memory.execute({ command: 'create', path: `/memories/f${i}`, file_text: `${i}` })),
    );
    for (const [i, r] of results.entries()) assert.deepEqual(r, { content: `File created successfully at: /memories/f${i}`, is_error: false });
    assert.equal((await memory.entries()).length, 50);
  });
});

const tick = () => new Promise((r) => setTimeout(r, Math.random() * 2));

describe("the SDK's betaMemoryTool routes by any command name the model sends", () => {
  test("it cannot reach the memory's own methods, and the memory keeps working", async () => {
    const { betaMemoryTool: sdkBetaMemoryTool } = await import('@anthropic-ai/sdk/helpers/beta/memory');
    const memory = await memdir.openMemory();
    const tool = sdkBetaMemoryTool(memory);
    const unknown = (c) => `Unknown command "${c}". Expected one of: view, create, str_replace, insert, delete, rename`;
    for (const command of ['close', 'entries', 'import', 'gc', 'execute', 'executeJson', 'handle']) {
      await assert.rejects(async () => tool.run({ command, path: '/memories' }), { message: unknown(command) }, command);
      await stillWorks(memory);
    }
    // What any object answers to these names in the SDK's helper: an error or a
    // harmless string, never a change.
    await assert.rejects(async () => tool.run({ command: 'constructor' }), TypeError);
    await assert.rejects(async () => tool.run({ command: 'nonexistent' }), { message: 'nonexistent not implemented' });
    await stillWorks(memory);
  });

  test('a closed memory answers clearly', async () => {
    const memory = await memdir.openMemory();
    memory.close();
    memory.close();
    assert.deepEqual(await memory.execute({ command: 'view', path: '/memories' }), {
      content: 'Error: This memory was closed; open it again to use it.',
      is_error: true,
    });
    await assert.rejects(memory.entries(), { message: 'This memory was closed; open it again to use it.' });
  });
});

describe('a store that calls back into the memory', () => {
  test('synchronously, from inside its own operations: no trap, both commands answer', async () => {
    const inner = new MapStore();
    let memory;
    const nested = [];
    // Each nested command may itself call back; stop spawning after 30. None
    // while the memory opens (it reads whether the store is encrypted).
    const spawn = (make) => memory !== undefined && nested.length < 30 && nested.push(make());
    const reentrant = {
      get: (k) => (spawn(() => memory.execute({ command: 'view', path: '/memories' })), inner.get(k)),
      set: (k, v) => (spawn(() => memory.execute({ command: 'create', path: `/memories/n${nested.length}`, file_text: 'n' })), inner.set(k, v)),
      delete: (k) => inner.delete(k),
      list: (p, c) => inner.list(p, c),
      compareAndSwap: (k, e, v) => (spawn(() => memory.entries()), inner.compareAndSwap(k, e, v)),
    };
    memory = await memdir.openMemory({ store: reentrant, maxRetries: 1000 });
    const first = await memory.execute({ command: 'create', path: '/memories/a', file_text: 'a' });
    assert.deepEqual(first, { content: 'File created successfully at: /memories/a', is_error: false });
    // Settle the nested commands (each may start more, up to the cap); none may trap.
    for (let settled = 0; settled < nested.length; ) {
      const batch = nested.slice(settled);
      settled += batch.length;
      for (const r of await Promise.all(batch)) {
        if (!Array.isArray(r)) assert.equal(r.is_error, false, r.content);
      }
    }
    assert.equal(nested.length, 30);
    reentrant.get = (k) => inner.get(k);
    reentrant.set = (k, v) => inner.set(k, v);
    reentrant.compareAndSwap = (k, e, v) => inner.compareAndSwap(k, e, v);
    await stillWorks(memory);
  });
});

describe('random inputs', () => {
  test('3,000 random values and texts: always an answer, never a trap', async () => {
    let seed = 7;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    const pick = (xs) => xs[Math.floor(rand() * xs.length)];
    const chars = ['a', '/', '.', '..', '\\', '%2e', '\u0000', '\u202e', '\ud800', '\udc00', '😀', 'é', 'e\u0301', '\n', '"', ' ', 'memories', '/memories', '/memories/'];
    const str = () => Array.from({ length: Math.floor(rand() * 12) }, () => pick(chars)).join('');
    const value = (depth = 0) => {
      switch (Math.floor(rand() * (depth > 3 ? 5 : 8))) {
        case 0: return str();
        case 1: return Math.floor(rand() * 20) - 5;
        case 2: return pick([1.5, -0, NaN, Infinity, 2 ** 53, 1e300, -1]);
        case 3: return pick([null, undefined, true, false]);
        case 4: return `/memories/${str()}`;
        case 5: return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
        default: {
          const o = {};
          for (const f of ['command', 'path', 'file_text', 'old_str', 'new_str', 'insert_line', 'insert_text', 'view_range', 'old_path', 'new_path', 'x']) {
            if (rand() < 0.5) o[f] = f === 'command' && rand() < 0.7 ? pick(memdir.COMMANDS) : value(depth + 1);
          }
          return o;
        }
      }
    };
    const memory = await memdir.openMemory({ limits: { maxFileBytes: 64, maxTotalBytes: 1024 } });
    for (let i = 0; i < 3000; i++) {
      const input = value();
      const r = i % 3 === 2 ? await memory.executeJson(JSON.stringify(input) ?? str()) : await memory.execute(input);
      assert.equal(typeof r.content, 'string');
      assert.equal(typeof r.is_error, 'boolean');
      assert.equal(r.is_error, r.content.startsWith('Error: '), r.content);
    }
    await stillWorks(memory);
  });
});
