#!/usr/bin/env bash
# What the Python package's build and tests need (scripts/setup.sh runs this):
# python3 with venv (Debian's python3-venv when missing), and maturin 1.16 from
# PyPI in a virtual environment of its own, target/maturin-venv, which
# python/build.sh runs. Nothing is installed into the system's Python.
set -euo pipefail
cd "$(dirname "$0")/../.."
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v python3 >/dev/null || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "setup: python3 and python3-venv (Debian)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq python3 python3-venv >/dev/null
fi

if ! target/maturin-venv/bin/maturin --version 2>/dev/null | grep -q '^maturin 1\.16\.'; then
  echo "setup: maturin 1.16 (PyPI, into target/maturin-venv)"
  rm -rf target/maturin-venv
  python3 -m venv target/maturin-venv
  target/maturin-venv/bin/pip install -q --disable-pip-version-check 'maturin==1.16.*'
fi
