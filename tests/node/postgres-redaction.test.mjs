// A redaction on postgresStore, on a private PostgreSQL cluster
// (tests/node/pg-cluster.mjs): a renamed memory's old path and content are in no
// row of any table of the database when the call answers, and the store left
// behind reads whole, through another pool too.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPostgres } from './pg-cluster.mjs';
import { memdir } from './helpers.mjs';

let cluster;
const opened = [];
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

/** Every row of every table of the database, as PostgreSQL writes a row as text (a bytea in hex). */
function everyRow() {
  const tables = cluster
    .psql("SELECT quote_ident(table_schema) || '.' || quote_ident(table_name) FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')")
    .split('\n')
    .filter(Boolean);
  assert.ok(tables.length > 0);
  return tables.map((t) => cluster.psql(`SELECT t::text FROM ${t} t`)).join('\n');
}

test("a renamed memory's old path and content are in no row of the database when the redaction answers", async () => {
  const memory = await memdir.openMemory({ store: store('redaction') });
  const api = async (request) => {
    const r = await memory.api({ query: {}, body: null, ...request });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };
  const holding = (needle) => {
    const rows = everyRow();
    return rows.includes(needle) || rows.includes(Buffer.from(needle).toString('hex'));
  };
  await api({ op: 'memory.create', body: JSON.stringify({ path: '/other.md', content: 'other' }) });
  const m = await api({ op: 'memory.create', body: JSON.stringify({ path: '/secret-name.md', content: 'PLUM-CONTENT-77' }) });
  await api({ op: 'memory.create', body: JSON.stringify({ path: '/later.md', content: 'later' }) });
  await api({ op: 'memory.update', id: m.id, body: JSON.stringify({ path: '/public.md', content: 'public' }) });
  // The scan finds both before: it can fail.
  assert.deepEqual([holding('secret-name'), holding('PLUM-CONTENT-77')], [true, true]);
  const redacted = await api({ op: 'version.redact', id: m.id.replace('mem_', 'memver_') });
  assert.deepEqual([redacted.path ?? null, redacted.content_sha256 ?? null], [null, null]);
  assert.deepEqual([holding('secret-name'), holding('PLUM-CONTENT-77')], [false, false]);
  // What is left is whole, through another pool too.
  const again = await memdir.openMemory({ store: store('redaction') });
  for (const keepCommits of [1000, 0, 0]) await again.gc({ keepCommits });
  const listed = await again.api({ op: 'memory.list', query: {}, body: null });
  assert.deepEqual(
    listed.body.data.map((x) => x.path),
    ['/later.md', '/other.md', '/public.md'],
  );
  again.close();
  memory.close();
});
