// On Node, in the scratch project: memdir from the installed tarball over a
// directory store, handed to the SDK's own betaMemoryTool and driven by the SDK's
// tool runner against a loopback fake Messages API. The fake model asks for the
// tool inputs given as JSON in argv[2], one array per turn; prints as JSON where
// `memdir` resolved, what the package exports, and the tool_result blocks the
// runner sent back for each turn.
import { createServer } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { betaMemoryTool } from '@anthropic-ai/sdk/helpers/beta/memory';
import * as memdir from 'memdir';
import * as memdirServer from 'memdir/server';

const turns = JSON.parse(process.argv[2]);
const requests = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const params = JSON.parse(body);
    const i = requests.push(params) - 1;
    const turn = turns[i];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: `msg_${i}`,
        type: 'message',
        role: 'assistant',
        model: params.model,
        content: turn
          ? turn.map((input, j) => ({ type: 'tool_use', id: `toolu_${i}_${j}`, name: 'memory', input }))
          : [{ type: 'text', text: 'Done.' }],
        stop_reason: turn ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
try {
  const client = new Anthropic({ apiKey: 'test-key', baseURL: `http://127.0.0.1:${server.address().port}`, maxRetries: 0 });
  const memory = await memdir.openMemory({ store: memdir.directoryStore('./memory') });
  const final = await client.beta.messages.toolRunner({
    model: 'claude-sonnet-5-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: 'Remember things.' }],
    tools: [betaMemoryTool(memory)],
  });
  console.log(
    JSON.stringify({
      resolved: import.meta.resolve('memdir'),
      exports: Object.keys(memdir).sort(),
      serverResolved: import.meta.resolve('memdir/server'),
      serverExports: Object.keys(memdirServer).sort(),
      // What both export is one object: the old path is the new one re-exported.
      sameObjects: Object.keys(memdirServer).filter((name) => name in memdir && memdir[name] !== memdirServer[name]),
      tools: requests[0].tools,
      results: requests.slice(1).map((r) => r.messages.at(-1).content),
      final: final.content,
    }),
  );
} finally {
  server.close();
}
