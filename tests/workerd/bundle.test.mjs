// The example as it would be deployed: bundled by wrangler (its esbuild resolves
// `memdir` through the package's `workerd` condition and keeps the .wasm as a
// compiled module), under the Workers size limit, and served by workerd.

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { test } from 'node:test';
import { Miniflare } from 'miniflare';
import Anthropic from '@anthropic-ai/sdk';
import { mintToken } from '../../examples/worker/src/auth.js';
import { request } from './client.js';
import { API_KEYS, AUTH_SECRET, bundleExample, bundleOptions } from './mf.js';

/** The Workers limit on a compressed Worker on the free plan (the paid one is 10 MiB). */
const FREE_LIMIT = 3 * 1024 * 1024;

test('wrangler bundles the example under the size limit, and the bundle serves', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'memdir-bundle-'));
  try {
    const { log, files } = bundleExample(out);
    assert.ok(files.some((f) => f.endsWith('.wasm')), `no .wasm module in the bundle: ${files}`);
    const gzipped = files.reduce((n, f) => n + gzipSync(readFileSync(join(out, f)), { level: 9 }).length, 0);
    t.diagnostic(`wrangler: ${/Total Upload: .*/.exec(log)?.[0]}`);
    t.diagnostic(`bundle gzipped: ${(gzipped / 1024).toFixed(1)} KiB of the 3 MiB free / 10 MiB paid limit`);
    assert.ok(gzipped < FREE_LIMIT, `${gzipped} bytes gzipped`);

    const mf = new Miniflare(bundleOptions(out));
    try {
      const url = await mf.ready;
      const call = async (input) => {
        const r = await request(new URL('/memory', url), {
          method: 'POST',
          headers: { authorization: `Bearer ${await mintToken(AUTH_SECRET, 'bundled')}`, 'content-type': 'application/json' },
          body: JSON.stringify(input),
        });
        return { status: r.status, body: await r.json() };
      };
      assert.deepEqual(await call({ command: 'create', path: '/memories/a.md', file_text: 'from the bundle' }), {
        status: 200,
        body: { content: 'File created successfully at: /memories/a.md', is_error: false },
      });
      assert.deepEqual(await call({ command: 'view', path: '/memories/a.md' }), {
        status: 200,
        body: { content: "Here's the content of /memories/a.md with line numbers:\n     1\tfrom the bundle", is_error: false },
      });
      // The memory-store routes of the bundle, through the official SDK.
      const client = new Anthropic({ apiKey: API_KEYS[0], baseURL: url.origin, maxRetries: 0 });
      const store = await client.beta.memoryStores.create({ name: 'bundled' });
      const memory = await client.beta.memoryStores.memories.create(store.id, { path: '/a.md', content: 'from the bundle' });
      const read = await client.beta.memoryStores.memories.retrieve(memory.id, { memory_store_id: store.id });
      assert.deepEqual([read.path, read.content, read.memory_store_id], ['/a.md', 'from the bundle', store.id]);
    } finally {
      await mf.dispose();
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
