#!/usr/bin/env bash
# Browser suite, all in headless Chromium (/usr/bin/chromium), after clippy over
# memdir-idb and its tests (the workspace's lints, warnings denied):
#  1. memdir-idb over real IndexedDB with wasm-bindgen-test: the store contract,
#     every conformance case, hostile path and tampered store, all-or-nothing at
#     every step, reopen;
#  2. Playwright (playwright-core) end to end: two tabs editing one memory file, and
#     the memory explorer (www/), which saves a screenshot to target/browser-test/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
# The runner's timeout covers a whole test binary (all its tests), in seconds.
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-600}"

cargo clippy -p memdir-idb --target wasm32-unknown-unknown --all-targets -- -D warnings
cargo test -p memdir-idb --target wasm32-unknown-unknown

# The Playwright tests load the npm package's browser entry: build it if stale.
node --input-type=module -e "const m = await import('./www/serve.mjs'); m.buildIfNeeded();"
node --test --test-concurrency=1 tests/browser/
