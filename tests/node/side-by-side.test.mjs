// The same command sequences through the SDK's BetaLocalFilesystemMemoryTool and
// through memdir. Where the spec keeps the SDK's behaviour the strings must be
// identical (and so must the trees left behind); where memdir deliberately differs
// (the SDK bugs the spec fixes) both outputs are asserted literally, so this file is
// also the list of differences.
import assert from 'node:assert/strict';
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { memdir, tempDir } from './helpers.mjs';

/** How the SDK's runner turns a handler's outcome into a tool_result. */
async function viaSdk(tool, input) {
  try {
    return { content: await tool[input.command](input), is_error: false };
  } catch (e) {
    return { content: `Error: ${e.message}`, is_error: true };
  }
}

async function both() {
  const base = tempDir('memdir-sdk-');
  const sdk = await BetaLocalFilesystemMemoryTool.init(base);
  const memory = await memdir.openMemory({ store: memdir.memoryStore() });
  return { base, sdk, memory };
}

/** The SDK's directory as memdir entries (directories without content). */
async function sdkEntries(base) {
  const out = [];
  async function walk(dir, virt) {
    for (const name of (await readdir(dir)).sort()) {
      const p = join(dir, name);
      const v = `${virt}/${name}`;
      const st = await lstat(p);
      if (st.isDirectory()) {
        out.push({ path: v });
        await walk(p, v);
      } else out.push({ path: v, content: await readFile(p, 'utf8') });
    }
  }
  await walk(join(base, 'memories'), '/memories');
  return out.sort((a, b) => (a.path < b.path ? -1 : 1));
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

  // Deliberate differences: [why, setup commands (run on both), probe, SDK output
  // (<BASE>: the SDK's directory on the host, <DIRSIZE>: a host directory's inode size), memdir output].
  const DIFFERENCES = [
    [
      'directory sizes: the SDK prints the host directory inode size; memdir the bytes of the files beneath (spec: sizes)',
      [create('/memories/a.txt', 'x'.repeat(2048)), create('/memories/d/b.txt', 'x'.repeat(10752))],
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n<DIRSIZE>\t/memories\n2K\t/memories/a.txt\n<DIRSIZE>\t/memories/d/\n10.5K\t/memories/d/b.txt",
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n13K\t/memories\n2.0K\t/memories/a.txt\n11K\t/memories/d/\n11K\t/memories/d/b.txt",
    ],
    [
      'a sibling of /memories: the SDK maps /memories_backup/n to /memories/_backup/n; memdir refuses it',
      [],
      create('/memories_backup/n', 'x'),
      { content: 'File created successfully at: /memories_backup/n', is_error: false },
      { content: 'Error: Path must start with /memories, got: /memories_backup/n', is_error: true },
    ],
    [
      'percent-encoded dots and slashes: the SDK stores a file named %2e%2e%2fx; memdir refuses the disguised escape',
      [],
      create('/memories/%2e%2e%2fx', 'x'),
      { content: 'File created successfully at: /memories/%2e%2e%2fx', is_error: false },
      { content: 'Error: Path /memories/%2e%2e%2fx would escape /memories directory', is_error: true },
    ],
    [
      'two occurrences on one line: the SDK counts lines, replaces the first and succeeds; memdir counts occurrences and refuses',
      [create('/memories/a.txt', 'aa\nb')],
      { command: 'str_replace', path: '/memories/a.txt', old_str: 'a', new_str: 'Z' },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tZa\n     2\tb',
        is_error: false,
      },
      {
        content: 'Error: No replacement was performed. Multiple occurrences of old_str `a` in lines: 1, 1. Please ensure it is unique',
        is_error: true,
      },
    ],
    [
      'old_str spanning lines: the SDK never finds it; memdir matches over the whole content',
      [create('/memories/a.txt', 'one\ntwo\nthree')],
      { command: 'str_replace', path: '/memories/a.txt', old_str: 'one\ntwo', new_str: '1-2' },
      {
        content: 'Error: No replacement was performed, old_str `one\ntwo` did not appear verbatim in /memories/a.txt.',
        is_error: true,
      },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\t1-2\n     2\tthree',
        is_error: false,
      },
    ],
    [
      'missing new_str: the SDK writes the text "undefined"; memdir deletes old_str',
      [create('/memories/a.txt', 'keep drop')],
      { command: 'str_replace', path: '/memories/a.txt', old_str: ' drop' },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tkeepundefined',
        is_error: false,
      },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tkeep',
        is_error: false,
      },
    ],
    [
      'snippet of a multi-line new_str: the SDK stops two lines after the first changed line; memdir two after the last inserted line',
      [create('/memories/f', '1\n2\n3\n4\n5\n6\n7')],
      { command: 'str_replace', path: '/memories/f', old_str: '3', new_str: '3a\n3b\n3c\n3d' },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\t1\n     2\t2\n     3\t3a\n     4\t3b\n     5\t3c',
        is_error: false,
      },
      {
        content: 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\t1\n     2\t2\n     3\t3a\n     4\t3b\n     5\t3c\n     6\t3d\n     7\t4\n     8\t5',
        is_error: false,
      },
    ],
    [
      'a view_range outside the file: the SDK shows nothing; memdir says which element is wrong',
      [create('/memories/a.txt', 'one\ntwo')],
      { command: 'view', path: '/memories/a.txt', view_range: [5, 9] },
      { content: "Here's the content of /memories/a.txt with line numbers:\n", is_error: false },
      {
        content: 'Error: Invalid `view_range`: [5, 9]. Its first element `5` should be within the range of lines of the file: [1, 2]',
        is_error: true,
      },
    ],
    [
      'creating under a file: the SDK passes on the raw ENOTDIR with the host path; memdir names the file in the way',
      [create('/memories/a.txt', 'x')],
      create('/memories/a.txt/x', 'x'),
      { content: "Error: ENOTDIR: not a directory, realpath '<BASE>/memories/a.txt/x'", is_error: true },
      { content: 'Error: Cannot create /memories/a.txt/x: /memories/a.txt is a file, not a directory', is_error: true },
    ],
    [
      'moving a directory inside itself: the SDK passes on the raw EINVAL with host paths; memdir explains',
      [create('/memories/d/f', 'x')],
      { command: 'rename', old_path: '/memories/d', new_path: '/memories/d/e' },
      { content: "Error: EINVAL: invalid argument, rename '<BASE>/memories/d' -> '<BASE>/memories/d/e'", is_error: true },
      { content: 'Error: Cannot rename /memories/d to /memories/d/e: a directory cannot be moved inside itself', is_error: true },
    ],
    [
      'str_replace on a directory: the SDK says "is not a file"; memdir answers as for a missing file (spec)',
      [create('/memories/d/f', 'x')],
      { command: 'str_replace', path: '/memories/d', old_str: 'x', new_str: 'y' },
      { content: 'Error: The path /memories/d is not a file.', is_error: true },
      { content: 'Error: The path /memories/d does not exist. Please provide a valid path.', is_error: true },
    ],
    [
      'a trailing slash: the SDK echoes it and doubles the separator; memdir uses the canonical path',
      [create('/memories/d/f', 'x')],
      { command: 'view', path: '/memories/d/' },
      "Here're the files and directories up to 2 levels deep in /memories/d/, excluding hidden items and node_modules:\n<DIRSIZE>\t/memories/d/\n1B\t/memories/d//f",
      "Here're the files and directories up to 2 levels deep in /memories/d, excluding hidden items and node_modules:\n1B\t/memories/d\n1B\t/memories/d/f",
    ],
    [
      'a file over the per-file limit (100 KiB): the SDK writes it; memdir refuses with the limit',
      [],
      create('/memories/big.txt', 'x'.repeat(102_401)),
      { content: 'File created successfully at: /memories/big.txt', is_error: false },
      {
        content: 'Error: Cannot write /memories/big.txt: the content would be 102,401 bytes, over the limit of 102,400 bytes per file. Nothing was written.',
        is_error: true,
      },
    ],
    [
      'a non-integer insert_line: the SDK splices at 1.5 (as 1); memdir refuses',
      [create('/memories/a.txt', 'one\ntwo')],
      { command: 'insert', path: '/memories/a.txt', insert_line: 1.5, insert_text: 'x' },
      { content: 'The file /memories/a.txt has been edited.', is_error: false },
      {
        content: 'Error: Invalid `insert_line` parameter: 1.5. It should be within the range of lines of the file: [0, 2]',
        is_error: true,
      },
    ],
  ];

  for (const [why, setup, probe, sdkWants, oursWants] of DIFFERENCES) {
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
    });
  }
});
