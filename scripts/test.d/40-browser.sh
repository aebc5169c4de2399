#!/usr/bin/env bash
# Browser suite, all in headless Chromium (/usr/bin/chromium), after clippy over
# memdir-idb and its tests (the workspace's lints, warnings denied):
#  1. memdir-idb over real IndexedDB with wasm-bindgen-test: the store contract,
#     every conformance case, hostile path and tampered store, all-or-nothing at
#     every step, reopen;
#  2. Playwright (playwright-core) end to end: two tabs editing one memory file, the
#     memory explorer (www/) and a file's history in it (restore, redact, then a raw
#     read of all of IndexedDB), two IndexedDB stores mounted in one memory (one
#     read-only, its database read raw before and after; then every write path ×
#     access of tests/conformance/write-paths.mjs), two pages syncing their
#     memories through memdir serve from the Sync dialog, and the browser agent (the
#     official SDK in the page against a loopback fake Messages API); the explorer's
#     layout measured at 390×844, 1280×800 and 1440×860; screenshots go to
#     target/browser-test/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
# The runner's timeout covers a whole test binary (all its tests), in seconds.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-600}"

cargo clippy -p memdir-idb --target wasm32-unknown-unknown --all-targets -- -D warnings
cargo test -p memdir-idb --target wasm32-unknown-unknown

# The Playwright tests load the npm package's browser entry and the page's SDK
# bundle: make them if stale.
node --input-type=module -e "const m = await import('./www/serve.mjs'); m.buildIfNeeded(); await m.bundleSdkIfNeeded();"
node --test --test-concurrency=1 tests/browser/*.test.mjs
