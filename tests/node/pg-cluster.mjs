// A private PostgreSQL cluster for the tests: initdb in a temporary directory, the
// server on 127.0.0.1 at a free port with its socket in that directory, trust
// authentication (nothing else can reach it), or with `password` a password asked
// of every TCP connection (SCRAM), stopped and removed at the end.
// Run as the `postgres` user when the tests run as root (initdb refuses root).
// Also bench/serve/'s PostgreSQL, which keeps fsync on so its writes are as durable
// as those it is compared with.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Debian puts each major version's programs in /usr/lib/postgresql/<major>/bin;
// the newest installed is used (scripts/setup.sh installs Debian's postgresql).
const BIN =
  process.env.MEMDIR_PG_BIN ??
  (existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((v) => /^\d+$/.test(v) && existsSync(`/usr/lib/postgresql/${v}/bin/initdb`))
        .sort((a, b) => b - a)
        .map((v) => `/usr/lib/postgresql/${v}/bin`)[0]
    : undefined);

// initdb, pg_ctl and psql each get this long (pg_ctl's own -t is 30 s).
const PROGRAM_TIMEOUT_MS = 120_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function asOwner(cmd, args, env = process.env) {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args]] : [join(BIN, cmd), args];
  // Bounded: a tool that hangs (a cluster that never comes up) fails the caller.
  return execFileSync(file, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: PROGRAM_TIMEOUT_MS, env }).toString();
}

/**
 * Starts a cluster; `url(db)` names a database in it, `stop()` ends and removes it.
 * `fsync: false` (the tests' default) trades durability for speed; a benchmark of
 * durable writes passes `true`.
 */
export async function startPostgres({ fsync = false, password } = {}) {
  if (BIN === undefined) throw new Error('PostgreSQL is not installed (bash scripts/setup.sh installs it)');
  const dir = mkdtempSync(join(tmpdir(), 'memdir-pg-'));
  if (process.getuid?.() === 0) {
    const ids = execFileSync('id', ['-u', 'postgres']).toString().trim();
    const gid = execFileSync('id', ['-g', 'postgres']).toString().trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  const data = join(dir, 'data');
  const port = await freePort();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    try {
      asOwner('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // Whatever ends the process (a hook that never settles, an uncaught error), no
  // cluster outlives it: the handler runs the stop synchronously.
  process.on('exit', stop);
  try {
    let auth = ['-A', 'trust'];
    if (password !== undefined) {
      const pwfile = join(dir, 'pwfile');
      writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
      if (process.getuid?.() === 0) chownSync(pwfile, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
      auth = ['--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${pwfile}`];
    }
    asOwner('initdb', ['-D', data, ...auth, '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
    const opts = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${dir}${fsync ? '' : ' -c fsync=off'} -c max_connections=100`;
    asOwner('pg_ctl', ['-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', '-t', '30', 'start']);
  } catch (e) {
    // A cluster that failed to come up leaves no server (one pg_ctl gave up on may
    // still start) and no directory behind.
    try {
      stop();
    } catch {
      // nothing was running
    }
    throw e;
  }
  return {
    port,
    url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`,
    psql: (sql, db = 'postgres') =>
      asOwner('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-Atqc', sql], password === undefined ? process.env : { ...process.env, PGPASSWORD: password }),
    /** The database `db` as pg_dump writes it (plain SQL; bytea values in hex). */
    dump: (db = 'postgres') => asOwner('pg_dump', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db], password === undefined ? process.env : { ...process.env, PGPASSWORD: password }),
    stop,
  };
}
