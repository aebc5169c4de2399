#!/usr/bin/env node
// memdir: the Claude memory tool on a directory store, from the command line.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { defaults, directoryStore, openMemory, oversizedInputResult, postgresStore } from '../js/node.js';
import { formatDuration as ms, parseDuration } from '../js/api/upkeep.js';
import { lines } from './ndjson.js';
import { readSdkLayout, writeSdkLayout } from './sdk-layout.js';

// The most retention passes one `memdir retain` runs (10,000,000 slots read).
const RETAIN_PASSES = 1000;

const HELP = `Usage: memdir [--store DIR] COMMAND [ARGS]

Runs the Claude memory tool (memory_20250818) on a memory directory kept on disk
in DIR (default: $MEMDIR_STORE or ./.memdir), a store directory in the format
memdir-store that memdir-host --store shares. Several processes may share DIR.

Tool inputs:
  exec 'JSON'              run one tool input, print its tool_result as JSON
  exec                     read tool inputs as newline-delimited JSON on stdin,
                           print one tool_result JSON line for each
Shorthands (print the tool's text; a PATH not starting with / is under /memories):
  view [PATH] [START END]  a directory listing or a file with line numbers
  create PATH TEXT         a new file (TEXT "-": read it from stdin)
  str_replace PATH OLD [NEW]
  insert PATH LINE TEXT
  delete PATH
  rename OLD NEW
Moving in and out (the SDK's BetaLocalFilesystemMemoryTool layout, DIR/memories/...):
  import-dir DIR [--force] replace the memory with the files under DIR/memories
                           (--force: even when the memory is not empty)
  export-dir DIR           write the memory out as DIR/memories/... (must not exist
                           or be empty)
Serving:
  mcp                      an MCP server on stdin and stdout (the memory tool as
                           the tool "memory", the listing as memdir://memories)
  serve [--host H] [--port N] [--keys FILE | --no-auth] [--retention D]
        [--upkeep-every D] [--allow-origin ORIGIN]...
                           the Memory Stores API (docs/memory-stores.md) over HTTP,
                           each store a directory store under DIR (default here:
                           ./memory-stores) or in a postgres:// database, on
                           127.0.0.1:8787 by default; keys from MEMDIR_API_KEYS
                           (KEY or KEY=WORKSPACE, comma separated) or FILE (a key a
                           line, then optionally its workspace); --no-auth only on
                           a loopback host. Prints its URL first. Every
                           --upkeep-every D (default ${ms(defaults().upkeepIntervalMs)}) each store drops
                           versions older than --retention D (default
                           $MEMDIR_RETENTION or ${ms(defaults().retentionMs)}; "off" keeps all) unless
                           current, then deletes what is unreachable. Pages of an
                           --allow-origin (or $MEMDIR_ALLOW_ORIGINS, comma
                           separated; "*" for any) may call it with a key.
Sync (docs/sync.md):
  sync --remote-store ID [--remote URL] [--key-file FILE]
                           make this store and the Memory Stores API store ID at
                           URL (default Anthropic's API) hold the same memories:
                           edits on either side copied, edits on both merged,
                           overlapping ones kept both between conflict markers;
                           the key from FILE or $ANTHROPIC_API_KEY. Prints one
                           line: pulled, pushed, merged, conflicts, unchanged
Upkeep:
  gc [--keep N]            delete stored objects unreachable from the last N
                           commits (default ${defaults().keepCommits})
  expire --older-than-ms N remove, in one commit, every file not written in the
                           last N milliseconds and every directory with nothing
                           recent beneath it
  retain [--retention D]   drop the versions older than D (default ${ms(defaults().retentionMs)}) that
                           hold no live memory's current content; gc then
                           deletes their bytes

A duration D is a whole number and a unit: ms, s, m, h or d (30d, 12h, 500ms).

Options:
  --store DIR              the store directory (created if missing or empty; one that
                           is not a memdir store is refused, nothing written), or a
                           postgres://USER@HOST:PORT/DB URL (needs npm install pg)
  -h, --help               this text
  --version                the version

Exit status: 0 success, 1 the tool answered with an error (exec on stdin: any
line did, after running every line), 2 usage or I/O error, or a store directory
that cannot be opened.
`;

class UsageError extends Error {}

/** parseDuration, a bad value being a usage error. */
function duration(flag, text, options) {
  try {
    return parseDuration(flag, text, options);
  } catch (e) {
    throw new UsageError(e.message);
  }
}


function parseArgs(argv) {
  const opts = { store: undefined, force: false, keep: defaults().keepCommits, host: '127.0.0.1', port: 8787, noAuth: false };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--store') {
      if (i + 1 >= argv.length) throw new UsageError('--store needs a directory');
      opts.store = argv[++i];
    } else if (a.startsWith('--store=')) opts.store = a.slice(8);
    else if (['--host', '--port', '--keys', '--retention', '--upkeep-every', '--remote', '--remote-store', '--key-file'].includes(a)) {
      if (i + 1 >= argv.length) throw new UsageError(`${a} needs a value`);
      opts[a.slice(2)] = argv[++i];
    } else if (a === '--allow-origin') {
      if (i + 1 >= argv.length) throw new UsageError('--allow-origin needs an origin');
      (opts.allowOrigin ??= []).push(argv[++i]);
    } else if (a === '--no-auth') opts.noAuth = true;
    else if (a === '-h' || a === '--help') opts.help = true;
    else if (a === '--version') opts.version = true;
    else if (a === '--force') opts.force = true;
    else if (a === '--keep') opts.keep = Number(argv[++i]);
    else if (a === '--older-than-ms') opts.olderThanMs = Number(argv[++i]);
    else if (a === '--') {
      rest.push(...argv.slice(i + 1)); // everything after -- is an argument, even "--store"
      break;
    } else rest.push(a);
  }
  return { opts, rest };
}

const toPath = (p) => (p.startsWith('/') ? p : `/memories/${p}`);

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

function arity(rest, min, max, usage) {
  const n = rest.length - 1;
  if (n < min || n > max) throw new UsageError(`usage: memdir ${usage}`);
}

/** The tool input a shorthand stands for. */
async function shorthand(rest) {
  const [cmd, a, b, c] = rest;
  switch (cmd) {
    case 'view': {
      arity(rest, 0, 3, 'view [PATH] [START END]');
      if (rest.length === 3) throw new UsageError('usage: memdir view [PATH] [START END]');
      const input = { command: 'view', path: toPath(a ?? '/memories') };
      if (b !== undefined) input.view_range = [Number(b), Number(c)];
      return input;
    }
    case 'create':
      arity(rest, 2, 2, 'create PATH TEXT');
      return { command: 'create', path: toPath(a), file_text: b === '-' ? await readStdin() : b };
    case 'str_replace':
      arity(rest, 2, 3, 'str_replace PATH OLD [NEW]');
      return { command: 'str_replace', path: toPath(a), old_str: b, new_str: c ?? '' };
    case 'insert':
      arity(rest, 3, 3, 'insert PATH LINE TEXT');
      return { command: 'insert', path: toPath(a), insert_line: Number(b), insert_text: c };
    case 'delete':
      arity(rest, 1, 1, 'delete PATH');
      return { command: 'delete', path: toPath(a) };
    case 'rename':
      arity(rest, 2, 2, 'rename OLD NEW');
      return { command: 'rename', old_path: toPath(a), new_path: toPath(b) };
    default:
      return undefined;
  }
}

async function execOne(memory, text) {
  const r = await memory.executeJson(text);
  process.stdout.write(`${JSON.stringify(r)}\n`);
  return r.is_error ? 1 : 0;
}

async function execStream(memory) {
  // A line over the engine's input cap is dropped as it arrives, never held whole,
  // and answered with the engine's own refusal; the next line runs as usual. Every
  // line runs; the exit status is 1 when any answer was an error, as for one input.
  let status = 0;
  for await (const line of lines(process.stdin, defaults().maxInputBytes)) {
    if (line !== null && line.trim() === '') continue;
    const r = line === null ? oversizedInputResult() : await memory.executeJson(line);
    if (r.is_error) status = 1;
    if (!process.stdout.write(`${JSON.stringify(r)}\n`)) {
      await new Promise((res) => process.stdout.once('drain', res));
    }
  }
  return status;
}

async function importDir(memory, dir, force) {
  const { maxFileBytes, maxTotalBytes } = defaults();
  const { entries, skipped, root } = await readSdkLayout(dir, { maxFileBytes, maxTotalBytes });
  if (!force && (await memory.entries()).length > 0) {
    throw new UsageError('import-dir: the memory is not empty; --force replaces it');
  }
  try {
    await memory.import(entries);
  } catch (e) {
    process.stderr.write(`Error: ${e.message}\n`);
    return 1;
  }
  const files = entries.filter((e) => e.content !== undefined).length;
  process.stdout.write(`Imported ${files} files and ${entries.length - files} directories from ${root}\n`);
  for (const s of skipped) process.stderr.write(`skipped the SDK's temporary file ${s}\n`);
  return 0;
}

async function exportDir(memory, dir) {
  const { files, dirs, root } = await writeSdkLayout(dir, await memory.entries());
  process.stdout.write(`Exported ${files} files and ${dirs} directories to ${root}\n`);
  return 0;
}

async function serveCommand(opts) {
  const port = /^\d{1,5}$/.test(String(opts.port)) ? Number(opts.port) : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError('--port needs a port number from 0 to 65535');
  // Loaded only here: the other commands do not pay for the HTTP server.
  const { serve, readKeys, ServeUsageError } = await import('./serve.js');
  // Listened for before the URL is printed: a client that reads it and at once
  // sends SIGTERM must find the handler there, not the default that kills.
  const stopped = new Promise((resolveStop) => {
    process.once('SIGTERM', resolveStop);
    process.once('SIGINT', resolveStop);
  });
  let server;
  try {
    const keys = opts.noAuth ? [] : await readKeys(process.env, opts.keys);
    const retentionMs = duration('--retention', opts.retention ?? process.env.MEMDIR_RETENTION ?? ms(defaults().retentionMs), { off: true });
    const upkeepMs = duration('--upkeep-every', opts['upkeep-every'] ?? ms(defaults().upkeepIntervalMs));
    const allowOrigins = [...(opts.allowOrigin ?? []), ...(process.env.MEMDIR_ALLOW_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean)];
    server = await serve({ store: opts.store ?? './memory-stores', host: opts.host, port, keys, noAuth: opts.noAuth, allowOrigins, retentionMs, upkeepMs });
  } catch (e) {
    if (e instanceof ServeUsageError) throw new UsageError(`serve: ${e.message}`);
    if (e?.code === 'EADDRINUSE' || e?.code === 'EACCES' || e?.code === 'EADDRNOTAVAIL') {
      throw new UsageError(`serve: cannot listen on ${opts.host}:${port} (${e.code})`);
    }
    throw e;
  }
  process.stdout.write(`${server.url}\n`);
  await stopped;
  await server.close();
  return 0;
}

async function packageJson() {
  return JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8'));
}

async function packageVersion() {
  return (await packageJson()).version;
}

/**
 * bin/mcp.js, on the MCP SDK: an optional peer dependency, so that the package adds
 * it (and its web frameworks) only to the projects that run `memdir mcp`.
 */
async function loadMcp() {
  const { SDK_INSTALL, SdkMissing } = await import('./mcp-sdk.js');
  try {
    return await import('./mcp.js');
  } catch (e) {
    if (!(e instanceof SdkMissing)) throw e;
    throw new UsageError(`mcp needs the MCP SDK, which memdir does not install by itself: ${SDK_INSTALL}`);
  }
}

async function main(argv) {
  const { opts, rest } = parseArgs(argv);
  if (opts.help || rest[0] === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (opts.version) {
    process.stdout.write(`memdir ${await packageVersion()}\n`);
    return 0;
  }
  if (rest.length === 0) throw new UsageError('no command given; memdir --help lists them');
  if (rest[0] === 'serve') {
    arity(rest, 0, 0, 'serve [--store DIR] [--host H] [--port N] [--keys FILE | --no-auth] [--retention D] [--upkeep-every D] [--allow-origin ORIGIN]');
    return serveCommand(opts);
  }
  // Not ./memory: that is the SDK's own folder, which import-dir reads from.
  opts.store ??= process.env.MEMDIR_STORE || './.memdir';
  if (rest[0] === 'mcp') {
    arity(rest, 0, 0, 'mcp [--store DIR]');
    // Loaded only here: the other commands do not pay for the MCP SDK.
    const [{ serveStdio }, version] = await Promise.all([loadMcp(), packageVersion()]);
    const store = storeAt(opts.store);
    try {
      await serveStdio(await openMemory({ store, actor: 'memdir-mcp' }), { version });
    } finally {
      await store.close?.();
    }
    return 0;
  }
  const store = storeAt(opts.store);
  try {
    return await onStore(store, opts, rest);
  } finally {
    // A PostgreSQL store's pool would keep the process alive until it idles out.
    await store.close?.();
  }
}

/** `--store`: a postgres:// URL names a PostgreSQL store (its "default" namespace), anything else a directory. */
function storeAt(spec) {
  return /^postgres(ql)?:\/\//.test(spec) ? postgresStore(spec) : directoryStore(spec);
}

async function onStore(store, opts, rest) {
  const memory = await openMemory({ store, actor: 'memdir-cli' });
  const [cmd] = rest;
  if (cmd === 'exec') {
    if (rest.length > 2) throw new UsageError("usage: memdir exec ['JSON']");
    return rest.length === 2 ? execOne(memory, rest[1]) : execStream(memory);
  }
  if (cmd === 'import-dir') {
    arity(rest, 1, 1, 'import-dir DIR [--force]');
    return importDir(memory, rest[1], opts.force);
  }
  if (cmd === 'export-dir') {
    arity(rest, 1, 1, 'export-dir DIR');
    return exportDir(memory, rest[1]);
  }
  if (cmd === 'gc') {
    if (!Number.isInteger(opts.keep) || opts.keep < 0) throw new UsageError('--keep needs a non-negative integer');
    const report = await memory.gc({ keepCommits: opts.keep });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  if (cmd === 'expire') {
    if (!Number.isSafeInteger(opts.olderThanMs) || opts.olderThanMs < 0) {
      throw new UsageError('expire needs --older-than-ms N, a non-negative integer');
    }
    const report = await memory.expire({ olderThanMs: opts.olderThanMs });
    process.stdout.write(`${JSON.stringify(report)}
`);
    return 0;
  }
  if (cmd === 'retain') {
    arity(rest, 0, 0, 'retain [--retention D]');
    const olderThanMs = duration('--retention', opts.retention ?? process.env.MEMDIR_RETENTION ?? ms(defaults().retentionMs));
    const report = { dropped: 0, more: true };
    // Pass after pass (each reads a bounded number of slots) until none is left to
    // drop, or RETAIN_PASSES passes: then `more` says to run it again.
    for (let pass = 0; report.more && pass < RETAIN_PASSES; pass++) {
      const r = await memory.retain({ olderThanMs });
      report.dropped += r.dropped;
      report.more = r.more;
    }
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  if (cmd === 'sync') {
    arity(rest, 0, 0, 'sync --remote-store ID [--remote URL] [--key-file FILE]');
    return syncCommand(memory, opts);
  }
  const input = await shorthand(rest);
  if (!input) throw new UsageError(`unknown command "${cmd}"; memdir --help lists them`);
  const r = await memory.execute(input);
  if (r.is_error) {
    process.stderr.write(`${r.content}\n`);
    return 1;
  }
  process.stdout.write(`${r.content}\n`);
  return 0;
}

/** `memdir sync`: one summary line, or the sync's error (exit 1). */
async function syncCommand(memory, opts) {
  if (!opts['remote-store']) throw new UsageError('sync needs --remote-store ID (the remote memory store, memstore_…)');
  let apiKey = process.env.ANTHROPIC_API_KEY;
  if (opts['key-file']) {
    try {
      apiKey = readFileSync(opts['key-file'], 'utf8').trim();
    } catch {
      throw new UsageError('--key-file: the file cannot be read');
    }
  }
  if (!apiKey) throw new UsageError('sync needs the remote\'s key: --key-file FILE or $ANTHROPIC_API_KEY');
  const options = { apiKey, storeId: opts['remote-store'] };
  if (opts.remote) options.baseURL = opts.remote;
  let s;
  try {
    s = await memory.sync(options);
  } catch (e) {
    if (e instanceof TypeError) throw new UsageError(e.message);
    if (e?.name !== 'SyncError') throw e;
    process.stderr.write(`memdir: ${e.message}\n`);
    return 1;
  }
  process.stdout.write(`${s.text}\n`);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`memdir: ${e instanceof UsageError ? e.message : e?.message ?? String(e)}\n`);
    process.exitCode = 2;
  },
);
