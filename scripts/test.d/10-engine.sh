#!/usr/bin/env bash
# The engine: rustfmt (--check, every member), clippy with the workspace's lints (unwrap/expect/panic/indexing and
# unsafe code denied) over the no_std library and every target (tests, bench),
# builds with default features off for both wasm targets (the no_std core), then
# cargo test: unit tests, the conformance data, the hostile paths, all-or-nothing at
# every failure point, interleaved writers, store-operation costs, garbage
# collection and the model test. The fuzz targets (their own workspace, run by
# fuzz/run.sh) are formatted, linted and compiled here, so none of them rots unseen.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo fmt --all --check
cargo clippy -p memdir --lib --no-default-features -- -D warnings
cargo clippy -p memdir --all-targets -- -D warnings
for target in wasm32-unknown-unknown wasm32-wasip2; do
  cargo build -p memdir --lib --no-default-features --target "$target"
done
cargo fmt --manifest-path fuzz/Cargo.toml --check
CARGO_TARGET_DIR=target/fuzz-check cargo clippy --manifest-path fuzz/Cargo.toml --bins -- -D warnings
cargo test -p memdir
