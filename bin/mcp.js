// `memdir mcp`: the memory tool as an MCP server over stdio, on the official
// @modelcontextprotocol/sdk, for clients that speak MCP (Claude Code, the Claude
// Agent SDK) and cannot pass the memory_20250818 tool in.
//
// The `memory` tool takes the memory tool's own input and answers the engine's
// text byte for byte; the directory listing is a resource. Beside it, the
// memory-store toolset (memory_list, memory_search, memory_read,
// memory_write, memory_edit, memory_delete) over the same store, its definitions
// and every answer the engine's (`memdir::toolset`), failures as `Error: <text>`
// with isError, as the SDK's tool runner gives them; or, asked for (`--records`,
// `/mcp?tools=records`), seed 002's records toolset (memory_store,
// memory_retrieve, memory_delete; `memdir::records`) in its place.
//
// The SDK's low-level `Server` is used, not `McpServer`: McpServer takes Zod schemas
// and validates inputs itself, so a bad input would get Zod's words instead of the
// engine's, and the tool's answers would no longer be the memory tool's.
//
// The SDK is found where memdir or the working directory's project has it
// (./mcp-sdk.js): importing this module rejects with SdkMissing when neither does.
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { MEMORY_SYSTEM_PROMPT, defaults, memoryTool, recordTools, toolsetTools } from '../js/node.js';
import { FACE_ERRORS, glue } from '../js/glue.js';
import { importSdk } from './mcp-sdk.js';
import { lines } from './ndjson.js';

const [{ Server }, { StdioServerTransport }, types] = await importSdk('server/index.js', 'server/stdio.js', 'types.js');
const {
  CallToolRequestSchema,
  ErrorCode,
  JSONRPCMessageSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RequestSchema,
} = types;

export const TOOL_NAME = memoryTool().name;
const ROOT = '/memories';
export const ROOT_URI = 'memdir://memories';

// The memory tool as the engine defines it (memdir::MEMORY_TOOL): its schema is
// memory_20250818's input flattened into one object, descriptive only, since every
// input goes to the engine, which is the judge of it.
const DEFINITION = memoryTool();
export const MEMORY_INPUT_SCHEMA = DEFINITION.input_schema;

const TOOL = Object.freeze({
  name: DEFINITION.name,
  title: DEFINITION.title,
  description: DEFINITION.description,
  inputSchema: MEMORY_INPUT_SCHEMA,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
});

/**
 * The toolsets an MCP server may offer beside the memory tool: the memory-store
 * toolset (the default) or seed 002's records toolset (`memory_store`,
 * `memory_retrieve`, `memory_delete`; docs/records.md). One at a time: both have a
 * `memory_delete`, each its own.
 */
export const TOOLSETS = Object.freeze(['store', 'records']);

/** A toolset's tools as MCP tools, from the engine's definitions. */
function toolsetMcpTools(tools) {
  return (tools === 'records' ? recordTools() : toolsetTools()).map(({ name, description, input_schema, read_only }) => ({
    name,
    description,
    inputSchema: input_schema,
    annotations: { readOnlyHint: read_only, destructiveHint: !read_only, openWorldHint: false },
  }));
}

/** One toolset call's MCP result: the engine's text, or `Error: <text>` with isError. */
async function callToolset(memory, tools, name, input, options) {
  try {
    const text = tools === 'records' ? await memory.records(name, input, options) : await memory.toolset(name, input, options);
    return { content: [{ type: 'text', text }], isError: false };
  } catch (e) {
    // Only the engine's own failures carry a kind; anything else is not shown raw.
    const message = typeof e?.kind === 'string' ? e.message : FACE_ERRORS.internal;
    return { content: [{ type: 'text', text: `Error: ${message}` }], isError: true };
  }
}

/**
 * A JSON-RPC error for the client. Not the SDK's McpError, whose message starts with
 * "MCP error {code}: ", which the client's McpError then adds a second time.
 */
function rpcError(code, message) {
  return Object.assign(new Error(message), { code });
}

/**
 * `schema` with any params: the SDK answers params that fail a handler's schema with
 * "Internal error" and the validator's dump, so the params are checked in the handler
 * (or, for tools/call, by the SDK's Server, which says "Invalid params").
 */
function anyParams(schema) {
  return schema.extend({ params: RequestSchema.shape.params });
}

/** The params of `request` as `schema` (a request schema) types them, or Invalid params. */
function paramsOf(schema, request) {
  const r = schema.shape.params.safeParse(request.params);
  if (!r.success) throw rpcError(ErrorCode.InvalidParams, `Invalid ${request.method} request: ${r.error.message}`);
  return r.data;
}

/** The memory path a resource URI names: memdir://memories[/...] → /memories[/...]. */
function uriPath(uri) {
  if (uri === ROOT_URI) return ROOT;
  if (!uri.startsWith(`${ROOT_URI}/`)) {
    throw rpcError(ErrorCode.InvalidParams, `Unknown resource ${glue.echoInput(uri)}: memdir's resources are ${ROOT_URI} and ${ROOT_URI}/{path}`);
  }
  try {
    // Decoded once; the engine then refuses anything that would leave /memories.
    return `${ROOT}/${decodeURIComponent(uri.slice(ROOT_URI.length + 1))}`;
  } catch {
    throw rpcError(ErrorCode.InvalidParams, `Invalid resource URI ${glue.echoInput(uri)}: a percent sign not followed by two hex digits`);
  }
}

// MCP's code for a resource that does not exist.
const RESOURCE_NOT_FOUND = -32002;

function resourceError(e) {
  if (e?.kind === 'refused') return rpcError(RESOURCE_NOT_FOUND, e.message);
  if (e?.kind === 'path' || e?.kind === 'input') return rpcError(ErrorCode.InvalidParams, e.message);
  return rpcError(ErrorCode.InternalError, e?.kind ? e.message : 'memdir could not read the memory');
}

/**
 * An MCP `Server` (not yet connected) answering for `memory`: the `memory` tool, a
 * toolset (`tools`: `'store'`, the memory-store toolset, or `'records'`, seed 002's)
 * and the listing resource. `actor`: whom the versions its writes make name
 * (`memdir serve` passes the API key's, as its API records it); without one, the
 * memory's own actor.
 */
export function createMcpServer(memory, { version = '0.0.0', actor, tools = 'store' } = {}) {
  if (!TOOLSETS.includes(tools)) throw new TypeError(`createMcpServer: tools must be 'store' or 'records'`);
  const options = actor === undefined ? undefined : { actor };
  const server = new Server(
    { name: 'memdir', title: 'memdir: the Claude memory tool', version },
    { capabilities: { tools: {}, resources: {} }, instructions: MEMORY_SYSTEM_PROMPT },
  );

  const toolset = toolsetMcpTools(tools);
  const toolsetNames = new Set(toolset.map((t) => t.name));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [TOOL, ...toolset] }));

  server.setRequestHandler(anyParams(CallToolRequestSchema), async (request) => {
    const { name, arguments: input } = paramsOf(CallToolRequestSchema, request);
    if (toolsetNames.has(name)) return callToolset(memory, tools, name, input ?? {}, options);
    // MCP's protocol error for an unknown tool, as its specification shows it (the
    // name quoted, and cut, as the engine's errors quote a caller's text).
    if (name !== TOOL_NAME) throw rpcError(ErrorCode.InvalidParams, `Unknown tool: ${glue.echoInput(name)}`);
    const r = await memory.execute(input ?? {}, options);
    return { content: [{ type: 'text', text: r.content }], isError: r.is_error };
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      {
        uri: ROOT_URI,
        name: 'memories',
        title: 'The memory directory',
        description: 'The files and directories in /memories, two levels deep, with their sizes: the memory tool\'s "view /memories".',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      {
        uriTemplate: `${ROOT_URI}/{+path}`,
        name: 'memory',
        title: 'A file or directory of the memory',
        description: 'A file with line numbers, or a directory listing: the memory tool\'s "view" of /memories/{path}.',
        mimeType: 'text/plain',
      },
    ],
  }));

  server.setRequestHandler(anyParams(ReadResourceRequestSchema), async (request) => {
    const { uri } = paramsOf(ReadResourceRequestSchema, request);
    const path = uriPath(uri);
    let text;
    try {
      text = await memory.handle({ command: 'view', path });
    } catch (e) {
      throw resourceError(e);
    }
    return { contents: [{ uri, mimeType: 'text/plain', text }] };
  });

  return server;
}

/** The JSON-RPC id of a message that is not a valid one, when it has a usable id. */
function idOf(msg) {
  const id = msg !== null && typeof msg === 'object' && !Array.isArray(msg) ? msg.id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/**
 * Feeds `sink` the lines of `input` that are JSON-RPC messages, and answers every
 * other line with a JSON-RPC error through `transport`. The SDK's stdio transport
 * only logs a line it cannot parse (the client waits forever), and closes the
 * connection when a line outgrows its buffer; here a line is held only up to `cap`
 * bytes (the reader `memdir exec` uses), and the server keeps serving.
 */
async function screen(input, sink, transport, cap) {
  const reply = (id, code, message) => transport.send({ jsonrpc: '2.0', id, error: { code, message } });
  for await (const line of lines(input, cap)) {
    if (line === null) {
      await reply(null, ErrorCode.InvalidRequest, `Invalid Request: the message is over the limit of ${cap.toLocaleString('en-US')} bytes`);
      continue;
    }
    if (line.trim() === '') continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      await reply(null, ErrorCode.ParseError, 'Parse error: the message is not JSON');
      continue;
    }
    if (!JSONRPCMessageSchema.safeParse(msg).success) {
      await reply(idOf(msg), ErrorCode.InvalidRequest, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response');
      continue;
    }
    if (!sink.write(`${line}\n`)) await once(sink, 'drain');
  }
  sink.end();
}

/**
 * Serves `memory` over this process's stdin and stdout until stdin ends. stdout
 * carries only JSON-RPC; anything to say goes to stderr.
 */
export async function serveStdio(memory, { version, label = 'memdir mcp', tools } = {}) {
  const log = (text) => process.stderr.write(`${label}: ${text}\n`);
  // A client gone mid-answer must not crash the server with EPIPE.
  process.stdout.on('error', (e) => log(`stdout: ${e.code ?? e.message}`));

  // A message may carry a tool input of up to the engine's cap, plus its envelope.
  const cap = defaults().maxInputBytes + 64 * 1024;
  const feed = new PassThrough();
  // Only whole screened lines reach the transport, and it parses each chunk at once:
  // its buffer never holds more than what sits in `feed` (a line and the high-water mark).
  const transport = new StdioServerTransport(feed, process.stdout, { maxBufferSize: 2 * cap });
  const server = createMcpServer(memory, { version, tools });
  server.onerror = (e) => log(e?.message ?? String(e));
  await server.connect(transport);
  log('serving the memory tool on stdio');
  await screen(process.stdin, feed, transport, cap);
}
