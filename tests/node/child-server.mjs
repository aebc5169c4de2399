// A server in a child process that prints the URL it listens on as its first line
// of stdout (`memdir serve`, bench/serve/floor.mjs). Kept apart from helpers.mjs,
// which registers node:test hooks, so that a bench can start servers the way the
// tests do without turning itself into a test file.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The memdir CLI. */
export const MEMDIR_BIN = fileURLToPath(new URL('../../bin/memdir.js', import.meta.url));

/**
 * Runs Node on `args` with exactly `env` and resolves {url, child, stderr(), stop()}
 * once the child prints its first line. Options: `timeoutMs` (the child is killed
 * and the promise rejects if no line comes by then; default: no bound, as the test
 * runner bounds a test), `onSpawn(child)` (called at once, so a caller can kill it
 * on its own exit even before it listens), `nodeArgs` (Node's own flags, before the
 * script: a bench's --cpu-prof), `cwd` (the child's working directory; default
 * this process's). `stop(killAfterMs?)` sends SIGTERM and
 * resolves {code, signal} once it exits; with `killAfterMs`, a child still running
 * then gets SIGKILL.
 */
export function startListening(args, env, { timeoutMs, onSpawn, nodeArgs = [], cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...args], { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    onSpawn?.(child);
    let stdout = '';
    let stderr = '';
    let timer;
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`${args.join(' ')} printed no URL within ${timeoutMs} ms: ${stderr}`));
      }, timeoutMs);
    }
    const exited = new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      const nl = stdout.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve({
          url: stdout.slice(0, nl),
          child,
          stderr: () => stderr,
          stop: (killAfterMs) => {
            child.kill('SIGTERM');
            if (killAfterMs !== undefined) {
              const kill = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
              exited.then(() => clearTimeout(kill));
            }
            return exited;
          },
        });
      }
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited ${code} before listening: ${stderr}`));
    });
  });
}

/** Starts `memdir serve` on a free port, with no key unless `env` gives one. */
export function startServe(args, env = {}, options = {}) {
  return startListening([MEMDIR_BIN, 'serve', '--port', '0', ...args], { ...process.env, MEMDIR_API_KEYS: '', ...env }, options);
}
