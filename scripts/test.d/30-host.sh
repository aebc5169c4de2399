#!/usr/bin/env bash
# wasmtime suite: clippy over the component (wasm32-wasip2) and the host (lib, CLI
# and tests) with the workspace's lints, warnings denied; build the memdir component
# for wasm32-wasip2, then memdir-host's tests, which run that component in the host
# over the memory and directory backends: every conformance case, hostile path and
# tampered store, the store contract, the sandbox (exact imports, fuel and memory
# limits, 100 MiB and non-UTF-8 input, a store failing mid-command), two CLI
# processes writing one
# directory store, and the Node CLI and memdir-host on one store directory (so the
# npm package is built first; a no-op when dist/ is current). (The tests also
# rebuild the component themselves if it is stale.)
set -euo pipefail
cd "$(dirname "$0")/../.."
node scripts/build.mjs
cargo clippy -p memdir-component --target wasm32-wasip2 -- -D warnings
cargo clippy -p memdir-host --all-targets -- -D warnings
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
cargo test -p memdir-host
