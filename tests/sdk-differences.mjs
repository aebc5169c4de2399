// Where memdir answers differently from the SDK's BetaLocalFilesystemMemoryTool on
// purpose (the SDK bugs the spec fixes), in one place: each difference with why, a
// worked example (setup commands run on both, a probe, each side's literal answer)
// that tests/node/side-by-side.test.mjs asserts, and `recognise`, which tells that
// difference apart from any other in a pair of answers, so `npm run bench` can
// check every answer of a whole workload against the SDK's with the same list.
//
// An answer is `{content, is_error, kind?}`: the SDK runner's shape, plus memdir's
// error kind where memdir gave one. In the examples' SDK answers, <BASE> stands for
// the SDK's directory on the host and <DIRSIZE> for a host directory's inode size.
import { lstat, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';

const create = (path, file_text) => ({ command: 'create', path, file_text });

const LISTING_HEAD = /^Here're the files and directories up to 2 levels deep in (.*), excluding hidden items and node_modules:$/;
const SNIPPET_HEAD = 'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n';
const MANY = /^Error: No replacement was performed\. Multiple occurrences of old_str `[\s\S]*` in lines: ([\d, ]+?)(?: and [\d,]+ more)?\. Please ensure it is unique$/;

/** A directory view as `{path, rows: [{size, shown}]}`, or null if it is not one. */
function listing(answer) {
  if (answer.is_error) return null;
  const [head, ...rows] = answer.content.split('\n');
  const m = LISTING_HEAD.exec(head);
  if (!m || rows.length === 0) return null;
  const parsed = rows.map((r) => {
    const tab = r.indexOf('\t');
    return tab < 0 ? null : { size: r.slice(0, tab), shown: r.slice(tab + 1) };
  });
  return parsed.includes(null) ? null : { path: m[1], rows: parsed };
}

/**
 * Whether the SDK's human-readable size and memdir's can be the same byte count,
 * each read to its printed precision: the SDK prints a whole number only when it is
 * exact (`2K`) and one decimal otherwise (`10.5K`: 10.45-10.55 KiB); the spec prints
 * one decimal below 10 and a rounded whole number above (`11K`: 10.5-11.5 KiB).
 */
function sizesAgree(sdkSize, oursSize) {
  const read = (s, wholeHalf) => {
    const m = /^(\d+)(?:\.(\d))?([BKMG])$/.exec(s);
    if (!m) return null;
    const scale = 1024 ** 'BKMG'.indexOf(m[3]);
    const value = Number(m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`) * scale;
    return { value, half: (m[3] === 'B' ? 0 : m[2] === undefined ? wholeHalf : 0.05) * scale };
  };
  const x = read(sdkSize, 0);
  const y = read(oursSize, 0.5);
  return x !== null && y !== null && Math.abs(x.value - y.value) <= x.half + y.half;
}

/**
 * Two listings of the same entries: the same paths in the same order, every file's
 * size the same byte count; a directory's size is free (the SDK prints its host
 * inode's, memdir the sum of the files beneath).
 */
function sameEntries(theirs, ours) {
  if (theirs.path !== ours.path || theirs.rows.length !== ours.rows.length) return false;
  return theirs.rows.every((t, i) => {
    const o = ours.rows[i];
    if (t.shown !== o.shown) return false;
    const dir = i === 0 || t.shown.endsWith('/');
    return dir ? /^\d+(\.\d)?[BKMG]$/.test(o.size) : sizesAgree(t.size, o.size);
  });
}

const error = (a, text) => a.is_error && a.content === `Error: ${text}`;

export const DIFFERENCES = [
  {
    id: 'directory sizes',
    why: "directory sizes: the SDK prints the host directory inode size, memdir the bytes of the files beneath; and file sizes round by the spec's rule (2.0K, 11K for 10,752 bytes), not the SDK's (2K, 10.5K)",
    recognise(input, sdk, ours) {
      if (input.command !== 'view') return false;
      const t = listing(sdk);
      const o = listing(ours);
      return t !== null && o !== null && sameEntries(t, o);
    },
    example: [
      [create('/memories/a.txt', 'x'.repeat(2048)), create('/memories/d/b.txt', 'x'.repeat(10752))],
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n<DIRSIZE>\t/memories\n2K\t/memories/a.txt\n<DIRSIZE>\t/memories/d/\n10.5K\t/memories/d/b.txt",
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n13K\t/memories\n2.0K\t/memories/a.txt\n11K\t/memories/d/\n11K\t/memories/d/b.txt",
    ],
  },
  {
    id: 'sibling of /memories',
    why: 'a sibling of /memories: the SDK maps /memories_backup/n to /memories/_backup/n; memdir refuses it',
    recognise: (input, sdk, ours) => !sdk.is_error && ours.kind === 'path' && pathsOf(input).some((p) => error(ours, `Path must start with /memories, got: ${p}`)),
    example: [
      [],
      create('/memories_backup/n', 'x'),
      { content: 'File created successfully at: /memories_backup/n', is_error: false },
      { content: 'Error: Path must start with /memories, got: /memories_backup/n', is_error: true },
    ],
  },
  {
    id: 'disguised escape',
    why: 'percent-encoded dots and slashes: the SDK stores a file named %2e%2e%2fx; memdir refuses the disguised escape',
    recognise: (input, sdk, ours) => !sdk.is_error && ours.kind === 'path' && pathsOf(input).some((p) => /%2e|%2f|%5c/i.test(p) && error(ours, `Path ${p} would escape /memories directory`)),
    example: [
      [],
      create('/memories/%2e%2e%2fx', 'x'),
      { content: 'File created successfully at: /memories/%2e%2e%2fx', is_error: false },
      { content: 'Error: Path /memories/%2e%2e%2fx would escape /memories directory', is_error: true },
    ],
  },
  {
    id: 'two occurrences on one line',
    why: 'two occurrences on one line: the SDK counts lines, replaces the first and succeeds; memdir counts occurrences and refuses',
    recognise(input, sdk, ours) {
      const m = input.command === 'str_replace' && ours.is_error ? MANY.exec(ours.content) : null;
      if (!m) return false;
      const lines = m[1].split(', ');
      const distinct = [...new Set(lines)];
      if (distinct.length === lines.length) return false; // no line twice: the SDK would count the same
      if (!sdk.is_error) return sdk.content.startsWith(SNIPPET_HEAD);
      const s = MANY.exec(sdk.content);
      return s !== null && s[1] === distinct.join(', ');
    },
    example: [
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
  },
  {
    id: 'old_str spanning lines',
    why: 'old_str spanning lines: the SDK never finds it; memdir matches over the whole content',
    recognise: (input, sdk, ours) =>
      input.command === 'str_replace' &&
      typeof input.old_str === 'string' &&
      input.old_str.includes('\n') &&
      error(sdk, `No replacement was performed, old_str \`${input.old_str}\` did not appear verbatim in ${input.path}.`) &&
      (ours.is_error ? MANY.test(ours.content) : ours.content.startsWith(SNIPPET_HEAD)),
    example: [
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
  },
  {
    id: 'missing new_str',
    why: 'missing new_str: the SDK writes the text "undefined"; memdir deletes old_str',
    recognise: (input, sdk, ours) =>
      input.command === 'str_replace' &&
      input.new_str === undefined &&
      !sdk.is_error &&
      !ours.is_error &&
      sdk.content.startsWith(SNIPPET_HEAD) &&
      sdk.content.includes('undefined') &&
      ours.content.startsWith(SNIPPET_HEAD),
    example: [
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
  },
  {
    id: 'snippet of a multi-line new_str',
    why: 'snippet of a multi-line new_str: the SDK stops two lines after the first changed line; memdir two after the last inserted line',
    recognise: (input, sdk, ours) =>
      input.command === 'str_replace' &&
      typeof input.new_str === 'string' &&
      input.new_str.includes('\n') &&
      !sdk.is_error &&
      !ours.is_error &&
      sdk.content.startsWith(SNIPPET_HEAD) &&
      ours.content.startsWith(`${sdk.content}\n`),
    example: [
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
  },
  {
    id: 'view_range outside the file',
    why: 'a view_range outside the file: the SDK shows what its slice gives (here nothing); memdir says which element is wrong',
    recognise: (input, sdk, ours) =>
      input.command === 'view' &&
      Array.isArray(input.view_range) &&
      !sdk.is_error &&
      ours.is_error &&
      ours.content.startsWith(`Error: Invalid \`view_range\`: [${input.view_range.join(', ')}]. `),
    example: [
      [create('/memories/a.txt', 'one\ntwo')],
      { command: 'view', path: '/memories/a.txt', view_range: [5, 9] },
      { content: "Here's the content of /memories/a.txt with line numbers:\n", is_error: false },
      {
        content: 'Error: Invalid `view_range`: [5, 9]. Its first element `5` should be within the range of lines of the file: [1, 2]',
        is_error: true,
      },
    ],
  },
  {
    id: 'creating under a file',
    why: 'creating under a file: the SDK passes on the raw ENOTDIR with the host path; memdir names the file in the way',
    recognise: (input, sdk, ours) =>
      input.command === 'create' &&
      sdk.is_error &&
      sdk.content.startsWith('Error: ENOTDIR: ') &&
      ours.is_error &&
      /^Error: Cannot create \S+: \S+ is a file, not a directory$/.test(ours.content),
    example: [
      [create('/memories/a.txt', 'x')],
      create('/memories/a.txt/x', 'x'),
      { content: "Error: ENOTDIR: not a directory, realpath '<BASE>/memories/a.txt/x'", is_error: true },
      { content: 'Error: Cannot create /memories/a.txt/x: /memories/a.txt is a file, not a directory', is_error: true },
    ],
  },
  {
    id: 'moving a directory inside itself',
    why: 'moving a directory inside itself: the SDK passes on the raw EINVAL with host paths; memdir explains',
    recognise: (input, sdk, ours) =>
      input.command === 'rename' &&
      sdk.is_error &&
      sdk.content.startsWith('Error: EINVAL: ') &&
      ours.is_error &&
      ours.content === `Error: Cannot rename ${input.old_path} to ${input.new_path}: ${input.new_path} is inside ${input.old_path}`,
    example: [
      [create('/memories/d/f', 'x')],
      { command: 'rename', old_path: '/memories/d', new_path: '/memories/d/e' },
      { content: "Error: EINVAL: invalid argument, rename '<BASE>/memories/d' -> '<BASE>/memories/d/e'", is_error: true },
      { content: 'Error: Cannot rename /memories/d to /memories/d/e: /memories/d/e is inside /memories/d', is_error: true },
    ],
  },
  {
    id: 'str_replace on a directory',
    why: 'str_replace on a directory: the SDK says "is not a file"; memdir answers as for a missing file (spec)',
    recognise: (input, sdk, ours) =>
      input.command === 'str_replace' &&
      error(sdk, `The path ${input.path} is not a file.`) &&
      error(ours, `The path ${input.path} does not exist. Please provide a valid path.`),
    example: [
      [create('/memories/d/f', 'x')],
      { command: 'str_replace', path: '/memories/d', old_str: 'x', new_str: 'y' },
      { content: 'Error: The path /memories/d is not a file.', is_error: true },
      { content: 'Error: The path /memories/d does not exist. Please provide a valid path.', is_error: true },
    ],
  },
  {
    id: 'insert on a directory',
    why: 'insert on a directory: the SDK says "is not a file"; memdir answers as for a missing file (spec)',
    recognise: (input, sdk, ours) =>
      input.command === 'insert' &&
      error(sdk, `The path ${input.path} is not a file.`) &&
      error(ours, `The path ${input.path} does not exist. Please provide a valid path.`),
    example: [
      [create('/memories/d/f', 'x')],
      { command: 'insert', path: '/memories/d', insert_line: 0, insert_text: 'y' },
      { content: 'Error: The path /memories/d is not a file.', is_error: true },
      { content: 'Error: The path /memories/d does not exist. Please provide a valid path.', is_error: true },
    ],
  },
  {
    id: 'a path beneath a file',
    why: 'a path beneath a file (other than create): the SDK passes on the raw ENOTDIR with the host path; memdir says the path does not exist',
    recognise: (input, sdk, ours) =>
      ['view', 'str_replace', 'insert', 'delete', 'rename'].includes(input.command) &&
      sdk.is_error &&
      sdk.content.startsWith('Error: ENOTDIR: ') &&
      ours.is_error &&
      /^Error: The path \S+ does not exist(\. Please provide a valid path\.)?$/.test(ours.content),
    example: [
      [create('/memories/a.txt', 'x')],
      { command: 'view', path: '/memories/a.txt/x' },
      { content: "Error: ENOTDIR: not a directory, realpath '<BASE>/memories/a.txt/x'", is_error: true },
      { content: 'Error: The path /memories/a.txt/x does not exist. Please provide a valid path.', is_error: true },
    ],
  },
  {
    id: 'rename of a missing path onto an existing one',
    why: 'renaming a missing path onto an existing one: the SDK checks the destination first; memdir the source, as delete does',
    recognise: (input, sdk, ours) =>
      input.command === 'rename' &&
      error(sdk, `The destination ${input.new_path} already exists`) &&
      error(ours, `The path ${input.old_path} does not exist`),
    example: [
      [create('/memories/b.md', 'x')],
      { command: 'rename', old_path: '/memories/a.md', new_path: '/memories/b.md' },
      { content: 'Error: The destination /memories/b.md already exists', is_error: true },
      { content: 'Error: The path /memories/a.md does not exist', is_error: true },
    ],
  },
  {
    id: 'trailing slash',
    why: 'a trailing slash: the SDK echoes it and doubles the separator; memdir uses the canonical path',
    recognise(input, sdk, ours) {
      if (input.command !== 'view' || typeof input.path !== 'string' || !input.path.endsWith('/')) return false;
      const t = listing(sdk);
      const o = listing(ours);
      if (t === null || o === null || t.path !== input.path) return false;
      const canonical = input.path.replace(/\/+$/, '');
      const unslash = (shown) => (shown === input.path ? canonical : shown.startsWith(`${input.path}/`) ? `${canonical}/${shown.slice(input.path.length + 1)}` : null);
      const rows = t.rows.map((r) => ({ ...r, shown: unslash(r.shown) }));
      return !rows.some((r) => r.shown === null) && sameEntries({ path: canonical, rows }, o);
    },
    example: [
      [create('/memories/d/f', 'x')],
      { command: 'view', path: '/memories/d/' },
      "Here're the files and directories up to 2 levels deep in /memories/d/, excluding hidden items and node_modules:\n<DIRSIZE>\t/memories/d/\n1B\t/memories/d//f",
      "Here're the files and directories up to 2 levels deep in /memories/d, excluding hidden items and node_modules:\n1B\t/memories/d\n1B\t/memories/d/f",
    ],
  },
  {
    id: 'per-file limit',
    why: 'a file over the per-file limit (100 KiB): the SDK writes it; memdir refuses with the limit',
    recognise: (input, sdk, ours) =>
      ['create', 'str_replace', 'insert'].includes(input.command) &&
      !sdk.is_error &&
      ours.is_error &&
      ours.kind === 'limit' &&
      / over the limit of [\d,]+ bytes per file\. Nothing was written\.$/.test(ours.content),
    example: [
      [],
      create('/memories/big.txt', 'x'.repeat(102_401)),
      { content: 'File created successfully at: /memories/big.txt', is_error: false },
      {
        content: 'Error: Cannot write /memories/big.txt: the content would be 102,401 bytes, over the limit of 102,400 bytes per file. Nothing was written.',
        is_error: true,
      },
    ],
  },
  {
    id: 'non-integer insert_line',
    why: 'a non-integer insert_line: the SDK splices at 1.5 (as 1); memdir refuses',
    recognise: (input, sdk, ours) =>
      input.command === 'insert' &&
      typeof input.insert_line === 'number' &&
      !Number.isInteger(input.insert_line) &&
      !sdk.is_error &&
      ours.is_error &&
      ours.content.startsWith(`Error: Invalid \`insert_line\` parameter: ${input.insert_line}. `),
    example: [
      [create('/memories/a.txt', 'one\ntwo')],
      { command: 'insert', path: '/memories/a.txt', insert_line: 1.5, insert_text: 'x' },
      { content: 'The file /memories/a.txt has been edited.', is_error: false },
      {
        content: 'Error: Invalid `insert_line` parameter: 1.5. It should be within the range of lines of the file: [0, 2]',
        is_error: true,
      },
    ],
  },
];

function pathsOf(input) {
  return ['path', 'old_path', 'new_path'].map((k) => input?.[k]).filter((p) => typeof p === 'string');
}

/**
 * memdir's answer to `input` against the SDK's: `{verdict: 'equal'}`,
 * `{verdict: 'documented', id}` (one of DIFFERENCES), or `{verdict: 'unexpected',
 * why}`. An answer of memdir's showing any of `hostPaths` (the SDK's directory, a
 * directory store's) is unexpected whatever else it says.
 */
export function compare(input, sdk, ours, { hostPaths = [] } = {}) {
  const leaked = hostPaths.find((p) => ours.content.includes(p));
  if (leaked !== undefined) return { verdict: 'unexpected', why: `memdir's answer shows the host path ${leaked}` };
  if (sdk.content === ours.content && sdk.is_error === ours.is_error) return { verdict: 'equal' };
  const d = DIFFERENCES.find((x) => x.recognise(input, sdk, ours));
  return d ? { verdict: 'documented', id: d.id } : { verdict: 'unexpected', why: 'not a documented difference' };
}

/** How the SDK's runner turns a handler's outcome into a tool_result. */
export async function answerOf(run) {
  try {
    return { content: await run(), is_error: false };
  } catch (e) {
    const answer = { content: `Error: ${e.message}`, is_error: true };
    if (typeof e.kind === 'string') answer.kind = e.kind;
    return answer;
  }
}

/** The SDK's directory (`base`) as memdir entries (directories without content), sorted. */
export async function sdkEntries(base) {
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
