#!/usr/bin/env bash
# Package suite: the package as a user installs it. `npm pack` from the working tree,
# the tarball installed into a scratch project in the system's temp directory with
# the SDK, Vite, wrangler, miniflare and playwright-core at the locked versions (from
# the npm cache), then run there on Node (the SDK's betaMemoryTool and tool runner),
# bundled by Vite into a page in headless Chromium over IndexedDB, and bundled by
# wrangler into a Worker served by workerd. Prints the tarball's size and step times.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
# wrangler must not try to reach its telemetry service.
export WRANGLER_SEND_METRICS=false
node scripts/build.mjs
node --test tests/package/*.test.mjs
