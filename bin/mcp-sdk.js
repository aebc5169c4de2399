// Where `memdir mcp` and `memdir serve`'s /mcp find the MCP SDK, an optional peer
// dependency that memdir does not install by itself. First where memdir itself
// resolves it (the SDK installed beside memdir: in one project, or both global);
// then from the working directory, for the path `claude mcp add … -- memdir mcp`
// takes: memdir installed globally, the SDK in the project it runs in, which
// memdir's own resolution never looks into.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const SDK = '@modelcontextprotocol/sdk';

/** The SDK version memdir is built and tested with: package.json's peerDependency, named once. */
export const SDK_VERSION = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).peerDependencies[SDK];

/** How to install the SDK, as every hint that it is missing says it. */
export const SDK_INSTALL = `npm install ${SDK}@${SDK_VERSION} in the project memdir runs in (or -g beside a global memdir)`;

/** The SDK is installed neither beside memdir nor in the working directory's project. */
export class SdkMissing extends Error {
  constructor() {
    super(`the MCP SDK (${SDK}) is installed neither beside memdir nor in the working directory's project`);
    this.name = 'SdkMissing';
  }
}

// Memdir's own resolution (from this file, as a static import would), then the
// working directory's. Node's require resolution stands in for the second: an ES
// module cannot resolve from another directory without a flag (import.meta.resolve's
// parent) on Node 20; it finds the SDK's CommonJS build, whose modules all come from
// that one build, so its classes and schemas still match each other.
const RESOLVERS = [
  (spec) => import.meta.resolve(spec),
  (spec) => pathToFileURL(createRequire(join(process.cwd(), 'noop.js')).resolve(spec)).href,
];

/**
 * The SDK's modules at `subpaths` (`server/index.js`, `types.js`, …), all from the
 * first installation that has every one; rejects with SdkMissing when none does.
 * A found SDK that fails to load (a dependency of its own missing) rejects with
 * that failure.
 */
export async function importSdk(...subpaths) {
  for (const resolve of RESOLVERS) {
    let urls;
    try {
      urls = subpaths.map((p) => resolve(`${SDK}/${p}`));
    } catch {
      continue;
    }
    return Promise.all(urls.map((url) => import(url)));
  }
  throw new SdkMissing();
}
