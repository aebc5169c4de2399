#!/usr/bin/env bash
# The wasmtime face's figures: component size (raw and gzipped), compile, cache
# load and instantiation times, and per-call latency through the component in the
# host against the native engine: path refusals (no storage: the boundary alone),
# a session of commands over the memory backend and over the directory backend.
# Usage: bash bench/host/run.sh [ROUNDS]   (figures vary with machine load)
#
# The host is built optimised but without the release profile's LTO (which costs a
# long single-threaded link of all of wasmtime), in its own target subdirectory so
# it does not disturb target/release.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
wasm="${CARGO_TARGET_DIR:-target}/wasm32-wasip2/release-wasm/memdir_component.wasm"
echo "component gzipped (-9): $(gzip -9 -c "$wasm" | wc -c) bytes"
CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
  cargo run -q -p memdir-host --release --target-dir "${CARGO_TARGET_DIR:-target}/bench-host" \
  --example bench -- "$wasm" "${1:-200}"
