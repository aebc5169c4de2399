// Every conformance case and every hostile path of tests/conformance/, through the
// built package on Node, for each store: the memory store (native), a directory
// store and a custom JS store, and the first and last encrypted at rest. Both faces
// are checked: `execute` (raw) and the SDK handler methods (resolve / reject with
// the message without `Error: `).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ENCRYPTED_STORES, STORES, loadJson, memdir, normalTree, treeEntries, treeOf } from './helpers.mjs';
import { hostilePositions } from '../conformance/hostile-positions.mjs';

const { cases } = loadJson('cases.json');
const { paths: hostile } = loadJson('hostile-paths.json');

const HANDLERS = new Set(memdir.COMMANDS);

/** A memory holding the case's `before` tree; the op counter reset afterwards. */
async function prepared(make, c) {
  const { store, counter, encryption } = make();
  const memory = await memdir.openMemory({ store, limits: c.limits ?? {}, encryption });
  await memory.import(treeEntries(c.before));
  if (counter) counter.ops = 0;
  return { memory, counter };
}

// Encrypted too: the same answers, only the bytes at rest differ.
for (const [kind, make] of Object.entries({ ...STORES, ...ENCRYPTED_STORES })) {
  describe(`conformance cases on the ${kind} store`, () => {
    for (const c of cases) {
      test(c.name, async () => {
        const { memory, counter } = await prepared(make, c);
        const got = await ('input_text' in c ? memory.executeJson(c.input_text) : memory.execute(c.input));
        assert.deepEqual(got, { content: c.content, is_error: c.is_error });
        if (c.no_store_ops && counter) assert.equal(counter.ops, 0, 'the store was touched');
        assert.deepEqual(treeOf(await memory.entries()), normalTree(c.after ?? c.before));

        // The handler face on a fresh copy of the same state: same text, or a
        // rejection with the message only.
        const input = c.input;
        const command = input && typeof input === 'object' && !Array.isArray(input) ? input.command : undefined;
        // Store-independent, so checked on the two stores without disk writes.
        if (kind !== 'directory' && typeof command === 'string' && HANDLERS.has(command)) {
          const again = await prepared(make, c);
          const outcome = await again.memory[command](input).then(
            (text) => ({ content: text, is_error: false }),
            (err) => {
              assert.ok(err instanceof Error, 'handlers reject with an Error');
              return { content: `Error: ${err.message}`, is_error: true };
            },
          );
          assert.deepEqual(outcome, { content: c.content, is_error: c.is_error });
          assert.deepEqual(treeOf(await again.memory.entries()), normalTree(c.after ?? c.before));
        }
      });
    }
  });

  describe(`hostile paths on the ${kind} store`, () => {
    // Every hostile path in every argument position; the other fields are valid.
    const positions = hostilePositions();
    for (const [position, build] of Object.entries(positions)) {
      test(`${hostile.length} hostile paths as ${position}, refused with zero store operations`, async () => {
        const { store, counter, encryption } = make();
        const memory = await memdir.openMemory({ store, encryption });
        await memory.import([{ path: '/memories/a.txt', content: 'a' }]);
        if (counter) counter.ops = 0;
        for (const h of hostile) {
          const got = await memory.execute(build(h.path));
          assert.deepEqual(got, { content: `Error: ${h.message}`, is_error: true }, `${h.rule}: ${JSON.stringify(h.path)}`);
        }
        if (counter) assert.equal(counter.ops, 0, 'a hostile path touched the store');
        assert.deepEqual(treeOf(await memory.entries()), { files: { '/memories/a.txt': 'a' }, dirs: [] });
      });
    }
  });
}
