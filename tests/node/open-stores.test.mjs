// A catalog keeps at most `maxOpen` stores open: the least recently used is let go
// and closed `closeDelayMs` later, after a request still using it has finished; a
// request for it afterwards opens it again, and nothing written is lost.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { directoryCatalog } from 'memdir/server';
import { memdir, tempDir } from './helpers.mjs';

const create = (id, path) => ({ op: 'memory.create', query: {}, body: JSON.stringify({ path, content: `in ${id}` }) });

test('past maxOpen the least recently used store is closed later, and opens again on use', async () => {
  assert.equal(memdir.defaults().maxOpenStores, 64);
  const catalog = directoryCatalog(join(tempDir('memdir-open-'), 'stores'), { maxOpen: 2, closeDelayMs: 200 });
  try {
    const made = [];
    for (let i = 0; i < 3; i++) {
      const m = await catalog.create();
      assert.equal((await m.store.api({ op: 'store.create', id: m.id, query: {}, body: `{"name":"s${i}"}` })).status, 200);
      made.push(m);
    }
    const [first, second, third] = made;
    // The first is let go by the third's opening, but not closed yet: it still answers.
    assert.equal((await first.store.api(create(first.id, '/a.md'))).status, 200);
    await new Promise((r) => setTimeout(r, 400));
    // Now it is closed, and the catalog opens a fresh one for it.
    await assert.rejects(first.store.api(create(first.id, '/b.md')), (e) => e.kind === 'closed');
    const again = await catalog.open(first.id);
    assert.notEqual(again, first.store);
    const listed = await again.api({ op: 'memory.list', query: {}, body: null });
    assert.deepEqual(listed.body.data.map((m) => m.path), ['/a.md']);
    // The two most recently used stay the same objects.
    assert.equal(await catalog.open(first.id), again);
    assert.equal(await catalog.open(third.id), third.store);
    // And the second, let go by the reopening, is opened afresh with its data.
    assert.equal((await second.store.api(create(second.id, '/c.md'))).status, 200);
    await new Promise((r) => setTimeout(r, 400));
    const reopened = await catalog.open(second.id);
    assert.deepEqual((await reopened.api({ op: 'memory.list', query: {}, body: null })).body.data.map((m) => m.path), ['/c.md']);
  } finally {
    await catalog.close();
  }
});

test('no more than maxOpen stores wait to be closed: past that the longest waiting closes at once', async () => {
  const catalog = directoryCatalog(join(tempDir('memdir-open-'), 'stores'), { maxOpen: 1, closeDelayMs: 60_000 });
  try {
    const made = [];
    for (let i = 0; i < 3; i++) {
      const m = await catalog.create();
      assert.equal((await m.store.api({ op: 'store.create', id: m.id, query: {}, body: `{"name":"s${i}"}` })).status, 200);
      made.push(m);
    }
    // Open: the third. Waiting: the second. Closed at once: the first.
    await assert.rejects(made[0].store.api(create(made[0].id, '/x.md')), (e) => e.kind === 'closed');
    assert.equal((await made[1].store.api(create(made[1].id, '/x.md'))).status, 200);
    assert.equal((await made[2].store.api(create(made[2].id, '/x.md'))).status, 200);
  } finally {
    await catalog.close();
  }
});
