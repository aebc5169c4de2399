#!/usr/bin/env bash
# Installs everything memdir's builds and tests need on a fresh Debian machine with
# rustup, Node 20 and npm: the wasm targets, the wasm-bindgen CLI pinned to the
# version in Cargo.lock, Chromium + ChromeDriver, PostgreSQL, and the npm packages. Safe to re-run:
# each step is skipped when its tool is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

echo "setup: rust targets (rust-toolchain.toml)"
rustup target add wasm32-unknown-unknown wasm32-wasip2 >/dev/null

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$want" ]; then
  echo "setup: wasm-bindgen-cli $want (a few minutes)"
  # --locked fails on this registry mirror; the exact version pin is what matters.
  cargo install wasm-bindgen-cli --version "=$want"
fi

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  echo "setup: chromium and chromium-driver (Debian)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq chromium chromium-driver >/dev/null
fi

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  # The PostgreSQL store's tests start a private cluster of their own (initdb in a
  # temporary directory); nothing here runs a server.
  echo "setup: postgresql (Debian)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq postgresql >/dev/null
fi

echo "setup: npm packages"
npm ci --no-audit --no-fund --loglevel=error

for extra in scripts/setup.d/*.sh; do
  [ -e "$extra" ] && bash "$extra"
done
echo "setup: done"
