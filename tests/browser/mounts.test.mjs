// Mounts in the browser: the shared scenario of tests/conformance/mounts.json (the
// one tests/mounts.rs, the host and Node run) over IndexedDB stores, each filled
// beforehand by opening it alone. The exact tool answers are asserted; the
// read-only database, read raw through the IndexedDB API (every object store, key
// and value), is the same after as before; after a reload the writable store still
// has what was written to it. Then every write path of
// tests/conformance/write-paths.mjs, each over two fresh databases.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { readIndexedDb, useBrowser, watchErrors } from './chromium.mjs';
import { FACES } from '../conformance/write-paths.mjs';

// The write-path table, handed to the page under a path the explorer's server
// does not serve (it serves only what the package and the page need).
const WRITE_PATHS = fileURLToPath(new URL('../conformance/write-paths.mjs', import.meta.url));
const SCENARIO = JSON.parse(readFileSync(new URL('../conformance/mounts.json', import.meta.url), 'utf8'));

const env = useBrowser();

/** Each mount of the scenario with the IndexedDB database its store is kept in. */
const MOUNTS = SCENARIO.mounts.map((m) => ({ ...m, database: `mounts-${m.name}` }));
const READ_ONLY = MOUNTS.filter((m) => m.access === 'read_only');
const WRITABLE = MOUNTS.filter((m) => m.access === 'read_write');

/** In the page: `window.memory` over every mount's IndexedDB store. */
function openMounted(page) {
  return page.evaluate(async (mounts) => {
    const m = await import('/js/browser.js');
    window.memory = await m.openMemory({
      mounts: mounts.map(({ name, access, database }) => ({ name, access, store: m.indexedDbStore(database) })),
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

/** Every read-only mount's database, read raw. */
async function readOnlyDatabases(page) {
  const out = {};
  for (const m of READ_ONLY) out[m.name] = await readDatabase(page, `memdir:${m.database}`);
  return out;
}

test('the shared scenario over IndexedDB stores: exact answers, the read-only database unchanged, the writable one kept across a reload', async (t) => {
  assert.ok(READ_ONLY.length > 0 && WRITABLE.length > 0 && SCENARIO.steps.length > 0, 'the scenario mounts a read-only and a writable store');
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const errors = watchErrors(page);
  await page.goto(`${env.url}/www/serve.mjs`); // any same-origin document will do

  // Each store filled by opening it alone.
  const filled = await page.evaluate(async (mounts) => {
    const m = await import('/js/browser.js');
    const out = [];
    for (const { database, files } of mounts) {
      const alone = await m.openMemory({ store: m.indexedDbStore(database) });
      for (const [path, text] of Object.entries(files)) out.push(await alone.execute({ command: 'create', path, file_text: text }));
      alone.close();
    }
    return out;
  }, MOUNTS);
  const files = MOUNTS.flatMap((m) => Object.keys(m.files));
  assert.deepEqual(
    filled,
    files.map((path) => ({ content: `File created successfully at: ${path}`, is_error: false })),
  );

  const before = await readOnlyDatabases(page);
  for (const [name, database] of Object.entries(before)) {
    assert.ok(database, `no database for the read-only store ${name} after filling it`);
    const records = Object.values(database.stores).flat().length;
    assert.ok(records > 0, `the ${name} database holds no records`);
    t.diagnostic(`${name}: ${Object.keys(database.stores).length} object stores, ${records} records`);
  }

  await openMounted(page);
  assert.equal(await page.evaluate(() => window.memory.instructions()), SCENARIO.instructions);
  const answers = await run(
    page,
    SCENARIO.steps.map(([input]) => input),
  );
  for (let i = 0; i < SCENARIO.steps.length; i++) {
    const [input, content, isError] = SCENARIO.steps[i];
    assert.deepEqual(answers[i], { content, is_error: isError }, JSON.stringify(input));
  }
  assert.deepEqual(await readOnlyDatabases(page), before, 'a read-only database changed');

  // What the steps left, as the memory lists it; the writable stores hold some of it.
  const entries = await page.evaluate(() => window.memory.entries());
  const written = WRITABLE.flatMap(({ name }) => entries.filter((e) => e.path.startsWith(`/memories/${name}/`) && e.content !== undefined));
  assert.ok(written.length > 0, 'the steps wrote nothing to a writable store');

  // A reload: the page, its wasm and its connections are gone; IndexedDB stays.
  await page.reload();
  await openMounted(page);
  assert.deepEqual(await page.evaluate(() => window.memory.entries()), entries);
  // Each writable store alone, as any other page of the origin would open it.
  for (const { name, database } of WRITABLE) {
    const alone = await page.evaluate(async (database) => {
      const m = await import('/js/browser.js');
      const mem = await m.openMemory({ store: m.indexedDbStore(database) });
      const entries = await mem.entries();
      mem.close();
      return entries;
    }, database);
    const mine = entries
      .filter((e) => e.path.startsWith(`/memories/${name}/`))
      .map((e) => ({ ...e, path: `/memories/${e.path.slice(`/memories/${name}/`.length)}` }));
    assert.deepEqual(alone, mine, `the ${name} store opened alone`);
  }
  assert.deepEqual(await readOnlyDatabases(page), before, 'a read-only database changed across the reload');

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
