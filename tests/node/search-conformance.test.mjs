// The search conformance data (tests/conformance/search.json) through the built
// package on Node: memory.search's exact answers after memory-tool writes and crash
// cuts, on a directory store and a custom JS store (whose raw keys the crash cuts
// reach) and on the in-memory store (its cases without a cut).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { STORES, loadJson, memdir } from './helpers.mjs';
import { testEmbedder } from '../../examples/embedders/test-embedder.mjs';

const { cases } = loadJson('search.json');

/** Every key under `prefix`, through the store's own pages. */
async function keysUnder(store, prefix) {
  const keys = [];
  let cursor;
  do {
    const page = await store.list(prefix, cursor);
    keys.push(...page.keys);
    cursor = page.cursor ?? undefined;
  } while (cursor);
  return keys;
}

const CUTS = {
  async drop_index(store) {
    for (const key of await keysUnder(store, 'index/')) await store.delete(key);
  },
  async drop_vectors(store) {
    for (const key of await keysUnder(store, 'vec/')) await store.delete(key);
  },
  async cut_table(store) {
    const head = await store.get('index/head');
    assert.ok(head, 'the index has a head to cut');
    await store.set('index/head', head.subarray(0, 10));
  },
};

for (const [kind, make] of Object.entries(STORES)) {
  describe(`search conformance on the ${kind} store`, () => {
    assert.ok(cases.length > 0, 'search.json has no cases');
    for (const c of cases) {
      const cut = c.steps.some((s) => Object.keys(CUTS).some((k) => k in s));
      const { store } = make();
      const raw = typeof store.get === 'function' ? store : null;
      if (cut && !raw) continue; // the native store's keys are out of JS's reach
      test(c.name, async () => {
        // A case naming an embedder names the test embedder (384 dimensions).
        const memory = await memdir.openMemory({ store, embedder: c.embedder ? testEmbedder() : undefined });
        for (const [i, step] of c.steps.entries()) {
          const at = `step ${i}`;
          if ('tool' in step) {
            const r = await memory.execute(step.tool);
            assert.equal(r.is_error, false, `${at}: ${r.content}`);
          } else if ('search' in step) {
            // memory.search(query, options) cannot be given options that are not
            // an object: the JSON face's own refusal is not this face's to answer.
            const shaped = step.search && typeof step.search === 'object' && !Array.isArray(step.search);
            if (!shaped) continue;
            const { query, limit, path_prefix: pathPrefix, mode, min_score: minScore } = step.search;
            const options = {};
            if (limit !== undefined) options.limit = limit;
            if (pathPrefix !== undefined) options.pathPrefix = pathPrefix;
            if (mode !== undefined) options.mode = mode;
            if (minScore !== undefined) options.minScore = minScore;
            const got = await memory.search(query, options).then(
              (hits) => ({ hits }),
              (err) => ({ error: err.message }),
            );
            if ('error' in step) assert.deepEqual(got, { error: step.error }, at);
            else assert.deepEqual(got, { hits: step.answer }, at);
          } else {
            const name = Object.keys(step).find((k) => k in CUTS);
            assert.ok(name, `${at}: an unknown step ${JSON.stringify(step)}`);
            await CUTS[name](raw);
          }
        }
      });
    }
  });
}
