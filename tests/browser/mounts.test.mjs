// Mounts in the browser: one memory over two IndexedDB stores, `team` read-only
// (filled beforehand by opening it alone) and `me` read-write. The exact tool
// answers are asserted; the `team` database, read raw through the IndexedDB API
// (every object store, key and value), is the same after as before; after a
// reload the `me` store still has what was written to it. Then every write path
// of tests/conformance/write-paths.mjs, each over two fresh databases.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { readIndexedDb, useBrowser, watchErrors } from './chromium.mjs';
import { FACES } from '../conformance/write-paths.mjs';

// The write-path table, handed to the page under a path the explorer's server
// does not serve (it serves only what the package and the page need).
const WRITE_PATHS = fileURLToPath(new URL('../conformance/write-paths.mjs', import.meta.url));

const env = useBrowser();

const TEAM = 'mounts-team';
const ME = 'mounts-me';

const MOUNTS = { team: TEAM, me: ME };
const INSTRUCTIONS =
  'Your memory directory is /memories. It holds 2 memory stores:\n' +
  '- /memories/team (read-only): Team conventions.\n' +
  '  Read them before any task.\n' +
  '- /memories/me (read-write): Your own notes.\n' +
  'A read-only store can be viewed but not changed.\n';

/** In the page: `window.memory` over both IndexedDB stores. */
function openMounted(page) {
  return page.evaluate(async ({ team, me }) => {
    const m = await import('/js/browser.js');
    window.memory = await m.openMemory({
      mounts: [
        { name: 'team', store: m.indexedDbStore(team), access: 'read_only', description: 'Team conventions.', instructions: 'Read them before any task.' },
        { name: 'me', store: m.indexedDbStore(me), access: 'read_write', description: 'Your own notes.' },
      ],
      actor: 'sesn_browser_mounts',
    });
  }, MOUNTS);
}

/** In the page: each tool input through `memory.execute`, its answer. */
function run(page, inputs) {
  return page.evaluate(async (inputs) => {
    const out = [];
    for (const input of inputs) out.push(await window.memory.execute(input));
    return out;
  }, inputs);
}

/** The database `name` read raw (see readIndexedDb), or null if the origin has none of that name. */
async function readDatabase(page, name) {
  const [database] = await page.evaluate(readIndexedDb, name);
  return database ?? null;
}

test('two IndexedDB stores in one memory: exact answers, the read-only database unchanged, the writable one kept across a reload', async (t) => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do

  // The team's store, filled by opening it alone.
  const filled = await page.evaluate(async (team) => {
    const m = await import('/js/browser.js');
    const alone = await m.openMemory({ store: m.indexedDbStore(team) });
    const r = await alone.execute({ command: 'create', path: '/memories/conventions.md', file_text: 'Use ISO dates.\n' });
    alone.close();
    return r;
  }, TEAM);
  assert.deepEqual(filled, { content: 'File created successfully at: /memories/conventions.md', is_error: false });

  const teamBefore = await readDatabase(page, `memdir:${TEAM}`);
  assert.ok(teamBefore, `no database memdir:${TEAM} after filling it`);
  const records = Object.values(teamBefore.stores).flat().length;
  assert.ok(records > 0, 'the team database holds no records');
  t.diagnostic(`memdir:${TEAM}: ${Object.keys(teamBefore.stores).length} object stores, ${records} records`);

  await openMounted(page);
  assert.equal(await page.evaluate(() => window.memory.instructions()), INSTRUCTIONS);

  const cases = [
    [
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n15B\t/memories\n0B\t/memories/me/\n15B\t/memories/team/\n15B\t/memories/team/conventions.md",
      false,
    ],
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
    [{ command: 'delete', path: '/memories/team/conventions.md' }, 'Error: Cannot delete /memories/team/conventions.md: the memory store mounted at /memories/team is read-only', true],
    [
      { command: 'rename', old_path: '/memories/me/plan.md', new_path: '/memories/team/plan.md' },
      'Error: Cannot rename /memories/me/plan.md to /memories/team/plan.md: they are in different memory stores (create it in the other store, then delete it here)',
      true,
    ],
    [
      { command: 'rename', old_path: '/memories/team/conventions.md', new_path: '/memories/me/conventions.md' },
      'Error: Cannot rename /memories/team/conventions.md to /memories/me/conventions.md: they are in different memory stores (create it in the other store, then delete it here)',
      true,
    ],
    [
      { command: 'view', path: '/memories/team/conventions.md' },
      "Here's the content of /memories/team/conventions.md with line numbers:\n     1\tUse ISO dates.\n     2\t",
      false,
    ],
    [
      { command: 'view', path: '/memories' },
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n23B\t/memories\n8B\t/memories/me/\n8B\t/memories/me/plan.md\n15B\t/memories/team/\n15B\t/memories/team/conventions.md",
      false,
    ],
  ];
  const answers = await run(
    page,
    cases.map(([input]) => input),
  );
  for (let i = 0; i < cases.length; i++) {
    const [input, content, isError] = cases[i];
    assert.deepEqual(answers[i], { content, is_error: isError }, JSON.stringify(input));
  }

  assert.deepEqual(await readDatabase(page, `memdir:${TEAM}`), teamBefore, 'the read-only database changed');

  // A reload: the page, its wasm and its connections are gone; IndexedDB stays.
  await page.reload();
  await openMounted(page);
  const reread = await run(page, [{ command: 'view', path: '/memories/me/plan.md' }]);
  assert.deepEqual(reread, [{ content: "Here's the content of /memories/me/plan.md with line numbers:\n     1\tShip it.", is_error: false }]);
  assert.deepEqual(
    await page.evaluate(() => window.memory.entries()),
    [
      { path: '/memories/me' },
      { path: '/memories/me/plan.md', content: 'Ship it.' },
      { path: '/memories/team' },
      { path: '/memories/team/conventions.md', content: 'Use ISO dates.\n' },
    ],
  );
  // The `me` store alone, as any other page of the origin would open it.
  const alone = await page.evaluate(async (me) => {
    const m = await import('/js/browser.js');
    const mem = await m.openMemory({ store: m.indexedDbStore(me) });
    const entries = await mem.entries();
    mem.close();
    return entries;
  }, ME);
  assert.deepEqual(alone, [{ path: '/memories/plan.md', content: 'Ship it.' }]);
  assert.deepEqual(await readDatabase(page, `memdir:${TEAM}`), teamBefore, 'the read-only database changed across the reload');

  assert.deepEqual(errors, []);
  await context.close();
});

test('every write path × access over IndexedDB: the answers of write-paths.mjs, the read-only database unchanged', async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.route(`${env.url}/__tests/write-paths.mjs`, (route) => route.fulfill({ path: WRITE_PATHS, contentType: 'text/javascript' }));
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do

  let n = 0;
  for (const [face, { readOnly, readWrite, archived }] of Object.entries(FACES)) {
    assert.notEqual(archived, undefined, `${face} names no archived answer`);
    const [team, me] = [`wp-${n}-team`, `wp-${n}-me`];
    n += 1;
    // In the page: each store seeded alone; the ids of both.
    const ids = await page.evaluate(
      async ({ team, me }) => {
        const m = await import('/js/browser.js');
        const wp = await import('/__tests/write-paths.mjs');
        const seeded = async (name) => {
          const alone = await m.openMemory({ store: m.indexedDbStore(name), clock: () => wp.SEED_CLOCK });
          const ids = await wp.seed(alone);
          alone.close();
          return ids;
        };
        return { team: await seeded(team), me: await seeded(me) };
      },
      { team, me },
    );
    const before = await readDatabase(page, `memdir:${team}`);
    assert.ok(before && Object.values(before.stores).flat().length > 0, `${face}: the seeded database is empty`);
    // In the page: the face over `team` mounted with `access` (and `me` read-write), at
    // `at`; with `archiveTeam`, team's store archived first (step 4).
    const runFace = (access, at, archiveTeam = false) =>
      page.evaluate(
        async ({ face, team, me, access, at, ids, archiveTeam }) => {
          const m = await import('/js/browser.js');
          const wp = await import('/__tests/write-paths.mjs');
          const memory = await m.openMemory({
            mounts: [
              { name: 'team', store: m.indexedDbStore(team), access },
              { name: 'me', store: m.indexedDbStore(me) },
            ],
            clock: () => wp.OPEN_CLOCK,
          });
          try {
            if (archiveTeam) await wp.archive(memory, 'team');
            return await wp.FACES[face].run(memory, at, ids);
          } finally {
            memory.close();
          }
        },
        { face, team, me, access, at, ids: at === 'team' ? ids.team : ids.me, archiveTeam },
      );
    assert.deepEqual(await runFace('read_only', 'team'), readOnly, face);
    assert.deepEqual(await readDatabase(page, `memdir:${team}`), before, `${face} changed the read-only database`);
    if (readWrite !== null) assert.deepEqual(await runFace('read_write', 'me'), readWrite, `${face} on the writable store`);
    if (archived !== null) assert.deepEqual(await runFace('read_write', 'team', true), archived, `${face} on the archived store`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});
