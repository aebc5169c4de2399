// `memdir serve --embedder FILE` (issue 47): the Memory Stores API's search and
// /mcp's memory_search rank by meaning too (hybrid by default, `mode` when asked),
// with the embedder the server was started with; a server started without one
// answers lexical as before and refuses `semantic` with a 400 in memdir's words.
// Driven by the real clients: the Anthropic SDK (its generic get, the SDK has no
// search method) and the MCP SDK's Streamable HTTP client.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MEMDIR_BIN, runNode, startServe, tempDir } from './helpers.mjs';

const KEY = 'sk-serve-semantic';
const EMBEDDER = new URL('../../examples/embedders/test-embedder.mjs', import.meta.url).pathname;
const NO_EMBEDDER = "Semantic and hybrid search need an embedder: open the memory with one (openMemory({ embedder }), memdir --embedder), or search with mode 'lexical'.";
const FILES = [
  ['/prefs/editor.md', 'The user prefers dark mode in every editor.'],
  ['/prefs/schedule.md', 'The user hates meetings before ten.'],
  ['/notes/zebra.md', 'zebra crossing near the office'],
];

const servers = [];
after(async () => {
  for (const s of servers) assert.deepEqual(await s.stop(), { code: 0, signal: null });
});

/** A server (with `args`) and a store in it holding FILES. */
async function served(args) {
  const server = await startServe(['--store', join(tempDir('memdir-serve-semantic-'), 'stores'), ...args], { MEMDIR_API_KEYS: KEY });
  servers.push(server);
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const id = (await api.beta.memoryStores.create({ name: 'Prefs' })).id;
  for (const [path, content] of FILES) await api.beta.memoryStores.memories.create(id, { path, content });
  const search = (query) => api.get(`/v1/memory_stores/${id}/memories/search`, { query });
  const mcp = async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?store=${id}`), { requestInit: { headers: { 'x-api-key': KEY } } });
    const client = new Client({ name: 'serve-semantic-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  return { search, mcp };
}

let withEmbedder;
let without;
before(async () => {
  [withEmbedder, without] = await Promise.all([served(['--embedder', EMBEDDER]), served([])]);
});

const paths = (page) => page.data.map((h) => h.path);

test('with --embedder, the API search ranks by meaning: hybrid by default, semantic and lexical when asked', async () => {
  const { search } = withEmbedder;
  assert.deepEqual(paths(await search({ query: '夜间模式', mode: 'lexical' })), []);
  const semantic = await search({ query: '夜间模式', mode: 'semantic', limit: '1' });
  assert.deepEqual(paths(semantic), ['/prefs/editor.md']);
  // Found by meaning alone: its first line stands for it.
  assert.deepEqual(semantic.data[0].matches, [{ line_number: 1, text: 'The user prefers dark mode in every editor.' }]);
  assert.deepEqual(paths(await search({ query: '夜间模式', limit: '1' })), ['/prefs/editor.md']);
  // Hybrid keeps the keyword hit a cosine cutoff no text reaches leaves out.
  const zebra = await search({ query: 'zebra', min_score: '0.99' });
  assert.deepEqual([paths(zebra), zebra.data[0].score], [['/notes/zebra.md'], 1 / 61]);
  await assert.rejects(search({ query: 'zebra', mode: 'fuzzy' }), (e) => {
    assert.deepEqual([e.status, e.error?.error?.message], [400, "mode must be 'lexical', 'semantic' or 'hybrid'."]);
    return true;
  });
});

test('with --embedder, /mcp memory_search takes mode and min_score', async () => {
  const client = await withEmbedder.mcp();
  try {
    const { tools } = await client.listTools();
    const schema = tools.find((t) => t.name === 'memory_search').inputSchema;
    assert.deepEqual(Object.keys(schema.properties).sort(), ['min_score', 'mode', 'page', 'path_prefix', 'query']);
    assert.deepEqual([schema.properties.mode.enum, schema.properties.min_score.type], [['lexical', 'semantic', 'hybrid'], 'number']);
    const call = (args) => client.callTool({ name: 'memory_search', arguments: args });
    const lexical = await call({ query: '夜间模式', mode: 'lexical' });
    assert.deepEqual(lexical, { content: [{ type: 'text', text: 'No document under / matches "夜间模式".' }], isError: false });
    const semantic = await call({ query: '夜间模式', mode: 'semantic' });
    assert.match(semantic.content[0].text, /^3 documents under \/ match "夜间模式", best first:\n\/prefs\/editor\.md \(score 0\.\d{3}\)\n {5}1\tThe user prefers dark mode in every editor\.\n/);
    const hybrid = await call({ query: 'zebra', min_score: 0.99 });
    assert.equal(hybrid.content[0].text, '1 document under / matches "zebra":\n/notes/zebra.md (score 0.016)\n     1\tzebra crossing near the office');
  } finally {
    await client.close();
  }
});

test('without --embedder: lexical as before, and semantic refused with a 400 (API) or the tool error (MCP)', async () => {
  const { search, mcp } = without;
  assert.deepEqual(paths(await search({ query: 'zebra' })), ['/notes/zebra.md']);
  for (const mode of ['semantic', 'hybrid']) {
    await assert.rejects(search({ query: 'zebra', mode }), (e) => {
      assert.deepEqual([e.status, e.error?.error?.type, e.error?.error?.message], [400, 'invalid_request_error', NO_EMBEDDER]);
      return true;
    });
  }
  const client = await mcp();
  try {
    const refused = await client.callTool({ name: 'memory_search', arguments: { query: 'zebra', mode: 'semantic' } });
    assert.deepEqual(refused, { content: [{ type: 'text', text: `Error: ${NO_EMBEDDER}` }], isError: true });
  } finally {
    await client.close();
  }
});

test('serve --embedder refuses a module that is not an embedder, at start', async () => {
  const store = join(tempDir('memdir-serve-semantic-bad-'), 'stores');
  const missing = await runNode([MEMDIR_BIN, 'serve', '--store', store, '--no-auth', '--port', '0', '--embedder', 'no-such-module.mjs'], { PATH: process.env.PATH }, 30_000);
  assert.deepEqual([missing.code, missing.stderr], [2, 'memdir: --embedder "no-such-module.mjs": the module cannot be loaded\n']);
  const notOne = new URL('./fixtures/not-an-embedder.mjs', import.meta.url).pathname;
  const bad = await runNode([MEMDIR_BIN, 'serve', '--store', store, '--no-auth', '--port', '0', '--embedder', notOne], { PATH: process.env.PATH }, 30_000);
  assert.deepEqual([bad.code, bad.stderr], [2, 'memdir: serve: --embedder: embedder.dims must be a whole number from 1 to 4096\n']);
});
