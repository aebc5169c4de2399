// The same command sequences through the SDK's BetaLocalFilesystemMemoryTool and
// through memdir. Where the spec keeps the SDK's behaviour the strings must be
// identical (and so must the trees left behind); where memdir deliberately differs
// (the SDK bugs the spec fixes) both outputs are asserted literally. The list of
// differences lives in tests/sdk-differences.mjs, which `npm run bench` also uses to
// check every answer of its workload against the SDK's; here each one's example is
// asserted, and so is the recogniser that tells it from any other difference.
import assert from 'node:assert/strict';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { DIFFERENCES, answerOf, compare, sdkEntries } from '../sdk-differences.mjs';
import { memdir, tempDir } from './helpers.mjs';

/** How the SDK's runner turns a handler's outcome into a tool_result. */
const viaSdk = (tool, input) => answerOf(() => tool[input.command](input));

async function both() {
  const base = tempDir('memdir-sdk-');
  const sdk = await BetaLocalFilesystemMemoryTool.init(base);
  const memory = await memdir.openMemory({ store: memdir.inMemoryStore() });
  return { base, sdk, memory };
}

const create = (path, file_text) => ({ command: 'create', path, file_text });
const P = '/memories/progress.md';

// An agent's session where the SDK's strings are the spec's: files only (directory
// views differ in their sizes, below).
const SAME = [
  create(P, '# Progress\n- step 1\n- step 2\n'),
  create(P, 'again'),
  { command: 'view', path: P },
  { command: 'view', path: P, view_range: [2, 3] },
  { command: 'view', path: P, view_range: [2, -1] },
  { command: 'str_replace', path: P, old_str: '- step 1', new_str: '- step 1 (done)' },
  { command: 'str_replace', path: P, old_str: '- step 9', new_str: 'x' },
  { command: 'str_replace', path: P, old_str: '- step', new_str: 'x' },
  { command: 'str_replace', path: P, old_str: '(done)', new_str: '$& $1 $$' },
  { command: 'insert', path: P, insert_line: 0, insert_text: 'Title\n' },
  { command: 'insert', path: P, insert_line: 5, insert_text: 'last' },
  { command: 'insert', path: P, insert_line: 7, insert_text: 'x' },
  { command: 'insert', path: P, insert_line: -1, insert_text: 'x' },
  { command: 'view', path: P },
  { command: 'view', path: '/memories/missing.md' },
  { command: 'str_replace', path: '/memories/missing.md', old_str: 'a', new_str: 'b' },
  { command: 'insert', path: '/memories/missing.md', insert_line: 0, insert_text: 'b' },
  { command: 'delete', path: '/memories/missing.md' },
  create('/memories/a/b/c.txt', 'deep'),
  create('/memories/empty.txt', ''),
  { command: 'view', path: '/memories/empty.txt' },
  create('/memories/unicode.md', 'Grüße 🌍\nзаметка\n日本語'),
  { command: 'view', path: '/memories/unicode.md' },
  { command: 'str_replace', path: '/memories/unicode.md', old_str: 'заметка', new_str: 'note' },
  create('/memories/.hidden', 'secret'),
  { command: 'view', path: '/memories/.hidden' },
  { command: 'rename', old_path: '/memories/a/b/c.txt', new_path: '/memories/x/y/z.txt' },
  { command: 'rename', old_path: '/memories/a/b/c.txt', new_path: '/memories/q.txt' },
  { command: 'rename', old_path: P, new_path: '/memories/unicode.md' },
  { command: 'rename', old_path: '/memories/x', new_path: '/memories/moved' },
  { command: 'view', path: '/memories/moved/y/z.txt' },
  { command: 'delete', path: '/memories/.hidden' },
  { command: 'delete', path: '/memories/moved' },
  { command: 'delete', path: '/memories' },
  { command: 'rename', old_path: '/memories', new_path: '/memories/elsewhere' },
  { command: 'view', path: '/etc/passwd' },
  { command: 'create', path: '/tmp/x', file_text: 'x' },
  { command: 'view', path: '/memories/../../etc/passwd' },
  { command: 'create', path: '/memories/a/../../x', file_text: 'x' },
];

describe('side by side with the SDK\'s BetaLocalFilesystemMemoryTool', () => {
  test(`${SAME.length} commands where the spec keeps the SDK's strings: identical output and tree`, async () => {
    const { base, sdk, memory } = await both();
    for (const input of SAME) {
      const theirs = await viaSdk(sdk, input);
      const ours = await memory.execute(input);
      assert.deepEqual(ours, theirs, JSON.stringify(input));
    }
    assert.deepEqual(await memory.entries(), await sdkEntries(base));
  });

  test(`the ${SAME.length} commands compare as equal`, async () => {
    const { base, sdk, memory } = await both();
    for (const input of SAME) {
      const theirs = await viaSdk(sdk, input);
      assert.deepEqual(compare(input, theirs, await memory.execute(input), { hostPaths: [base] }), { verdict: 'equal' }, JSON.stringify(input));
    }
  });

  for (const { id, why, example } of DIFFERENCES) {
    const [setup, probe, sdkWants, oursWants] = example;
    test(`differs on purpose: ${why}`, async () => {
      const { base, sdk, memory } = await both();
      for (const input of setup) {
        assert.deepEqual(await memory.execute(input), await viaSdk(sdk, input), `setup ${JSON.stringify(input)}`);
      }
      const theirs = await viaSdk(sdk, probe);
      const ours = await memory.execute(probe);
      // The host's directory inode size (filesystem-dependent), as the SDK formats it.
      const dirSize = (await stat(join(base, 'memories'))).size / 1024;
      const expand = (s) => s.replaceAll('<BASE>', base).replaceAll('<DIRSIZE>', `${dirSize}K`);
      const sdkExpected = typeof sdkWants === 'string' ? { content: expand(sdkWants), is_error: false } : { ...sdkWants, content: expand(sdkWants.content) };
      const oursExpected = typeof oursWants === 'string' ? { content: oursWants, is_error: false } : oursWants;
      assert.deepEqual(theirs, sdkExpected, 'the SDK');
      assert.deepEqual(ours, oursExpected, 'memdir');
      assert.notDeepEqual(ours, theirs);
      assert.ok(!ours.content.includes(base), 'memdir never shows a host path');
      // The recogniser the bench uses names this difference, and only this one.
      assert.deepEqual(compare(probe, theirs, ours, { hostPaths: [base] }), { verdict: 'documented', id });
      assert.deepEqual(
        DIFFERENCES.filter((d) => d.recognise(probe, theirs, ours)).map((d) => d.id),
        [id],
      );
    });
  }

  // The recognisers are no catch-all: near misses of the documented differences are unexpected.
  const LIST = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n";
  const ok = (content) => ({ content, is_error: false });
  const NEAR_MISSES = [
    [
      'a file size that is not the same byte count',
      { command: 'view', path: '/memories' },
      ok(`${LIST}4.0K\t/memories\n2K\t/memories/a.txt`),
      ok(`${LIST}2.0K\t/memories\n2.2K\t/memories/a.txt`),
    ],
    [
      'a listing with an entry the SDK does not list',
      { command: 'view', path: '/memories' },
      ok(`${LIST}4.0K\t/memories\n2K\t/memories/a.txt`),
      ok(`${LIST}4.0K\t/memories\n2.0K\t/memories/a.txt\n2.0K\t/memories/b.txt`),
    ],
    [
      'entries in another order',
      { command: 'view', path: '/memories' },
      ok(`${LIST}4.0K\t/memories\n1B\t/memories/a\n1B\t/memories/b`),
      ok(`${LIST}2B\t/memories\n1B\t/memories/b\n1B\t/memories/a`),
    ],
    [
      'a file view with other text',
      { command: 'view', path: '/memories/a.txt' },
      ok("Here's the content of /memories/a.txt with line numbers:\n     1\tone"),
      ok("Here's the content of /memories/a.txt with line numbers:\n     1\tOne"),
    ],
    [
      'a refusal of a path the SDK took, with a message not about that path',
      { command: 'create', path: '/memories_backup/n', file_text: 'x' },
      ok('File created successfully at: /memories_backup/n'),
      Object.defineProperty({ content: 'Error: Path must start with /memories, got: /memories_other', is_error: true }, 'kind', { value: 'path' }),
    ],
    [
      'two occurrences on different lines (the SDK would refuse alike)',
      { command: 'str_replace', path: '/memories/a.txt', old_str: 'a', new_str: 'Z' },
      ok('The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tZ'),
      { content: 'Error: No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 2. Please ensure it is unique', is_error: true },
    ],
    [
      'a multi-line snippet whose start differs',
      { command: 'str_replace', path: '/memories/f', old_str: '3', new_str: '3a\n3b' },
      ok('The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\t1\n     2\t3a'),
      ok('The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     2\t3a\n     3\t3b'),
    ],
    [
      'an error of memdir the SDK did not give, on a plain write',
      { command: 'create', path: '/memories/n.md', file_text: 'x' },
      ok('File created successfully at: /memories/n.md'),
      { content: 'Error: The store is full', is_error: true },
    ],
  ];
  for (const [why, input, theirs, ours] of NEAR_MISSES) {
    test(`not a documented difference: ${why}`, () => {
      assert.deepEqual(compare(input, theirs, ours), { verdict: 'unexpected', why: 'not a documented difference' });
    });
  }

  test('an answer of memdir showing a host path is unexpected, even if the SDK showed it too', () => {
    const same = { content: "Error: ENOENT: no such file or directory, open '/tmp/x/memories/a'", is_error: true };
    assert.deepEqual(compare({ command: 'view', path: '/memories/a' }, same, same, { hostPaths: ['/tmp/x'] }), {
      verdict: 'unexpected',
      why: "memdir's answer shows the host path /tmp/x",
    });
  });
});
