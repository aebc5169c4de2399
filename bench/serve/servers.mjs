// The three server configurations of `npm run bench:serve`, each started fresh in
// its own temporary directory, in child processes started as the tests start them
// (tests/node/child-server.mjs, tests/node/pg-cluster.mjs). Every child, cluster and
// directory is registered as it is made, so `endAll()` (the bench calls it on exit,
// whatever the exit) leaves nothing running or on disk.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startListening, startServe } from '../../tests/node/child-server.mjs';
import { startPostgres as startCluster } from '../../tests/node/pg-cluster.mjs';

// A server prints its URL within this long, or the run fails.
const STARTUP_MS = 30_000;
// After SIGTERM a server is killed if it has not exited by then; the bench stops a
// server only once no call is under way, so it should exit at once.
const STOP_MS = 15_000;
const FLOOR = fileURLToPath(new URL('floor.mjs', import.meta.url));

const children = new Set();
const cleanups = new Set();

/** Kills every child still running and removes what was made; synchronous, for process 'exit'. */
export function endAll() {
  for (const child of children) child.kill('SIGKILL');
  for (const f of cleanups) {
    try {
      f();
    } catch {
      // the rest is still cleaned
    }
  }
}

const track = (child) => {
  children.add(child);
  child.once('exit', () => children.delete(child));
};

/** Registers `f` for endAll; returns a function that runs it now, once. */
function onEnd(f) {
  cleanups.add(f);
  return () => {
    if (cleanups.delete(f)) f();
  };
}

function tempDir(label) {
  const dir = mkdtempSync(join(tmpdir(), label));
  return { dir, remove: onEnd(() => rmSync(dir, { recursive: true, force: true })) };
}

const options = { timeoutMs: STARTUP_MS, onSpawn: track, nodeArgs: [] };

/** Every server started from now on writes a CPU profile into `dir` when it exits. */
export function profileInto(dir) {
  options.nodeArgs = ['--cpu-prof', '--cpu-prof-dir', dir];
}

/** Stops `servers` (SIGTERM, then SIGKILL past STOP_MS), then runs `after`. */
function stopper(servers, after) {
  return async () => {
    try {
      await Promise.all(servers.map((s) => s.stop(STOP_MS)));
    } finally {
      after();
    }
  };
}

/**
 * A configuration: {name, detail, urls (one per instance), stderr(), stop()}.
 * `key` is the API key every instance accepts.
 */
export async function startFloor(key) {
  const { dir, remove } = tempDir('memdir-bench-floor-');
  const s = await startListening([FLOOR, '--dir', dir], { ...process.env, MEMDIR_API_KEYS: key }, options);
  return {
    name: 'floor',
    detail: 'bench/serve/floor.mjs: node:http, one JSON file per memory, each write temp file + fsync + rename + fsync of the directory',
    urls: [s.url],
    stderr: () => s.stderr(),
    stop: stopper([s], remove),
  };
}

export async function startDirectory(key) {
  const { dir, remove } = tempDir('memdir-bench-dir-');
  const s = await startServe(['--store', dir], { MEMDIR_API_KEYS: key }, options);
  return {
    name: 'directory',
    detail: 'memdir serve --store DIR: one store directory per memory store (its default)',
    urls: [s.url],
    stderr: () => s.stderr(),
    stop: stopper([s], remove),
  };
}

/** Two instances on one database of a private cluster, fsync on; {skipped: why} without PostgreSQL. */
export const startPostgresPair = (key) => startPostgres(key, 2);
/** The same with one instance: what a second instance costs is the difference. */
export const startPostgresOne = (key) => startPostgres(key, 1);

async function startPostgres(key, count) {
  try {
    await import('pg');
  } catch {
    return { skipped: 'the pg package is not installed (npm install pg)' };
  }
  let cluster;
  try {
    cluster = await startCluster({ fsync: true });
  } catch (e) {
    const why = e.message.split('\n')[0];
    return { skipped: why.startsWith('PostgreSQL') ? why : `PostgreSQL did not start (${why})` };
  }
  const stopCluster = onEnd(() => cluster.stop());
  let servers;
  try {
    cluster.psql('CREATE DATABASE bench');
    const args = ['--store', cluster.url('bench')];
    const env = { MEMDIR_API_KEYS: key };
    servers = await Promise.all(Array.from({ length: count }, () => startServe(args, env, options)));
  } catch (e) {
    // An instance that did start is killed by endAll (tracked); the cluster goes now.
    stopCluster();
    throw e;
  }
  return {
    name: count === 2 ? 'postgres' : 'postgres1',
    detail:
      count === 2
        ? 'two memdir serve --store postgres://… on one database (a private cluster, fsync on); clients split across both'
        : 'one memdir serve --store postgres://… (a private cluster, fsync on)',
    urls: servers.map((s) => s.url),
    stderr: () => servers.map((s) => s.stderr()).join(''),
    stop: stopper(servers, stopCluster),
  };
}
