#!/usr/bin/env node
// The Vercel AI SDK with memdir as the backend of Anthropic's memory tool:
// `anthropic.tools.memory_20250818({ execute })` leaves the storage to the
// application, and memdir's execute is that storage, kept on disk in ./.memdir (or
// $MEMDIR_STORE), so a second run remembers the first.
//
//   ANTHROPIC_API_KEY=... node examples/vercel-ai.mjs "Plan a 3-day trip to Lisbon; keep notes."
//
// Optional: MEMDIR_MODEL (default claude-sonnet-5-5), MEMDIR_STORE, and the AI SDK's
// own ANTHROPIC_BASE_URL (with the /v1: http://host/v1).
import { anthropic } from '@ai-sdk/anthropic';
import { generateText, stepCountIs } from 'ai';
import { MEMORY_SYSTEM_PROMPT, directoryStore, openMemory } from 'memdir';

if (!process.env.ANTHROPIC_API_KEY) {
  process.stderr.write(`examples/vercel-ai.mjs runs the Vercel AI SDK (ai, @ai-sdk/anthropic) with memdir
behind anthropic.tools.memory_20250818, and needs:
  ANTHROPIC_API_KEY   an Anthropic API key (https://console.anthropic.com/)
Optional:
  MEMDIR_MODEL        the model (default claude-sonnet-5-5)
  MEMDIR_STORE        the memory directory (default ./.memdir)
Then: ANTHROPIC_API_KEY=sk-ant-... node examples/vercel-ai.mjs "your task"
Without a key, try the memory itself: npx memdir --help
`);
  process.exit(1);
}

const task =
  process.argv.slice(2).join(' ') ||
  'I am learning Portuguese. Check your memory for my progress, teach me five new words I have not seen yet, and record them.';
const storePath = process.env.MEMDIR_STORE || './.memdir';
const memory = await openMemory({ store: directoryStore(storePath) });

// The AI SDK checks the model's input against the tool's schema, then calls
// execute(input) and sends back what it returns. memdir's execute answers the raw
// face, {content, is_error}; toModelOutput turns that into the tool_result the API
// expects: the text, marked as an error when it is one ("Error: ..." as the SDK's
// own tool runner sends it).
const memoryTool = anthropic.tools.memory_20250818({
  execute: (input) => memory.execute(input),
  toModelOutput: ({ output }) => ({ type: output.is_error ? 'error-text' : 'text', value: output.content }),
});

const result = await generateText({
  model: anthropic(process.env.MEMDIR_MODEL || 'claude-sonnet-5-5'),
  system: MEMORY_SYSTEM_PROMPT,
  prompt: task,
  tools: { memory: memoryTool },
  stopWhen: stepCountIs(25),
});

for (const step of result.steps) {
  for (const call of step.toolCalls) {
    process.stdout.write(`[memory ${call.input.command} ${call.input.path ?? call.input.old_path ?? ''}]\n`);
  }
}
process.stdout.write(`${result.text}\n`);
process.stdout.write(`\nThe memory directory now (${storePath}):\n${await memory.view({ command: 'view', path: '/memories' })}\n`);
