// Compile-time check (tsc --noEmit, Node's resolution): memdir/tool's types hold the
// memory tool alone. What the lean build leaves out, and rejects at run time, is not
// in the types either.
import { betaMemoryTool, directoryStore, openMemory } from 'memdir/tool';
import type { ToolMemory } from 'memdir/tool';

export async function tool(): Promise<string> {
  const memory: ToolMemory = await openMemory({ store: directoryStore('./.memdir'), mounts: undefined });
  // @ts-expect-error search is memdir's: memdir/tool leaves it out.
  memory.search('x');
  // @ts-expect-error so is the Memory Stores API.
  memory.api({ op: 'memory.list' });
  // @ts-expect-error encryption at rest is memdir's too.
  await openMemory({ encryption: { key: new Uint8Array(32) } });
  // @ts-expect-error and a mount's key.
  await openMemory({ mounts: [{ name: 'team', store: directoryStore('./team'), encryption: { key: new Uint8Array(32) } }] });
  const runner = betaMemoryTool(memory);
  await runner.run({ command: 'view', path: '/memories' });
  return memory.view({ command: 'view', path: '/memories' });
}
