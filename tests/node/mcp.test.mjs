// `memdir mcp` as an MCP client meets it: the official SDK's own Client and
// StdioClientTransport spawn `node bin/memdir.js mcp --store DIR`. The tool list and
// its schema, every command with its exact text (the same bytes memdir's execute
// gives in process), errors, unknown tools, malformed JSON-RPC on the raw pipe (each
// answered, the server still serving), two clients on one store losing nothing, and
// the resources.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { memdir, tempDir } from './helpers.mjs';
import { startListening } from './child-server.mjs';

const BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));
const DIR_HEAD = "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const N = '/memories/notes.md';
const A = '/memories/archive/notes.md';
const SERVING = 'memdir mcp: serving the memory tool on stdio\n';

const open = [];
after(async () => {
  for (const c of open) await c.close();
});

/** An SDK client connected to a fresh `memdir mcp --store store`; its stderr and transport errors collected. */
async function connect(store, name = 'memdir-test') {
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--store', store], stderr: 'pipe' });
  const log = { stderr: '', errors: [] };
  transport.stderr.setEncoding('utf8').on('data', (d) => (log.stderr += d));
  const client = new Client({ name, version: '1.0.0' });
  // A line on stdout that is not JSON-RPC reaches here: none may.
  client.onerror = (e) => log.errors.push(e.message);
  await client.connect(transport);
  open.push(client);
  return { client, log };
}

const call = (client, input) => client.callTool({ name: 'memory', arguments: input });
const text = (t, isError = false) => ({ content: [{ type: 'text', text: t }], isError });

// Every command in order, with the exact tool text and isError the MCP client gets.
const SCRIPT = [
  [{ command: 'view', path: '/memories' }, `${DIR_HEAD}\n0B\t/memories`],
  [{ command: 'create', path: N, file_text: 'Line 1\nLine 2\n' }, `File created successfully at: ${N}`],
  [{ command: 'create', path: N, file_text: 'again' }, `Error: File ${N} already exists`, true],
  [
    { command: 'str_replace', path: N, old_str: 'Line 2', new_str: 'Line two' },
    'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tLine 1\n     2\tLine two\n     3\t',
  ],
  [
    { command: 'str_replace', path: N, old_str: 'Line', new_str: 'x' },
    'Error: No replacement was performed. Multiple occurrences of old_str `Line` in lines: 1, 2. Please ensure it is unique',
    true,
  ],
  [{ command: 'insert', path: N, insert_line: 1, insert_text: 'Inserted\n' }, `The file ${N} has been edited.`],
  [{ command: 'view', path: N, view_range: [1, 2] }, `Here's the content of ${N} with line numbers:\n     1\tLine 1\n     2\tInserted`],
  [{ command: 'view', path: N }, `Here's the content of ${N} with line numbers:\n     1\tLine 1\n     2\tInserted\n     3\tLine two\n     4\t`],
  [
    { command: 'insert', path: N, insert_line: 9, insert_text: 'x' },
    'Error: Invalid `insert_line` parameter: 9. It should be within the range of lines of the file: [0, 4]',
    true,
  ],
  [{ command: 'rename', old_path: N, new_path: A }, `Successfully renamed ${N} to ${A}`],
  [{ command: 'view', path: '/memories' }, `${DIR_HEAD}\n25B\t/memories\n25B\t/memories/archive/\n25B\t${A}`],
  [{ command: 'view', path: '/memories/nothing' }, 'Error: The path /memories/nothing does not exist. Please provide a valid path.', true],
  [{ command: 'view', path: '/memories/../etc/passwd' }, 'Error: Path /memories/../etc/passwd would escape /memories directory', true],
  [{ command: 'delete', path: '/memories/missing' }, 'Error: The path /memories/missing does not exist', true],
  [{ command: 'bogus', path: N }, 'Error: Unknown command "bogus". Expected one of: view, create, str_replace, insert, delete, rename', true],
  [{ command: 'view', path: 7 }, null, true], // the engine's words for a wrong type, compared with execute below
];

describe('memdir mcp over stdio, with the MCP SDK client', () => {
  test('initialize: the server names itself and gives the memory protocol as its instructions', async () => {
    const { client, log } = await connect(join(tempDir('memdir-mcp-'), 'store'));
    const pkg = JSON.parse((await import('node:fs')).readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    assert.deepEqual(client.getServerVersion(), { name: 'memdir', title: 'memdir: the Claude memory tool', version: pkg.version });
    assert.deepEqual(client.getServerCapabilities(), { tools: {}, resources: {} });
    assert.equal(client.getInstructions(), memdir.MEMORY_SYSTEM_PROMPT);
    assert.equal(log.stderr, SERVING, 'logs go to stderr');
    assert.deepEqual(log.errors, []);
  });

  test('tools/list: memory, whose schema is the six commands\' input, then the memory-store toolset', async () => {
    const { client } = await connect(join(tempDir('memdir-mcp-'), 'store'));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), [
      'memory',
      'memory_list',
      'memory_search',
      'memory_read',
      'memory_write',
      'memory_edit',
      'memory_delete',
    ]);
    // The toolset's definitions are the engine's, as the SDK runner's tools have them.
    assert.deepEqual(
      tools.slice(1),
      memdir.toolsetTools().map(({ name, description, input_schema, read_only }) => ({
        name,
        description,
        inputSchema: input_schema,
        annotations: { readOnlyHint: read_only, destructiveHint: !read_only, openWorldHint: false },
      })),
    );
    assert.deepEqual(tools.slice(1).map((t) => t.annotations.readOnlyHint), [true, true, true, false, false, false]);
    const [tool] = tools;
    assert.equal(tool.title, 'Memory');
    assert.match(tool.description, /^Your memory directory, \/memories, kept across conversations/);
    assert.deepEqual(tool.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false });
    const s = tool.inputSchema;
    assert.equal(s.type, 'object');
    assert.deepEqual(s.required, ['command']);
    assert.equal(s.oneOf ?? s.anyOf ?? s.allOf, undefined, 'flat: the Messages API refuses oneOf at the top of input_schema');
    assert.deepEqual(s.properties.command.enum, ['view', 'create', 'str_replace', 'insert', 'delete', 'rename']);
    assert.deepEqual(s.properties.command.enum, [...memdir.COMMANDS]);
    const types = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, v.type]));
    assert.deepEqual(types, {
      command: 'string',
      path: 'string',
      view_range: 'array',
      file_text: 'string',
      old_str: 'string',
      new_str: 'string',
      insert_line: 'integer',
      insert_text: 'string',
      old_path: 'string',
      new_path: 'string',
    });
    assert.deepEqual(s.properties.view_range.items, { type: 'integer' });
    assert.equal(s.properties.view_range.minItems, 2);
    assert.equal(s.properties.view_range.maxItems, 2);
    for (const [k, v] of Object.entries(s.properties)) assert.equal(typeof v.description, 'string', `${k} is described`);
  });

  test('tools/call: every command, the exact texts, byte for byte what execute answers in process', async () => {
    const store = join(tempDir('memdir-mcp-'), 'store');
    const { client, log } = await connect(store);
    const local = await memdir.openMemory();
    for (const [input, expected, isError = false] of SCRIPT) {
      const got = await call(client, input);
      const raw = await local.execute(input);
      assert.deepEqual(got, text(raw.content, raw.is_error), `the same as execute: ${JSON.stringify(input)}`);
      if (expected !== null) assert.deepEqual(got, text(expected, isError), JSON.stringify(input));
      else assert.ok(isError && got.isError && got.content[0].text.startsWith('Error: '), got.content[0].text);
    }
    // No arguments at all is an input without a command.
    assert.deepEqual(await client.callTool({ name: 'memory' }), text('Error: Invalid tool input: missing field "command"', true));

    // The file is in the store directory the server was given, as any memdir reads it.
    const reader = await memdir.openMemory({ store: memdir.directoryStore(store) });
    assert.equal(
      await reader.view({ command: 'view', path: A }),
      `Here's the content of ${A} with line numbers:\n     1\tLine 1\n     2\tInserted\n     3\tLine two\n     4\t`,
    );
    reader.close();

    assert.deepEqual(await call(client, { command: 'delete', path: '/memories/archive' }), text('Successfully deleted /memories/archive'));
    assert.deepEqual(await call(client, { command: 'view', path: '/memories' }), text(`${DIR_HEAD}\n0B\t/memories`));
    assert.deepEqual(log.errors, []);
    assert.equal(log.stderr, SERVING);
  });

  test('an unknown tool is a JSON-RPC error (Invalid params), and the server keeps serving', async () => {
    const { client } = await connect(join(tempDir('memdir-mcp-'), 'store'));
    await assert.rejects(client.callTool({ name: 'memory_rename', arguments: { path: '/memories/x' } }), (e) => {
      assert.equal(e.code, -32602);
      assert.equal(e.message, 'MCP error -32602: Unknown tool: "memory_rename"');
      return true;
    });
    assert.deepEqual(await call(client, { command: 'create', path: '/memories/x', file_text: 'y' }), text('File created successfully at: /memories/x'));
  });

  test('tools/call: the memory-store toolset, each tool with its exact text, on the store the memory tool uses', async () => {
    const store = join(tempDir('memdir-mcp-'), 'store');
    const { client, log } = await connect(store);
    const sha = (s) => createHash('sha256').update(s).digest('hex');
    const tool = (name, args) => client.callTool({ name, arguments: args });
    const a = 'Tea at four\nLine 2\n';
    const b = 'Tea at four\nLine two\n';
    const SCRIPT = [
      ['memory_list', {}, 'No documents under /.'],
      ['memory_write', { path: '/notes/a.md', content: a }, `Created /notes/a.md (19 bytes, content_sha256 ${sha(a)}).`],
      ['memory_read', { path: '/notes/a.md' }, `/notes/a.md (19 bytes, content_sha256 ${sha(a)}):\n${a}`],
      ['memory_search', { query: 'tea', path_prefix: '/notes/' }, '1 document under /notes/ matches "tea":\n/notes/a.md (score 0.288)\n     1\tTea at four'],
      ['memory_edit', { path: '/notes/a.md', old_str: 'Line 2', new_str: 'Line two', content_sha256: sha(a) }, `Edited /notes/a.md (21 bytes, content_sha256 ${sha(b)}).`],
      [
        'memory_edit',
        { path: '/notes/a.md', old_str: 'Tea', new_str: 'Coffee', content_sha256: sha(a) },
        `Error: /notes/a.md has changed since that content_sha256 was read (it is now ${sha(b)}); nothing was changed. Read it again with memory_read.`,
        true,
      ],
      ['memory_write', { path: '/notes/a.md', content: 'x', create_only: true }, 'Error: /notes/a.md already exists and create_only is set; nothing was written.', true],
      ['memory_write', { path: '/notes/a.md' }, 'Error: Invalid input for memory_write: content is required.', true],
      ['memory_write', { path: '/tmp.md', content: 'temp' }, `Created /tmp.md (4 bytes, content_sha256 ${sha('temp')}).`],
      ['memory_list', { depth: 1 }, 'Documents under /:\n/notes/ (directory)\n/tmp.md (4 bytes)'],
      ['memory_delete', { path: '/tmp.md' }, 'Deleted /tmp.md.'],
      ['memory_delete', { path: '/tmp.md' }, 'Error: No document at /tmp.md; memory_list shows the documents there are.', true],
      ['memory_read', undefined, 'Error: Invalid input for memory_read: path is required.', true],
    ];
    for (const [name, args, expected, isError = false] of SCRIPT) {
      assert.deepEqual(await tool(name, args), text(expected, isError), `${name} ${JSON.stringify(args)}`);
    }
    // The memory tool sees what the toolset wrote, and the toolset what it writes.
    assert.deepEqual(
      await call(client, { command: 'view', path: '/memories/notes/a.md' }),
      text(`Here's the content of /memories/notes/a.md with line numbers:\n     1\tTea at four\n     2\tLine two\n     3\t`),
    );
    await call(client, { command: 'create', path: '/memories/b.md', file_text: 'from the memory tool' });
    assert.deepEqual(await tool('memory_read', { path: '/b.md' }), text(`/b.md (20 bytes, content_sha256 ${sha('from the memory tool')}):\nfrom the memory tool`));
    assert.deepEqual(log.errors, []);
    assert.equal(log.stderr, SERVING);
  });

  test('resources: the listing as memdir://memories, any path through the template', async () => {
    const { client } = await connect(join(tempDir('memdir-mcp-'), 'store'));
    await call(client, { command: 'create', path: '/memories/a b/notes.md', file_text: 'hello\nworld' });
    const { resources } = await client.listResources();
    assert.deepEqual(resources, [
      {
        uri: 'memdir://memories',
        name: 'memories',
        title: 'The memory directory',
        description: 'The files and directories in /memories, two levels deep, with their sizes: the memory tool\'s "view /memories".',
        mimeType: 'text/plain',
      },
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => [t.uriTemplate, t.mimeType]), [['memdir://memories/{+path}', 'text/plain']]);

    const read = async (uri) => (await client.readResource({ uri })).contents;
    const listing = `${DIR_HEAD}\n11B\t/memories\n11B\t/memories/a b/\n11B\t/memories/a b/notes.md`;
    assert.deepEqual(await read('memdir://memories'), [{ uri: 'memdir://memories', mimeType: 'text/plain', text: listing }]);
    assert.equal(listing, (await call(client, { command: 'view', path: '/memories' })).content[0].text, 'the tool\'s own view');
    assert.deepEqual(await read('memdir://memories/a%20b/notes.md'), [
      { uri: 'memdir://memories/a%20b/notes.md', mimeType: 'text/plain', text: "Here's the content of /memories/a b/notes.md with line numbers:\n     1\thello\n     2\tworld" },
    ]);

    const refused = async (uri, code, message) =>
      assert.rejects(read(uri), (e) => {
        assert.equal(e.code, code, uri);
        assert.equal(e.message, `MCP error ${code}: ${message}`);
        return true;
      });
    await refused('memdir://memories/gone.md', -32002, 'The path /memories/gone.md does not exist. Please provide a valid path.');
    await refused('memdir://memories/../etc/passwd', -32602, 'Path /memories/../etc/passwd would escape /memories directory');
    await refused('memdir://memories/%2e%2e/x', -32602, 'Path /memories/../x would escape /memories directory');
    await refused('memdir://memories/%zz', -32602, 'Invalid resource URI "memdir://memories/%zz": a percent sign not followed by two hex digits');
    await refused('file:///etc/passwd', -32602, 'Unknown resource "file:///etc/passwd": memdir\'s resources are memdir://memories and memdir://memories/{path}');
    assert.deepEqual(await read('memdir://memories'), [{ uri: 'memdir://memories', mimeType: 'text/plain', text: listing }], 'still serving');
  });

  test('two clients on one store, each inserting lines into one file: every line there exactly once', async () => {
    const store = join(tempDir('memdir-mcp-'), 'store');
    const [a, b] = await Promise.all([connect(store, 'a'), connect(store, 'b')]);
    assert.deepEqual(await call(a.client, { command: 'create', path: '/memories/log.md', file_text: 'start' }), text('File created successfully at: /memories/log.md'));
    const LINES = 25;
    const writer = async ({ client }, who) => {
      for (let i = 0; i < LINES; i++) {
        const r = await call(client, { command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: `${who} ${i}` });
        assert.deepEqual(r, text('The file /memories/log.md has been edited.'), `${who} ${i}`);
      }
    };
    await Promise.all([writer(a, 'a'), writer(b, 'b')]);
    const view = (await call(b.client, { command: 'view', path: '/memories/log.md' })).content[0].text;
    const got = view.split('\n').slice(1).map((l) => l.slice(7));
    assert.equal(got[0], 'start');
    const expected = ['a', 'b'].flatMap((w) => Array.from({ length: LINES }, (_, i) => `${w} ${i}`));
    assert.deepEqual(got.slice(1).sort(), expected.sort(), 'each line exactly once');
    // Each writer's own lines stay in its order (each went in above the one before).
    for (const w of ['a', 'b']) {
      const mine = got.filter((l) => l.startsWith(`${w} `));
      assert.deepEqual(mine, Array.from({ length: LINES }, (_, i) => `${w} ${LINES - 1 - i}`));
    }
    assert.deepEqual([a.log.errors, b.log.errors], [[], []]);
  });
});

/**
 * The server on a raw pipe: lines in, every stdout line parsed as JSON. Ended with
 * test `t`, so a failed assertion fails the run instead of leaving it waiting on a
 * server that still has its pipes open.
 */
function rawServer(t, args) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  t.after(() => child.kill());
  let buf = '';
  let stderr = '';
  const messages = [];
  const waiters = [];
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      messages.push(JSON.parse(line)); // throws, failing the test, on anything but JSON
      for (const w of waiters.splice(0)) w();
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('close', (code) => r(code)));
  return {
    child,
    messages,
    get stderr() {
      return stderr;
    },
    exited,
    send: (line) => new Promise((r) => child.stdin.write(`${line}\n`, r)),
    /** The next message (in arrival order) that has this id. */
    async reply(id) {
      for (;;) {
        const m = messages.find((x) => x.id === id);
        if (m) return m;
        await new Promise((r) => waiters.push(r));
      }
    },
  };
}

test('malformed JSON-RPC on the pipe: each a clear JSON-RPC error, the server keeps serving, stdout only JSON-RPC', async (t) => {
  const s = rawServer(t, ['mcp', '--store', join(tempDir('memdir-mcp-'), 'store')]);
  const req = (id, method, params) => s.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) }));
  await req(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } });
  assert.equal((await s.reply(1)).result.serverInfo.name, 'memdir');
  await s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

  const error = async (id, code, message) => {
    const m = await s.reply(id);
    assert.deepEqual(m, { jsonrpc: '2.0', id, error: { code, message } });
    s.messages.splice(s.messages.indexOf(m), 1);
  };
  await s.send('this is not json');
  await error(null, -32700, 'Parse error: the message is not JSON');
  await s.send('[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]');
  await error(null, -32600, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response');
  await s.send('{"jsonrpc":"2.0","id":3}');
  await error(3, -32600, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response');
  await s.send('{"jsonrpc":"1.0","id":4,"method":"tools/list"}');
  await error(4, -32600, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response');
  await req(5, 'memory/view');
  await error(5, -32601, 'Method not found');
  await req(6, 'tools/call', { name: 'nope', arguments: {} });
  await error(6, -32602, 'Unknown tool: "nope"');
  // A name of a megabyte is quoted as every error quotes a caller's text: cut, counted.
  await req(61, 'tools/call', { name: 'n'.repeat(1_000_000), arguments: {} });
  await error(61, -32602, `Unknown tool: "${'n'.repeat(100)}"… (1,000,000 characters)`);

  // Params that do not fit the method: Invalid params, naming the field.
  await req(7, 'tools/call', { arguments: {} });
  const noName = await s.reply(7);
  assert.equal(noName.error.code, -32602);
  assert.match(noName.error.message, /^MCP error -32602: Invalid tools\/call request: [^]*"name"[^]*expected string, received undefined/);
  await req(8, 'resources/read', { uri: 5 });
  const badUri = await s.reply(8);
  assert.equal(badUri.error.code, -32602);
  assert.match(badUri.error.message, /^Invalid resources\/read request: [^]*"uri"[^]*expected string, received number/);

  // A line over the cap (the engine's input cap and room for the envelope) is never
  // held whole, and answered; the next line is served.
  const cap = memdir.defaults().maxInputBytes + 64 * 1024;
  await s.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory","arguments":{"command":"create","path":"/memories/big","file_text":"${'x'.repeat(cap)}"}}}`);
  await error(null, -32600, `Invalid Request: the message is over the limit of ${cap.toLocaleString('en-US')} bytes`);

  await req(10, 'tools/call', { name: 'memory', arguments: { command: 'create', path: '/memories/after.md', file_text: 'still here' } });
  assert.deepEqual(await s.reply(10), { jsonrpc: '2.0', id: 10, result: text('File created successfully at: /memories/after.md') });
  await req(11, 'tools/call', { name: 'memory', arguments: { command: 'view', path: '/memories' } });
  assert.deepEqual(await s.reply(11), { jsonrpc: '2.0', id: 11, result: text(`${DIR_HEAD}\n10B\t/memories\n10B\t/memories/after.md`) });

  s.child.stdin.end();
  assert.equal(await s.exited, 0, 'stdin closed: the server ends cleanly');
  for (const m of s.messages) assert.equal(m.jsonrpc, '2.0', JSON.stringify(m).slice(0, 200));
  assert.equal(s.stderr, SERVING);
});

test('memdir mcp refuses extra arguments and a directory that is not a store, before serving', async (t) => {
  const extra = rawServer(t, ['mcp', 'now']);
  assert.equal(await extra.exited, 2);
  assert.equal(extra.stderr, 'memdir: usage: memdir mcp [--store DIR] [--records] [--embedder FILE]\n');
  assert.deepEqual(extra.messages, []);

  const file = join(tempDir('memdir-mcp-'), 'file');
  writeFileSync(file, 'not a store');
  const notStore = rawServer(t, ['mcp', '--store', file]);
  assert.equal(await notStore.exited, 2);
  assert.equal(notStore.stderr, `memdir: ${file}: the store path is not a directory\n`);
  assert.deepEqual(notStore.messages, []);
});

describe('the MCP SDK in the project memdir runs in, memdir installed elsewhere (globally)', () => {
  // memdir copied where its own resolution finds no SDK (a global install without
  // it), and a project holding the SDK (a link to this repository's copy): the path
  // `claude mcp add … -- memdir mcp` takes, memdir run with the project as its cwd.
  const ROOT = fileURLToPath(new URL('../../', import.meta.url));
  const SDK = '@modelcontextprotocol/sdk';
  const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).peerDependencies[SDK];
  const HINT = `npm install ${SDK}@${VERSION} in the project memdir runs in (or -g beside a global memdir)`;
  const global = join(tempDir('memdir-global-'), 'lib', 'node_modules', 'memdir');
  for (const part of ['bin', 'js', 'dist', 'package.json']) cpSync(join(ROOT, part), join(global, part), { recursive: true });
  const bin = join(global, 'bin', 'memdir.js');
  const project = tempDir('memdir-project-');
  mkdirSync(join(project, 'node_modules', '@modelcontextprotocol'), { recursive: true });
  symlinkSync(realpathSync(join(ROOT, 'node_modules', SDK)), join(project, 'node_modules', SDK), 'dir');
  const bare = tempDir('memdir-bare-');

  test('the version named is the peerDependency', () => {
    assert.equal(VERSION, '1.32.2');
  });

  test('memdir mcp serves with the project\'s SDK', async () => {
    const store = join(tempDir('memdir-mcp-'), 'store');
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--store', store], cwd: project, stderr: 'pipe' });
    let stderr = '';
    transport.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const client = new Client({ name: 'memdir-test', version: '1.0.0' });
    await client.connect(transport);
    open.push(client);
    assert.deepEqual(await call(client, { command: 'create', path: N, file_text: 'found\n' }), text(`File created successfully at: ${N}`));
    assert.equal(stderr, SERVING);
  });

  test('without the SDK anywhere, memdir mcp names the version to install and where', async () => {
    const child = spawn(process.execPath, [bin, 'mcp', '--store', join(bare, 'store')], { cwd: bare, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.stdin.end();
    const [code] = await once(child, 'exit');
    assert.equal(code, 2);
    assert.equal(err, `memdir: mcp needs the MCP SDK, which memdir does not install by itself: ${HINT}\n`);
    assert.equal(out, '');
  });

  test('memdir serve answers /mcp with the project\'s SDK, and without one says what to install', async () => {
    const env = { ...process.env, MEMDIR_API_KEYS: '' };
    const args = [bin, 'serve', '--port', '0', '--no-auth'];
    const found = await startListening([...args, '--store', join(tempDir('memdir-serve-'), 'stores')], env, { cwd: project });
    try {
      const r = await fetch(`${found.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', host: new URL(found.url).host },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      // Past the MCP route's own check (a store must be named): the route is there.
      assert.deepEqual([r.status, (await r.json()).error.message], [400, 'Name the memory store this MCP session uses: /mcp?store=memstore_….']);
      assert.equal(found.stderr(), '');
    } finally {
      assert.deepEqual(await found.stop(), { code: 0, signal: null });
    }
    const missing = await startListening([...args, '--store', join(bare, 'stores')], env, { cwd: bare });
    try {
      // Written before the URL, but the two pipes are read in either order.
      if (!missing.stderr().endsWith('\n')) await once(missing.child.stderr, 'data');
      assert.equal(missing.stderr(), `memdir serve: no /mcp route: the MCP SDK is not installed (${HINT})\n`);
    } finally {
      assert.deepEqual(await missing.stop(), { code: 0, signal: null });
    }
  });
});

test('memdir mcp over an archived store: the memory tool refuses to create or change, as the API does', async () => {
  const dir = join(tempDir('memdir-mcp-'), 'store');
  const memory = await memdir.openMemory({ store: memdir.directoryStore(dir) });
  assert.equal((await memory.api({ op: 'store.create', id: 'memstore_abcdefghjkmn0123456789ab', body: { name: 'Old' } })).status, 200);
  assert.equal((await memory.api({ op: 'memory.create', body: { path: '/kept.md', content: 'one\n' } })).status, 200);
  assert.equal((await memory.api({ op: 'store.archive' })).status, 200);
  memory.close();
  const { client } = await connect(dir);
  const why = 'the memory store is archived; its memories can be viewed and deleted, not created or changed';
  assert.deepEqual(await call(client, { command: 'create', path: '/memories/new.md', file_text: 'x' }), text(`Error: Cannot create /memories/new.md: ${why}`, true));
  assert.deepEqual(
    await call(client, { command: 'str_replace', path: '/memories/kept.md', old_str: 'one', new_str: 'uno' }),
    text(`Error: Cannot str_replace /memories/kept.md: ${why}`, true),
  );
  assert.deepEqual(await call(client, { command: 'view', path: '/memories/kept.md' }), text("Here's the content of /memories/kept.md with line numbers:\n     1\tone\n     2\t"));
});
