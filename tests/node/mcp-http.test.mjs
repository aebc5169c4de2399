// Remote MCP: `memdir serve` answers the MCP server at /mcp?store=ID over the MCP
// SDK's Streamable HTTP transport, behind the same keys, scoped to the key's
// workspace. Driven by the SDK's own HTTP client.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startServe, tempDir } from './helpers.mjs';

const KEY = 'sk-mcp-default';
const TEAM_KEY = 'sk-mcp-team';
let server;
let storeId;

before(async () => {
  server = await startServe(['--store', join(tempDir('memdir-mcp-http-'), 'stores')], { MEMDIR_API_KEYS: `${KEY},${TEAM_KEY}=team-b` });
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  storeId = (await api.beta.memoryStores.create({ name: 'Remote' })).id;
});
after(async () => {
  if (server) assert.deepEqual(await server.stop(), { code: 0, signal: null });
});

const connect = async (key, store = storeId, tools) => {
  const headers = key === undefined ? {} : { 'x-api-key': key };
  const query = tools === undefined ? '' : `&tools=${tools}`;
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?store=${store}${query}`), { requestInit: { headers } });
  const client = new Client({ name: 'remote-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
};
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });

test('the memory tool and the toolset over HTTP, on the store the URL names', async () => {
  const client = await connect(KEY);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['memory', 'memory_list', 'memory_search', 'memory_read', 'memory_write', 'memory_edit', 'memory_delete']);
    const made = await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/remote.md', file_text: 'over http' } });
    assert.deepEqual(made, text('File created successfully at: /memories/remote.md'));
    const read = await client.callTool({ name: 'memory_read', arguments: { path: '/remote.md' } });
    assert.match(read.content[0].text, /over http/);
  } finally {
    await client.close();
  }
  // The API reads what the MCP session wrote: one store.
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const paths = (await api.beta.memoryStores.memories.list(storeId)).data.map((m) => m.path);
  assert.deepEqual(paths, ['/remote.md']);
});

test('tools=records offers seed 002\'s records toolset in place of the memory-store one, its writes by the key', async () => {
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const id = (await api.beta.memoryStores.create({ name: 'Records' })).id;
  const client = await connect(KEY, id, 'records');
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['memory', 'memory_store', 'memory_retrieve', 'memory_delete']);
    const stored = await client.callTool({ name: 'memory_store', arguments: { content: 'Standups are at 9:30.', category: 'project_context', importance: 3 } });
    const memoryId = JSON.parse(stored.content[0].text).memory_id;
    const removed = await client.callTool({ name: 'memory_delete', arguments: { memory_id: memoryId, reason: 'Moved to 10:00.' } });
    assert.deepEqual(removed, text('{"success":true}'));
  } finally {
    await client.close();
  }
  const versions = (await api.beta.memoryStores.memoryVersions.list(id, { operation: 'deleted' })).data;
  assert.deepEqual(
    versions.map((v) => [v.reason, v.created_by?.type]),
    [['Moved to 10:00.', 'api_actor']],
  );
  const r = await fetch(`${server.url}/mcp?store=${id}&tools=all`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': KEY },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  assert.deepEqual([r.status, (await r.json()).error?.message], [400, "tools must be store (the memory-store toolset, the default) or records (seed 002's memory_store, memory_retrieve and memory_delete)."]);
});

test('no key is refused, another workspace finds no such store, and the store must be named', async () => {
  const status = async (key, store) => {
    const r = await fetch(`${server.url}/mcp${store === undefined ? '' : `?store=${store}`}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(key ? { 'x-api-key': key } : {}) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    return [r.status, (await r.json()).error?.message];
  };
  assert.deepEqual(await status(undefined, storeId), [401, 'An API key is required: send it as x-api-key or Authorization: Bearer.']);
  assert.deepEqual(await status(TEAM_KEY, storeId), [404, 'No memory store with this id.']);
  assert.deepEqual(await status(KEY, undefined), [400, 'Name the memory store this MCP session uses: /mcp?store=memstore_….']);
  await assert.rejects(connect(TEAM_KEY));
});

test('an archived store refuses the memory tool over /mcp as the API and the toolset refuse it', async () => {
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const id = (await api.beta.memoryStores.create({ name: 'Archived' })).id;
  await api.beta.memoryStores.memories.create(id, { path: '/kept.md', content: 'one\n' });
  await api.beta.memoryStores.memories.create(id, { path: '/gone.md', content: 'two\n' });
  assert.equal(typeof (await api.beta.memoryStores.archive(id)).archived_at, 'string');
  const client = await connect(KEY, id);
  const why = 'the memory store is archived; its memories can be viewed and deleted, not created or changed';
  const memory = (input) => client.callTool({ name: 'memory', arguments: input });
  try {
    assert.deepEqual(await memory({ command: 'create', path: '/memories/new.md', file_text: 'x' }), text(`Error: Cannot create /memories/new.md: ${why}`, true));
    assert.deepEqual(
      await memory({ command: 'str_replace', path: '/memories/kept.md', old_str: 'one', new_str: 'uno' }),
      text(`Error: Cannot str_replace /memories/kept.md: ${why}`, true),
    );
    assert.deepEqual(
      await memory({ command: 'insert', path: '/memories/kept.md', insert_line: 0, insert_text: 'x\n' }),
      text(`Error: Cannot insert /memories/kept.md: ${why}`, true),
    );
    assert.deepEqual(
      await memory({ command: 'rename', old_path: '/memories/kept.md', new_path: '/memories/moved.md' }),
      text(`Error: Cannot rename /memories/kept.md: ${why}`, true),
    );
    assert.deepEqual(
      await client.callTool({ name: 'memory_write', arguments: { path: '/new.md', content: 'x' } }),
      text('Error: This memory store is archived: its documents can be listed, searched, read and deleted, not written or edited.', true),
    );
    // Reading and deleting stay open, as through the API.
    assert.deepEqual(await memory({ command: 'view', path: '/memories/kept.md' }), text("Here's the content of /memories/kept.md with line numbers:\n     1\tone\n     2\t"));
    assert.deepEqual(await memory({ command: 'delete', path: '/memories/gone.md' }), text('Successfully deleted /memories/gone.md'));
  } finally {
    await client.close();
  }
  const left = (await api.beta.memoryStores.memories.list(id, { view: 'full' })).data.map((m) => [m.path, m.content]);
  assert.deepEqual(left, [['/kept.md', 'one\n']]);
});

test('versions written over /mcp name the key that wrote them, as the API records it', async () => {
  const api = new Anthropic({ apiKey: KEY, baseURL: server.url, logLevel: 'off', maxRetries: 0 });
  const id = (await api.beta.memoryStores.create({ name: 'Actors' })).id;
  await api.beta.memoryStores.memories.create(id, { path: '/by-api.md', content: 'api' });
  const client = await connect(KEY, id);
  try {
    await client.callTool({ name: 'memory', arguments: { command: 'create', path: '/memories/by-tool.md', file_text: 'tool' } });
    await client.callTool({ name: 'memory_write', arguments: { path: '/by-toolset.md', content: 'toolset' } });
    await client.callTool({ name: 'memory', arguments: { command: 'delete', path: '/memories/by-api.md' } });
  } finally {
    await client.close();
  }
  const versions = (await api.beta.memoryStores.memoryVersions.list(id)).data.map((v) => [v.operation, v.path, JSON.stringify(v.created_by)]);
  // The API's JSON of the actor, exactly (before: {"session_id":"memdir-serve","type":"session_actor"} from /mcp).
  const key = `{"api_key_id":"apikey_${createHash('sha256').update(KEY).digest('hex').slice(0, 24)}","type":"api_actor"}`;
  assert.deepEqual(versions, [
    ['deleted', '/by-api.md', key],
    ['created', '/by-toolset.md', key],
    ['created', '/by-tool.md', key],
    ['created', '/by-api.md', key],
  ]);
});
