#!/usr/bin/env bash
# Builds memdir's Python wheel into python/dist/: first the component the
# extension embeds (wasm32-wasip2, the same build memdir-host runs), then the
# abi3 extension with maturin from the venv scripts/setup.sh made.
#
# Profile: dev (the workspace's, optimised nothing), which reuses the wasmtime
# that the host's tests already built. The wasm the engine runs is compiled by
# Cranelift either way and is as fast; what dev slows is the host's own code and
# the first compilation of the component, which the compile cache keeps after
# the first start. See docs/python.md for the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
rm -rf python/dist
target/maturin-venv/bin/maturin build --manifest-path python/Cargo.toml --profile dev --out python/dist "$@"
