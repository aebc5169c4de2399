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
  test('CREATE EXTENSION vector works, with halfvec and HNSW (0.7 or newer)', () => {
    cluster.psql('CREATE DATABASE with_vector');
    cluster.psql('CREATE EXTENSION vector', 'with_vector');
    assert.equal(cluster.psql("SELECT '[1,0.5,-2]'::halfvec(3)::text", 'with_vector'), '[1,0.5,-2]\n');
    cluster.psql('CREATE TABLE t (v halfvec(3)); CREATE INDEX ON t USING hnsw (v halfvec_cosine_ops)', 'with_vector');
    assert.equal(cluster.psql("INSERT INTO t VALUES ('[1,0,0]'), ('[0,1,0]'); SELECT v::text FROM t ORDER BY v <=> '[0.9,0.1,0]' LIMIT 1", 'with_vector'), '[1,0,0]\n');
  });
});
