#!/usr/bin/env bash
# Builds memdir's Python wheel into python/dist/: first the component the
# extension embeds (wasm32-wasip2, the same build memdir-host runs), then the
# abi3 extension with maturin from the venv scripts/setup.sh made.
#
# Profile: release (the workspace's: lto, one codegen unit). Measured against
# dev on the same workload (docs/python.md): dev built in 350 s instead of 485 s
# from an empty target/ (and reuses little of the host tests' dev build: Cargo
# built its wasmtime and Cranelift again for it); but the dev wheel's
# commands ran 3-5x slower, its first start compiled the component in 12-26 s
# instead of 2 s, and it weighed 14.8 MiB instead of 5.3 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
cargo build -p memdir-component --target wasm32-wasip2 --profile release-wasm
rm -rf python/dist
target/maturin-venv/bin/maturin build --manifest-path python/Cargo.toml --release --out python/dist "$@"
