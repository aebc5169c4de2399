// Compile-time check (tsc --noEmit): the package's types accept the SDK's ways of
// using a memory tool, and the memory object fits the SDK's own betaMemoryTool.
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool as sdkBetaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import {
  type ApiResponse,
  type Entry,
  type JsStore,
  type Memory,
  type SearchHit,
  type SearchIndexStatus,
  type ToolResult,
  betaMemoryTool,
  checkStoreContract,
  customStore,
  directoryStore,
  listStores,
  inMemoryStore,
  memoryRecordTools,
  memoryStore,
  findTool,
  memoryFindTool,
  memoryStoreTools,
  memoryTool,
  newStoreId,
  openMemory,
  syncMemory,
} from 'memdir';

export async function example(client: Anthropic): Promise<void> {
  const memory: Memory = await openMemory({ store: directoryStore('./memory'), limits: { maxFileBytes: 50_000 } });
  // Both helpers take the memory object as the SDK's handlers.
  const ours = betaMemoryTool(memory, { cache_control: { type: 'ephemeral' } });
  const theirs = sdkBetaMemoryTool(memory);
  await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [ours, theirs],
  });
  const text: string = await memory.view({ command: 'view', path: '/memories' });
  const raw: ToolResult = await memory.execute({ command: 'create', path: '/memories/a', file_text: text });
  const fromText: ToolResult = await memory.executeJson('{"command":"view","path":"/memories"}');
  // On behalf of an API key, as memdir serve's MCP server calls them.
  const byKey = { actor: { type: 'api_actor', api_key_id: 'apikey_0123' } };
  const asKey: ToolResult = await memory.execute({ command: 'create', path: '/memories/k', file_text: 'k' }, byKey);
  const handled: string = await memory.handle({ command: 'view', path: '/memories' }, byKey);
  const wrote: string = await memory.toolset('memory_write', { path: '/k2.md', content: 'k' }, byKey);
  void asKey;
  void handled;
  void wrote;
  const entries: Entry[] = await memory.entries();
  await memory.import(entries);
  void raw;
  void fromText;
  // The memory-store toolset: runnable tools the SDK's runner takes as they are.
  await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [...memoryStoreTools(memory), ours],
  });
  const read: string = await memory.toolset('memory_read', { path: '/notes/a.md' });
  void read;
  // Search: ranked hits, a recall block, the index's status, and memory_find beside the memory tool.
  const hits: SearchHit[] = await memory.search('tea', { limit: 3, pathPrefix: '/memories/notes' });
  const first: { line: number; text: string } | undefined = hits[0]?.lines[0];
  const block: string = await memory.recall('tea', { maxChars: 2000 });
  const indexStatus: SearchIndexStatus = await memory.reindex();
  const pending: boolean = (await memory.searchStatus()).pending;
  const findName: 'memory_find' = findTool().name;
  void [first, block, indexStatus, pending, findName];
  // Seed 002's records toolset, its settings optional.
  await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'hi' }],
    tools: [...memoryRecordTools(memory, { halfLifeDays: 14 }), ours, memoryFindTool(memory, { cache_control: { type: 'ephemeral' } })],
  });
  const found: string = await memory.records('memory_retrieve', { query: 'tea' }, { capacity: 10 });
  void found;

  const map = new Map<string, Uint8Array>();
  const mine: JsStore = {
    get: async (k) => map.get(k),
    set: async (k, v) => void map.set(k, v),
    delete: async (k) => void map.delete(k),
    list: async (prefix) => ({ keys: [...map.keys()].filter((k) => k.startsWith(prefix)).sort() }),
    compareAndSwap: async () => false,
  };
  await checkStoreContract(customStore(mine));
  await openMemory({ store: mine });
  // A store with its answers at once: plain values, no promises.
  const atOnce: JsStore = {
    get: (k) => map.get(k),
    set: (k, v) => void map.set(k, v),
    delete: (k) => void map.delete(k),
    list: (prefix) => ({ keys: [...map.keys()].filter((k) => k.startsWith(prefix)).sort() }),
    compareAndSwap: () => false,
  };
  await openMemory({ store: atOnce });
  await openMemory({ store: inMemoryStore() });
  // The old name, an alias: the same function, typed alike.
  await openMemory({ store: memoryStore() });
  const sameStore: typeof inMemoryStore = memoryStore;
  void sameStore;

  // Several stores, the Memory Stores API, the system-prompt text.
  const mounted = await openMemory({
    mounts: [
      { name: 'team', store: inMemoryStore(), access: 'read_only', description: 'Conventions.' },
      { name: 'me', store: mine },
    ],
  });
  const prompt: string = mounted.instructions();
  const answer: ApiResponse = await mounted.api({ mount: 'me', op: 'memory.list', query: { path_prefix: '/' } });
  const status: number = answer.status;
  const page: ApiResponse = listStores([], { include_archived: 'true' });
  const id: string = newStoreId();
  void prompt;
  void status;
  void page;
  void id;
}

// The Memory Stores API handler (memdir/server): keys, or noAuth with the hosts it is reached by.
import { apiHandler, directoryCatalog as storeCatalogOnDisk, postgresCatalog, UnusableStore } from 'memdir/server';
// The same items through their old path, `memdir`, kept: one declaration each.
import * as beforeTheSubpath from 'memdir';
export const sameHandler: typeof apiHandler = beforeTheSubpath.apiHandler;
export const sameCatalog: typeof storeCatalogOnDisk = beforeTheSubpath.directoryCatalog;
export const sameError: typeof UnusableStore = beforeTheSubpath.UnusableStore;
export const inPostgres = apiHandler({ catalog: postgresCatalog('postgres://app@db/memdir'), keys: ['sk-1'] });
const onDisk = storeCatalogOnDisk('./stores');
export const keyed = apiHandler({ catalog: onDisk, keys: ['sk-1'], log: (line: string) => void line });
export const loopback = apiHandler({ catalog: onDisk, noAuth: true, hosts: ['127.0.0.1:8787'] });
// @ts-expect-error noAuth needs the hosts
export const hostless = apiHandler({ catalog: onDisk, noAuth: true });
export const unusable: Error = new UnusableStore('damaged');
// An encrypted catalog (memdir serve --encryption-key-file): checked and made ready before use.
export async function sealedCatalog(): Promise<void> {
  const sealed = postgresCatalog('postgres://app@db/memdir', { encryption: { key: new Uint8Array(32), keyId: 'k1' } });
  await sealed.check();
  await sealed.ready(['team']);
  apiHandler({ catalog: sealed, keys: [{ key: 'sk-1', workspace: 'team' }] });
  await sealed.close();
  // @ts-expect-error the key is bytes, not text
  storeCatalogOnDisk('./stores', { encryption: { key: 'hex' } });
}

// Sync with a Memory Stores API store.
async function syncTypes(memory: Memory) {
  const s = await syncMemory(memory, { baseURL: 'http://127.0.0.1:8787', apiKey: 'k', storeId: 'memstore_x' });
  const n: number = s.pulled + s.pushed + s.merged + s.conflicts + s.unchanged;
  const line: string = (await memory.sync({ apiKey: 'k', storeId: 'memstore_x' })).text;
  // One store of several, by its mount.
  await memory.sync({ apiKey: 'k', storeId: 'memstore_x', mount: 'me' });
  // @ts-expect-error a mount is named by a string
  await memory.sync({ apiKey: 'k', storeId: 'memstore_x', mount: 1 });
  void n;
  void line;
}
void syncTypes;

// The memory tool's definition, as an MCP face lists it.
const definition = memoryTool();
const toolName: 'memory' = definition.name;
const firstCommand: 'view' = definition.commands[0];
void toolName;
void firstCommand;
