// The directory catalog's deletes, through the API handler: a store is deleted
// whole or not at all (renamed away first, so a removal that stops part-way leaves
// no half-deleted store), and a request under way on a store that a delete takes
// away meanwhile, through this server or another on the same root, answers 404.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { join } from 'node:path';
import { syncBuiltinESMExports } from 'node:module';
import { test } from 'node:test';
import { apiHandler, directoryCatalog } from 'memdir/server';
import { tempDir } from './helpers.mjs';

const NO_STORE = { type: 'error', error: { type: 'not_found_error', message: 'No memory store with this id.' } };

function client(catalog) {
  const handle = apiHandler({ catalog, keys: ['k'] });
  return async (method, path, body) => {
    const headers = { 'x-api-key': 'k', 'content-type': 'application/json' };
    const r = await handle(new Request(`http://memdir.test/v1/memory_stores${path}`, { method, headers, body: body && JSON.stringify(body) }));
    return { status: r.status, body: await r.json() };
  };
}

test('a delete whose removal stops part-way leaves no half-deleted store, and the next delete clears what it left', async () => {
  const root = join(tempDir('memdir-catalog-'), 'stores');
  const catalog = directoryCatalog(root);
  const call = client(catalog);
  const rmSync = fs.rmSync;
  try {
    const { id } = (await call('POST', '', { name: 'doomed' })).body;
    assert.equal((await call('POST', `/${id}/memories`, { path: '/a.md', content: 'a' })).status, 200);
    // A removal that takes one file and then fails, as one racing a writer would.
    fs.rmSync = (path) => {
      const first = fs.readdirSync(path, { recursive: true }).map((f) => join(path, f)).find((f) => fs.statSync(f).isFile());
      if (first) fs.unlinkSync(first);
      throw Object.assign(new Error('ENOTEMPTY: directory not empty'), { code: 'ENOTEMPTY' });
    };
    syncBuiltinESMExports();
    assert.deepEqual(await call('DELETE', `/${id}`), { status: 200, body: { id, type: 'memory_store_deleted' } });
    assert.deepEqual(await call('GET', `/${id}/memories`), { status: 404, body: NO_STORE });
    assert.deepEqual((await call('GET', '')).body.data, []);
    assert.equal(fs.readdirSync(root).filter((n) => n.startsWith('.deleted-')).length, 1);

    fs.rmSync = rmSync;
    syncBuiltinESMExports();
    const other = (await call('POST', '', { name: 'other' })).body.id;
    assert.equal((await call('DELETE', `/${other}`)).status, 200);
    assert.deepEqual(fs.readdirSync(root), []);
  } finally {
    fs.rmSync = rmSync;
    syncBuiltinESMExports();
    await catalog.close();
  }
});

test('a request under way when a delete takes its store answers 404, through this server or another on the root', async () => {
  const root = join(tempDir('memdir-catalog-'), 'stores');
  const [a, b] = [directoryCatalog(root), directoryCatalog(root)];
  try {
    for (const [name, deleter] of [['this server', b], ['another server', a]]) {
      const { id } = (await client(b)('POST', '', { name })).body;
      assert.equal((await client(b)('POST', `/${id}/memories`, { path: '/a.md', content: 'a' })).status, 200);
      // The store is deleted between the handler's open and its command.
      const racing = {
        ...b,
        async open(storeId) {
          const store = await b.open(storeId);
          await deleter.drop(storeId);
          return store;
        },
      };
      assert.deepEqual(await client(racing)('POST', `/${id}/memories`, { path: '/late.md', content: 'late' }), { status: 404, body: NO_STORE }, name);
      assert.deepEqual(fs.readdirSync(root), [], `${name}: nothing of the store is left, nothing made again`);
      assert.deepEqual(await client(b)('GET', `/${id}/memories`), { status: 404, body: NO_STORE });
    }
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});
