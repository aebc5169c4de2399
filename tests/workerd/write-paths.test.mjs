// Every write path × access of tests/conformance/write-paths.mjs inside workerd:
// two durableObjectStores of one SQLite-backed Durable Object mounted in one
// memory, `team` read-only, then archived. The exact answers, and team's raw rows
// unchanged by the read-only run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FACES } from '../conformance/write-paths.mjs';
import { useService } from './client.js';

const { c } = useService();

for (const [face, { readOnly, readWrite, archived }] of Object.entries(FACES)) {
  test(face, async () => {
    assert.notEqual(archived, undefined, `${face} names no archived answer`);
    const seen = await c.test('write-paths', { name: `write-paths-${face}`, face });
    assert.ok(seen.records > 0, `${face}: the seeded store holds no records`);
    assert.deepEqual(seen, { readOnly, unchanged: true, records: seen.records, readWrite, archived });
  });
}
