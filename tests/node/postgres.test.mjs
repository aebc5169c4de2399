// postgresStore on a private PostgreSQL cluster (tests/node/pg-cluster.mjs): the
// store-contract suite, every tampered store of the hostile-store data, writers in
// several pools racing on one store with nothing lost, a refused commit that writes
// nothing, namespaces kept apart, a value over the limit refused by the server,
// errors that never carry the server's text or address, a store deleted through
// one instance while another writes to it, and what one instance commits coming
// with another's next read (counted in queries, checked like any row, and the
// numbering added in place to a table made before it); the tables each earlier build
// made brought up to date at start and one of another shape refused; `pg` missing;
// the password from PGPASSWORD or ~/.pgpass; a store moved to another workspace; a
// redaction meeting another instance's retention pass.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import pg from 'pg';
import { expected, observe } from '../conformance/hostile-stores.mjs';
import { startPostgres } from './pg-cluster.mjs';
import { MEMDIR_BIN, loadJson, memdir, runNode, startServe } from './helpers.mjs';
import { apiHandler, postgresCatalog } from 'memdir/server';
import { glue } from '../../js/glue.js';
import { SCHEMA_LOCK } from '../../js/stores/postgres.js';

const bytes = (s) => new TextEncoder().encode(s);
const text = (b) => (b === undefined ? undefined : new TextDecoder().decode(b));

let cluster;
const opened = [];
// Each test's stores, closed at the end so no pool outlives the test file.
const store = (namespace) => {
  const s = memdir.postgresStore(cluster.url(), { namespace });
  opened.push(s);
  return s;
};

before(async () => {
  cluster = await startPostgres();
});
after(async () => {
  await Promise.all(opened.map((s) => s.close()));
  cluster?.stop();
});

describe('postgresStore', () => {
  test('passes the store-contract suite', async () => {
    await memdir.checkStoreContract(store('contract'));
  });

  test('a memory over it, read back through another pool', async () => {
    const memory = await memdir.openMemory({ store: store('memory') });
    const made = await memory.execute({ command: 'create', path: '/memories/notes.md', file_text: 'Ada likes tea.' });
    assert.deepEqual(made, { content: 'File created successfully at: /memories/notes.md', is_error: false });
    const again = await memdir.openMemory({ store: store('memory') });
    const seen = await again.execute({ command: 'view', path: '/memories/notes.md' });
    assert.deepEqual(seen, { content: "Here's the content of /memories/notes.md with line numbers:\n     1\tAda likes tea.", is_error: false });
  });

  test('8 writers in two pools: every acknowledged write is there, once', async () => {
    const memories = await Promise.all(
      Array.from({ length: 8 }, (_, i) => memdir.openMemory({ store: store('race'), maxRetries: 200 }).then((m) => [i, m])),
    );
    const acked = [];
    await Promise.all(
      memories.map(async ([i, m]) => {
        for (let n = 0; n < 10; n++) {
          const r = await m.execute({ command: 'create', path: `/memories/w${i}/f${n}.md`, file_text: `${i}:${n}` });
          if (!r.is_error) acked.push(`${i}:${n}`);
        }
      }),
    );
    assert.equal(acked.length, 80);
    const entries = await memories[0][1].entries();
    const files = entries.filter((e) => e.content !== undefined && e.content !== null).map((e) => e.content).sort();
    assert.deepEqual(files, acked.sort());
  });

  test('a commit whose head moved writes nothing', async () => {
    const s = store('refused');
    assert.equal(await s.compareAndSwap('head', undefined, bytes('h1')), true);
    assert.equal(await s.commit([['blob/x', bytes('object')]], 'head', bytes('h0'), bytes('h2')), false);
    assert.equal(await s.commit([['blob/y', bytes('object')]], 'head', undefined, bytes('h2')), false);
    assert.deepEqual(await s.list(''), { keys: ['head'] });
    assert.equal(text(await s.get('head')), 'h1');
    assert.equal(await s.commit([['blob/z', bytes('object')]], 'head', bytes('h1'), bytes('h2')), true);
    assert.deepEqual(await s.list(''), { keys: ['blob/z', 'head'] });
  });

  test('namespaces are apart', async () => {
    const a = store('ns-a');
    const b = store('ns-b');
    await a.set('k', bytes('a'));
    assert.equal(await b.get('k'), undefined);
    assert.deepEqual(await b.list(''), { keys: [] });
  });

  test('a stored value over the limit is refused before it is sent', async () => {
    const s = store('huge');
    await s.set('blob/big', bytes('small'));
    cluster.psql("UPDATE memdir_kv SET value = convert_to(repeat('a', 64 * 1024 * 1024 + 1), 'UTF8') WHERE namespace = 'huge'");
    await assert.rejects(s.get('blob/big'), { name: 'PostgresStoreError', message: 'the PostgreSQL store holds a value over the size limit' });
  });

  test('a catalog whose database it cannot reach says so as the catalog, naming no host, and connects once it can', async () => {
    const catalog = postgresCatalog(cluster.url('appears_later'));
    await assert.rejects(catalog.ready(), { name: 'PostgresStoreError', message: 'the PostgreSQL catalog could not connect to its database' });
    // A failed connection is not kept: the next request connects afresh.
    cluster.psql('CREATE DATABASE appears_later');
    await catalog.ready();
    assert.deepEqual(await catalog.ids(), []);
    await catalog.close();
  });

  test("a database it cannot reach fails in the engine's words, naming no host", async () => {
    const pool = new pg.Pool({ connectionString: cluster.url('no_such_database'), connectionTimeoutMillis: 2000 });
    const gone = memdir.postgresStore(pool, { namespace: 'x' });
    await assert.rejects(gone.get('head'), { name: 'PostgresStoreError', message: 'the PostgreSQL store could not connect to its database' });
    const memory = await memdir.openMemory({ store: gone });
    const r = await memory.execute({ command: 'view', path: '/memories' });
    assert.deepEqual(r, { content: "Error: The memory directory's storage failed; nothing was changed.", is_error: true });
    await pool.end();
  });
});

describe('all or nothing when the database fails mid-command', () => {
  // A pool whose k-th query (on any connection, inside a transaction or not) fails,
  // as a dropped connection would.
  function faulty(pool, failAt) {
    let n = 0;
    const maybe = (run) => (n++ === failAt ? Promise.reject(new Error('injected failure')) : run());
    return {
      query: (...args) => maybe(() => pool.query(...args)),
      async connect() {
        const client = await pool.connect();
        return { query: (...args) => maybe(() => client.query(...args)), release: (broken) => client.release(broken) };
      },
      on() {},
      get failed() {
        return n > failAt;
      },
    };
  }
  const keysAndValues = async (namespace) =>
    cluster.psql(`SELECT key || '=' || md5(value) FROM memdir_kv WHERE namespace = '${namespace}' ORDER BY key`);

  test('every failure point of a write leaves the store as before or as after, key for key', async () => {
    const pool = new pg.Pool({ connectionString: cluster.url() });
    try {
      let outcomes = new Set();
      for (let k = 0; ; k++) {
        const ns = `fault-${k}`;
        const clean = await memdir.openMemory({ store: memdir.postgresStore(pool, { namespace: ns }) });
        await clean.execute({ command: 'create', path: '/memories/a.md', file_text: 'alpha\n' });
        const before = await keysAndValues(ns);
        const fault = faulty(pool, k);
        const memory = await memdir.openMemory({ store: memdir.postgresStore(fault, { namespace: ns }), maxRetries: 0 });
        const r = await memory.execute({ command: 'str_replace', path: '/memories/a.md', old_str: 'alpha', new_str: 'beta' });
        const after = await keysAndValues(ns);
        const seen = await clean.execute({ command: 'view', path: '/memories/a.md' });
        if (r.is_error) {
          assert.equal(r.content, "Error: The memory directory's storage failed; nothing was changed.", `failure at query ${k}`);
          assert.equal(after, before, `failure at query ${k} left a trace`);
          assert.match(seen.content, /alpha/);
          outcomes.add('refused');
        } else {
          assert.match(seen.content, /beta/, `query ${k}`);
          outcomes.add('done');
        }
        if (!fault.failed) break; // the command ran out of queries before the failure point
      }
      assert.deepEqual([...outcomes].sort(), ['done', 'refused']);
    } finally {
      await pool.end();
    }
  });
});

describe('the CLI and the MCP server on a PostgreSQL store', () => {
  test('memdir --store postgres://… writes, another process reads, and each exits at once', async () => {
    const env = { PATH: process.env.PATH };
    const made = await runNode([MEMDIR_BIN, '--store', cluster.url(), 'create', '/memories/cli.md', 'from the CLI'], env, 20_000);
    assert.deepEqual(made, { code: 0, stdout: 'File created successfully at: /memories/cli.md\n', stderr: '' });
    const started = Date.now();
    const seen = await runNode([MEMDIR_BIN, '--store', cluster.url(), 'view', '/memories/cli.md'], env, 20_000);
    assert.deepEqual(seen, { code: 0, stdout: "Here's the content of /memories/cli.md with line numbers:\n     1\tfrom the CLI\n", stderr: '' });
    // The pool is closed when the command ends, not left to idle out.
    assert.ok(Date.now() - started < 8_000, `took ${Date.now() - started} ms`);
  });

  test('memdir mcp --store postgres://… answers an MCP client from the same store', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [MEMDIR_BIN, 'mcp', '--store', cluster.url()], stderr: 'pipe' });
    const client = new Client({ name: 'pg-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const r = await client.callTool({ name: 'memory', arguments: { command: 'view', path: '/memories/cli.md' } });
      assert.deepEqual(r, { content: [{ type: 'text', text: "Here's the content of /memories/cli.md with line numbers:\n     1\tfrom the CLI" }], isError: false });
    } finally {
      await client.close();
    }
  });
});

describe('without node-postgres installed', () => {
  // tests/node/without-pg.mjs makes `pg` unresolvable in the child, as on a machine
  // where only memdir is installed.
  const WITHOUT_PG = fileURLToPath(new URL('./without-pg.mjs', import.meta.url));
  const HINT = 'memdir: a PostgreSQL store needs node-postgres, which memdir does not install by itself: npm install pg@8\n';
  const env = { PATH: process.env.PATH, MEMDIR_API_KEYS: 'k' };

  test('the command line, the MCP server and serve say to install it, and exit', async () => {
    for (const args of [['--store', cluster.url(), 'view', '/memories'], ['mcp', '--store', cluster.url()], ['serve', '--port', '0', '--store', cluster.url()]]) {
      const r = await runNode(['--import', WITHOUT_PG, MEMDIR_BIN, ...args], env, 20_000);
      assert.deepEqual(r, { code: 2, stdout: '', stderr: HINT }, args.join(' '));
    }
  });
});

describe('a database that asks for a password', () => {
  // A cluster of its own whose TCP connections need the password (SCRAM). The URL
  // never holds it: an argument shows in `ps`, to every user of the machine.
  const PASSWORD = 'pw-QUINCE-5521';
  let locked;
  let home;
  before(async () => {
    locked = await startPostgres({ password: PASSWORD });
    home = mkdtempSync(join(tmpdir(), 'memdir-pghome-'));
  });
  after(() => {
    locked?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test('is reached with PGPASSWORD or a password file, and refused without, in memdir\'s words', async () => {
    const url = locked.url();
    assert.equal(url.includes(PASSWORD), false);
    const env = { PATH: process.env.PATH, HOME: home };
    const run = (extra, ...args) => runNode([MEMDIR_BIN, '--store', url, ...args], { ...env, ...extra }, 20_000);
    assert.deepEqual(await run({}, 'view', '/memories'), { code: 2, stdout: '', stderr: 'memdir: the PostgreSQL store could not connect to its database\n' });
    assert.deepEqual(await run({ PGPASSWORD: PASSWORD }, 'create', '/memories/pw.md', 'kept'), {
      code: 0,
      stdout: 'File created successfully at: /memories/pw.md\n',
      stderr: '',
    });
    // ~/.pgpass, as libpq reads it (node-postgres 8 reads it too, and says once on
    // stderr that pg 9 will not).
    writeFileSync(join(home, '.pgpass'), `127.0.0.1:${locked.port}:*:postgres:${PASSWORD}\n`, { mode: 0o600 });
    const seen = await run({}, 'view', '/memories/pw.md');
    assert.deepEqual([seen.code, seen.stdout], [0, "Here's the content of /memories/pw.md with line numbers:\n     1\tkept\n"]);
    assert.match(seen.stderr, /^\(node:\d+\) DeprecationWarning: pgpass support is deprecated and will be removed in pg@9\.0\./);
  });
});

describe('two memdir serve instances on one database', () => {
  const KEY = 'pg-key';
  const sha = (t) => createHash('sha256').update(t).digest('hex');
  const client = (s) => new Anthropic({ apiKey: KEY, baseURL: s.url, logLevel: 'off', maxRetries: 0 });

  test('answer as one service: writes, races, deletes, and a SIGKILL mid-write', async (t) => {
    const db = 'serve';
    cluster.psql(`CREATE DATABASE ${db}`);
    const args = ['--store', cluster.url(db)];
    // Two workspaces: KEY's (the default) and team-b's.
    const env = { MEMDIR_API_KEYS: `${KEY},key-b=team-b` };
    let [a, b] = await Promise.all([startServe(args, env), startServe(args, env)]);
    try {
      const [A, B] = [client(a), client(b)];
      const store = await A.beta.memoryStores.create({ name: 'Shared' });
      assert.equal((await B.beta.memoryStores.retrieve(store.id)).name, 'Shared');

      // 8 clients, 4 on each instance, 10 writes each: all acknowledged, all read back.
      const acked = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          const c = i % 2 ? A : B;
          for (let n = 0; n < 10; n++) {
            await c.beta.memoryStores.memories.create(store.id, { path: `/c${i}/m${n}.md`, content: `${i}:${n}` });
            acked.push(`/c${i}/m${n}.md`);
          }
        }),
      );
      const listed = [];
      for await (const m of B.beta.memoryStores.memories.list(store.id, { limit: 100 })) listed.push(m.path);
      assert.deepEqual(listed.sort(), acked.sort());

      // One memory, one precondition, an update through each instance: one winner.
      const m = await A.beta.memoryStores.memories.create(store.id, { path: '/race.md', content: 'v0' });
      const update = (c, content) =>
        c.beta.memoryStores.memories
          .update(m.id, { memory_store_id: store.id, content, precondition: { type: 'content_sha256', content_sha256: sha('v0') } })
          .then(
            () => 'won',
            (e) => e.status,
          );
      const outcomes = await Promise.all([update(A, 'from a'), update(B, 'from b')]);
      assert.deepEqual([...outcomes].sort(), [409, 'won']);
      const winner = outcomes[0] === 'won' ? 'from a' : 'from b';
      assert.equal((await B.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: store.id })).content, winner);

      // SIGKILL one instance while it writes: what it acknowledged is there.
      const before = [];
      const writing = (async () => {
        for (let n = 0; ; n++) {
          await A.beta.memoryStores.memories.create(store.id, { path: `/killed/k${n}.md`, content: `${n}` });
          before.push(`/killed/k${n}.md`);
        }
      })().catch(() => {});
      while (before.length < 5) await new Promise((r) => setTimeout(r, 20));
      a.child.kill('SIGKILL');
      await writing;
      a = await startServe(args, env);
      const after = [];
      for await (const x of client(a).beta.memoryStores.memories.list(store.id, { path_prefix: '/killed/', limit: 100 })) after.push(x.path);
      for (const p of before) assert.ok(after.includes(p), `${p} was acknowledged and lost`);
      t.diagnostic(
        `8 clients on 2 instances: ${acked.length} writes acknowledged, ${listed.length} listed; race: ${outcomes.join(' / ')}; ` +
          `SIGKILL after ${before.length} acknowledged writes: ${after.length} present after the restart`,
      );

      // The other workspace's key, on either instance, sees none of it.
      for (const s of [a, b]) {
        const other = new Anthropic({ apiKey: 'key-b', baseURL: s.url, logLevel: 'off', maxRetries: 0 });
        assert.deepEqual((await other.beta.memoryStores.list()).data, []);
        const status = await other.beta.memoryStores.retrieve(store.id).then(() => 200, (e) => e.status);
        assert.equal(status, 404);
        const own = await other.beta.memoryStores.create({ name: 'B' });
        assert.deepEqual((await B.beta.memoryStores.list()).data.map((x) => x.id), [store.id]);
        await other.beta.memoryStores.delete(own.id);
      }

      // Deleted through one instance: gone at once on the other, which had it open.
      await client(a).beta.memoryStores.delete(store.id);
      const gone = await B.beta.memoryStores.retrieve(store.id).then(
        () => 200,
        (e) => e.status,
      );
      assert.equal(gone, 404);
      assert.deepEqual((await B.beta.memoryStores.list()).data, []);
    } finally {
      for (const s of [a, b]) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
    }
  });
});

describe('a store deleted through one instance while another writes to it', () => {
  // Two catalogs in one process stand for two instances; the second one's commit is
  // held until the first has deleted the store, by holding its statement here.
  test('the write answers 404 and leaves no key behind; the store is gone on both', async () => {
    cluster.psql('CREATE DATABASE gone');
    const url = cluster.url('gone');
    const [A, B] = [postgresCatalog(url), postgresCatalog(url)];
    const [a, b] = [A, B].map((catalog) => apiHandler({ catalog, keys: ['k'] }));
    const call = async (handle, method, path, body) => {
      const headers = { 'x-api-key': 'k', 'content-type': 'application/json' };
      const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers, body: body && JSON.stringify(body) }));
      return { status: r.status, body: await r.json() };
    };
    const query = pg.Client.prototype.query;
    try {
      const { id } = (await call(a, 'POST', '', { name: 'doomed' })).body;
      assert.equal((await call(a, 'POST', `/${id}/memories`, { path: '/one.md', content: 'one' })).status, 200);
      assert.equal((await call(b, 'GET', `/${id}/memories`)).status, 200); // open on B too

      let release;
      const held = new Promise((r) => (release = r));
      let reached;
      const committing = new Promise((r) => (reached = r));
      pg.Client.prototype.query = function (config, ...rest) {
        if (typeof config?.text === 'string' && config.text.startsWith('WITH swapped') && reached) {
          reached();
          reached = undefined;
          return held.then(() => query.call(this, config, ...rest));
        }
        return query.call(this, config, ...rest);
      };
      const late = call(b, 'POST', `/${id}/memories`, { path: '/late.md', content: 'late' });
      await committing;
      assert.equal((await call(a, 'DELETE', `/${id}`)).status, 200);
      release();
      assert.deepEqual(await late, { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'No memory store with this id.' } } });
      pg.Client.prototype.query = query;

      assert.equal(cluster.psql(`SELECT count(*) FROM memdir_kv WHERE namespace = '${id}'`, 'gone').trim(), '0');
      for (const handle of [a, b]) assert.equal((await call(handle, 'GET', `/${id}/memories`)).status, 404);
    } finally {
      pg.Client.prototype.query = query;
      await Promise.all([A.close(), B.close()]);
    }
  });
});

describe('a redaction while another instance runs its retention pass', () => {
  // The redaction's store runs the other instance's retention pass right when the
  // redaction, published, starts erasing the version's old record: the pass drops
  // that version (older than its period, not the memory's current one).
  test('answers the version as the redaction left it, not a false "damaged record"', async () => {
    const namespace = 'redact-race';
    const theirs = await memdir.openMemory({ store: store(namespace) });
    let cut;
    const pgStore = store(namespace);
    // The store's own methods, without its cross-process turn: the other instance's
    // pass must not wait for this write's turn.
    const { inTurn, ...plain } = pgStore;
    assert.equal(typeof inTurn, 'function');
    const mine = await memdir.openMemory({
      store: {
        ...plain,
        delete: async (key) => {
          if (key.startsWith('rec/') && cut) {
            const run = cut;
            cut = undefined;
            await run();
          }
          return pgStore.delete(key);
        },
      },
    });
    const api = async (m, request) => m.api(request);
    const id = memdir.newStoreId();
    assert.equal((await api(mine, { op: 'store.create', id, body: '{"name":"Race"}' })).status, 200);
    const made = await api(mine, { op: 'memory.create', body: '{"path":"/s.md","content":"secret QUINCE"}' });
    await api(mine, { op: 'memory.update', id: made.body.id, body: '{"content":"public"}' });
    const [, first] = (await api(mine, { op: 'version.list', query: { memory_id: made.body.id } })).body.data;
    await new Promise((r) => setTimeout(r, 5)); // older than a period of 1 ms
    let dropped;
    cut = async () => {
      dropped = (await theirs.retain({ olderThanMs: 1 })).dropped;
    };
    const r = await api(mine, { op: 'version.redact', id: first.id, body: '{}' });
    assert.equal(dropped, 1);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(
      [r.body.id, r.body.operation, r.body.path, r.body.content_sha256, r.body.redacted_at === null],
      [first.id, 'created', null, null, false],
    );
    assert.equal((await api(mine, { op: 'version.retrieve', id: first.id })).status, 404);
    mine.close();
    theirs.close();
  });
});

describe('a store moved to another workspace in the database', () => {
  test("is gone for the old workspace's keys at once, on the instance that has it open, and there for the new one's", async () => {
    cluster.psql('CREATE DATABASE moved');
    const catalog = postgresCatalog(cluster.url('moved'));
    const handle = apiHandler({ catalog, keys: ['key-a', 'key-b=team-b'] });
    const call = async (key, method, path, body) => {
      const headers = { 'x-api-key': key, 'content-type': 'application/json' };
      const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers, body: body && JSON.stringify(body) }));
      return { status: r.status, body: await r.json() };
    };
    const NO_STORE = { status: 404, body: { type: 'error', error: { type: 'not_found_error', message: 'No memory store with this id.' } } };
    try {
      const { id } = (await call('key-a', 'POST', '', { name: 'Moving' })).body;
      assert.equal((await call('key-a', 'POST', `/${id}/memories`, { path: '/kept.md', content: 'kept' })).status, 200);
      assert.equal((await call('key-a', 'GET', `/${id}/memories`)).status, 200); // open here, for workspace default
      assert.deepEqual(await call('key-b', 'GET', `/${id}/memories`), NO_STORE);
      cluster.psql(`UPDATE memdir_stores SET workspace = 'team-b' WHERE id = '${id}'`, 'moved');
      assert.deepEqual(await call('key-a', 'GET', `/${id}/memories`), NO_STORE);
      assert.deepEqual(await call('key-a', 'POST', `/${id}/memories`, { path: '/late.md', content: 'late' }), NO_STORE);
      assert.deepEqual((await call('key-a', 'GET', '')).body.data, []);
      const seen = await call('key-b', 'GET', `/${id}/memories`);
      assert.deepEqual([seen.status, seen.body.data.map((m) => m.path)], [200, ['/kept.md']]);
      assert.equal(cluster.psql(`SELECT count(*) FROM memdir_kv WHERE namespace = '${id}' AND position('late'::bytea in value) > 0`, 'moved').trim(), '0');
    } finally {
      await catalog.close();
    }
  });
});

describe('a catalogued store while its catalog row is deleted', () => {
  // The catalog deletes a store's row and then its keys in one transaction. A commit
  // that reaches the database between the two must wait for the row and then write
  // nothing: had it gone in, the keys it wrote after the delete began would outlive
  // the store, and its writer would have been told the write was kept.
  test('a commit meeting the delete under way waits for it, then writes nothing', async () => {
    cluster.psql('CREATE DATABASE catalogued');
    const url = cluster.url('catalogued');
    cluster.psql(`CREATE TABLE memdir_stores (id text COLLATE "C" PRIMARY KEY, workspace text NOT NULL DEFAULT 'default'); INSERT INTO memdir_stores (id) VALUES ('s1')`, 'catalogued');
    const s = memdir.postgresStore(url, { namespace: 's1', catalogued: true });
    const other = memdir.postgresStore(url, { namespace: 'free' });
    const deleting = new pg.Client({ connectionString: url });
    await deleting.connect();
    try {
      assert.equal(await s.commit([['blob/a', bytes('a')]], 'head', undefined, bytes('h1')), true);
      await deleting.query('BEGIN');
      await deleting.query("DELETE FROM memdir_stores WHERE id = 's1'");
      let settled = false;
      const commit = s.commit([['blob/b', bytes('b')]], 'head', bytes('h1'), bytes('h2')).finally(() => (settled = true));
      // On until the commit waits on the row (or, unguarded, has already finished).
      while (!settled && cluster.psql("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'", 'catalogued').trim() === '0') {
        await new Promise((r) => setTimeout(r, 10));
      }
      await deleting.query("DELETE FROM memdir_kv WHERE namespace = 's1'");
      await deleting.query('COMMIT');
      assert.equal(await commit, false);
      assert.equal(cluster.psql("SELECT count(*) FROM memdir_kv WHERE namespace = 's1'", 'catalogued').trim(), '0');
      await assert.rejects(s.get('head'), { name: 'PostgresStoreError', message: 'this memory store was deleted' });
      await assert.rejects(s.set('blob/c', bytes('c')), { name: 'PostgresStoreError', message: 'this memory store was deleted' });
      // A store that is not catalogued has no row to ask for.
      assert.equal(await other.commit([['blob/a', bytes('a')]], 'head', undefined, bytes('h1')), true);
      assert.equal(text(await other.get('head')), 'h1');
    } finally {
      await deleting.end();
      await Promise.all([s.close(), other.close()]);
    }
  });
});

describe('writes through several processes take turns', () => {
  // Two stores on their own pools stand for two processes. A write must wait while
  // the other holds the namespace's turn, and go on once it is given back, or once
  // a holder that stopped has held it longer than a turn may last.
  let url;
  const advisory = (state) =>
    cluster.psql(`SELECT count(*) FROM pg_stat_activity WHERE datname = 'turns' AND ${state}`, 'turns').trim();
  // Until `done()`, for at most 20 s (the turn's wait twice over).
  const poll = async (done, what) => {
    const until = Date.now() + 20_000;
    while (!done()) {
      if (Date.now() > until) throw new Error(`still waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  before(() => {
    cluster.psql('CREATE DATABASE turns');
    url = cluster.url('turns');
  });

  test('a write waits for the turn another process holds, then goes in', async () => {
    const holder = store('t1');
    const memory = await memdir.openMemory({ store: memdir.postgresStore(url, { namespace: 't1' }) });
    const mine = memdir.postgresStore(url, { namespace: 't1' });
    const other = await memdir.openMemory({ store: mine });
    let give;
    const holding = new Promise((r) => (give = r));
    let had;
    const held = new Promise((r) => (had = r));
    const turn = memdir.postgresStore(url, { namespace: 't1' });
    opened.push(turn, mine);
    const taken = turn.inTurn(() => {
      had();
      return holding;
    });
    await held;
    let settled = false;
    const write = memory.execute({ command: 'create', path: '/memories/a.md', file_text: 'a\n' }).finally(() => (settled = true));
    // On until the write waits on the advisory lock (or, with no turn, has finished).
    await poll(() => settled || advisory("wait_event = 'advisory'") !== '0', 'the write or its wait');
    assert.equal(settled, false, 'the write went in while another process held the turn');
    give('given back');
    assert.equal(await taken, 'given back');
    assert.deepEqual(await write, { content: 'File created successfully at: /memories/a.md', is_error: false });
    assert.match((await other.execute({ command: 'view', path: '/memories/a.md' })).content, /a$/m);
    memory.close();
    other.close();
  });

  test('a holder that stopped holds no one up past the turn\'s wait, and ending its session ends no process', async () => {
    const stopped = memdir.postgresStore(url, { namespace: 't2' });
    opened.push(stopped);
    let had;
    const held = new Promise((r) => (had = r));
    let wake;
    const asleep = new Promise((r) => (wake = r));
    // Gives the turn back only when the test ends (else its pool could never close).
    const holding = stopped.inTurn(() => {
      had();
      return asleep;
    });
    await held;
    try {
      const memory = await memdir.openMemory({ store: store('t2') });
      const r = await memory.execute({ command: 'create', path: '/memories/b.md', file_text: 'b\n' });
      assert.deepEqual(r, { content: 'File created successfully at: /memories/b.md', is_error: false });
      // The server ended the idle holder's session; this process got the error and lives on.
      await poll(() => advisory("state = 'idle in transaction'") === '0', 'the server to end the idle holder');
      memory.close();
    } finally {
      wake();
      await holding;
    }
  });

  test('a pool of one connection holds no turn, so its writes do not wait on themselves', { timeout: 30_000 }, async () => {
    const one = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const memory = await memdir.openMemory({ store: memdir.postgresStore(one, { namespace: 't3' }) });
      for (const path of ['/memories/c.md', '/memories/d.md']) {
        assert.deepEqual(await memory.execute({ command: 'create', path, file_text: 'c\n' }), {
          content: `File created successfully at: ${path}`,
          is_error: false,
        });
      }
      memory.close();
    } finally {
      await one.end();
    }
  });

  test('a pool that never hands out a connection holds a write up no longer than the turn\'s wait', { timeout: 30_000 }, async () => {
    const real = new pg.Pool({ connectionString: url });
    // Queries go through as ever; a connection of its own, which a turn takes, never comes.
    const stuck = { query: (...args) => real.query(...args), connect: () => new Promise(() => {}), options: { max: 10 } };
    try {
      const memory = await memdir.openMemory({ store: memdir.postgresStore(stuck, { namespace: 't4' }) });
      const r = await memory.execute({ command: 'create', path: '/memories/e.md', file_text: 'e\n' });
      assert.deepEqual(r, { content: 'File created successfully at: /memories/e.md', is_error: false });
      memory.close();
    } finally {
      await real.end();
    }
  });
});

describe('upkeep on PostgreSQL', () => {
  test('two instances, each on its own timer: versions past the period go, rows follow what is kept', async () => {
    const db = 'upkeep';
    cluster.psql(`CREATE DATABASE ${db}`);
    const args = ['--store', cluster.url(db), '--retention', '2s', '--upkeep-every', '1s'];
    const env = { MEMDIR_API_KEYS: 'pg-upkeep-key' };
    const [a, b] = await Promise.all([startServe(args, env), startServe(args, env)]);
    try {
      const [A, B] = [a, b].map((s) => new Anthropic({ apiKey: 'pg-upkeep-key', baseURL: s.url, logLevel: 'off', maxRetries: 0 }));
      const { id } = await A.beta.memoryStores.create({ name: 'Churn' });
      const m = await A.beta.memoryStores.memories.create(id, { path: '/churn.md', content: 'churn 0' });
      // 40 updates, alternating instances, while both run their rounds.
      for (let i = 1; i <= 40; i++) await (i % 2 ? A : B).beta.memoryStores.memories.update(m.id, { memory_store_id: id, content: `churn ${i}` });
      const rows = () => Number(cluster.psql(`SELECT count(*) FROM memdir_kv WHERE namespace = '${id}'`, db).trim());
      const holding = () => Number(cluster.psql(`SELECT count(*) FROM memdir_kv WHERE namespace = '${id}' AND position('churn 1'::bytea in value) > 0`, db).trim());
      const peak = rows();
      assert.ok(peak > 80, `${peak} rows`);
      // Retention drops the versions at one round, gc deletes their rows a whole
      // interval later (gc_after): wait for both, within a bound.
      const deadline = Date.now() + 30_000;
      while ((holding() > 0 || rows() >= 12) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
      assert.equal(holding(), 0, 'no row holds a dropped version\'s text');
      assert.ok(rows() < 12, `${rows()} rows left of ${peak}`);
      const versions = [];
      for await (const v of B.beta.memoryStores.memoryVersions.list(id)) versions.push(v.id);
      assert.equal(versions.length, 1);
      assert.equal((await A.beta.memoryStores.memories.retrieve(m.id, { memory_store_id: id })).content, 'churn 40');
    } finally {
      for (const s of [a, b]) await s.stop();
    }
  });
});

describe('tampered stores on postgresStore', () => {
  const { probes, cases } = loadJson('hostile-stores.json');
  for (const [i, c] of cases.entries()) {
    test(c.name, async () => {
      const s = store(`hostile-${i}`);
      assert.deepEqual(await observe(s, () => memdir.openMemory({ store: s }), probes, c), expected(c));
    });
  }
});

describe("another instance's commits come with the next read", () => {
  // Two stores on their own pools stand for two `memdir serve` instances; each pool
  // counts the queries its store sends (the turns' own connections aside).
  let url;
  const pools = [];
  const counted = () => {
    const pool = new pg.Pool({ connectionString: url });
    pools.push(pool);
    const query = pool.query.bind(pool);
    let n = 0;
    pool.query = (...args) => {
      n += 1;
      return query(...args);
    };
    return { pool, count: () => n };
  };
  before(() => {
    cluster.psql('CREATE DATABASE recent');
    url = cluster.url('recent');
  });
  after(async () => {
    await Promise.all(pools.map((p) => p.end()));
  });

  /** Instance A writes two files; instance B has read one of them. */
  async function twoInstances(namespace) {
    const a = counted();
    const b = counted();
    const mine = await memdir.openMemory({ store: memdir.postgresStore(a.pool, { namespace }) });
    for (const name of ['a', 'b']) {
      await mine.execute({ command: 'create', path: `/memories/notes/${name}.md`, file_text: `${name} one\n` });
    }
    const theirs = await memdir.openMemory({ store: memdir.postgresStore(b.pool, { namespace }) });
    assert.match((await theirs.execute({ command: 'view', path: '/memories/notes/a.md' })).content, /a one/);
    return { mine, theirs, b };
  }

  test("a read after the other's write takes two queries: the head with what it committed, and the file", async () => {
    const { mine, theirs, b } = await twoInstances('ahead');
    await mine.execute({ command: 'str_replace', path: '/memories/notes/b.md', old_str: 'one', new_str: 'two' });
    const before = b.count();
    const seen = await theirs.execute({ command: 'view', path: '/memories/notes/b.md' });
    assert.deepEqual(seen, {
      content: "Here's the content of /memories/notes/b.md with line numbers:\n     1\tb two\n     2\t",
      is_error: false,
    });
    // Without the rows that came ahead: the head, the commit, the root, /notes and the file.
    assert.equal(b.count() - before, 2);
    mine.close();
    theirs.close();
  });

  test('a row that came ahead is checked like any: one changed in the database is damage', async () => {
    const { mine, theirs } = await twoInstances('ahead-tampered');
    await mine.execute({ command: 'str_replace', path: '/memories/notes/b.md', old_str: 'one', new_str: 'two' });
    // The newest commit now holds the one before it, well formed: only its hash tells
    // it from the commit its key names (taken for it, the file would read as before).
    cluster.psql(
      "WITH c AS (SELECT key, seq FROM memdir_kv WHERE namespace = 'ahead-tampered' AND key LIKE 'commit/%') " +
        "UPDATE memdir_kv SET value = (SELECT value FROM memdir_kv WHERE namespace = 'ahead-tampered' AND key = (SELECT key FROM c ORDER BY seq DESC LIMIT 1 OFFSET 1)) " +
        "WHERE namespace = 'ahead-tampered' AND key = (SELECT key FROM c ORDER BY seq DESC LIMIT 1)",
      'recent',
    );
    const seen = await theirs.execute({ command: 'view', path: '/memories/notes/b.md' });
    assert.deepEqual(seen, {
      content: "Error: The memory directory's storage is damaged: a stored record is missing or unreadable.",
      is_error: true,
    });
    mine.close();
    theirs.close();
  });

  test('a read answered with more rows than it may bring is refused, and none of them is kept', async () => {
    // A database answering as the caller scripts it: every statement of the schema
    // step finds what it looks for made; each read answers `next`.
    let next;
    let reads = 0;
    const fake = {
      options: { max: 10 },
      connect: () => new Promise(() => {}),
      query: async (q) => {
        if (typeof q === 'object' && q.text.includes('WITH one AS')) {
          reads += 1;
          return { rows: next };
        }
        // The schema step's one look at the tables: all there, of the shape it needs.
        const column = (type, collation = 'C') => ({ type, collation });
        if (q.includes('memdir_vectors')) {
          const vectors = { namespace: column('text'), key: column('text'), fingerprint: column('text'), value: column('bytea', null) };
          return { rows: [{ columns: vectors, kind: 'r', index: true, vector: null, halfvec: false }] };
        }
        const columns = { 'memdir_kv.namespace': column('text'), 'memdir_kv.key': column('text'), 'memdir_kv.value': column('bytea', null), 'memdir_kv.seq': column('bigint', null) };
        return { rows: [{ columns, tables: { memdir_kv: 'r' }, sequence: true, index: true, unique_key: true }] };
      },
    };
    const s = memdir.postgresStore(fake, { namespace: 'scripted' });
    const own = (value) => ({ listed: true, n: value.length, value: bytes(value), key: null, seq: '1' });
    const others = (n) => Array.from({ length: n }, (_, i) => ({ listed: null, n: null, value: bytes(`kept ${i}`), key: `tree/${i}`, seq: String(i + 2) }));
    const { aheadRows } = glue.postgresRules();
    next = [own('head'), ...others(aheadRows + 1)];
    await assert.rejects(s.get('head'), { name: 'PostgresStoreError', message: 'the PostgreSQL store answered a read with rows of another shape' });
    next = [own('from the database')];
    assert.equal(text(await s.get('tree/0')), 'from the database');
    // As many as a read may bring: kept, and the next read of one is answered without a query.
    next = [own('head'), ...others(aheadRows)];
    assert.equal(text(await s.get('head')), 'head');
    const before = reads;
    assert.equal(text(await s.get(`tree/${aheadRows - 1}`)), `kept ${aheadRows - 1}`);
    assert.equal(reads, before);
  });

  test('a table made before rows were numbered gets the numbers in place, its rows kept', async () => {
    const { mine } = await twoInstances('before-numbers');
    mine.close();
    // As a build before them left the table: no column, no sequence (the index goes with the column).
    cluster.psql('ALTER TABLE memdir_kv DROP COLUMN seq; DROP SEQUENCE memdir_kv_seq', 'recent');
    const c = counted();
    const again = await memdir.openMemory({ store: memdir.postgresStore(c.pool, { namespace: 'before-numbers' }) });
    const seen = await again.execute({ command: 'view', path: '/memories/notes/a.md' });
    assert.deepEqual(seen, { content: "Here's the content of /memories/notes/a.md with line numbers:\n     1\ta one\n     2\t", is_error: false });
    assert.deepEqual(await again.execute({ command: 'create', path: '/memories/notes/c.md', file_text: 'c\n' }), {
      content: 'File created successfully at: /memories/notes/c.md',
      is_error: false,
    });
    const made = cluster.psql(
      "SELECT to_regclass('memdir_kv_seq') IS NOT NULL, to_regclass('memdir_kv_recent') IS NOT NULL, " +
        "(SELECT count(*) FROM memdir_kv WHERE namespace = 'before-numbers' AND seq IS NOT NULL) > 0",
      'recent',
    );
    assert.equal(made.trim(), 't|t|t');
    again.close();
  });
});

describe('a database an earlier build made', () => {
  // The tables as each earlier build created them (`git show COMMIT:js/api/catalog-pg.js`
  // and `…:js/stores/postgres.js`): the first store (b0e5fec) had no row numbers,
  // the first catalog (e982d0f) no workspaces, and workspaces (a72b01a) came before
  // the row numbers (a944e1d).
  const KV_FIRST = 'CREATE TABLE memdir_kv (namespace text COLLATE "C" NOT NULL, key text COLLATE "C" NOT NULL, value bytea NOT NULL, PRIMARY KEY (namespace, key))';
  const VARIANTS = {
    e982d0f: [KV_FIRST, 'CREATE TABLE memdir_stores (id text COLLATE "C" PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now())'],
    a72b01a: [KV_FIRST, 'CREATE TABLE memdir_stores (id text COLLATE "C" PRIMARY KEY, workspace text COLLATE "C" NOT NULL DEFAULT \'default\', created_at timestamptz NOT NULL DEFAULT now())'],
  };
  const KEY = 'old-key';
  const sdk = (s) => new Anthropic({ apiKey: KEY, baseURL: s.url, logLevel: 'off', maxRetries: 0 });
  const status = (p) => p.then(() => 200, (e) => e.status);
  let made; // what a current build wrote: the store's id and every row

  before(async () => {
    // A store written by this build, its rows then copied into each old schema.
    cluster.psql('CREATE DATABASE old_source');
    const s = await startServe(['--store', cluster.url('old_source')], { MEMDIR_API_KEYS: KEY });
    try {
      const c = sdk(s);
      const { id } = await c.beta.memoryStores.create({ name: 'Kept' });
      const m = await c.beta.memoryStores.memories.create(id, { path: '/notes/a.md', content: 'alpha' });
      await c.beta.memoryStores.memories.update(m.id, { memory_store_id: id, content: 'alpha 2' });
      await c.beta.memoryStores.memories.create(id, { path: '/notes/b.md', content: 'beta' });
      made = { id, memory: m.id };
    } finally {
      await s.stop();
    }
    const source = new pg.Client({ connectionString: cluster.url('old_source') });
    await source.connect();
    try {
      made.kv = (await source.query('SELECT namespace, key, value FROM memdir_kv')).rows;
      made.stores = (await source.query('SELECT id, created_at FROM memdir_stores')).rows;
    } finally {
      await source.end();
    }
  });

  async function oldDatabase(name, schema) {
    cluster.psql(`CREATE DATABASE ${name}`);
    const c = new pg.Client({ connectionString: cluster.url(name) });
    await c.connect();
    try {
      for (const statement of schema) await c.query(statement);
      for (const r of made.kv) await c.query('INSERT INTO memdir_kv (namespace, key, value) VALUES ($1, $2, $3)', [r.namespace, r.key, r.value]);
      for (const r of made.stores) await c.query('INSERT INTO memdir_stores (id, created_at) VALUES ($1, $2)', [r.id, r.created_at]);
    } finally {
      await c.end();
    }
    return cluster.url(name);
  }

  for (const [commit, schema] of Object.entries(VARIANTS)) {
    test(`as ${commit} left it: two instances starting at once bring it up to date, every route answers, nothing is lost`, async () => {
      const db = `old_${commit}`;
      const url = await oldDatabase(db, schema);
      const [a, b] = await Promise.all([0, 1].map(() => startServe(['--store', url], { MEMDIR_API_KEYS: KEY })));
      try {
        const [A, B] = [sdk(a), sdk(b)];
        const { id } = made;
        assert.deepEqual((await A.beta.memoryStores.list()).data.map((s) => [s.id, s.name]), [[id, 'Kept']]);
        assert.equal((await B.beta.memoryStores.retrieve(id)).name, 'Kept');
        const paths = [];
        for await (const m of B.beta.memoryStores.memories.list(id)) paths.push(m.path);
        assert.deepEqual(paths, ['/notes/a.md', '/notes/b.md']);
        assert.equal((await A.beta.memoryStores.memories.retrieve(made.memory, { memory_store_id: id })).content, 'alpha 2');
        const found = await A.get(`/v1/memory_stores/${id}/memories/search`, { query: { query: 'BETA' } });
        assert.deepEqual(found.data.map((r) => r.path), ['/notes/b.md']);
        await B.beta.memoryStores.memories.update(made.memory, { memory_store_id: id, content: 'alpha 3' });
        const c = await A.beta.memoryStores.memories.create(id, { path: '/notes/c.md', content: 'gamma' });
        await B.beta.memoryStores.memories.delete(c.id, { memory_store_id: id });
        const history = [];
        for await (const v of A.beta.memoryStores.memoryVersions.list(id, { memory_id: made.memory })) history.push(v);
        assert.deepEqual(history.map((v) => v.operation), ['modified', 'modified', 'created']);
        assert.equal((await B.beta.memoryStores.memoryVersions.retrieve(history[2].id, { memory_store_id: id })).content, 'alpha');
        assert.equal((await A.beta.memoryStores.memoryVersions.redact(history[2].id, { memory_store_id: id })).content ?? null, null);
        await A.beta.memoryStores.update(id, { description: 'still here' });
        const other = await B.beta.memoryStores.create({ name: 'New' });
        await A.beta.memoryStores.delete(other.id);
        assert.equal(await status(B.beta.memoryStores.retrieve(other.id)), 404);
        assert.deepEqual((await B.beta.memoryStores.list()).data.map((s) => [s.id, s.description]), [[id, 'still here']]);
        // The old store is the default workspace's (the only one there was), and the
        // rows are numbered from here on.
        assert.equal(cluster.psql(`SELECT workspace FROM memdir_stores WHERE id = '${id}'`, db).trim(), 'default');
        assert.equal(cluster.psql("SELECT to_regclass('memdir_kv_seq') IS NOT NULL, to_regclass('memdir_kv_recent') IS NOT NULL", db).trim(), 't|t');
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    });
  }

  test('an instance starting while another makes the tables waits for it, then finds them made', async () => {
    cluster.psql('CREATE DATABASE racing_start');
    const url = cluster.url('racing_start');
    // The other instance, mid-way: under the schema lock, its tables made but not committed.
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    const catalog = postgresCatalog(url);
    try {
      await other.query(`BEGIN; SELECT pg_advisory_xact_lock(${SCHEMA_LOCK})`);
      await other.query(VARIANTS.a72b01a[0]);
      await other.query(VARIANTS.a72b01a[1]);
      let settled = false;
      const starting = catalog.ready().finally(() => (settled = true));
      starting.catch(() => {});
      // Until this one waits on the other (for the lock; without it, on the other's
      // uncommitted tables, and then it would collide with them).
      const deadline = Date.now() + 10_000;
      while (cluster.psql('SELECT count(*) FROM pg_locks WHERE NOT granted', 'racing_start').trim() === '0' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(settled, false);
      await other.query('COMMIT');
      await starting;
      assert.deepEqual((await catalog.ids()), []);
      assert.equal(cluster.psql("SELECT to_regclass('memdir_kv_seq') IS NOT NULL", 'racing_start').trim(), 't');
    } finally {
      await other.end();
      await catalog.close();
    }
  });

  test('a table it cannot use is a startup error saying which and why, and is left as it was', async () => {
    const env = { PATH: process.env.PATH, MEMDIR_API_KEYS: KEY };
    const url = await oldDatabase('old_unusable', [KV_FIRST, "CREATE TABLE memdir_stores (id text PRIMARY KEY, workspace integer NOT NULL DEFAULT 0, created_at timestamptz NOT NULL DEFAULT now())"]);
    const started = await runNode([MEMDIR_BIN, 'serve', '--port', '0', '--store', url], env, 20_000);
    assert.deepEqual(started, {
      code: 2,
      stdout: '',
      stderr: 'memdir: the PostgreSQL database holds a memdir_stores table memdir cannot use (its column workspace is not text); rename or drop it, or name another database\n',
    });
    // The command line's store: a memdir_kv of another shape.
    cluster.psql('CREATE DATABASE old_other_kv');
    cluster.psql('CREATE TABLE memdir_kv (namespace text, key text, value text, PRIMARY KEY (namespace, key))', 'old_other_kv');
    const viewed = await runNode([MEMDIR_BIN, '--store', cluster.url('old_other_kv'), 'view', '/memories'], env, 20_000);
    assert.deepEqual(viewed, {
      code: 2,
      stdout: '',
      stderr: 'memdir: the PostgreSQL database holds a memdir_kv table memdir cannot use (its column value is not bytea); rename or drop it, or name another database\n',
    });
    // Neither table was touched: no column added, no sequence made.
    assert.equal(cluster.psql("SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'memdir_stores'::regclass AND attnum > 0", 'old_unusable').trim(), 'id,workspace,created_at');
    assert.equal(cluster.psql("SELECT string_agg(attname, ',' ORDER BY attnum) FROM pg_attribute WHERE attrelid = 'memdir_kv'::regclass AND attnum > 0", 'old_other_kv').trim(), 'namespace,key,value');
    assert.equal(cluster.psql("SELECT to_regclass('memdir_kv_seq') IS NULL", 'old_other_kv').trim(), 't');
  });
});
