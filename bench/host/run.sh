#!/usr/bin/env bash
# The wasmtime face's figures: component size (raw and gzipped), compile, cache
# load and instantiation times, and per-command latency through the component in
# the host against the native engine (memory and directory backends).
# Usage: bash bench/host/run.sh [ROUNDS]   (release builds; figures vary with load)
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
wasm="${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release-wasm/memdir_component.wasm"
echo "component gzipped (-9): $(gzip -9 -c "$wasm" | wc -c) bytes"
cargo run -q -p memdir-host --release --example bench -- "$wasm" "${1:-200}"
