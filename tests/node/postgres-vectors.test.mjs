// Vectors on postgresStore, on a private PostgreSQL cluster (tests/node/pg-cluster.mjs)
// whose server has pgvector (scripts/setup.d/pgvector.sh builds it from Debian's
// source package): the extension itself, then the store's vector table with and
// without it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startPostgres } from './pg-cluster.mjs';

let cluster;
before(async () => {
  cluster = await startPostgres();
});
after(() => {
  cluster?.stop();
});

describe('pgvector in the test cluster', () => {
  test('CREATE EXTENSION vector works: 0.8 or newer, with halfvec, HNSW and iterative index scans', () => {
    cluster.psql('CREATE DATABASE with_vector');
    cluster.psql('CREATE EXTENSION vector', 'with_vector');
    const version = cluster.psql("SELECT extversion FROM pg_extension WHERE extname = 'vector'", 'with_vector').trim().split('.').map(Number);
    assert.ok(version[0] > 0 || version[1] >= 8, `pgvector ${version.join('.')} is older than 0.8`);
    assert.equal(cluster.psql("LOAD 'vector'; SET hnsw.iterative_scan = relaxed_order; SHOW hnsw.iterative_scan", 'with_vector'), 'relaxed_order\n');
    assert.equal(cluster.psql("SELECT '[1,0.5,-2]'::halfvec(3)::text", 'with_vector'), '[1,0.5,-2]\n');
    cluster.psql('CREATE TABLE t (v halfvec(3)); CREATE INDEX ON t USING hnsw (v halfvec_cosine_ops)', 'with_vector');
    assert.equal(cluster.psql("INSERT INTO t VALUES ('[1,0,0]'), ('[0,1,0]'); SELECT v::text FROM t ORDER BY v <=> '[0.9,0.1,0]' LIMIT 1", 'with_vector'), '[1,0,0]\n');
  });
});

// The engine's stored form of a vector (src/search/vectors.rs): `MDVE`, format 1,
// the dimensions, the scale, one signed byte a dimension.
function stored(q, scale = 0.01) {
  const out = new Uint8Array(13 + q.length);
  out.set([0x4d, 0x44, 0x56, 0x45, 1]);
  const view = new DataView(out.buffer);
  view.setUint32(5, q.length, true);
  view.setFloat32(9, scale, true);
  q.forEach((x, i) => view.setInt8(13 + i, x));
  return out;
}
const FP = 'f'.repeat(32);
const hash = (n) => n.toString(16).padStart(64, '0');
const vkey = (n, fp = FP) => `vec/${hash(n)}/${fp}`;
const rounded = (found) => found.map(([h, c]) => [h, Math.round(c * 1e4) / 1e4]);

describe('postgresStore vectors', () => {
  let memdir;
  const opened = [];
  const open = (db, namespace = 'default') => {
    const s = memdir.postgresStore(cluster.url(db), { namespace });
    opened.push(s);
    return s;
  };
  before(async () => {
    ({ memdir } = await import('./helpers.mjs'));
    cluster.psql('CREATE DATABASE searched');
    cluster.psql('CREATE EXTENSION vector', 'searched');
    cluster.psql('CREATE DATABASE plain');
  });
  after(async () => {
    await Promise.all(opened.map((s) => s.close()));
  });

  for (const db of ['searched', 'plain']) {
    test(`${db}: a vector's key lives in memdir_vectors, read, listed with the others in key order, deleted`, async () => {
      const s = open(db, 'rows');
      await s.set('head', new TextEncoder().encode('h'));
      await s.set(vkey(1), stored([127, 0, 0]));
      await s.set('zzz', new TextEncoder().encode('z'));
      assert.deepEqual([...(await s.get(vkey(1)))], [...stored([127, 0, 0])]);
      assert.equal(await s.get(vkey(2)), undefined);
      assert.deepEqual((await s.list('')).keys, ['head', vkey(1), 'zzz']);
      assert.deepEqual((await s.list('vec/')).keys, [vkey(1)]);
      assert.deepEqual((await s.list('v')).keys, [vkey(1)]);
      assert.deepEqual((await s.list('head')).keys, ['head']);
      assert.equal(cluster.psql("SELECT count(*) FROM memdir_kv WHERE key LIKE 'vec/%'", db), '0\n');
      assert.equal(cluster.psql(`SELECT fingerprint FROM memdir_vectors WHERE namespace = 'rows'`, db), `${FP}\n`);
      await s.delete(vkey(1));
      assert.equal(await s.get(vkey(1)), undefined);
      assert.equal(cluster.psql(`SELECT count(*) FROM memdir_vectors WHERE namespace = 'rows'`, db), '0\n');
      await assert.rejects(s.compareAndSwap(vkey(1), undefined, stored([1])), { name: 'PostgresStoreError', message: 'the PostgreSQL store swaps no vector key' });
      // A vector that comes with a commit goes to its table once the head moved.
      assert.equal(await s.commit([['tree/x', new TextEncoder().encode('t')], [vkey(3), stored([0, 5, 0])]], 'head2', undefined, new TextEncoder().encode('2')), true);
      assert.deepEqual([...(await s.get(vkey(3)))], [...stored([0, 5, 0])]);
      assert.equal(cluster.psql(`SELECT string_agg(key, ',' ORDER BY key) FROM memdir_kv WHERE namespace = 'rows'`, db), 'head,head2,tree/x,zzz\n');
    });
  }

  test('searched: the database answers the nearest vectors of a fingerprint in this namespace, best first', async () => {
    const s = open('searched', 'near');
    assert.equal(s.searchesVectors, false); // not connected yet
    await s.ready();
    assert.equal(s.searchesVectors, true);
    await s.set(vkey(1), stored([127, 0, 0, 0]));
    await s.set(vkey(2), stored([0, 127, 0, 0]));
    await s.set(vkey(3), stored([90, 90, 0, 0]));
    await s.set(vkey(4, 'e'.repeat(32)), stored([127, 0, 0, 0])); // another fingerprint
    await open('searched', 'elsewhere').set(vkey(5), stored([127, 1, 0, 0])); // another namespace
    assert.equal(cluster.psql(`SELECT embedding::text FROM memdir_vectors WHERE namespace = 'near' AND key = '${vkey(3)}'`, 'searched'), '[90,90,0,0]\n');
    assert.deepEqual(rounded(await s.nearest(FP, new Float32Array([1, 0, 0, 0]), 10)), [
      [hash(1), 1],
      [hash(3), 0.7071],
      [hash(2), 0],
    ]);
    assert.deepEqual(rounded(await s.nearest(FP, [0, 1, 0, 0], 1)), [[hash(2), 1]]);
    assert.deepEqual(await s.nearest(FP, [0, 1, 0, 0], 0), []);
    await assert.rejects(s.nearest('not-a-key', [1, 0, 0, 0], 3), {
      name: 'PostgresStoreError',
      message: 'the PostgreSQL store was asked for vectors of a fingerprint key that is not one',
    });
    await assert.rejects(s.nearest(FP, [Number.NaN, 0, 0, 0], 3), {
      name: 'PostgresStoreError',
      message: 'the PostgreSQL store was asked for vectors nearest a query that is not finite',
    });
  });

  test('plain: without pgvector the rows hold the bytes only and the store leaves the scan to the engine', async () => {
    const s = open('plain', 'near');
    await s.ready();
    assert.equal(s.searchesVectors, false);
    await s.set(vkey(1), stored([127, 0, 0, 0]));
    assert.equal(await s.nearest(FP, [1, 0, 0, 0], 10), null);
    assert.equal(cluster.psql(`SELECT count(*) FROM information_schema.columns WHERE table_name = 'memdir_vectors' AND column_name = 'embedding'`, 'plain'), '0\n');
  });

  test('searched: a row the database holds of another form is refused, not answered', async () => {
    const s = open('searched', 'bad');
    await s.set(vkey(1), stored([127, 0, 0, 0]));
    cluster.psql(`INSERT INTO memdir_vectors VALUES ('bad', 'vec/not-a-hash/${FP}', '${FP}', '\\x00', '[1,0,0,0]')`, 'searched');
    await assert.rejects(s.nearest(FP, [1, 0, 0, 0], 10), {
      name: 'PostgresStoreError',
      message: 'the PostgreSQL store answered a vector search with rows of another shape',
    });
    // A value that is not a vector keeps its bytes and no embedding: never searched.
    await s.set(vkey(2), new TextEncoder().encode('not a vector'));
    assert.equal(cluster.psql(`SELECT embedding IS NULL FROM memdir_vectors WHERE namespace = 'bad' AND key = '${vkey(2)}'`, 'searched'), 't\n');
  });

  test('vectors written before the extension was created get their embeddings when a store next starts', async () => {
    cluster.psql('CREATE DATABASE later');
    const before = open('later', 'ns');
    await before.set(vkey(1), stored([127, 0, 0, 0]));
    await before.set(vkey(2), stored([0, 127, 0, 0]));
    assert.equal(await before.nearest(FP, [1, 0, 0, 0], 5), null);
    cluster.psql('CREATE EXTENSION vector', 'later');
    const after = open('later', 'ns');
    assert.deepEqual(rounded(await after.nearest(FP, [0, 1, 0, 0], 5)), [
      [hash(2), 1],
      [hash(1), 0],
    ]);
  });

  test(`searched: at PG_VECTOR_INDEX_ROWS rows of a fingerprint the store builds its HNSW index, which its search then uses`, async () => {
    const { glue } = await import('../../js/glue.js');
    const rows = glue.postgresRules().vectorIndexRows;
    assert.equal(rows, 10_000);
    const fp = 'a'.repeat(32);
    const s = open('searched', 'indexed');
    // One below the count, written by SQL (the store's path is the test above): no index yet.
    const insert = (from, to) =>
      cluster.psql(
        `INSERT INTO memdir_vectors (namespace, key, fingerprint, value, embedding)
           SELECT 'indexed', 'vec/' || lpad(to_hex(i), 64, '0') || '/${fp}', '${fp}', '\\x00',
                  ('[' || (i % 97) || ',' || (i % 89) || ',' || (i % 83) || ',1]')::halfvec
             FROM generate_series(${from}, ${to}) AS i`,
        'searched',
      );
    await s.set(vkey(rows - 1, fp), stored([1, 2, 3, 1]));
    insert(1, rows - 2);
    await s.nearest(fp, [1, 0, 0, 0], 5);
    await s.close();
    assert.equal(cluster.psql(`SELECT count(*) FROM pg_indexes WHERE indexname = 'memdir_vectors_hnsw_${fp}'`, 'searched'), '0\n');
    const t = open('searched', 'indexed');
    await t.set(vkey(rows, fp), stored([0, 0, 0, 127]));
    const found = await t.nearest(fp, [0, 0, 0, 1], 3);
    await t.close();
    assert.equal(cluster.psql(`SELECT indisvalid FROM pg_index WHERE indexrelid = 'memdir_vectors_hnsw_${fp}'::regclass`, 'searched'), 't\n');
    assert.deepEqual(found[0], [hash(rows), 1]);
    const plan = cluster.psql(
      `EXPLAIN SELECT key FROM memdir_vectors WHERE fingerprint = '${fp}' AND namespace = 'indexed' AND embedding IS NOT NULL
         ORDER BY embedding::halfvec(4) <=> '[1,0,0,0]'::halfvec(4) LIMIT 5`,
      'searched',
    );
    assert.match(plan, new RegExp(`Index Scan using memdir_vectors_hnsw_${fp}`));
    const u = open('searched', 'indexed');
    assert.deepEqual(rounded(await u.nearest(fp, [0, 0, 0, 1], 1)), [[hash(rows), 1]]);
  });
});

// Semantic search through the engine on postgresStore: with pgvector the engine asks
// the database (`nearest`) and keeps only texts live in its tree; without it, the same
// rows as bytes and the engine's own scan: the same answers either way.
describe('semantic search on postgresStore', () => {
  let memdir;
  let testEmbedder;
  const opened = [];
  const open = (db, namespace) => {
    const s = memdir.postgresStore(cluster.url(db), { namespace });
    opened.push(s);
    return s;
  };
  before(async () => {
    ({ memdir } = await import('./helpers.mjs'));
    ({ testEmbedder } = await import('../../examples/embedders/test-embedder.mjs'));
    cluster.psql('CREATE DATABASE sem_with');
    cluster.psql('CREATE EXTENSION vector', 'sem_with');
    cluster.psql('CREATE DATABASE sem_without');
  });
  after(async () => {
    await Promise.all(opened.map((s) => s.close()));
  });

  const FILES = {
    '/memories/prefs/editor.md': 'The user prefers dark mode in every editor.\n',
    '/memories/prefs/schedule.md': 'The user hates meetings before ten.\n',
    '/memories/notes/trip.md': 'Flight to Lisbon on Friday, window seat.\n',
  };

  for (const db of ['sem_with', 'sem_without']) {
    test(`${db}: a search by meaning finds across scripts, never a deleted or overwritten text, and a redaction deletes its text's vector row`, async () => {
      const store = open(db, 'sem');
      // Counts the store's nearest calls: the database is asked only where it searches.
      let asked = 0;
      const nearest = store.nearest.bind(store);
      store.nearest = async (...args) => {
        asked += 1;
        return nearest(...args);
      };
      const memory = await memdir.openMemory({ store, embedder: testEmbedder() });
      for (const [path, text] of Object.entries(FILES)) await memory.create({ path, file_text: text });
      const paths = async (query, options) => (await memory.search(query, options)).map((h) => h.path);
      assert.deepEqual(await paths('夜间模式', { mode: 'lexical' }), []);
      assert.deepEqual(await paths('夜间模式', { mode: 'semantic', limit: 1 }), ['/memories/prefs/editor.md']);
      assert.deepEqual(await paths('morning availability', { mode: 'semantic', limit: 1 }), ['/memories/prefs/schedule.md']);
      assert.equal(asked, db === 'sem_with' ? 2 : 0);
      const rows = () => Number(cluster.psql("SELECT count(*) FROM memdir_vectors WHERE namespace = 'sem'", db));
      assert.equal(rows(), 3);
      if (db === 'sem_with') assert.equal(cluster.psql("SELECT count(*) FROM memdir_vectors WHERE namespace = 'sem' AND embedding IS NOT NULL", db), '3\n');
      // Deleted, and overwritten: their old texts' rows stay until gc, and are never a hit.
      await memory.delete({ path: '/memories/prefs/editor.md' });
      const replaced = await memory.execute({ command: 'str_replace', path: '/memories/prefs/schedule.md', old_str: 'hates meetings before ten', new_str: 'has lunch at noon' });
      assert.equal(replaced.is_error, false);
      assert.equal(rows(), 3);
      assert.deepEqual(await paths('夜间模式', { mode: 'semantic' }).then((p) => p.includes('/memories/prefs/editor.md')), false);
      const schedule = (await memory.search('meetings before ten', { mode: 'semantic' })).find((h) => h.path === '/memories/prefs/schedule.md');
      assert.deepEqual(schedule?.lines, [{ line: 1, text: 'The user has lunch at noon.' }]);
      memory.close();
      // A redaction of a version deletes its text's vector row in the same step.
      const api = await memdir.openMemory({ store: open(db, 'sem-redact'), embedder: testEmbedder() });
      const call = async (request) => {
        const r = await api.api({ query: {}, body: null, ...request });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body;
      };
      const m = await call({ op: 'memory.create', body: JSON.stringify({ path: '/secret.md', content: 'The launch code is night mode.' }) });
      await call({ op: 'memory.create', body: JSON.stringify({ path: '/other.md', content: 'Tea at four.' }) });
      assert.deepEqual((await api.search('夜间模式', { mode: 'semantic', limit: 1 })).map((h) => h.path), ['/memories/secret.md']);
      const held = () => Number(cluster.psql("SELECT count(*) FROM memdir_vectors WHERE namespace = 'sem-redact'", db));
      assert.equal(held(), 2);
      await call({ op: 'memory.update', id: m.id, body: JSON.stringify({ content: 'Nothing here.' }) });
      await call({ op: 'version.redact', id: m.id.replace('mem_', 'memver_') });
      assert.equal(held(), 1);
      api.close();
    });
  }
});

test("deleting a catalogued store deletes its vectors with its keys", async () => {
  const { postgresCatalog } = await import('memdir/server');
  cluster.psql('CREATE DATABASE catalog_vectors');
  const catalog = postgresCatalog(cluster.url('catalog_vectors'));
  try {
    const { id } = await catalog.create();
    const other = (await catalog.create()).id;
    cluster.psql(`INSERT INTO memdir_vectors (namespace, key, fingerprint, value) VALUES ('${id}', '${vkey(1)}', '${FP}', '\\x01'), ('${other}', '${vkey(1)}', '${FP}', '\\x01')`, 'catalog_vectors');
    await catalog.drop(id);
    assert.equal(cluster.psql('SELECT string_agg(namespace, \',\') FROM memdir_vectors', 'catalog_vectors'), `${other}\n`);
  } finally {
    await catalog.close();
  }
});
