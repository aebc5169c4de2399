// An embedder over a hosted embeddings API (OpenAI's /v1/embeddings, or any server
// speaking it: Azure OpenAI, vLLM, Ollama's OpenAI endpoint), for
// openMemory({ embedder }) and `memdir search --embedder`. Not run in CI: it needs
// a key and the network.
//
//   OPENAI_API_KEY=... node examples/embedders/openai.mjs
//
// The model is named in `id`, so changing it re-embeds rather than mixing vectors
// of two models (docs/semantic.md, "The fingerprint").

export function openAiEmbedder({
  apiKey = process.env.OPENAI_API_KEY,
  model = 'text-embedding-3-small',
  dims = 1536,
  baseURL = 'https://api.openai.com/v1',
  fetch: doFetch = globalThis.fetch,
} = {}) {
  if (!apiKey) throw new Error('openAiEmbedder: set OPENAI_API_KEY or pass apiKey');
  return {
    id: `openai/${model}/${dims}`,
    dims,
    // OpenAI's models embed queries and documents alike; `kind` is for models
    // such as e5 ('query: ' / 'passage: ').
    async embed(texts) {
      const res = await doFetch(`${baseURL}/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
        body: JSON.stringify({ model, input: texts, dimensions: dims }),
      });
      // memdir answers its own words for any failure; the API's text (which may
      // name the account) stays here.
      if (!res.ok) throw new Error(`embeddings API answered ${res.status}`);
      const { data } = await res.json();
      return data.sort((a, b) => a.index - b.index).map((d) => d.embedding);
    },
  };
}

// `memdir search --embedder examples/embedders/openai.mjs`: the CLI takes the
// module's default export.
export default process.env.OPENAI_API_KEY ? openAiEmbedder() : undefined;

if (import.meta.url === `file://${process.argv[1]}`) {
  const { openMemory } = await import('memdir');
  const memory = await openMemory({ embedder: openAiEmbedder() });
  await memory.create({ path: '/memories/prefs.md', file_text: 'The user prefers dark mode in every editor.\n' });
  await memory.create({ path: '/memories/schedule.md', file_text: 'The user hates meetings before ten.\n' });
  console.log(await memory.search('夜间模式'));
  console.log(await memory.search('morning availability', { mode: 'semantic' }));
}
