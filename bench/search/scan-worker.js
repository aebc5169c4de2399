// The Worker bench/search/scan-workerd.mjs runs in workerd: one Durable Object holding
// a memory over an in-memory store with a deterministic embedder (each text's vector
// drawn from a generator seeded by its hash, 384 dimensions), loaded by POST /load
// (the corpus as JSON), its vectors made by POST /reindex, and searched by GET
// /search?q= (semantic, limit 10). workerd's clocks stand still while a request
// runs, so the bench times each request from Node.
import { DurableObject } from 'cloudflare:workers';
import { inMemoryStore, openMemory } from 'memdir';

const DIMS = 384;

function vector(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  let s = h || 1;
  const v = new Array(DIMS);
  for (let i = 0; i < DIMS; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    v[i] = s / 4294967296 - 0.5;
  }
  return v;
}

export class ScanObject extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/load') {
      this.memory?.close();
      const embedder = { id: 'bench-seeded-v1', dims: DIMS, embed: async (texts) => texts.map(vector) };
      this.memory = await openMemory({ store: inMemoryStore(), limits: { maxTotalBytes: 1024 * 1024 * 1024, maxMemories: 1_000_000 }, embedder });
      await this.memory.import(await request.json());
      return Response.json({ loaded: true });
    }
    if (url.pathname === '/reindex') {
      const status = await this.memory.reindex();
      return Response.json({ pending: status.pending, vectors: status.vectors });
    }
    if (url.pathname === '/search') {
      const hits = await this.memory.search(url.searchParams.get('q'), { mode: 'semantic' });
      return Response.json(hits.map((h) => [h.path, h.score]));
    }
    return new Response('not found', { status: 404 });
  }
}

export default {
  fetch(request, env) {
    return env.SCAN.get(env.SCAN.idFromName('scan')).fetch(request);
  },
};
