// What the loopback fake Messages API answers when a test plays the model: one
// rule for every suite that drives a real client (the SDK's tool runner, the
// examples, the Vercel AI SDK, the browser agent).

/**
 * The `i`-th reply: each memory-tool input in `calls` as a `tool_use` block
 * (after a `lead` text, if given), or, when `calls` is absent, the final `text`.
 */
export function modelReply(i, model, calls, options) {
  return modelToolReply(i, model, calls?.map((input) => ({ name: 'memory', input })), options);
}

/** `modelReply` for calls to any tools: each `{name, input}` as a `tool_use` block. */
export function modelToolReply(i, model, calls, { text = 'Done.', lead } = {}) {
  const uses = (calls ?? []).map(({ name, input }, j) => ({ type: 'tool_use', id: `toolu_${i}_${j}`, name, input }));
  const content = calls ? [...(lead ? [{ type: 'text', text: lead }] : []), ...uses] : [{ type: 'text', text }];
  return {
    id: `msg_${i}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: calls ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 1, output_tokens: 1 },
  };
}

/**
 * A loopback Messages API (an `http.Server`, not yet listening) answering the
 * i-th request with `calls(i)`'s tool inputs as `tool_use` blocks, or the final
 * text once `calls(i)` is undefined (`reply`: `modelReply` for the memory tool's
 * inputs, `modelToolReply` for `{name, input}` calls of any tools); `requests` records every request's url and
 * parsed params.
 */
export async function scriptedApi(calls, reply = modelReply) {
  const { createServer } = await import('node:http');
  const requests = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const params = JSON.parse(body);
      requests.push({ url: req.url, params });
      const i = requests.length - 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply(i, params.model, calls(i))));
    });
  });
  return { server, requests };
}
