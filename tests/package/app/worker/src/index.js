// A Worker bundled by wrangler from the scratch project: memdir's workerd entry, one
// Durable Object holding the memory in its own storage. POST / with a tool input
// answers {content} or {error}.
import { DurableObject } from 'cloudflare:workers';
import { betaMemoryTool, durableObjectStore, openMemory } from 'memdir';

export class MemoryObject extends DurableObject {
  async run(input) {
    const tool = betaMemoryTool(await openMemory({ store: durableObjectStore(this.ctx.storage) }));
    try {
      return { content: await tool.run(input) };
    } catch (e) {
      return { error: e.message };
    }
  }
}

export default {
  async fetch(request, env) {
    const memory = env.MEMORY.get(env.MEMORY.idFromName('install-check'));
    return Response.json(await memory.run(await request.json()));
  },
};
