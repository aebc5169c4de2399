// Whether the package's wasm in dist/ is older than the Rust it is built from, by
// modification times: the one rule `npm start`, the benches and `prepack` use to
// decide whether to build (prepack must not need cargo when dist/ is current).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir, seen = 0) {
  if (!existsSync(dir)) return seen;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) seen = newest(p, seen);
    else if (/\.(rs|toml)$/.test(e.name)) seen = Math.max(seen, statSync(p).mtimeMs);
  }
  return seen;
}

/** True when every build in dist/ (the full two and memdir/tool's lean two) exists and is newer than every source of them. */
export function distIsFresh(root) {
  const builds = ['', 'node', join('tool'), join('tool', 'node')].map((d) => join(root, 'dist', d, 'memdir_wasm_bg.wasm'));
  if (!builds.every((p) => existsSync(p))) return false;
  const sources = Math.max(
    newest(join(root, 'src')),
    newest(join(root, 'crates', 'memdir-wasm')),
    newest(join(root, 'crates', 'memdir-idb', 'src')),
    statSync(join(root, 'Cargo.toml')).mtimeMs,
    statSync(join(root, 'Cargo.lock')).mtimeMs,
  );
  return builds.every((p) => statSync(p).mtimeMs > sources);
}
