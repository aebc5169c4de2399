#!/usr/bin/env bash
# Node suite: clippy over the package's wasm-bindgen crate (memdir-wasm, with the
# workspace's lints, warnings denied; without and with feature indexeddb), the npm
# package built from the engine (npm run build, a no-op when dist/ is current), then
# every tests/node/*.test.mjs with Node's test runner: the conformance data on three
# stores, the tampered stores on the directory and a custom store, the real SDK tool
# runner against a loopback fake API, the side-by-side with the SDK's filesystem
# tool, malformed inputs and misbehaving stores, the CLI end to end, each wasm
# build's gzipped size against its ceiling, the wasm heap growing in a few steps; and the .d.ts checked with tsc against
# the SDK's own types (the memory object must fit the SDK's betaMemoryTool), and each
# runtime's types holding only what its entry exports (Node's and a bundler's browser resolution).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo clippy -p memdir-wasm --target wasm32-unknown-unknown --all-targets -- -D warnings
# The browser build's feature too: its IndexedDB store is compiled only with it.
cargo clippy -p memdir-wasm --target wasm32-unknown-unknown --all-targets --features indexeddb -- -D warnings
# And the lean builds' (memdir/tool), which leave every face but the memory tool out.
cargo clippy -p memdir-wasm --target wasm32-unknown-unknown --all-targets --features tool -- -D warnings
cargo clippy -p memdir-wasm --target wasm32-unknown-unknown --all-targets --features indexeddb,tool -- -D warnings
node scripts/build.mjs
node node_modules/typescript/bin/tsc -p tests/node/types/tsconfig.dts.json
node node_modules/typescript/bin/tsc -p tests/node/types
node node_modules/typescript/bin/tsc -p tests/node/types/tsconfig.browser.json
node --test --test-concurrency=2 tests/node/*.test.mjs
