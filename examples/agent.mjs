#!/usr/bin/env node
// A real agent loop: the Anthropic SDK's tool runner with memdir as the memory tool,
// kept on disk in ./.memdir (or $MEMDIR_STORE), so a second run remembers the first.
//
//   ANTHROPIC_API_KEY=... node examples/agent.mjs "Plan a 3-day trip to Lisbon; keep notes."
//
// Optional: MEMDIR_MODEL (default claude-sonnet-5-5), MEMDIR_STORE, ANTHROPIC_BASE_URL.
import Anthropic from '@anthropic-ai/sdk';
import { MEMORY_SYSTEM_PROMPT, betaMemoryTool, directoryStore, openMemory } from 'memdir';

if (!process.env.ANTHROPIC_API_KEY) {
  process.stderr.write(`examples/agent.mjs runs a real agent with memdir as its memory tool, and needs:
  ANTHROPIC_API_KEY   an Anthropic API key (https://console.anthropic.com/)
Optional:
  MEMDIR_MODEL        the model (default claude-sonnet-5-5)
  MEMDIR_STORE        the memory directory (default ./.memdir)
Then: ANTHROPIC_API_KEY=sk-ant-... node examples/agent.mjs "your task"
Without a key, try the memory itself: npx memdir --help
`);
  process.exit(1);
}

const task =
  process.argv.slice(2).join(' ') ||
  'I am learning Portuguese. Check your memory for my progress, teach me five new words I have not seen yet, and record them.';
const storePath = process.env.MEMDIR_STORE || './.memdir';

const client = new Anthropic();
// The one line that differs from the SDK's own example, which opens
// `await BetaLocalFilesystemMemoryTool.init('./memory')` here:
const memory = await openMemory({ store: directoryStore(storePath) });

const runner = client.beta.messages.toolRunner({
  model: process.env.MEMDIR_MODEL || 'claude-sonnet-5-5',
  max_tokens: 2048,
  system: MEMORY_SYSTEM_PROMPT,
  messages: [{ role: 'user', content: task }],
  tools: [betaMemoryTool(memory)],
  betas: ['context-management-2025-06-27'],
});

for await (const message of runner) {
  for (const block of message.content) {
    if (block.type === 'text') process.stdout.write(`${block.text}\n`);
    if (block.type === 'tool_use') process.stdout.write(`[memory ${block.input.command} ${block.input.path ?? block.input.old_path ?? ''}]\n`);
  }
}

process.stdout.write(`\nThe memory directory now (${storePath}):\n${await memory.view({ command: 'view', path: '/memories' })}\n`);
