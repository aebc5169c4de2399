#!/usr/bin/env node
// memdir: the Claude memory tool on a directory store, from the command line.
import { readFileSync, statSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { readFile } from 'node:fs/promises';
import { defaults, directoryStore, encryptStore, openMemory, oversizedInputResult, postgresStore } from '../js/node.js';
import { formatDuration as ms, parseDuration } from '../js/api/upkeep.js';
import { KeyFileError, readKeyFile } from './key-file.js';
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
  mcp [--records] [--embedder FILE]
                           an MCP server on stdin and stdout (the memory tool as
                           the tool "memory", the listing as memdir://memories;
                           --records: seed 002's memory_store, memory_retrieve and
                           memory_delete in place of the memory-store toolset;
                           --embedder: memory_retrieve ranks hybrid, near
                           duplicates by cosine, docs/semantic.md)
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
        [--encryption-key-file F]
                           every store encrypted at rest under the master key in
                           F (64 hex characters), each with a data key of its own
                           wrapped under it; a deleted store's key is destroyed
                           first (docs/encryption.md)
        [--embedder FILE]  search (the API's and /mcp's memory_search) by
                           meaning too: FILE's default export is the embedder
                           (as for search); mode hybrid by default, semantic or
                           lexical when asked; without it, lexical only
                           (docs/semantic.md)
  serve-rekey --encryption-key-file OLD --new-key-file NEW
                           rotate the master key of serve's stores under DIR (or
                           a postgres:// database): each store's data key is
                           re-wrapped under NEW, no data rewritten; stop the
                           servers first, restart them with NEW. A run cut short
                           is finished by running it again. Prints
                           {rewrapped,already}
Sync (docs/sync.md):
  sync --remote-store ID [--remote URL] [--key-file FILE]
                           make this store and the Memory Stores API store ID at
                           URL (default Anthropic's API) hold the same memories:
                           edits on either side copied, edits on both merged,
                           overlapping ones kept both between conflict markers;
                           the key from FILE or $ANTHROPIC_API_KEY. Prints one
                           line: pulled, pushed, merged, conflicts, unchanged
Search:
  search QUERY [--limit N] [--prefix P] [--json] [--mode M] [--embedder FILE]
                           the memories most relevant to QUERY (its words, in
                           any language), best first: each path, its score and
                           its best matching lines, numbered; --prefix P only
                           under the directory P, --limit N at most N (default
                           ${defaults().searchDefaultLimit}); --json: one JSON array of
                           {path, score, lines: [{line, text}]}; --embedder FILE
                           a JS module whose default export is an embedder
                           {id, dims, embed(texts, kind)} (docs/semantic.md),
                           --mode lexical, semantic or hybrid (the default
                           with an embedder)
  reindex [--embedder FILE]
                           bring the search index (and with an embedder the
                           vectors) up to date now (a search does it too, a
                           bounded part at a time); prints {indexed,pending}
                           (with an embedder, also fingerprint and vectors)
Encryption at rest (docs/encryption.md):
  encrypt                  turn the plaintext store into one encrypted with the
                           key of --encryption-key-file, in bounded steps each
                           saved (after a crash, run it again: it finishes)
  rekey --new-key-file F [--new-key-id ID]
                           re-encrypt the store (opened with
                           --encryption-key-file) under the key in F, the same
                           way; meanwhile both keys open it
Upkeep:
  gc [--keep N]            delete stored objects unreachable from the last N
                           commits (default ${defaults().keepCommits}) that the previous gc found
                           unreachable too; those found only now are "pending"
                           (another process's command may be about to use them)
                           and go at the next gc. Prints {reachable,deleted,pending}
  expire --older-than D    remove, in one commit, every file not written in the
                           last D and every directory with nothing recent beneath
                           it (--older-than-ms N, milliseconds, still works)
  retain [--retention D]   drop the versions older than D (default ${ms(defaults().retentionMs)}) that
                           hold no live memory's current content; gc then
                           deletes their bytes

A duration D is a whole number and a unit: ms, s, m, h or d (30d, 12h, 500ms).

Options:
  --store DIR              the store directory, or a postgres://USER@HOST:PORT/DB
                           URL (needs npm install pg). create, exec, import-dir,
                           mcp and sync make the directory if missing; the other
                           commands refuse one that is not there. One that is not
                           a memdir store is refused, nothing written
  --encryption-key-file F  the store is encrypted at rest with the key in F (64
                           hex characters, a trailing newline allowed); every
                           command but serve takes it, and an encrypted store
                           opens only with it
  --encryption-key-id ID   that key's name (default: derived from the key)
  -h, --help               this text
  --version                the version

Each command refuses an option it does not take, by name.

Exit status: 0 success, 1 the tool answered with an error (exec on stdin: any
line did, after running every line), 2 usage or I/O error, or a store directory
that is missing (where needed) or cannot be opened.
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

// The options, each with whether it takes a value; every command accepts GLOBAL
// and its own (OPTIONS), and refuses any other by name: a mistyped option must not
// be ignored, nor taken for an argument.
const GLOBAL = ['--store', '--help', '-h', '--version'];
const TAKES_VALUE = new Set(['--encryption-key-file', '--encryption-key-id', '--new-key-file', '--new-key-id', '--store', '--host', '--port', '--keys', '--retention', '--upkeep-every', '--allow-origin', '--remote', '--remote-store', '--key-file', '--keep', '--older-than', '--older-than-ms', '--limit', '--prefix', '--mode', '--embedder']);
const FLAGS = new Set(['--help', '-h', '--version', '--force', '--no-auth', '--json', '--records']);
const OPTIONS = {
  serve: ['--host', '--port', '--keys', '--no-auth', '--retention', '--upkeep-every', '--allow-origin', '--encryption-key-file', '--embedder'],
  'serve-rekey': ['--encryption-key-file', '--new-key-file'],
  sync: ['--remote', '--remote-store', '--key-file'],
  'import-dir': ['--force'],
  mcp: ['--records', '--embedder'],
  gc: ['--keep'],
  expire: ['--older-than', '--older-than-ms'],
  retain: ['--retention'],
  search: ['--limit', '--prefix', '--json', '--mode', '--embedder'],
  reindex: ['--embedder'],
  rekey: ['--new-key-file', '--new-key-id'],
};
// Every command that opens a store takes its key; serve has its own (bin/serve.js).
const KEYED = ['--encryption-key-file', '--encryption-key-id'];

// What an option looks like: "--" and a name (a letter, then letters, digits and
// "-"), then "=VALUE" or nothing. Anything else is an argument: "---" (a front
// matter's first line), "--two words", "-1" (a view range's end).
const OPTION = /^(--[A-Za-z][A-Za-z0-9-]{0,63})(=[\s\S]*)?$/;

/**
 * The options (by name: a value, true for a flag, a list for --allow-origin),
 * the names of those given, and the other arguments. After "--" every word is an
 * argument. An option no command takes is kept by name, to be refused by name.
 */
function parseArgs(argv) {
  const opts = {};
  const given = []; // option names, in order
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i + 1)); // everything after -- is an argument, even "--store"
      break;
    }
    const m = a === '-h' ? [a, a, undefined] : OPTION.exec(a);
    if (!m) {
      rest.push(a);
      continue;
    }
    const [, name, assigned] = m;
    given.push(name);
    if (TAKES_VALUE.has(name)) {
      let value;
      if (assigned !== undefined) value = assigned.slice(1);
      else if (i + 1 < argv.length) value = argv[++i];
      else throw new UsageError(`${name} needs a value`);
      if (name === '--allow-origin') (opts.allowOrigin ??= []).push(value);
      else opts[name.slice(2)] = value;
    } else if (FLAGS.has(name)) {
      if (assigned !== undefined) throw new UsageError(`${name} takes no value`);
      opts[name === '-h' ? 'help' : name.slice(2)] = true;
    }
    // Any other: refused once the command is known (see refuseOptions).
  }
  return { opts, given, rest };
}

/** Refuses, by name, the first option given that command `cmd` does not take. */
function refuseOptions(cmd, given) {
  const mine = new Set([...GLOBAL, ...(OPTIONS[cmd] ?? []), ...(cmd === 'serve' ? [] : KEYED)]);
  const bad = given.find((name) => !mine.has(name));
  if (bad === undefined) return;
  const which = COMMANDS.has(cmd) ? `${cmd} has no option` : 'unknown option';
  throw new UsageError(`${which} ${JSON.stringify(bad)}; memdir --help lists each command's options`);
}

// Every command; any other is refused by name.
const COMMANDS = new Set(['exec', 'view', 'create', 'str_replace', 'insert', 'delete', 'rename', 'import-dir', 'export-dir', 'mcp', 'serve', 'sync', 'gc', 'expire', 'retain', 'search', 'reindex', 'encrypt', 'rekey', 'serve-rekey']);

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

async function importDir(open, dir, force) {
  const { maxFileBytes, maxTotalBytes } = defaults();
  const { entries, skipped, root } = await readSdkLayout(dir, { maxFileBytes, maxTotalBytes });
  const memory = await open();
  if (!force && (await memory.entries()).length > 0) {
    throw new UsageError('import-dir: the store already holds memories; --force deletes them all and imports DIR in their place (export-dir keeps a copy first)');
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
  const port = /^\d{1,5}$/.test(opts.port ?? '8787') ? Number(opts.port ?? '8787') : NaN;
  if (!(port >= 0 && port <= 65535)) throw new UsageError('--port needs a port number from 0 to 65535');
  const host = opts.host ?? '127.0.0.1';
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
    const keys = opts['no-auth'] ? [] : await readKeys(process.env, opts.keys);
    const encryption = await keyFile(opts, 'encryption-key-file');
    const retentionMs = duration('--retention', opts.retention ?? process.env.MEMDIR_RETENTION ?? ms(defaults().retentionMs), { off: true });
    const upkeepMs = duration('--upkeep-every', opts['upkeep-every'] ?? ms(defaults().upkeepIntervalMs));
    const allowOrigins = [...(opts.allowOrigin ?? []), ...(process.env.MEMDIR_ALLOW_ORIGINS ?? '').split(',').map((o) => o.trim()).filter(Boolean)];
    const embedder = await loadEmbedder(opts.embedder);
    server = await serve({ store: opts.store ?? './memory-stores', host, port, keys, noAuth: opts['no-auth'] === true, allowOrigins, retentionMs, upkeepMs, encryption, embedder });
  } catch (e) {
    if (e instanceof ServeUsageError) throw new UsageError(`serve: ${e.message}`);
    if (e?.code === 'EADDRINUSE' || e?.code === 'EACCES' || e?.code === 'EADDRNOTAVAIL') {
      throw new UsageError(`serve: cannot listen on ${host}:${port} (${e.code})`);
    }
    throw e;
  }
  process.stdout.write(`${server.url}\n`);
  await stopped;
  await server.close();
  return 0;
}

/** The key in the file `--NAME` names (undefined when not given), a bad one a usage error. */
async function keyFile(opts, name) {
  if (opts[name] === undefined) return undefined;
  const { KeyFileError, readKeyFile } = await import('./key-file.js');
  try {
    return readKeyFile(`--${name}`, opts[name]);
  } catch (e) {
    if (e instanceof KeyFileError) throw new UsageError(e.message);
    throw e;
  }
}

async function serveRekeyCommand(opts) {
  const { rewrapStores, ServeUsageError } = await import('./serve.js');
  if (opts['encryption-key-file'] === undefined || opts['new-key-file'] === undefined) {
    throw new UsageError('serve-rekey needs --encryption-key-file OLD (the master key now) and --new-key-file NEW');
  }
  const encryption = await keyFile(opts, 'encryption-key-file');
  const next = await keyFile(opts, 'new-key-file');
  let done;
  try {
    done = await rewrapStores({ store: opts.store ?? './memory-stores', encryption, next });
  } catch (e) {
    if (e instanceof ServeUsageError) throw new UsageError(`serve-rekey: ${e.message}`);
    throw e;
  }
  process.stdout.write(`${JSON.stringify(done)}\n`);
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
  const { opts, given, rest } = parseArgs(argv);
  if (opts.help || rest[0] === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (opts.version) {
    process.stdout.write(`memdir ${await packageVersion()}\n`);
    return 0;
  }
  const [cmd] = rest;
  refuseOptions(cmd, given);
  if (opts['encryption-key-id'] !== undefined && opts['encryption-key-file'] === undefined) {
    throw new UsageError('--encryption-key-id names the key of --encryption-key-file: give that too');
  }
  if (opts['new-key-id'] !== undefined && opts['new-key-file'] === undefined) {
    throw new UsageError('--new-key-id names the key of --new-key-file: give that too');
  }
  if (rest.length === 0) throw new UsageError('no command given; memdir --help lists them');
  if (!COMMANDS.has(cmd)) throw new UsageError(`unknown command ${JSON.stringify(cmd)}; memdir --help lists them`);
  if (cmd === 'serve') {
    arity(rest, 0, 0, 'serve [--store DIR] [--host H] [--port N] [--keys FILE | --no-auth] [--retention D] [--upkeep-every D] [--allow-origin ORIGIN] [--encryption-key-file F] [--embedder FILE]');
    return serveCommand(opts);
  }
  if (cmd === 'serve-rekey') {
    arity(rest, 0, 0, 'serve-rekey [--store DIR] --encryption-key-file OLD --new-key-file NEW');
    return serveRekeyCommand(opts);
  }
  // Not ./memory: that is the SDK's own folder, which import-dir reads from.
  const named = opts.store !== undefined ? '--store' : process.env.MEMDIR_STORE ? '$MEMDIR_STORE' : undefined;
  opts.store ??= process.env.MEMDIR_STORE || DEFAULT_STORE;
  if (!STARTS_A_STORE.has(cmd)) storeMustExist(cmd, opts.store, named);
  if (cmd === 'mcp') {
    arity(rest, 0, 0, 'mcp [--store DIR] [--records] [--embedder FILE]');
    const embedder = await loadEmbedder(opts.embedder);
    // Loaded only here: the other commands do not pay for the MCP SDK.
    const [{ serveStdio }, version] = await Promise.all([loadMcp(), packageVersion()]);
    const encryption = keyOption(opts);
    const store = storeAt(opts.store);
    try {
      await store.ready?.();
      await serveStdio(await openMemory({ store, actor: 'memdir-mcp', encryption, embedder }), { version, tools: opts.records ? 'records' : 'store' });
    } finally {
      await store.close?.();
    }
    return 0;
  }
  // Read before the store is touched: a key file that cannot be read or holds no
  // key is a usage error, nothing opened.
  const encryption = keyOption(opts);
  const store = storeAt(opts.store);
  try {
    // A PostgreSQL store connects first, so that `pg` missing, a database it cannot
    // reach or a table it cannot use is said as such, not as "storage failed".
    await store.ready?.();
    return await onStore(store, opts, rest, encryption);
  } finally {
    // A PostgreSQL store's pool would keep the process alive until it idles out.
    await store.close?.();
  }
}

const DEFAULT_STORE = './.memdir';
// The commands that make the store directory when there is none: each may be the
// first a user runs on a new store. Every other one needs a store already there, so
// a mistyped --store is an error, not a new empty store (docs/cli.md).
const STARTS_A_STORE = new Set(['create', 'exec', 'import-dir', 'mcp', 'sync']);

/**
 * Refuses a store directory that is not there. Only what the user typed is named
 * (or the default, which they can see in --help), never a path made from it.
 */
function storeMustExist(cmd, spec, named) {
  if (/^postgres(ql)?:\/\//.test(spec)) return;
  try {
    statSync(spec);
    return; // there: directoryStore judges what it is
  } catch (e) {
    if (e?.code !== 'ENOENT') return; // any other failure is directoryStore's to report
  }
  const where = named ? `${named} ${JSON.stringify(spec)}` : `the default store ${JSON.stringify(spec)}`;
  throw new UsageError(`${where}: no such directory; ${cmd} needs a store that exists (create, exec, import-dir, mcp and sync make one)`);
}

/** `--store`: a postgres:// URL names a PostgreSQL store (its "default" namespace), anything else a directory. */
function storeAt(spec) {
  return /^postgres(ql)?:\/\//.test(spec) ? postgresStore(spec) : directoryStore(spec);
}

/** `--encryption-key-file` (and its id) as openMemory's `encryption`, or undefined. */
function keyOption(opts) {
  return keyFrom('--encryption-key-file', opts['encryption-key-file'], opts['encryption-key-id']);
}

function keyFrom(flag, file, keyId) {
  if (file === undefined) return undefined;
  try {
    return readKeyFile(flag, file, keyId);
  } catch (e) {
    if (e instanceof KeyFileError) throw new UsageError(e.message);
    throw e;
  }
}

async function onStore(store, opts, rest, encryption) {
  // Opened once a command's arguments are known good: a usage error touches no store.
  let memory;
  const embedder = await loadEmbedder(opts.embedder);
  const open = async () => (memory ??= await openMemory({ store, actor: 'memdir-cli', encryption, embedder }));
  const [cmd] = rest;
  if (cmd === 'encrypt') {
    arity(rest, 0, 0, 'encrypt --encryption-key-file F [--encryption-key-id ID]');
    if (encryption === undefined) throw new UsageError('encrypt needs the key: --encryption-key-file F');
    const keyId = await encryptStore(store, encryption);
    process.stdout.write(`The store is encrypted with key id ${keyId}\n`);
    return 0;
  }
  if (cmd === 'rekey') {
    arity(rest, 0, 0, 'rekey --encryption-key-file F --new-key-file F2 [--new-key-id ID]');
    if (encryption === undefined) throw new UsageError('rekey needs the store\'s key: --encryption-key-file F');
    const next = keyFrom('--new-key-file', opts['new-key-file'], opts['new-key-id']);
    if (next === undefined) throw new UsageError('rekey needs the new key: --new-key-file F');
    const { keyId, moved } = await (await open()).rekey(next);
    process.stdout.write(`The store is encrypted with key id ${keyId} (${moved} values re-encrypted)\n`);
    return 0;
  }
  if (cmd === 'exec') {
    if (rest.length > 2) throw new UsageError("usage: memdir exec ['JSON']");
    return rest.length === 2 ? execOne(await open(), rest[1]) : execStream(await open());
  }
  if (cmd === 'import-dir') {
    arity(rest, 1, 1, 'import-dir DIR [--force]');
    return importDir(open, rest[1], opts.force === true);
  }
  if (cmd === 'export-dir') {
    arity(rest, 1, 1, 'export-dir DIR');
    return exportDir(await open(), rest[1]);
  }
  if (cmd === 'gc') {
    arity(rest, 0, 0, 'gc [--keep N]');
    const keep = opts.keep ?? String(defaults().keepCommits);
    if (!/^\d{1,9}$/.test(keep)) throw new UsageError('--keep needs a non-negative integer');
    const report = await (await open()).gc({ keepCommits: Number(keep) });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    // A pass deletes only what an earlier pass found unreferenced too: an object
    // unreferenced now may be one a command under way in another process has
    // written and is about to publish. Said, since a user who asked to delete
    // everything sees objects left (docs/cli.md).
    if (report.pending > 0) {
      const n = report.pending;
      process.stderr.write(
        `memdir gc: ${n} unreferenced object${n === 1 ? ' is' : 's are'} pending: a command under way in another process may be about to use ${n === 1 ? 'it' : 'them'}, so the next gc deletes ${n === 1 ? 'it if it is' : 'those'} still unreferenced then\n`,
      );
    }
    return 0;
  }
  if (cmd === 'expire') {
    arity(rest, 0, 0, 'expire --older-than D');
    if ((opts['older-than'] === undefined) === (opts['older-than-ms'] === undefined)) {
      throw new UsageError('expire needs --older-than D, a duration (30d), or the older --older-than-ms N');
    }
    let olderThanMs;
    if (opts['older-than'] !== undefined) olderThanMs = duration('--older-than', opts['older-than']);
    else if (/^\d{1,15}$/.test(opts['older-than-ms'])) olderThanMs = Number(opts['older-than-ms']);
    else throw new UsageError('--older-than-ms needs a whole number of milliseconds (or use --older-than D, as 30d)');
    const report = await (await open()).expire({ olderThanMs });
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return 0;
  }
  if (cmd === 'retain') {
    arity(rest, 0, 0, 'retain [--retention D]');
    const olderThanMs = duration('--retention', opts.retention ?? process.env.MEMDIR_RETENTION ?? ms(defaults().retentionMs));
    const memory = await open();
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
  if (cmd === 'search') {
    if (rest.length < 2) throw new UsageError('usage: memdir search QUERY [--limit N] [--prefix P] [--json] [--mode M] [--embedder FILE]');
    return searchCommand(await open(), rest.slice(1).join(' '), opts);
  }
  if (cmd === 'reindex') {
    arity(rest, 0, 0, 'reindex');
    const status = await (await open()).reindex();
    process.stdout.write(`${JSON.stringify(status)}\n`);
    return 0;
  }
  if (cmd === 'sync') {
    arity(rest, 0, 0, 'sync --remote-store ID [--remote URL] [--key-file FILE]');
    return syncCommand(open, opts);
  }
  const input = await shorthand(rest);
  if (!input) throw new UsageError(`unknown command "${cmd}"; memdir --help lists them`);
  const r = await (await open()).execute(input);
  if (r.is_error) {
    process.stderr.write(`${r.content}\n`);
    return 1;
  }
  process.stdout.write(`${r.content}\n`);
  return 0;
}

/**
 * `memdir search`: the hits as the engine words them for a model (`memory.find`:
 * path, score, numbered lines), or with --json as `memory.search` answers them.
 * The values of --limit and --prefix are the engine's to judge; a refusal is a
 * usage error in its words.
 */
async function searchCommand(memory, query, opts) {
  const limit = opts.limit === undefined ? undefined : /^\d{1,9}$/.test(opts.limit) ? Number(opts.limit) : opts.limit;
  const prefix = opts.prefix === undefined ? undefined : toPath(opts.prefix);
  const mode = opts.mode;
  let out;
  try {
    out = opts.json
      ? JSON.stringify(await memory.search(query, { limit, pathPrefix: prefix, mode }))
      : await memory.find({ query, limit, path_prefix: prefix, mode });
  } catch (e) {
    if (e?.kind === 'input') throw new UsageError(e.message);
    throw e;
  }
  process.stdout.write(`${out}\n`);
  return 0;
}

/**
 * `--embedder FILE`: the default export of the JS module FILE (an embedder
 * `{id, dims, embed(texts, kind)}`, or a function, maybe async, answering one),
 * `undefined` without the option. A module that cannot be loaded is a usage
 * error that names only what the user typed (its own error may name host paths).
 */
async function loadEmbedder(file) {
  if (file === undefined) return undefined;
  let mod;
  try {
    mod = await import(pathToFileURL(resolvePath(file)).href);
  } catch {
    throw new UsageError(`--embedder ${JSON.stringify(file)}: the module cannot be loaded`);
  }
  let embedder = mod.default;
  if (typeof embedder === 'function') embedder = await embedder();
  if (embedder === undefined || embedder === null) {
    throw new UsageError(`--embedder ${JSON.stringify(file)}: the module has no default export (an embedder {id, dims, embed})`);
  }
  return embedder;
}

/** `memdir sync`: one summary line, or the sync's error (exit 1). */
async function syncCommand(open, opts) {
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
    s = await (await open()).sync(options);
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
